"""The plugin against drivers whose process dies: the report is rewritten as checks
end, so a run killed half-way still leaves one that is not a pass."""

from __future__ import annotations

import json
import sys
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
        # No call hangs; the call a process dies in also starts the next process, which
        # takes seconds on a loaded machine and must not make that check inconclusive.
        "--driver-timeout=20",
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
    assert "--driver-isolation=process runs it in a child process" in error["message"]
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


@pytest.mark.parametrize(
    ("driver", "ended", "asked"),
    [
        ("ExitsOnAStore", "exited with status 3", "command line"),
        ("SegfaultsOnAStore", "was killed by signal SIGSEGV", "pyproject"),
    ],
)
def test_an_isolated_driver_that_crashes_fails_that_check_and_the_rest_run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    driver: str,
    ended: str,
    asked: str,
) -> None:
    # The retention probe and the check between them make the 20th store this check's.
    crashes, after = "provider.export_covers_every_record", "provider.recall_ranks_best_first"
    picked = f"provider.health or {crashes} or {after}"
    if asked == "pyproject":
        pytester.makepyprojecttoml('[tool.tinymemory]\ndriver-isolation = "process"\n')
        flags: tuple[str, ...] = ()
    else:
        flags = ("--driver-isolation=process",)
    result, report = run_crashing(pytester, monkeypatch, driver, *flags, "-k", picked)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    got = {c["id"]: c for c in report["checks"]}
    assert set(got) == {"provider.health", crashes, after}
    assert got[crashes]["outcome"] == "failed"
    reason = got[crashes]["reason"]
    assert f"the driver process {sys.executable} -X faulthandler -m plugins.cli serve" in reason
    assert f"{ended} before answering provider.store" in reason
    # A fresh process served the check after it.
    assert got["provider.health"]["outcome"] == got[after]["outcome"] == "passed"
    assert report["summary"]["verdict"] == "fail" and report["errors"] == []
    if driver == "SegfaultsOnAStore":
        # The child's faulthandler names the driver's frame that crashed.
        assert "Fatal Python error: Segmentation fault" in reason and " in die" in reason
    result.stdout.fnmatch_lines([f"*{crashes}*{ended} before answering provider.store*"])
