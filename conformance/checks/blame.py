"""Which check an inconclusive check follows from: said only once every check has run.

A check whose precondition failed names the call that went wrong while it runs; which of
the checks testing that operation (its owners) failed on the fault is known only once
they ran too, perhaps in another process. `blame` says it, truthfully: the owners that
failed (or were waived, failing), else that none did, or that none ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

FAILING = ("failed", "waived")
"""Outcomes of an owner that show the fault: a failure, or one a waiver covers."""


def base_outcomes(outcomes: Mapping[str, str]) -> dict[str, str]:
    """Outcomes by check id, a check run once per fetch mode (`id[mode]`) counted failing
    when any of its runs failed."""
    merged: dict[str, str] = {}
    for item_id, outcome in outcomes.items():
        check_id = item_id.partition("[")[0]
        if merged.get(check_id) not in FAILING:
            merged[check_id] = outcome
    return merged


def failed_owners(owners: Sequence[str], outcomes: Mapping[str, str]) -> list[str]:
    """The `owners` that failed, or were waived, in a run whose outcomes (by check id,
    see `base_outcomes`) are `outcomes`."""
    return [o for o in owners if outcomes.get(o) in FAILING]


def blame(owners: Sequence[str], outcomes: Mapping[str, str]) -> str:
    """What an inconclusive check whose precondition the `owners` test says of them:
    `(see X)` for the owners that failed; else how each ended, or that it did not run."""
    if not owners:
        return ""
    failed = failed_owners(owners, outcomes)
    if failed:
        return f"(see {', '.join(failed)})"
    if all(outcomes.get(o, "not run") == "not run" for o in owners):
        names = ", ".join(owners)
        return f"({names}, which test{'s' * (len(owners) == 1)} this operation, did not run)"
    shown = ", ".join(
        f"{o} {outcomes[o]}" if outcomes.get(o, "not run") != "not run" else f"{o} did not run"
        for o in owners
    )
    return f"(no check testing this operation failed: {shown})"
