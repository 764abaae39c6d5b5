"""The table of calls each check makes against the reference (`typical_calls`), held to a
run of the reference suite: a check whose calls moved past half or twice its entry (and
by more than a few) makes the table stale, and the test says what to write instead."""

from __future__ import annotations

from collections.abc import Mapping

from conformance.checks.catalogue import CATALOGUE
from conformance.checks.outcome import CheckResult
from conformance.checks.typical_calls import TYPICAL_CALLS
from conformance.engine.requests import FetchMode

SLACK = 10
"""Calls a check may move either way before its entry counts as stale, whatever its size."""


def assert_table_is_current(results: Mapping[str, CheckResult]) -> None:
    """Each check of `results` (one profile, every check run) makes about the calls its
    table entry says (per fetch mode, for a per-mode check)."""
    fresh = {
        check_id: result.calls // (len(FetchMode) if CATALOGUE[check_id].per_mode else 1)
        for check_id, result in results.items()
    }
    stale = {
        check_id: (TYPICAL_CALLS.get(check_id), calls)
        for check_id, calls in fresh.items()
        if not _close(TYPICAL_CALLS.get(check_id), calls)
    }
    rows = "\n".join(f'    "{k}": {fresh[k]},' for k in sorted(fresh))
    assert stale == {}, (
        f"conformance/checks/typical_calls.py is stale ((table, now) by check): {stale}; "
        f"this profile's entries now:\n{rows}"
    )


def _close(expected: int | None, calls: int) -> bool:
    if expected is None:
        return False
    return expected / 2 - SLACK <= calls <= expected * 2 + SLACK
