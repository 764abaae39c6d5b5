"""Replaying recorded programs on fresh driver instances, and shrinking them that way.

Every replay builds a fresh instance and runs the programs through a `FuzzSession`,
exactly as a regression test does, so whatever fails here fails there. Shrinking is
the kit's own, deterministic for a seed and bounded by the driver calls it may make
(never by the clock): it drops earlier programs a history-dependent fault does not need, then
chunks of steps (halves, quarters, ... single steps), then folds the writes left into the
program's first bulk (a fault shown by a store size needs one bulk of that size), then
shrinks arguments (a bulk's size by bisection, the items of a batch, the ids of a get),
keeping each change whose replay still fails as the original did.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from conformance.checks.outcome import ConformanceFailure, Inconclusive
from conformance.fuzz.differential import StepNotApplicable
from conformance.fuzz.session import FuzzSession, SessionOptions, differential_class
from conformance.fuzz.stats import FuzzStats
from conformance.fuzz.steps import Step

__all__ = ["ReplayOutcome", "Replayer", "least_count", "same_failure", "shrink"]

T = TypeVar("T")

_SUMMARY = re.compile(r"<[^<>]*>")

Programs = list[list[Step]]


def same_failure(a: ConformanceFailure, b: ConformanceFailure) -> bool:
    """Whether two failures are the same disagreement: same call and expectation, with
    summaries in angle brackets (`<bulk 3: 60 items>`) taken as equal."""

    def key(f: ConformanceFailure) -> tuple[str, str]:
        return _SUMMARY.sub("<>", f.call), _SUMMARY.sub("<>", f.expected)

    return key(a) == key(b)


@dataclass
class ReplayOutcome:
    """How a replay ended: a failure, a time limit or unavailability, a program that is
    not one (a step naming what no earlier step made), or `passed`."""

    failure: ConformanceFailure | None = None
    inconclusive: Inconclusive | None = None
    invalid: bool = False

    @property
    def passed(self) -> bool:
        """Whether every program ran and passed."""
        return not (self.failure or self.inconclusive or self.invalid)


@dataclass
class Replayer:
    """Replays programs on fresh instances of one driver, the shrinker's within a budget
    of driver calls."""

    target_id: str
    fresh: Callable[[], Any]
    """Builds a fresh instance of the driver under test."""
    options: SessionOptions
    stats: FuzzStats
    """Where the replays' driver calls are counted."""
    budget: int
    """Driver calls the shrinker may still make (verification replays are not counted);
    a replay starts only while some are left, and is charged what it made."""
    progress: Callable[[int], None] | None = None
    """Told the budget left after each of the shrinker's replays."""

    def run(self, programs: Programs, *, full_every: int | None = None) -> ReplayOutcome:
        """Run `programs` in order on one fresh instance, as a regression test would."""
        options = self.options
        if full_every is not None:
            options = dataclasses.replace(options, full_every=full_every)
        try:
            instance = self.fresh()
        except Exception as exc:
            reason = Inconclusive(
                self.target_id, "building a fresh instance", f"{type(exc).__name__}: {exc}"
            )
            return ReplayOutcome(inconclusive=reason)
        stats = FuzzStats()
        session: FuzzSession | None = None
        try:
            session = FuzzSession(self.target_id, instance, options, stats=stats)
            for steps in programs:
                with session.program() as m:
                    for step in steps:
                        getattr(m, step.name)(*step.args, **step.kwargs)
                        m.verify()
        except ConformanceFailure as failure:
            return ReplayOutcome(failure=failure)
        except Inconclusive as reason:
            return ReplayOutcome(inconclusive=reason)
        except StepNotApplicable:
            return ReplayOutcome(invalid=True)
        finally:
            if session is not None:
                session.shutdown()
            self.stats.absorb(stats)
        return ReplayOutcome()

    def shrinking(self, programs: Programs) -> ReplayOutcome | None:
        """Replay `programs` for the shrinker, charged to the budget; `None` once it is
        spent."""
        if self.budget <= 0:
            return None
        before = self.stats.calls
        outcome = self.run(programs)
        self.budget -= self.stats.calls - before
        if self.progress is not None:
            self.progress(self.budget)
        return outcome


