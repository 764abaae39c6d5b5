"""What both differentials share: driver calls, verdicts, the step log, cleanup.

A differential drives the driver under test and an oracle (the reference driver, or
an empty store for a driver that retains nothing) with the same operations and
compares what the contract pins. It knows nothing of hypothesis: the fuzz
machines call its operations with drawn arguments, and a regression test calls
them with the recorded ones.

Every call to the driver goes through the run's `CheckContext.invoke`, as every call
of the suites does: it runs under the run's time limit, retries `Unavailable` with the
run's retry settings and counts calls and retries. A call past the limit, or a driver
unavailable through every retry, ends the run inconclusive, never failed.

Cost: after each step a differential compares what the step touched; the whole store
only every `full_every` steps (`verify`) and once at the end, so driver calls per step
stay bounded whatever the store holds.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar, Concatenate, NoReturn, ParamSpec, TypeVar

from conformance.bridge import as_sync
from conformance.checks.context import CheckContext, operation_of
from conformance.checks.evidence import show, shown
from conformance.checks.outcome import ConformanceFailure, DriverRaised, Inconclusive
from conformance.fuzz.stats import ProgramStats
from conformance.fuzz.steps import FailureSink, Step
from conformance.provider import MemoryTaint

__all__ = [
    "Abandoned",
    "Differential",
    "FoundFailure",
    "FuzzConfigError",
    "StepNotApplicable",
    "error_text",
    "operation",
    "some_shown",
    "wire_taint",
]

P = ParamSpec("P")
R = TypeVar("R")
D = TypeVar("D", bound="Differential")


def _same(item: Any) -> Any:
    return item


def wire_taint(value: Any) -> str:
    """A taint's wire string (a driver may hand back a string; unknown ones fail closed)."""
    return MemoryTaint(value).value


def some_shown(rows: Counter[Any], most: int = 6) -> str:
    """Up to `most` rows, shown, and how many more there are."""
    listed = sorted(map(show, rows.elements()))
    if not listed:
        return "none"
    more = f", and {len(listed) - most} more" if len(listed) > most else ""
    return ", ".join(listed[:most]) + more


def error_text(error: BaseException | None) -> str:
    """An error as a failure's `got` names it."""
    return "no error" if error is None else f"{type(error).__qualname__}: {error}"


class FuzzConfigError(ValueError):
    """A fuzz configuration the kit cannot run safely (a namespace spec outside the run
    root, say): the caller's mistake, never reported as the driver's."""


class StepNotApplicable(Exception):
    """A replayed step names something no earlier step made (an item handle whose store
    was deleted while shrinking): the candidate program is not a program."""


class FoundFailure(BaseException):
    """Ends a search at its first failure. A `BaseException`, so hypothesis neither
    shrinks nor replays it: the kit shrinks by replaying the step log on fresh instances."""

    def __init__(self, failure: ConformanceFailure) -> None:
        super().__init__(failure)
        self.failure = failure


class Abandoned(BaseException):
    """Ends a search whose driver hung or stayed unavailable: inconclusive, not failed."""

    def __init__(self, reason: Inconclusive) -> None:
        super().__init__(reason)
        self.reason = reason


def operation(fn: Callable[Concatenate[D, P], R]) -> Callable[Concatenate[D, P], R]:
    """Mark a differential method as a step: logged before it runs, its failure recorded."""

    def run(self: D, /, *args: P.args, **kwargs: P.kwargs) -> R:
        step = Step(fn.__name__, args, dict(kwargs))
        self.log.append(step)
        self.stats.steps += 1
        self.step_label = step.short()
        return self.guarded(lambda: fn(self, *args, **kwargs))

    functools.update_wrapper(run, fn)
    return run


