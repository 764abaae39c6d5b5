"""A read that holds only over a store nobody else writes to, while checks run at once.

An export pages through the whole store, and the contract lets an offset cursor miss or
repeat entries as any write moves them (cursors.md#writes-between-pages), so a check
reading one asks for a still store: inside `still_store()`, every other check's next
write waits until the block ends, and the block starts once the writes under way have
returned. Reads go on meanwhile (they move nothing), and the other checks keep their
seats. Run serially (no `CallGate` in this context) the block changes nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
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
    """Writes of the checks running at once, and the one still block among them."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._calls: dict[str, int] = {}
        """Writes under way, by the name of the thread making them."""
        self._still: str | None = None
        """The thread whose still block runs."""
        self._waiting = 0
        self.calls = 0
        """Driver calls made through the gate (a count for the warm-up; racing increments
        may be lost, which a rate does not mind)."""

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """One write: it waits while another thread's still block runs."""
        me = threading.current_thread().name
        with self._changed:
            while (self._still is not None and self._still != me) or (
                self._waiting and self._still != me and not self._calls.get(me)
            ):
                self._changed.wait(_WAIT)
            self._calls[me] = self._calls.get(me, 0) + 1
        try:
            yield
        finally:
            self._ended(me)

    @contextlib.contextmanager
    def still(self) -> Iterator[None]:
        """Wait for every other thread's writes to return, then keep them out until the
        block ends (re-entered by the same thread, it changes nothing)."""
        me = threading.current_thread().name
        with self._changed:
            if self._still == me:
                yield
                return
            self._waiting += 1
            try:
                while self._still is not None or any(
                    n for name, n in self._calls.items() if name != me
                ):
                    self._changed.wait(_WAIT)
            finally:
                self._waiting -= 1
            self._still = me
        try:
            yield
        finally:
            with self._changed:
                self._still = None
                self._changed.notify_all()

    def forget(self, thread: str) -> None:
        """The calls of `thread` were given up (it is stuck in the driver): its writes no
        longer keep a still block waiting."""
        with self._changed:
            self._calls.pop(thread, None)
            if self._still == thread:
                self._still = None
            self._changed.notify_all()

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
    if method is not None and method not in WRITES:
        yield
        return
    with gate.write():
        yield


@contextlib.contextmanager
def still_store() -> Iterator[None]:
    """The block runs while no other check writes (when checks run at once; serially it
    changes nothing)."""
    gate = _gate.get()
    if gate is None:
        yield
        return
    with gate.still():
        yield