def _chunks_removed(items: Sequence[T], keeps: Callable[[list[T]], bool]) -> list[T]:
    """Delta debugging: drop chunks of `items` (halves down to single elements) while
    `keeps` holds for what is left."""
    best = list(items)
    chunk = max(1, len(best) // 2)
    while chunk >= 1 and best:
        removed = False
        start = 0
        while start < len(best):
            candidate = best[:start] + best[start + chunk :]
            if keeps(candidate):
                best, removed = candidate, True
            else:
                start += chunk
        if not removed:
            chunk //= 2
    return best


def least_count(count: int, fails: Callable[[int], bool]) -> int:
    """The least count from 1 up that still fails, by bisection (`count` fails): exact when
    failing is monotone in the count, as a fault that shows at a store size is, and a
    failing count whatever it is."""
    low, high = 0, count
    while high - low > 1:
        middle = (low + high) // 2
        if fails(middle):
            high = middle
        else:
            low = middle
    return high


BULK: Final = "store_bulk"
"""The step that writes many at once, with a `count` argument in both differentials."""


def _weight(step: Step, names: Sequence[str]) -> int:
    """How many things a step writes, at most: its `count`, else its longest list (a
    batch, writes between pages), else one."""
    weight = 1
    for position, value in enumerate(step.args):
        name = names[position] if position < len(names) else ""
        if name == "count" and isinstance(value, int):
            weight = max(weight, value)
        elif isinstance(value, list):
            weight = max(weight, len(value))
    return weight


def _absorbed(programs: Programs, cls: type[Any], fails: Callable[[Programs], bool]) -> Programs:
    """Fold the last program's writes into its first bulk: a fault that shows once the
    store holds enough (a listing capped at 50) needs one bulk of that size, not the
    dozen writes that reached it, none of which the step-by-step removal can drop alone.
    First every other step at once, then one step at a time, latest first; the count is
    then shrunk with the other arguments."""
    steps = programs[-1]
    at = next((n for n, step in enumerate(steps) if step.name == BULK), None)
    if at is None:
        return programs
    names = list(inspect.signature(getattr(cls, BULK)).parameters)[1:]
    if "count" not in names:
        return programs
    position = names.index("count")

    def grown(bulk: Step, by: int) -> Step:
        args = list(bulk.args)
        args[position] = int(args[position]) + by
        return Step(bulk.name, tuple(args), bulk.kwargs)

    def weight(step: Step) -> int:
        return _weight(step, list(inspect.signature(getattr(cls, step.name)).parameters)[1:])

    others = [step for n, step in enumerate(steps) if n != at]
    alone = [grown(steps[at], sum(weight(step) for step in others))]
    if others and fails([*programs[:-1], alone]):
        return [*programs[:-1], alone]
    best = list(steps)
    for number in reversed(range(len(steps))):
        bulk_at = next(n for n, step in enumerate(best) if step.name == BULK)
        if number >= len(best) or number == bulk_at:
            continue
        candidate = list(best)
        candidate[bulk_at] = grown(best[bulk_at], weight(best[number]))
        del candidate[number]
        if fails([*programs[:-1], candidate]):
            best = candidate
    return [*programs[:-1], best]


def shrink(
    replayer: Replayer, programs: Programs, target: ConformanceFailure
) -> tuple[Programs, ConformanceFailure]:
    """The smallest programs found, within the replayer's budget, that still fail as
    `target` does, and that failure. The last program is the failing one; the others
    are the history before it."""
    best = [list(steps) for steps in programs]
    found = target

    def fails(candidate: Programs) -> bool:
        nonlocal found
        outcome = replayer.shrinking(candidate)
        if outcome is None:
            return False
        if outcome.failure is not None and same_failure(outcome.failure, target):
            found = outcome.failure
            return True
        return False

    cls = differential_class(replayer.target_id)
    if len(best) > 1:
        # History first: without its reads (one replay), then without whole programs.
        writes = [[step for step in steps if step.name in cls.writes] for steps in best[:-1]]
        if writes != best[:-1] and fails([*writes, best[-1]]):
            best = [*writes, best[-1]]
        kept = _chunks_removed(best[:-1], lambda history: fails([*history, best[-1]]))
        best = [*kept, best[-1]]
    last = _chunks_removed(best[-1], lambda steps: fails([*best[:-1], steps]))
    best = _absorbed([*best[:-1], last], cls, fails)
    for at in range(len(best[-1])):
        best = _shrink_arguments(best, at, cls, fails)
    for number in range(len(best) - 1):
        best = _with_program(
            best, number, _chunks_removed(best[number], _trying(best, number, fails))
        )
    return best, found


def _keeping(
    with_arg: Callable[[int, Any], Programs], position: int, fails: Callable[[Programs], bool]
) -> Callable[[list[Any]], bool]:
    """Whether a non-empty list in place of argument `position` still fails."""
    return lambda kept: bool(kept) and fails(with_arg(position, kept))


def _counting(
    with_arg: Callable[[int, Any], Programs], position: int, fails: Callable[[Programs], bool]
) -> Callable[[int], bool]:
    """Whether a count in place of argument `position` still fails."""
    return lambda count: fails(with_arg(position, count))


def _with_program(programs: Programs, number: int, steps: list[Step]) -> Programs:
    return [*programs[:number], steps, *programs[number + 1 :]]


def _trying(
    programs: Programs, number: int, fails: Callable[[Programs], bool]
) -> Callable[[list[Step]], bool]:
    """Whether `programs` with program `number` replaced still fail."""
    return lambda steps: fails(_with_program(programs, number, steps))


def _shrink_arguments(
    programs: Programs, at: int, cls: type[Any], fails: Callable[[Programs], bool]
) -> Programs:
    """Shrink the arguments of step `at` of the last program: a `count` to smaller
    values, a list to fewer elements."""
    step = programs[-1][at]
    names = list(inspect.signature(getattr(cls, step.name)).parameters)[1:]

    def with_arg(position: int, value: Any) -> Programs:
        args = list(step.args)
        args[position] = value
        steps = list(programs[-1])
        steps[at] = Step(step.name, tuple(args), step.kwargs)
        return [*programs[:-1], steps]

    for position, value in enumerate(step.args):
        name = names[position] if position < len(names) else ""
        if name == "count" and isinstance(value, int) and value > 1:
            least = least_count(value, _counting(with_arg, position, fails))
            if least < value:
                return _shrink_arguments(with_arg(position, least), at, cls, fails)
        elif isinstance(value, list) and len(value) > 1:
            shorter = _chunks_removed(value, _keeping(with_arg, position, fails))
            if len(shorter) < len(value):
                return _shrink_arguments(with_arg(position, shorter), at, cls, fails)
    return programs
