"""Who may run now, when several checks run at once: up to `width` checks side by side, or
one alone (while it reads what the others would write: an export of the whole store).

Entries are let in first come, first served, so the check the runner waits for next is
never overtaken for long, and a check waiting to run alone keeps later ones out until it
has run. A check already running that moves between a shared and an alone seat goes to
the head of the line. Each entry is a `Pass`, left once: a check whose call was given up
(its thread stuck in the driver) is let out by whoever gave it up, and its own thread's
leaving later changes nothing.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

__all__ = ["Gate", "Pass"]


@dataclass(eq=False)
class Pass:
    """One entry through the gate, shared or alone."""

    alone: bool
    left: bool = field(default=False)


class Gate:
    """Up to `width` shared entries at once, or one alone, in the order they came."""

    def __init__(self, width: int) -> None:
        self.width = max(1, width)
        self._changed = threading.Condition()
        self._line: deque[Pass] = deque()
        self._shared = 0
        self._alone = False

    def enter(self, alone: bool, *, first: bool = False, wait: float = 0.05) -> Pass:
        """Wait for a turn and room, and enter; `first`: at the head of the line. The wait
        wakes every `wait` s, so the thread can be interrupted (the time limit, Ctrl-C)."""
        entry = Pass(alone)
        with self._changed:
            if first:
                self._line.appendleft(entry)
            else:
                self._line.append(entry)
            try:
                while not (self._line[0] is entry and self._room(alone)):
                    self._changed.wait(wait)
            except BaseException:
                self._line.remove(entry)
                self._changed.notify_all()
                raise
            self._line.popleft()
            if alone:
                self._alone = True
            else:
                self._shared += 1
            self._changed.notify_all()
        return entry

    def resize(self, width: int) -> None:
        """Let up to `width` shared entries in from now on."""
        with self._changed:
            self.width = max(1, width)
            self._changed.notify_all()

    def _room(self, alone: bool) -> bool:
        if self._alone:
            return False
        return self._shared == 0 if alone else self._shared < self.width

    def leave(self, entry: Pass) -> None:
        """Let `entry` out (once: a second leave does nothing)."""
        with self._changed:
            if entry.left:
                return
            entry.left = True
            if entry.alone:
                self._alone = False
            else:
                self._shared -= 1
            self._changed.notify_all()

    @property
    def inside(self) -> int:
        """How many entries are inside now."""
        with self._changed:
            return self._shared + int(self._alone)
