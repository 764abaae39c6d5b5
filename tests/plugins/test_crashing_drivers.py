"""The plugin against drivers whose process dies: the report is rewritten as checks
end, so a run killed half-way still leaves one that is not a pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CRASHING = "tests.plugins.crashing_drivers"
PATIENCE = 120
"""Seconds a subprocess run may take before the test calls it hung (they take a few)."""


def run_crashing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, driver: str, *extra: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Run `driver` of this module's drivers against the provider profile in a process of
    its own; the result and the JSON report it left."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    result = pytester.runpytest_subprocess(
        f"--driver={CRASHING}:{driver}",
        "--profile=provider",
        "--driver-timeout=2",
        "--conformance-report=r.json",
        *extra,
        timeout=PATIENCE,
    )
    report: dict[str, Any] = json.loads((pytester.path / "r.json").read_text())
    return result, report


def test_a_run_killed_half_way_leaves_the_report_of_what_ended(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The driver ends the whole pytest process on its 20th store: no hook runs after it.
    result, report = run_crashing(pytester, monkeypatch, "ExitsOnAStore", "-v")
    assert result.ret == 3, result.stdout.str()
    summary = report["summary"]
    assert summary["verdict"] == "error"
    [error] = report["errors"]
    assert error["kind"] == "unfinished"
    assert "did not finish" in error["message"]
    passed = [c["id"] for c in report["checks"] if c["outcome"] == "passed"]
    # The checks pytest saw pass before the process died are the report's passes.
    shown = [
        line.split("::")[1].split()[0]
        for line in result.stdout.lines
        if "::" in line and " PASSED" in line
    ]
    assert passed and sorted(passed) == sorted(shown)
    assert "provider.health" in passed
    assert summary["not_run"] > 0 and summary["passed"] == len(passed)
    markdown = (pytester.path / "r.md").read_text()
    assert "**Verdict: error**" in markdown and "unfinished: the run started" in markdown
