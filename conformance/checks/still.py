"""A read that holds only over a store nobody else writes to, while checks run at once.

An export pages through the whole store, and the contract lets an offset cursor miss or
repeat entries as any write moves them (cursors.md#writes-between-pages), so a check
reading one asks for a still store: inside `still_store()`, every other check's next
write waits until the block ends, and the block starts once the writes under way have
returned. Reads go on meanwhile (they move nothing), and the other checks keep their
seats; still blocks that only read run side by side, one that writes (its own writes
between its own pages) runs while no other does. Run serially (no `CallGate` in this
context) the block changes nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from typing import Final

__all__ = ["WRITES", "CallGate", "in_turn", "still_store", "using"]

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

_WAIT: Final = 0.05
"""Seconds a wait lasts between two chances to be interrupted (the time limit, Ctrl-C)."""


class CallGate:
    """Writes of the checks running at once, and the still blocks among them."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._calls: dict[str, int] = {}
        """Writes under way, by the name of the thread making them."""
        self._still: dict[str, bool] = {}
        """The threads whose still block runs: True for one that writes in it (it runs
        alone among still blocks), False for one that only reads (several may share)."""
        self._waiting = 0
        self.calls = 0
        """Driver calls made through the gate (a count for the warm-up; racing increments
        may be lost, which a rate does not mind)."""
        self.on_call: Callable[[], None] | None = None
        """Called at every driver call (the warm-up deciding how many run at once)."""

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """One write: it waits while another thread's still block runs."""
        me = threading.current_thread().name
        with self._changed:
            while self._others_still(me) or (
                self._waiting and me not in self._still and not self._calls.get(me)
            ):
                self._changed.wait(_WAIT)
            self._calls[me] = self._calls.get(me, 0) + 1
        try:
            yield
        finally:
            self._ended(me)

    @contextlib.contextmanager
    def still(self, *, writes: bool = False) -> Iterator[None]:
        """Wait for every other thread's writes to return, then keep them out until the
        block ends (re-entered by the same thread, it changes nothing). Blocks that only
        read run side by side; one that `writes` runs while no other still block does."""
        me = threading.current_thread().name
        with self._changed:
            if me in self._still:
                yield
                return
            self._waiting += 1
            try:
                while any(n for name, n in self._calls.items() if name != me) or (
                    self._still and (writes or any(self._still.values()))
                ):
                    self._changed.wait(_WAIT)
            finally:
                self._waiting -= 1
            self._still[me] = writes
        try:
            yield
        finally:
            with self._changed:
                self._still.pop(me, None)
                self._changed.notify_all()

    def forget(self, thread: str) -> None:
        """The calls of `thread` were given up (it is stuck in the driver): its writes no
        longer keep a still block waiting."""
        with self._changed:
            self._calls.pop(thread, None)
            self._still.pop(thread, None)
            self._changed.notify_all()

    def _others_still(self, me: str) -> bool:
        return any(name != me for name in self._still)

    def _ended(self, me: str) -> None:
        with self._changed:
            left = self._calls.get(me, 0) - 1
            if left > 0:
                self._calls[me] = left
            else:
                self._calls.pop(me, None)
            self._changed.notify_all()


_gate: contextvars.ContextVar[CallGate | None] = contextvars.ContextVar(
    "tinymemory_call_gate", default=None
)


def using(gate: CallGate) -> None:
    """Calls made in this context from now on go through `gate`."""
    _gate.set(gate)


@contextlib.contextmanager
def in_turn(method: str | None) -> Iterator[None]:
    """One driver call of `method` (None: unnamed); a write waits its turn while another
    check's still block runs."""
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
    with gate.write():
        yield


@contextlib.contextmanager
def still_store(*, writes: bool = False) -> Iterator[None]:
    """The block runs while no other check writes (when checks run at once; serially it
    changes nothing). It must not write unless it says it `writes`: then no other check's
    still block runs beside it either (its writes would move their reads)."""
    gate = _gate.get()
    if gate is None:
        yield
        return
    with gate.still(writes=writes):
        yield
