"""Progress of a fuzz run while it runs: programs done of the total, steps per second,
elapsed time, throttled for a terminal (through `conformance.progress`: it never enters
a report).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from conformance import clock
from conformance.progress import INTERVAL, Listener, installed, listening

__all__ = ["INTERVAL", "FuzzProgress", "Listener", "ProgressMeter", "listening"]

Phase = Literal["search", "scale", "shrink"]


@dataclass(frozen=True)
class FuzzProgress:
    """Where one phase of a fuzz run stands."""

    target_id: str
    phase: Phase
    done: int
    """Programs run (search), or driver calls made (shrink); 0 for scale."""
    total: int
    """Programs asked for (search), the call budget (shrink), or items (scale)."""
    steps: int
    """Steps run so far (search)."""
    elapsed: float
    """Seconds since the phase began."""
    final: bool = False
    """The phase has ended."""

    def line(self) -> str:
        """One line for a terminal."""
        head = f"[tinymemory fuzz] {self.target_id}:"
        took = f"{self.elapsed:.1f} s"
        if self.phase == "scale":
            state = "done" if self.final else "running"
            return f"{head} scale phase ({self.total} items) {state}, {took}"
        if self.phase == "shrink":
            state = "shrunk" if self.final else "shrinking the failing program"
            return f"{head} {state}, {self.done} of at most {self.total} driver calls, {took}"
        rate = self.steps / self.elapsed if self.elapsed > 0 else 0.0
        # Draws hypothesis discards run too, beyond the budget they do not count toward.
        done = f"{self.done}/{self.total}" if self.done <= self.total else f"{self.done}"
        extra = f" ({self.total} asked)" if self.done > self.total else ""
        return f"{head} {done} programs{extra}, {self.steps} steps, {rate:.1f} steps/s, {took}"


class ProgressMeter:
    """One phase's progress, sent to the listener installed when it was made, at most
    once per the listener's interval (the phase's first and last events always)."""

    def __init__(
        self,
        target_id: str,
        phase: Phase,
        total: int,
        *,
        now: Callable[[], float] = clock.perf_counter,
    ) -> None:
        self.target_id = target_id
        self.phase: Phase = phase
        self.total = total
        listener = installed()
        self.listener: Listener | None = None if listener is None else listener[0]
        self.interval = INTERVAL if listener is None else listener[1]
        self.now = now
        self.started = now()
        self.last: float | None = None

    def tick(self, done: int, steps: int = 0, *, final: bool = False) -> None:
        """Report `done` (and `steps`) when the throttle lets it through."""
        if self.listener is None:
            return
        at = self.now()
        if not final and self.last is not None and at - self.last < self.interval:
            return
        self.last = at
        self.listener(
            FuzzProgress(
                self.target_id, self.phase, done, self.total, steps, at - self.started, final
            )
        )
