"""A check that does not pass beside other checks is run again alone: what its outcome is.

A failure that goes away when the check runs alone is still the driver's (the contract
holds a store to each call's answer whatever else it serves), but its cause is sharing:
state kept between calls unsafely, or a driver that is not thread-safe. The result says
so, and how to see it both ways. A check left inconclusive only by load (a rate limit
that outlasted the retries) takes its result alone; one left inconclusive by a call past
its limit does not (beside others, that may be a deadlock).
"""

from __future__ import annotations

import dataclasses

from conformance.checks.outcome import CheckResult

__all__ = ["ALONE_KEY", "needs_alone_run", "settle"]

ALONE_KEY = "alone"
"""What the seed of a check's run alone is derived with: its markers differ from the
first run's, so nothing the first run left in the store is read back."""


def needs_alone_run(result: CheckResult) -> bool:
    """Whether a result got beside other checks is to be checked by a run alone."""
    return result.outcome in ("failed", "inconclusive")


def settle(beside: CheckResult, alone: CheckResult, width: int, serial_replay: str) -> CheckResult:
    """The check's result: `beside` (what it got with up to `width` checks at once) when the
    run `alone` did not pass either; `alone` when `beside` was only strained (the driver
    stayed unavailable past the retries: load, not a wrong answer); else a
    failure saying the fault shows only under concurrency, with `beside`'s reason and how
    to replay the check serially."""
    if alone.outcome != "passed":
        return beside
    if beside.outcome == "inconclusive" and beside.strained:
        return alone
    reason = (
        f"{beside.outcome} only beside other checks: run with up to {width} checks at once "
        f"against the one driver instance it {beside.outcome}; run again alone, it passed. "
        f"The driver shares state between calls unsafely, or is not thread-safe "
        f"(`Driver(thread_safe=False)`, or `concurrent: false` in an exec: handshake, runs "
        f"it one check at a time). Serially it passes: {serial_replay}. Beside the others: "
        f"{beside.reason}"
    )
    return dataclasses.replace(
        beside,
        outcome="failed",
        reason=reason,
        duration=beside.duration + alone.duration,
        calls=beside.calls + alone.calls,
        retries=beside.retries + alone.retries,
        concurrency_only=True,
    )
