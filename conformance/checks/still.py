"""A read that holds only over a store nobody else writes to, while checks run at once.

An export pages through the whole store, and the contract lets an offset cursor miss or
repeat entries as any write moves them (cursors.md#writes-between-pages), so a check
reading one asks for a still store: inside `still_store()`, every other check's next
write waits until the block ends, and the block starts once the writes under way have
returned. Reads go on meanwhile (they move nothing), and the other checks keep their
seats; still blocks that only read run side by side, one that writes (its own writes
between its own pages) runs while no other does. A block holds one store still: the
provider's (its families included) or the engine's, two profiles that hold apart what
they are given, so an engine check's writes go on while a provider check exports. Run
serially (no `CallGate` in this context) the block changes nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from typing import Final, Literal

__all__ = ["WRITES", "CallGate", "holding_still", "in_turn", "still_store", "using"]

WRITES: Final = frozenset(
    {
        "store",
        "store_many",
        "forget",
        "import_records",
        "put_document",
        "delete_document",
        "clear_namespace",
    }
)
"""The operations of either profile that change the store. A call the kit cannot name
(a check's own callable) counts as a write."""

Store = Literal["engine", "provider"]
"""Which store a call reads or writes: the engine's, or the provider's (its families too)."""
STORES: Final[tuple[Store, ...]] = ("engine", "provider")

_WAIT: Final = 0.05
"""Seconds a wait lasts between two chances to be interrupted (the time limit, Ctrl-C)."""


class CallGate:
    """Writes of the checks running at once, and the still blocks among them, per store:
    the engine's, and the provider's (its families included). A write the kit cannot
    place (a check's own callable) is a write to both."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._calls: dict[tuple[str, Store], int] = {}
        """Writes under way, by the name of the thread making them and their store."""
        self._still: dict[str, tuple[bool, Store]] = {}
        """The threads whose still block runs, with its store and whether it writes (then it
        runs alone among the still blocks of its store; several that only read may share)."""
        self._waiting: dict[Store, int] = dict.fromkeys(STORES, 0)
        self._writers: dict[Store, int] = dict.fromkeys(STORES, 0)
        """Still blocks that write waiting to start: a block that only reads waits behind
        them, or a run of exports would keep one out to the end."""
        self.calls = 0
        """Driver calls made through the gate (a count for the warm-up; racing increments
        may be lost, which a rate does not mind)."""
        self.on_call: Callable[[], None] | None = None
        """Called at every driver call (the warm-up deciding how many run at once)."""

    @contextlib.contextmanager
    def write(self, store: Store | None = None) -> Iterator[None]:
        """One write to `store` (None: to both): it waits while another thread's still
        block of that store runs, or waits to."""
        me = threading.current_thread().name
        stores = STORES if store is None else (store,)
        with self._changed:
            while self._kept_out(me, stores):
                self._changed.wait(_WAIT)
            for one in stores:
                self._calls[me, one] = self._calls.get((me, one), 0) + 1
        try:
            yield
        finally:
            self._ended(me, stores)

    @contextlib.contextmanager
    def still(self, store: Store, *, writes: bool = False) -> Iterator[None]:
        """Wait for every other thread's writes to `store` to return, then keep them out
        until the block ends (re-entered by the same thread, it changes nothing). Blocks
        that only read run side by side; one that `writes` runs while no other still block
        of its store does."""
        me = threading.current_thread().name
        with self._changed:
            entered = me not in self._still
            if entered:
                self._waiting[store] += 1
                self._writers[store] += writes
                try:
                    while self._still_waits(me, store, writes):
                        self._changed.wait(_WAIT)
                finally:
                    self._waiting[store] -= 1
                    self._writers[store] -= writes
                self._still[me] = (writes, store)
        if not entered:
            yield
            return
        try:
            yield
        finally:
            with self._changed:
                self._still.pop(me, None)
                self._changed.notify_all()

    def holding(self, thread: str) -> bool:
        """Whether `thread`'s still block runs."""
        with self._changed:
            return thread in self._still

    def forget(self, thread: str) -> None:
        """The calls of `thread` were given up (it is stuck in the driver): its writes no
        longer keep a still block waiting."""
        with self._changed:
            for key in [key for key in self._calls if key[0] == thread]:
                del self._calls[key]
            self._still.pop(thread, None)
            self._changed.notify_all()

    # -- under the lock ------------------------------------------------------------------

    def _kept_out(self, me: str, stores: tuple[Store, ...]) -> bool:
        """A write of `me` to `stores` waits: another thread's still block of one of them
        runs, or one waits to start and `me` neither holds one nor has writes under way
        (those must return for it to start)."""
        if any(name != me and still[1] in stores for name, still in self._still.items()):
            return True
        if me in self._still or any(self._calls.get((me, one)) for one in stores):
            return False
        return any(self._waiting[one] for one in stores)

    def _still_waits(self, me: str, store: Store, writes: bool) -> bool:
        if any(n for (name, one), n in self._calls.items() if name != me and one == store):
            return True
        blocks = [still for still in self._still.values() if still[1] == store]
        if not writes and self._writers[store]:
            return True
        return bool(blocks) and (writes or any(writing for writing, _ in blocks))

    def _ended(self, me: str, stores: tuple[Store, ...]) -> None:
        with self._changed:
            for one in stores:
                left = self._calls.get((me, one), 0) - 1
                if left > 0:
                    self._calls[me, one] = left
                else:
                    self._calls.pop((me, one), None)
            self._changed.notify_all()


_gate: contextvars.ContextVar[CallGate | None] = contextvars.ContextVar(
    "tinymemory_call_gate", default=None
)


def using(gate: CallGate) -> None:
    """Calls made in this context from now on go through `gate`."""
    _gate.set(gate)


@contextlib.contextmanager
def in_turn(method: str | None, face: str | None = None) -> Iterator[None]:
    """One driver call of `method` (None: unnamed) on `face` (`engine`, `provider`, a
    provider family; None: unknown); a write waits its turn while another check's still
    block of its store runs."""
    gate = _gate.get()
    if gate is None:
        yield
        return
    gate.calls += 1
    hook = gate.on_call
    if hook is not None:
        hook()
    if method is not None and method not in WRITES:
        yield
        return
    with gate.write(None if face is None else "engine" if face == "engine" else "provider"):
        yield


def holding_still() -> bool:
    """Whether this thread runs a still block (of checks run at once)."""
    gate = _gate.get()
    return gate is not None and gate.holding(threading.current_thread().name)


@contextlib.contextmanager
def still_store(store: Store = "provider", *, writes: bool = False) -> Iterator[None]:
    """The block runs while no other check writes to `store` (when checks run at once;
    serially it changes nothing). It must not write unless it says it `writes`: then no
    other check's still block of `store` runs beside it either (its writes would move
    their reads)."""
    gate = _gate.get()
    if gate is None:
        yield
        return
    with gate.still(store, writes=writes):
        yield
