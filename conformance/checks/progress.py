"""Progress of a check that runs long (a slow driver, a check of many calls): its driver
calls so far and its time, on the terminal only (`conformance.progress`).

Quiet for a check that ends within `LONG_CHECK` seconds, so a fast driver's run shows
nothing; past it, a line at most once per the listener's interval, and a last one when
the check ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from conformance import clock
from conformance.progress import INTERVAL, Listener, installed

__all__ = ["LONG_CHECK", "CheckMeter", "CheckProgress"]

LONG_CHECK: Final = 5.0
"""Seconds a check runs before its progress is shown."""


@dataclass(frozen=True)
class CheckProgress:
    """Where one running check stands."""

    check_id: str
    calls: int
    """Driver calls made so far."""
    elapsed: float
    final: bool = False
    """The check has ended."""

    def line(self) -> str:
        """`[tinymemory] provider.health: 40 driver calls, 12.3 s`, `..., done` at the end."""
        state = ", done" if self.final else ""
        plural = "s" * (self.calls != 1)
        return (
            f"[tinymemory] {self.check_id}: {self.calls} driver call{plural}, "
            f"{self.elapsed:.1f} s{state}"
        )


class CheckMeter:
    """One check's progress, sent to the listener installed when it was made: nothing for
    its first `LONG_CHECK` seconds, then at most once per the listener's interval."""

    def __init__(self, check_id: str, *, now: Callable[[], float] = clock.perf_counter) -> None:
        self.check_id = check_id
        listener = installed()
        self.listener: Listener | None = None if listener is None else listener[0]
        self.interval = INTERVAL if listener is None else listener[1]
        self.now = now
        self.started = now()
        self.last: float | None = None
        """When a line was last sent (`None`: none yet, the check is not long)."""

    def tick(self, calls: int) -> None:
        """A driver call ended; `calls` made so far."""
        if self.listener is None:
            return
        at = self.now()
        if at - self.started < LONG_CHECK:
            return
        if self.last is not None and at - self.last < self.interval:
            return
        self.last = at
        self.listener(CheckProgress(self.check_id, calls, at - self.started))

    def end(self, calls: int) -> None:
        """The check ended: a last line, if any was shown."""
        if self.listener is not None and self.last is not None:
            self.listener(CheckProgress(self.check_id, calls, self.now() - self.started, True))
