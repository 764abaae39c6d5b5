"""Shrinking a failing step log by replaying it, after hypothesis has had its turn.

Hypothesis finds a failing program within a second but shrinks it slowly: every
candidate redraws all its steps. The recorded log can be replayed with no drawing
at all, so the kit finishes the job itself: it deletes chunks of steps (halves,
then quarters, down to single steps) and keeps a deletion when the shorter log
still fails at the same call with the same expectation. Every candidate runs on a
fresh differential under a fresh root, exactly as a regression test would.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from conformance.checks.outcome import ConformanceFailure
from conformance.fuzz.differential import Differential
from conformance.fuzz.steps import Step

__all__ = ["minimise", "replay_steps", "same_failure"]

_HANDLE = re.compile(r"item#\d+")


def replay_steps(make: Callable[[], Differential], steps: list[Step]) -> ConformanceFailure | None:
    """Run `steps` on a fresh differential, checking invariants after each and tearing
    down at the end, as the machine does; the failure, or `None` when all pass."""
    differential = make()
    try:
        differential.verify()
        for step in steps:
            getattr(differential, step.name)(*step.args, **step.kwargs)
            differential.verify()
    except ConformanceFailure as failure:
        differential.teardown()
        return failure
    try:
        differential.teardown()
    except ConformanceFailure as failure:
        return failure
    return None


def same_failure(a: ConformanceFailure, b: ConformanceFailure) -> bool:
    """Whether two failures are the same disagreement: same call and expectation, item
    handles aside (deleting a store renumbers the items after it)."""
    return (_HANDLE.sub("item#", a.call), _HANDLE.sub("item#", a.expected)) == (
        _HANDLE.sub("item#", b.call),
        _HANDLE.sub("item#", b.expected),
    )


def minimise(
    make: Callable[[], Differential],
    steps: list[Step],
    failure: ConformanceFailure,
    *,
    seconds: float,
) -> tuple[list[Step], ConformanceFailure]:
    """The shortest log found within `seconds` that still fails as `failure` does, and
    its failure. `steps` itself when its own replay does not fail that way (a driver
    that fails unreliably)."""
    deadline = time.perf_counter() + seconds
    again = replay_steps(make, steps)
    if again is None or not same_failure(again, failure):
        return steps, failure
    best, best_failure = list(steps), again
    chunk = max(1, len(best) // 2)
    while chunk >= 1:
        removed = False
        start = 0
        while start < len(best):
            if time.perf_counter() > deadline:
                return best, best_failure
            candidate = best[:start] + best[start + chunk :]
            got = replay_steps(make, candidate)
            if got is not None and same_failure(got, failure):
                best, best_failure, removed = candidate, got, True
            else:
                start += chunk
        if not removed:
            chunk //= 2
    return best, best_failure
