"""The catalogue: every check with its stable id, title, profile and the clause it enforces.

The checks register themselves (`conformance.checks.registry`) when their suites are
imported; this module imports the suites, so it is complete whichever module a caller
reached first.
"""

from __future__ import annotations

from typing import Any

from conformance import clock
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import (
    CheckResult,
    CheckSkipped,
    ConformanceFailure,
    Inconclusive,
    PreconditionFailed,
)
from conformance.checks.progress import CheckMeter
from conformance.checks.registry import CATALOGUE, Check, CheckFunction, check
from conformance.checks.traces import driver_error, driver_trace, full_trace
from conformance.driver import Profile

__all__ = ["CATALOGUE", "Check", "CheckFunction", "all_checks", "check", "checks_for", "run_one"]


def checks_for(profile: Profile) -> list[Check]:
    """The catalogued checks of one profile, in registration order."""
    _load_suites()
    return [c for c in CATALOGUE.values() if c.profile == profile]


def all_checks() -> list[Check]:
    """Every catalogued check, engine first, in registration order."""
    _load_suites()
    return checks_for("engine") + checks_for("provider")


def _load_suites() -> None:
    # The suites register themselves on import; importing here keeps the catalogue
    # complete whichever module a caller reached first.
    import conformance.checks.credentials
    import conformance.checks.engine_suite
    import conformance.checks.provider_suite  # noqa: F401


def run_one(
    chk: Check,
    driver: Any,
    settings: RunSettings | None = None,
    nonce: str | None = None,
    fetch_mode: str | None = None,
) -> CheckResult:
    """Run one check (for one fetch mode, when given) and classify how it ended."""
    ctx = CheckContext(chk.id, settings, nonce, fetch_mode)
    ctx.progress = meter = CheckMeter(chk.id if fetch_mode is None else f"{chk.id}[{fetch_mode}]")
    started = clock.perf_counter()
    outcome: Any
    ending: BaseException | None = None
    try:
        chk.run(driver, ctx)
        outcome, reason = "passed", ""
    except CheckSkipped as skip:
        outcome, reason = "skipped", skip.reason
    except Inconclusive as inc:
        outcome, reason, ending = "inconclusive", ctx.abbreviate(str(inc)), inc
    except ConformanceFailure as failure:
        outcome, reason, ending = "failed", ctx.abbreviate(str(failure)), failure
    meter.end(ctx.calls)
    error = None if ending is None else driver_error(ending, ctx.last_raised)
    trace = None if error is None else driver_trace(error, ctx.redact)
    return CheckResult(
        id=chk.id if fetch_mode is None else f"{chk.id}[{fetch_mode}]",
        outcome=outcome,
        reason=reason,
        duration=clock.perf_counter() - started,
        calls=ctx.calls,
        retries=ctx.retries,
        call_log=ctx.call_log,
        refusals=ctx.refusals,
        named_refusals=ctx.named_refusals,
        trace=trace,
        full_trace=None if trace is None or error is None else full_trace(error, ctx.redact),
        owners=list(ending.owners) if isinstance(ending, PreconditionFailed) else [],
        hang=ending.hang if isinstance(ending, Inconclusive) else None,
        strained=isinstance(ending, Inconclusive) and ending.transient,
    )