class Differential:
    """The driver under test beside an oracle, under one run-unique root."""

    check_id: ClassVar[str]
    writes: ClassVar[frozenset[str]] = frozenset()
    """The steps that may change the store (the others only read it)."""
    face: ClassVar[str] = "provider"
    """The store its calls read and write (`engine` or `provider`), for checks run beside
    it (`conformance.checks.still`)."""

    def __init__(
        self,
        driver: Any,
        oracle: Any,
        *,
        retains: bool,
        ctx: CheckContext | None = None,
        sink: FailureSink | None = None,
        stats: ProgramStats | None = None,
        full_every: int = 1,
        fit: Callable[[str], str] | None = None,
        fit_item: Callable[[Any], Any] | None = None,
    ) -> None:
        self.driver = as_sync(driver)
        self.oracle = oracle
        self.retains = retains
        self.ctx = ctx if ctx is not None else CheckContext(self.check_id)
        self.root = self.ctx.root
        self.marker = self.ctx.marker
        self.sink = sink
        self.stats = stats if stats is not None else ProgramStats()
        self.full_every = max(1, full_every)
        self.fit: Callable[[str], str] = fit if fit is not None else (lambda text: text)
        self.fit_item: Callable[[Any], Any] = fit_item if fit_item is not None else _same
        """Engine: narrows a bulk item to the driver's declared constraints."""
        self.log: list[Step] = []
        self.index = -1
        """Which program of its session this is (0 for the first)."""
        self.failure: ConformanceFailure | None = None
        self.inconclusive: Inconclusive | None = None
        self.escape = False
        """Set by a search: a failure or a hang ends the search at once (`FoundFailure`,
        `Abandoned`) instead of being raised for hypothesis to shrink."""
        self.last_call = "(before any call)"
        self.step_label = ""
        """The step running or last run, named in failures found by a later comparison."""
        self._since_full = 0

    # -- verdicts -------------------------------------------------------------------

    def rel(self, text: str) -> str:
        """`text` with the run root written `~` and the marker `<marker>`, so a message
        reads the same in every run (and in a regression test's)."""
        return text.replace(self.root, "~").replace(self.marker, "<marker>")

    def fail(self, call: str, expected: str, got: object) -> NoReturn:
        """Fail at `call`; `got` is a message (a `str`) or a value shown as its `repr`
        (root-relative before a long one is cut, so no cut leaves half a root behind)."""
        said = self.rel(got) if isinstance(got, str) else show(shown(self.rel(repr(got))))
        raise ConformanceFailure(self.check_id, self.rel(call), self.rel(expected), said)

    def require(self, condition: bool, call: str, expected: str, got: object) -> None:
        """Fail at `call` unless `condition` holds."""
        if not condition:
            self.fail(call, expected, got)

    def guarded(self, body: Callable[[], R]) -> R:
        """Run `body`; a failure is recorded (once) and re-raised. An exception that is not
        a verdict means an answer the kit could not read: the driver's fault at its last call.
        """
        try:
            return body()
        except (FuzzConfigError, StepNotApplicable):
            raise
        except Inconclusive as stop:
            self.inconclusive = self.inconclusive or stop
            if self.escape:
                raise Abandoned(stop) from stop
            raise
        except ConformanceFailure as failure:
            self._record(failure)
            raise
        except Exception as exc:
            unreadable = ConformanceFailure(
                self.check_id,
                self.rel(self.last_call),
                "an answer of the contract's shape",
                self.rel(f"{type(exc).__qualname__}: {exc}"),
            )
            self._record(unreadable)
            raise unreadable from exc

    def _record(self, failure: ConformanceFailure) -> None:
        if self.failure is None:
            self.failure = failure
            if self.sink is not None:
                self.sink.record(self.log, failure, self.index)
        if self.escape:
            raise FoundFailure(self.failure)

    # -- driver calls ---------------------------------------------------------------

    def call(self, label: str, fn: Callable[..., R], *args: Any) -> R:
        """Call the driver under the run's rules (time limit, retries of `Unavailable`);
        any other error fails at `label`."""
        self.last_call = label
        try:
            # The label names the operation (`fn` may be any wrapper's closure); a call it
            # does not name counts as a write (`conformance.checks.still`).
            turn = (operation_of(label), self.face)
            result: R = self.ctx.call(self.rel(label), fn, args, in_turn_as=turn)
            return result
        finally:
            self._settle()

    def attempt(
        self, label: str, fn: Callable[..., R], *args: Any
    ) -> tuple[R | None, Exception | None]:
        """Call the driver where an error may be the right answer: `(result, None)` or
        `(None, error)`. Time limits and retries apply as for `call`."""
        try:
            return self.call(label, fn, *args), None
        except DriverRaised as raised:
            error = raised.error
            return None, error if isinstance(error, Exception) else raised

    def _settle(self) -> None:
        self.stats.calls = self.ctx.calls
        self.stats.retries = self.ctx.retries

    def noticed(self) -> str:
        """Where a comparison between steps noticed a difference, for its `got`."""
        return f" (noticed after {self.step_label})" if self.step_label else ""

    # -- the step protocol ----------------------------------------------------------

    def verify(self) -> None:
        """Between steps: compare the whole store with the oracle every `full_every` steps
        (each step compares what it touched itself)."""
        if not self.log:
            return
        self._since_full += 1
        if self._since_full >= self.full_every:
            self._since_full = 0
            self.guarded(self.check_invariants)

    def check_invariants(self) -> None:
        """Compare everything the driver holds under the root with the oracle."""
        raise NotImplementedError

    def final_check(self) -> None:
        """Checks too costly for every step, run once before teardown forgets the writes."""

    def cleanup(self, *, everything: bool) -> list[str]:
        """Forget what was written (`everything` the driver accepted, or only what the
        oracle still holds when the store was last found equal to it); describe whatever
        survived."""
        raise NotImplementedError

    def teardown(self) -> None:
        """Compare the whole store and run `final_check`, then forget what this
        differential wrote. A survivor fails the run, unless an earlier step already
        failed or hung (that is the one to report, and cleanup is best effort)."""
        try:
            if self.failure is None and self.inconclusive is None:
                try:
                    self.guarded(self.check_invariants)
                    self.guarded(self.final_check)
                except (ConformanceFailure, Inconclusive, FoundFailure, Abandoned):
                    self._cleanup_quietly()
                    raise
            if self.failure is not None or self.inconclusive is not None:
                self._cleanup_quietly()
                return

            def clean() -> None:
                left = self.cleanup(everything=False)
                self.require(
                    not left,
                    "teardown: forget what the run wrote",
                    "nothing left",
                    "; ".join(left),
                )

            self.guarded(clean)
        finally:
            self._settle()

    def _cleanup_quietly(self) -> None:
        # Best effort after a failure: stops at the first error (a hung driver would
        # otherwise cost a time limit per write).
        with contextlib.suppress(Exception):
            self.cleanup(everything=True)
