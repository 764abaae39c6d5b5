"""Who may run now, when several checks run at once: up to `width` checks side by side, or
one alone (while it reads what the others would write: an export of the whole store).

Nothing overtakes the entry the gate lets in next, so a check waiting to run alone keeps
later ones out until it has run. Which entry is next: a check already running that moves
between a shared and an alone seat (or the driver's rebuild), then the checks that run
alone (each costs the others a wait whenever it comes, so they come while the others
have not started), then, while several may run at once, the one that makes the most
driver calls (longest first: a run does not end waiting on one long check started
last), those marked `late` after all others, and, one at a time (or unless `by_cost`),
the one queued first (the runner's own order). Each entry is a `Pass`, left once: a check
whose call was given up (its thread stuck in the driver) is let out by whoever gave it
up, and its own thread's leaving later changes nothing.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Gate", "Pass"]


@dataclass(eq=False)
class Pass:
    """One entry through the gate, shared or alone."""

    alone: bool
    cost: int = 0
    """Driver calls expected: while several run at once, the costliest goes first."""
    first: bool = False
    """A check already running (or the driver's rebuild): before any other."""
    late: bool = False
    """While several run at once, after every entry not late (a check reading the whole
    store: it waits for the others' entries to be gone)."""
    seq: int = 0
    on_seated: Callable[[Pass], None] | None = None
    """Called (under the gate's lock) when the entry gets in; None: a thread waits."""
    seated: bool = field(default=False)
    left: bool = field(default=False)


class Gate:
    """Up to `width` shared entries at once, or one alone, in the order the module says."""

    def __init__(self, width: int, *, by_cost: bool = True) -> None:
        """`by_cost`: several at once, the costliest first (else in the order queued)."""
        self.width = max(1, width)
        self.by_cost = by_cost
        self._changed = threading.Condition()
        self._line: list[Pass] = []
        self._shared = 0
        self._alone = False
        self._seq = itertools.count()

    def queue(
        self,
        alone: bool,
        on_seated: Callable[[Pass], None],
        *,
        cost: int = 0,
        first: bool = False,
        late: bool = False,
    ) -> Pass:
        """Join the line without waiting: `on_seated(entry)` runs once it gets in (it must
        not wait on the gate: it starts the thread that runs the entry's check)."""
        entry = Pass(alone, cost, first, late, next(self._seq), on_seated)
        with self._changed:
            self._line.append(entry)
            self._seat()
        return entry

    def move(self, entry: Pass, alone: bool, *, wait: float = 0.05) -> Pass:
        """Leave `entry` and enter again (alone or shared) before any check not yet
        running; nothing gets in between, so no check starts in the room it left."""
        moved = Pass(alone, first=True, seq=next(self._seq))
        with self._changed:
            self._line.append(moved)
            self._leave(entry)
            self._wait_seated(moved, wait)
        return moved

    def withdraw(self, entry: Pass) -> None:
        """Take `entry` out of the line if it has not got in (once in, it leaves itself)."""
        with self._changed:
            if entry in self._line:
                self._line.remove(entry)
                self._seat()

    def resize(self, width: int, *, by_cost: bool = True) -> None:
        """Let up to `width` shared entries in from now on (`by_cost`: as in `Gate`)."""
        with self._changed:
            self.width = max(1, width)
            self.by_cost = by_cost
            self._seat()

    def leave(self, entry: Pass) -> None:
        """Let `entry` out (once: a second leave does nothing)."""
        with self._changed:
            self._leave(entry)

    @property
    def inside(self) -> int:
        """How many entries are inside now."""
        with self._changed:
            return self._shared + int(self._alone)

    @property
    def waiting(self) -> int:
        """How many entries wait in line."""
        with self._changed:
            return len(self._line)

    # -- under the lock --------------------------------------------------------------------

    def _wait_seated(self, entry: Pass, wait: float) -> None:
        try:
            while not entry.seated:
                self._changed.wait(wait)
        except BaseException:
            if entry.seated:
                self._leave(entry)
            else:
                self._line.remove(entry)
                self._seat()
            raise

    def _leave(self, entry: Pass) -> None:
        if entry.left or not entry.seated:
            return
        entry.left = True
        if entry.alone:
            self._alone = False
        else:
            self._shared -= 1
        self._seat()

    def _seat(self) -> None:
        """Let in the entries next in line while there is room for them."""
        while self._line:
            entry = min(self._line, key=self._order)
            if not self._room(entry.alone):
                break
            self._line.remove(entry)
            entry.seated = True
            if entry.alone:
                self._alone = True
            else:
                self._shared += 1
            if entry.on_seated is not None:
                entry.on_seated(entry)
        self._changed.notify_all()

    def _order(self, entry: Pass) -> tuple[int, int, int]:
        if entry.first:
            return (0, 0, entry.seq)
        if entry.alone:
            return (1, 0, entry.seq)
        if self.width == 1 or not self.by_cost:
            return (2, 0, entry.seq)
        return (3 if entry.late else 2, -entry.cost, entry.seq)

    def _room(self, alone: bool) -> bool:
        if self._alone:
            return False
        return self._shared == 0 if alone else self._shared < self.width
