"""The plugin against drivers that fight it: the time limit holds and a run that must be
abandoned still ends with its report; wrong types are one failure each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.checks.catalogue import checks_for
from conformance.report import Report

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "tests.plugins.hostile_drivers"
PATIENCE = 600
"""Seconds a subprocess run may take before the test calls it hung (the runs take a few
seconds; xdist restarting a worker per hung check takes longer on a loaded machine)."""


def report_of(path: Path) -> Report:
    return Report.model_validate(json.loads(path.read_text()))


def run_hostile(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    driver: str,
    profile: str,
    *extra: str,
) -> tuple[pytest.RunResult, Report]:
    """Run `driver` of this module with a 0.5 s limit in a process of its own (a run that
    must be abandoned ends its process); the result and the report. It must not hang."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    result = pytester.runpytest_subprocess(
        f"--driver={HOSTILE}:{driver}",
        f"--profile={profile}",
        "--driver-timeout=0.5",
        "--conformance-report=r.json",
        *extra,
        timeout=PATIENCE,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    return result, report_of(pytester.path / "r.json")


@pytest.mark.parametrize("driver", ["SwallowsTheAlarm", "IgnoresTheAlarm"])
def test_a_call_the_driver_will_not_let_go_is_left_behind_and_the_run_goes_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, driver: str
) -> None:
    # One check before the one that hangs in namespaces(), one after it.
    hangs, after = "provider.list_filters_narrow", "provider.document_ids"
    picked = f"provider.health or {hangs} or {after}"
    result, report = run_hostile(
        pytester, monkeypatch, driver, "provider", "--junitxml=j.xml", "-k", picked
    )
    got = {c.id: c for c in report.checks}
    assert set(got) == {"provider.health", hangs, after}
    assert got[hangs].outcome == "inconclusive"
    assert "at namespaces()" in got[hangs].reason
    hang = got[hangs].hang
    assert hang is not None and hang.call == "namespaces()"
    assert "left the call behind and ran the checks after it on a fresh instance" in (
        got[hangs].reason
    )
    # The check after it ran to its end on a driver built again, as the first was.
    assert got["provider.health"].outcome == got[after].outcome == "passed"
    assert report.driver.rebuilt == [
        f"built again after {hangs}: namespaces() ran past the 0.5 s limit and could not "
        f"be interrupted; the checks after it ran on the fresh instance"
    ]
    assert report.errors == [] and report.summary.verdict == "inconclusive"
    junit = (pytester.path / "j.xml").read_text()
    assert hangs in junit and "INCONCLUSIVE" in junit and after in junit
    result.stdout.fnmatch_lines(
        [
            "*tinymemory conformance of*: inconclusive, the driver hangs (2 passed, 0 failed, "
            "0 skipped, 0 waived, 1 inconclusive, 0 not run;*",
            f"*the driver was built again after {hangs}: namespaces() ran past*",
        ]
    )
    assert f"The driver was built again after {hangs}" in (pytester.path / "r.md").read_text()


def test_under_xdist_the_controller_reports_the_abandoned_checks(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two checks that list namespaces, three that do not (one skipped): each worker
    # restart costs seconds, so a few checks tell what the whole suite would.
    picked = [
        "provider.health",
        "provider.list_filters_narrow",
        "provider.accepts_valid_input",
        "provider.document_ids",
        "provider.no_credential_in_errors",
    ]
    result, report = run_hostile(
        pytester, monkeypatch, "SwallowsTheAlarm", "provider", "-n", "2", "-k", " or ".join(picked)
    )
    got = {c.id: c for c in report.checks}
    # Every check reached the report; each that lists namespaces hung its worker, and the
    # controller went on in a fresh one.
    assert set(got) == set(picked)
    hung = [c for c in report.checks if c.outcome == "inconclusive"]
    assert len(hung) >= 2
    for entry in hung:
        assert "at namespaces()" in entry.reason and "the run was abandoned" in entry.reason
    assert {c.outcome for c in report.checks} == {"passed", "skipped", "inconclusive"}
    assert report.summary.verdict == "inconclusive"
    assert report.summary.inconclusive == len(hung)
    # pytest counts each hung check once, as the kit does.
    assert f"{len(hung)} inconclusive" in result.stdout.str()
    assert f"{report.summary.skipped} skipped" in result.stdout.str()


@pytest.mark.parametrize("driver", ["BlocksItsLoopInShutdown", "ShutdownIgnoresTheAlarm"])
def test_a_shutdown_that_hangs_is_inconclusive(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, driver: str
) -> None:
    _, report = run_hostile(pytester, monkeypatch, driver, "provider", "--junitxml=j.xml")
    got = {c.id: c for c in report.checks}
    assert got["provider.shutdown"].outcome == "inconclusive"
    assert "shutdown()" in got["provider.shutdown"].reason
    assert "0.5 s limit" in got["provider.shutdown"].reason
    assert report.summary.verdict == "inconclusive"
    assert "provider.shutdown" in (pytester.path / "j.xml").read_text()


def test_a_wrong_return_type_is_one_short_failure_per_check(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={HOSTILE}:DescriptorAsDict",
        "--profile=engine",
        "--conformance-report=r.json",
    )
    output = result.stdout.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert len(output.splitlines()) < 400
    report = report_of(pytester.path / "r.json")
    assert {c.id for c in report.checks} == {c.id for c in checks_for("engine")}
    failed = [c for c in report.checks if c.outcome == "failed"]
    assert failed
    for entry in failed:
        assert "at descriptor(): expected an EngineDescriptor; got a dict" in entry.reason


def test_a_coroutine_from_a_plain_method_asks_for_async_def(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(f"--driver={HOSTILE}:FetchReturnsACoroutine", "--profile=engine")
    result.stdout.fnmatch_lines(
        ["*at fetch(*expected a FetchPage; got a coroutine*declare it `async def`*"]
    )
    assert "never awaited" not in result.stdout.str()


def test_a_hang_before_any_check_still_ends_with_a_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, report = run_hostile(pytester, monkeypatch, "DescriptorHangs", "engine")
    assert [(c.id, c.outcome) for c in report.checks] == [("engine.collection", "inconclusive")]
    assert "at descriptor()" in report.checks[0].reason
    assert report.summary.verdict == "inconclusive"


def test_a_driver_freezing_time_moves_no_duration_and_no_time_limit(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, report = run_hostile(
        pytester,
        monkeypatch,
        "FreezesTime",
        "provider",
        "-k",
        "provider.health or provider.store_get_round_trip",
    )
    outcomes = {c.id: c for c in report.checks if c.outcome != "skipped"}
    assert outcomes["provider.store_get_round_trip"].outcome == "passed"
    # health takes 2 s by the real clock: the 0.5 s limit holds though `time` is frozen.
    assert outcomes["provider.health"].outcome in ("failed", "inconclusive")
    assert "0.5" in outcomes["provider.health"].reason
    assert all(c.duration >= 0 for c in report.checks)
    assert 0.4 < outcomes["provider.health"].duration < 2.0
