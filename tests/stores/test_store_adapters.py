"""The example stores (`examples/stores/`) hold their recorded outcomes.

Each adapter's suite and fuzz run live, with the recorded seed and budget; any check
whose outcome differs from `examples/stores/NAME/report.json` fails the test, with the
diff and the command that records the run again. A store that is not installed skips
the test, unless `TINYMEMORY_REQUIRE_STORES=1` (CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conformance.report import Report
from tests.stores.recorded import (
    ADAPTERS,
    FUZZ_EXAMPLES,
    NORMALISED_TIME,
    SEED,
    Adapter,
    changed_checks,
    installed,
    normalise,
    outcome_diff,
    reason_of,
    run,
    stores_python,
)


def _require_stores() -> bool:
    return os.environ.get("TINYMEMORY_REQUIRE_STORES") == "1"


@pytest.mark.parametrize("adapter", list(ADAPTERS.values()), ids=list(ADAPTERS))
def test_store_adapter_holds_its_recorded_outcomes(adapter: Adapter, tmp_path: Path) -> None:
    assert adapter.recorded.exists(), f"{adapter.recorded} is missing"
    python = stores_python()
    if not installed(adapter, python):
        message = f"{adapter.distribution} is not installed for {python}"
        if _require_stores():
            pytest.fail(f"{message} (TINYMEMORY_REQUIRE_STORES=1)")
        pytest.skip(message)
    recorded = json.loads(adapter.recorded.read_text())
    live, output = run(adapter, tmp_path, python)
    diff = outcome_diff(recorded, live)
    if diff:
        why = [f"  {check}: {reason_of(live, check)}" for check in changed_checks(diff)]
        pytest.fail(
            "\n".join(
                [
                    f"`{adapter.name}` moved from its recorded outcomes:",
                    *diff,
                    *why,
                    f"if the change is meant: python -m tests.stores.record {adapter.name}",
                    "(and commit the new report.json with it)",
                    "the run's last lines:",
                    *output.splitlines()[-8:],
                ]
            )
        )


def _report(outcome: str) -> dict[str, Any]:
    return {
        "created_at": "2026-12-02T16:43:07+00:00",
        "summary": {"verdict": "pass" if outcome == "passed" else "fail"},
        "profiles": {"provider": {"level": "core" if outcome == "passed" else "none"}},
        "checks": [
            {"id": "provider.taint_is_preserved", "outcome": "passed", "duration": 0.25},
            {
                "id": "provider.recall_respects_limit_and_namespace",
                "outcome": outcome,
                "duration": 1.5,
                "reason": "got 1 hit",
                "trace": 'File "/venv/site-packages/acme/store.py", line 3',
            },
        ],
    }


def test_an_outcome_that_moves_is_a_diff_naming_the_check() -> None:
    diff = outcome_diff(_report("passed"), _report("failed"))
    assert "-provider.recall_respects_limit_and_namespace: passed" in diff
    assert "+provider.recall_respects_limit_and_namespace: failed" in diff
    assert "+level provider: none" in diff and "+verdict: fail" in diff
    assert changed_checks(diff) == ["provider.recall_respects_limit_and_namespace"]
    assert outcome_diff(_report("passed"), _report("passed")) == []


def test_normalising_keeps_outcomes_and_drops_what_differs_run_to_run() -> None:
    report = _report("failed")
    normal = normalise(report, ("/venv/site-packages",))
    assert normal["created_at"] == NORMALISED_TIME
    assert [entry["duration"] for entry in normal["checks"]] == [0.0, 0.0]
    assert normal["checks"][1]["trace"] == 'File "<site>/acme/store.py", line 3'
    assert outcome_diff(report, normal) == []
    assert report["checks"][0]["duration"] == 0.25  # the report given is left as it was


def test_recorded_reports_are_normalised_runs_of_the_recorded_command() -> None:
    for adapter in ADAPTERS.values():
        recorded = json.loads(adapter.recorded.read_text())
        Report.model_validate(recorded)  # a report as `report diff` and the matrix read it
        assert recorded["seed"] == SEED, adapter.name
        assert recorded["created_at"] == NORMALISED_TIME, adapter.name
        assert recorded["driver"]["name"] == adapter.name
        assert recorded["driver"]["distribution"] == adapter.distribution
        fuzz = [e for e in recorded["checks"] if e["id"].startswith("fuzz.")]
        assert any(
            e["outcome"] != "skipped" and f"({FUZZ_EXAMPLES} asked" in e["reason"] for e in fuzz
        ), adapter.name
