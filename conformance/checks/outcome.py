"""What a check can end in, and the exceptions that carry those endings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from conformance.constraints import NOT_APPLICABLE
from conformance.report import Hang

Outcome = Literal["passed", "failed", "skipped", "inconclusive", "waived"]

RETAINS_NOTHING = "driver retains nothing"


class ConformanceFailure(AssertionError):
    """A driver answered against the contract: which check, which call, expected against got."""

    def __init__(self, check_id: str, call: str, expected: str, got: str) -> None:
        self.check_id = check_id
        self.call = call
        self.expected = expected
        self.got = got
        super().__init__(
            f"conformance check `{check_id}` failed at {call}: expected {expected}; got {got}"
        )


class DriverRaised(ConformanceFailure):
    """A call the check needed raised an exception of the driver's own.

    `error` is the exception itself; the message shows it through `redact`, which keeps
    a credential's value out of it.
    """

    def __init__(
        self,
        check_id: str,
        call: str,
        error: BaseException,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.error = error
        text = f"{type(error).__qualname__}: {error}"
        super().__init__(
            check_id,
            call,
            "the call to succeed",
            f"the driver raised {redact(text) if redact is not None else text}",
        )


class CheckSkipped(Exception):
    """The check does not apply to this driver; the reason says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class NotApplicable(CheckSkipped):
    """The driver's declared constraints admit none of what the check must send (every
    namespace of a section check holds a `:`, say): it is skipped, and the report says
    so beside the level."""

    def __init__(self, why: str) -> None:
        super().__init__(f"{NOT_APPLICABLE}: {why}")


def not_applicable(reason: str) -> bool:
    """Whether a skip `reason` is `NotApplicable`'s."""
    return reason.startswith(NOT_APPLICABLE)


class Inconclusive(Exception):
    """The check could not reach a verdict (a call ran past its time limit, say: `hang`
    names it; `transient`: the driver stayed unavailable, as a store under load may)."""

    def __init__(
        self,
        check_id: str,
        call: str,
        reason: str,
        hang: Hang | None = None,
        *,
        transient: bool = False,
    ) -> None:
        self.check_id = check_id
        self.call = call
        self.reason = reason
        self.hang = hang
        self.transient = transient
        super().__init__(f"conformance check `{check_id}` is inconclusive at {call}: {reason}")


class PreconditionFailed(Inconclusive):
    """A call this check relies on, whose faults other checks own, went wrong: this check
    cannot reach a verdict. `owners` are the checks testing that operation; which of them
    failed on it is known only once they ran (`conformance.checks.blame`)."""

    def __init__(
        self, check_id: str, owners: Sequence[str], what: str, failure: ConformanceFailure
    ) -> None:
        self.owners = tuple(owners)
        self.failure = failure
        super().__init__(
            check_id,
            failure.call,
            f"precondition failed: {what}: expected {failure.expected}; got {failure.got}",
        )


@dataclass
class CheckResult:
    """One check's verdict on one driver, as the report records it."""

    id: str
    outcome: Outcome
    reason: str = ""
    duration: float = 0.0
    calls: int = 0
    retries: int = 0
    call_log: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    """Calls where the driver refused valid input the kit sent (as `Invalid`)."""
    named_refusals: list[str] = field(default_factory=list)
    """Refusals the contract itself names that the driver made (`constraints.NAMED_REFUSALS`)."""
    trace: str | None = None
    """Where the driver raised the exception the outcome came from: its own frames."""
    full_trace: str | None = None
    """That exception's whole traceback, the kit's frames included (`--full-trace`)."""
    owners: list[str] = field(default_factory=list)
    """For a failed precondition: the checks testing the operation that went wrong."""
    waived_by: str | None = None
    """The check whose waiver covers this outcome, when it is not this check's own."""
    hang: Hang | None = None
    """For a check inconclusive because a driver call hung: that call."""
    concurrency_only: bool = False
    """The check failed beside other checks running at once, and passed run alone."""
    strained: bool = False
    """Inconclusive because the driver stayed unavailable: a store under load may, beside
    other checks, and not alone (a call past its limit may be a deadlock: not strain)."""

    @property
    def ok(self) -> bool:
        """Whether the outcome lets a run pass (passed, skipped or waived)."""
        return self.outcome in ("passed", "skipped", "waived")
