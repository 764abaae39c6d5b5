"""What a fuzz run measured: per program, its steps, driver calls, store size and paging."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Final

__all__ = ["PAGED_READS", "FuzzStats", "ProgramStats"]

PAGED_READS: Final = ("list", "fetch", "export")
"""The paged reads whose page boundaries a program may cross."""


@dataclass
class ProgramStats:
    """One program (one differential): what it did to the driver."""

    steps: int = 0
    calls: int = 0
    """Calls to the driver under test (retries included)."""
    retries: int = 0
    """Retries of a transient error (`Unavailable`)."""
    peak: int = 0
    """The most items (engine) or rows (provider) the run held at once."""
    crossed: set[str] = field(default_factory=set)
    """The paged reads (`PAGED_READS`) that read more than one page."""
    named_refusals: set[str] = field(default_factory=set)
    """Refusals the contract itself names that the driver made (`empty content`)."""


@dataclass
class FuzzStats:
    """Every program of a run, in the order they ran, plus calls made outside them."""

    programs: list[ProgramStats] = field(default_factory=list)
    other_calls: int = 0
    """Calls outside programs: the retention probe, shutting instances down."""
    other_retries: int = 0

    def program(self) -> ProgramStats:
        """A new program's record."""
        record = ProgramStats()
        self.programs.append(record)
        return record

    @property
    def examples(self) -> int:
        """Programs run."""
        return len(self.programs)

    @property
    def steps(self) -> int:
        """Steps run."""
        return sum(p.steps for p in self.programs)

    @property
    def calls(self) -> int:
        """Driver calls, programs and probes together."""
        return self.other_calls + sum(p.calls for p in self.programs)

    @property
    def retries(self) -> int:
        """Retries of transient errors, programs and probes together."""
        return self.other_retries + sum(p.retries for p in self.programs)

    @property
    def named_refusals(self) -> list[str]:
        """The refusals the contract names that any program saw, sorted."""
        return sorted(set().union(*(p.named_refusals for p in self.programs)))

    def calls_per_step(self) -> float:
        """Driver calls per step, over the programs."""
        steps = self.steps
        return sum(p.calls for p in self.programs) / steps if steps else 0.0

    def peak_sizes(self) -> tuple[float, int]:
        """The median and the largest of the programs' peak store sizes."""
        peaks = [p.peak for p in self.programs] or [0]
        return statistics.median(peaks), max(peaks)

    def crossing_share(self, read: str) -> float:
        """The share of programs whose `read` crossed a page boundary."""
        if not self.programs:
            return 0.0
        return sum(read in p.crossed for p in self.programs) / len(self.programs)

    def absorb(self, other: FuzzStats) -> None:
        """Count `other`'s calls and retries (a replay's) as calls outside programs."""
        self.other_calls += other.calls
        self.other_retries += other.retries
