"""Whether running checks at once gains anything against this driver: decided from a
first stretch of checks run one at a time.

Threads overlap only while they wait (on a socket, a pipe, a timer). A driver whose calls
keep this process's CPU busy (an in-memory store in the kit's own process, say) gains
nothing from them under the GIL, and loses to the switching and to the data of several
checks held at once; so when the process was busy at least `CPU_BOUND` of the warm-up's
wall time, the checks go on one at a time, and the report says why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from conformance import clock

__all__ = ["CPU_BOUND", "WARMUP", "Warmup"]

WARMUP: Final = 1.0
"""Seconds of checks run one at a time before the width is decided."""

CPU_BOUND: Final = 0.35
"""The share of wall time the process's CPU was busy from which the driver counts as
CPU-bound: a driver 5 ms away keeps it about 0.15 busy, the in-memory reference 0.5 to
0.95 (less on a machine shared with other work)."""


class Warmup:
    """Measures the warm-up and answers the width to run at, once decided."""

    def __init__(
        self,
        width: int,
        *,
        seconds: float | None = None,
        wall: Callable[[], float] = clock.perf_counter,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        self.width = width
        self.seconds = WARMUP if seconds is None else seconds
        self._wall, self._cpu = wall, cpu
        self._started = (wall(), cpu())
        self.busy: float | None = None
        """The share of the warm-up's wall time the CPU was busy, once measured."""

    def decided(self) -> int | None:
        """The width to run at from now on, once the warm-up has lasted long enough."""
        if self.busy is None:
            wall = self._wall() - self._started[0]
            if wall < self.seconds:
                return None
            self.busy = (self._cpu() - self._started[1]) / wall
        return 1 if self.cpu_bound() else self.width

    def cpu_bound(self) -> bool:
        """Whether the warm-up found the process busy enough to run one check at a time."""
        return self.busy is not None and self.busy >= CPU_BOUND

    def serial_because(self) -> str | None:
        """Why the checks ran one at a time, when the warm-up decided so."""
        if self.busy is None or not self.cpu_bound():
            return None
        return (
            f"the driver's checks kept this process's CPU busy {self.busy:.0%} of the time "
            f"while run one at a time: threads cannot run Python code at once (the GIL), "
            f"so running checks at once gains nothing against it"
        )
