"""Whether running checks at once gains anything against this driver: measured, not
guessed, on the first checks of the run.

Threads overlap only while they wait (on a socket, a pipe, a timer): a store across a
network answers several times as many calls a second with checks at once, while an
in-memory store in the kit's own process gains nothing under the GIL (or loses, to the
switching and to the data of several checks held at once).

The first stretch of checks runs one at a time, the next up to the asked width; the driver
calls answered a second in each are compared, and below `MIN_GAIN` the rest of the run
goes one check at a time, the report saying why. When this process was busy on the CPU
for two thirds of the first stretch or more, no second stretch is run: checks at once
could overlap only the rest, and so answer at most 1.5 times as many calls. A stretch
lasts `WARMUP` seconds, or only `WARMUP_SHORTEST` once it has answered `WARMUP_CALLS`
calls: a store that answers quickly is measured in a fraction of the time it would spend
at a width that does not suit it, one far away still over half a second. Both stretches
share the machine's load, so other work on the machine does not sway the comparison (it
only makes the process look less busy, and the second stretch then measures).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from conformance import clock

__all__ = ["MIN_GAIN", "WARMUP", "WARMUP_CALLS", "WARMUP_SHORTEST", "Warmup"]

WARMUP: Final = 0.5
"""Seconds of each stretch at most: one check at a time, then several."""

WARMUP_SHORTEST: Final = 0.15
"""Seconds of a stretch at least, once it has answered `WARMUP_CALLS` calls."""

WARMUP_CALLS: Final = 50
"""Calls that measure a stretch well enough to end it after `WARMUP_SHORTEST` seconds."""

MIN_GAIN: Final = 1.5
"""How many times as many calls a second checks at once must answer to go on at once."""


class Warmup:
    """The two stretches, and the width to run at once they are measured."""

    def __init__(
        self,
        width: int,
        calls: Callable[[], int],
        *,
        seconds: float | None = None,
        shortest: float | None = None,
        enough: int | None = None,
        wall: Callable[[], float] = clock.perf_counter,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        """`calls`: how many driver calls have been answered so far; a stretch lasts
        `seconds`, or `shortest` once it has answered `enough` calls (defaults: `WARMUP`,
        `WARMUP_SHORTEST`, `WARMUP_CALLS`); `cpu`: the process's CPU seconds so far."""
        self.width = width
        self.seconds = WARMUP if seconds is None else seconds
        self.shortest = min(self.seconds, WARMUP_SHORTEST if shortest is None else shortest)
        self.enough = WARMUP_CALLS if enough is None else enough
        self._calls, self._wall, self._cpu = calls, wall, cpu
        self._mark = (wall(), calls(), cpu())
        self._serial_rate: float | None = None
        self.gain: float | None = None
        """Calls a second at once over one at a time, once both stretches are measured;
        for a process found busy in the first stretch, the most they could be."""
        self.busy: float | None = None
        """The share of the first stretch this process spent on the CPU, once measured."""

    def decided(self) -> int | None:
        """The width to run at from now on (None: go on as now): 1 for the first stretch,
        `width` for the second, then whichever answered more calls a second."""
        if self.gain is not None:
            return self.width if self.gain >= MIN_GAIN else 1
        rate = self._rate()
        if rate is None:
            return None
        if self._serial_rate is None:
            self._serial_rate = rate
            if self.busy is not None and self.busy * MIN_GAIN >= 1:
                # Threads overlap only while they wait: a process that was busy this share
                # of the time one check at a time cannot answer 1 / busy times as many.
                self.gain = min(1.0, 1 / self.busy)
                return 1
            return self.width
        self.gain = rate / self._serial_rate if self._serial_rate else float("inf")
        return self.decided()

    def _rate(self) -> float | None:
        """Calls a second since the mark, once a stretch has lasted; the mark moves on."""
        at, made = self._wall(), self._calls()
        elapsed = at - self._mark[0]
        measured = elapsed >= self.shortest and made - self._mark[1] >= self.enough
        if elapsed < self.seconds and not measured:
            return None
        used = self._cpu()
        rate = (made - self._mark[1]) / max(elapsed, 1e-9)
        if self._serial_rate is None:
            self.busy = (used - self._mark[2]) / max(elapsed, 1e-9)
        self._mark = (at, made, used)
        return rate

    def serial_because(self) -> str | None:
        """Why the checks ran one at a time, when the warm-up decided so."""
        if self.gain is None or self.gain >= MIN_GAIN:
            return None
        if self.busy is not None and self.busy * MIN_GAIN >= 1:
            return (
                f"one check at a time, this process was busy {min(self.busy, 1):.0%} of the "
                f"time (its calls keep it busy rather than wait), so checks at once could "
                f"answer at most {1 / min(max(self.busy, 1e-9), 1):.2f} times as many calls a "
                f"second (at least {MIN_GAIN:g} times is worth it): threads cannot run Python "
                f"code at once (the GIL)"
            )
        return (
            f"with {self.width} checks at once the driver answered {self.gain:.2f} times as "
            f"many calls a second as with one (at least {MIN_GAIN:g} times is worth it): its "
            f"calls keep this process busy rather than wait, and threads cannot run Python "
            f"code at once (the GIL)"
        )
