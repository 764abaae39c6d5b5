"""What both differentials share: driver calls, verdicts, the step log, cleanup.

A differential drives the driver under test and an oracle (the reference driver, or
an empty store for a driver that retains nothing) with the same operations and
compares what the contract pins. It knows nothing of hypothesis: the fuzz
machines call its operations with drawn arguments, and a regression test calls
them with the recorded ones.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Concatenate, NoReturn, ParamSpec, TypeVar

from conformance.bridge import as_sync
from conformance.checks.context import CheckContext, describe
from conformance.checks.outcome import ConformanceFailure, DriverRaised
from conformance.fuzz.steps import FailureSink, Step

__all__ = ["Differential", "FuzzConfigError", "FuzzStats", "operation"]

P = ParamSpec("P")
R = TypeVar("R")
D = TypeVar("D", bound="Differential")

_RETRIES = 3
_BACKOFF = 0.05


class FuzzConfigError(ValueError):
    """A fuzz configuration the kit cannot run safely (a namespace spec outside the run
    root, say): the caller's mistake, never reported as the driver's."""


@dataclass
class FuzzStats:
    """Counts over one fuzz run: differentials built (examples) and steps taken."""

    examples: int = 0
    steps: int = 0


def operation(fn: Callable[Concatenate[D, P], R]) -> Callable[Concatenate[D, P], R]:
    """Mark a differential method as a step: logged before it runs, its failure recorded."""

    def run(self: D, /, *args: P.args, **kwargs: P.kwargs) -> R:
        self.log.append(Step(fn.__name__, args, dict(kwargs)))
        self.stats.steps += 1
        return self.guarded(lambda: fn(self, *args, **kwargs))

    functools.update_wrapper(run, fn)
    return run


class Differential:
    """The driver under test beside an oracle, under one run-unique root."""

    check_id: ClassVar[str]

    def __init__(
        self,
        driver: Any,
        oracle: Any,
        *,
        retains: bool,
        ctx: CheckContext | None = None,
        sink: FailureSink | None = None,
        stats: FuzzStats | None = None,
    ) -> None:
        self.driver = as_sync(driver)
        self.oracle = oracle
        self.retains = retains
        self.ctx = ctx if ctx is not None else CheckContext(self.check_id)
        self.root = self.ctx.root
        self.marker = self.ctx.marker
        self.sink = sink
        self.stats = stats if stats is not None else FuzzStats()
        self.stats.examples += 1
        self.log: list[Step] = []
        self.failure: ConformanceFailure | None = None
        self.last_call = "(before any call)"

    # -- verdicts -------------------------------------------------------------------

    def rel(self, text: str) -> str:
        """`text` with the run root written `~` and the marker `<marker>`, so a message
        reads the same in every run (and in a regression test's)."""
        return text.replace(self.root, "~").replace(self.marker, "<marker>")

    def fail(self, call: str, expected: str, got: object) -> NoReturn:
        """Fail at `call`."""
        shown = got if isinstance(got, str) else describe(got, 300)
        raise ConformanceFailure(self.check_id, self.rel(call), self.rel(expected), self.rel(shown))

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
        except FuzzConfigError:
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
                self.sink.record(self.log, failure)

    # -- driver calls ---------------------------------------------------------------

    def call(self, label: str, fn: Callable[..., R], *args: Any) -> R:
        """Call the driver; retry a transient error a few times; any error fails at `label`."""
        self.last_call = label
        attempt = 0
        while True:
            try:
                return fn(*args)
            except Exception as exc:
                if _transient(exc) and attempt < _RETRIES:
                    attempt += 1
                    time.sleep(_BACKOFF * 2 ** (attempt - 1))
                    continue
                raise DriverRaised(self.check_id, self.rel(label), exc) from exc

    def attempt(
        self, label: str, fn: Callable[..., R], *args: Any
    ) -> tuple[R | None, Exception | None]:
        """Call the driver where an error may be the right answer: `(result, None)` or
        `(None, error)`."""
        self.last_call = label
        try:
            return fn(*args), None
        except Exception as exc:
            return None, exc

    # -- the step protocol ----------------------------------------------------------

    def verify(self) -> None:
        """The invariants, checked after every step."""
        self.guarded(self.check_invariants)

    def check_invariants(self) -> None:
        """Compare what the driver holds under the root with the oracle."""
        raise NotImplementedError

    def final_check(self) -> None:
        """Checks too costly for every step, run once before teardown forgets the writes."""

    def cleanup(self) -> list[str]:
        """Forget everything written; describe whatever survived."""
        raise NotImplementedError

    def teardown(self) -> None:
        """Run `final_check`, then forget everything this differential wrote. A survivor
        fails the run, unless an earlier step already failed (that failure is the one to
        report)."""
        if self.failure is None:
            try:
                self.guarded(self.final_check)
            except ConformanceFailure:
                with contextlib.suppress(Exception):
                    self.cleanup()
                raise
        if self.failure is not None:
            # Best effort: the step's failure is the one to report.
            with contextlib.suppress(Exception):
                self.cleanup()
            return

        def clean() -> None:
            left = self.cleanup()
            self.require(
                not left, "teardown: forget what the run wrote", "nothing left", "; ".join(left)
            )

        self.guarded(clean)


def _transient(error: BaseException) -> bool:
    probe = getattr(error, "is_transient", None)
    return bool(probe()) if callable(probe) else False
