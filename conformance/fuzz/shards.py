"""A fuzz target's programs split into shards: independent searches that may run at once.

Hypothesis draws each program of a search from the choices of the ones before, so the
programs of one search run one after another. A target's budget is therefore cut into
shards of `PROGRAMS_PER_SHARD` programs, each a search of its own with a seed derived
from the run's (`shard_seed`), driving an instance of the driver of its own (so a fault
of an instance's history replays with the shard's programs alone, serially or at once):
run serially they run in order; with `--conformance-concurrency` they run beside each
other and the checks (`conformance.checks.fan_out.each`). The split depends on the
budget alone, never on the concurrency asked, so a seed names the same programs either
way, and the failure reported is the first shard's that failed, as a serial run meets it.

Every search starts with its simplest draw, the same program in every shard: the first
shard runs it against the driver; the others run it between two oracles (in memory,
no driver call, not counted) and draw one program more in its place.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Final

__all__ = ["PROGRAMS_PER_SHARD", "Shard", "Watermark", "plan_shards", "shard_seed"]

PROGRAMS_PER_SHARD: Final = 10
"""Programs of one shard: the default budget of 40 makes 4 (the two targets, 8 at once).
A shard's instance meets hundreds of writes (a fault that shows after 400 is found within
one: `tests/fuzz/provider_faults.py`); a budget of 10 or less is one search."""


@dataclass
class Shard:
    """One search of a fuzz run: which, how many programs, and from what seed."""

    index: int
    examples: int
    """Programs asked of hypothesis (the simplest draw included, in every shard)."""
    seed: int | None
    """`None`: derandomized (only the first shard of a derandomized run)."""
    rehearsed: bool = False
    """The simplest draw has been run (between two oracles, for a shard after the first)."""


def shard_seed(seed: int | None, target_id: str, index: int) -> int | None:
    """The seed of shard `index`: the run's for the first, one derived from it (or from the
    target, in a derandomized run) for the others."""
    if index == 0:
        return seed
    base = f"derandomized {target_id}" if seed is None else str(seed)
    # A string seed is hashed the same in every process (unlike `hash`).
    return random.Random(f"{base} shard {index}").getrandbits(32)


def plan_shards(target_id: str, examples: int, seed: int | None) -> list[Shard]:
    """The shards of a run of `examples` programs, as even as they come."""
    count = max(1, -(-examples // PROGRAMS_PER_SHARD))
    size, rest = divmod(examples, count)
    return [
        Shard(index, size + (index < rest) + (index > 0), shard_seed(seed, target_id, index))
        for index in range(count)
    ]


class Watermark:
    """The lowest shard that has ended its search with a verdict: the shards after it
    cannot be the one reported, so they stop at their next program."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lowest: int | None = None

    def lower(self, index: int) -> None:
        """Shard `index` has failed, or could not go on."""
        with self._lock:
            if self._lowest is None or index < self._lowest:
                self._lowest = index

    def outranks(self, index: int) -> bool:
        """Whether a shard before `index` has ended with a verdict."""
        with self._lock:
            return self._lowest is not None and self._lowest < index
