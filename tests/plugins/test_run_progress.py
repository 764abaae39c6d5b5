"""A slow driver's run says how far it has got and, early on, how long it will take; a
fast driver's run, and `-q`, say nothing of it."""

from __future__ import annotations

import re

import pytest

from conformance.checks import progress
from plugins import run_pace
from tests.plugins.hostile_drivers import SlowCalls
from tests.plugins.test_hostile_drivers import HOSTILE, report_of

TWO_CHECKS = "provider.forget_is_idempotent or provider.upsert_replaces_rather_than_duplicates"


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """0.05 s a call, a check long after 0.3 s, a run long past 0.5 s: the real figures
    (0.5 s a call, 5 s, 30 s) at a tenth of the time."""
    monkeypatch.setattr(SlowCalls, "seconds", 0.05)
    monkeypatch.setattr(progress, "LONG_CHECK", 0.3)
    monkeypatch.setattr(run_pace, "LONG_RUN", 0.5)
    monkeypatch.setattr(run_pace, "FIRST_CHECKS", 1)


def run_slow(pytester: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        f"--driver={HOSTILE}:slow_provider",
        "--profile=provider",
        "--conformance-report=r.json",
        "-k",
        TWO_CHECKS,
        *extra,
    )


@pytest.mark.usefixtures("slow")
def test_a_slow_driver_shows_progress_and_the_length_of_its_run(
    pytester: pytest.Pytester,
) -> None:
    result = run_slow(pytester)
    out = result.stdout.str()
    # Each long check: a line while it runs, one when it ends; then the run's length.
    for check_id in TWO_CHECKS.split(" or "):
        assert re.search(rf"^\[tinymemory\] {check_id}: \d+ driver calls, \d\.\d s$", out, re.M)
        assert re.search(
            rf"^\[tinymemory\] {check_id}: \d+ driver calls, \d\.\d s, done$", out, re.M
        )
    said = re.findall(r"^tinymemory: 2 checks, about \d+ s at the pace so far$", out, re.M)
    assert len(said) == 1, out
    # Progress is the terminal's: the reports hold the verdict alone.
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "pass" and report.summary.passed == 2
    assert "[tinymemory]" not in (pytester.path / "r.md").read_text()


@pytest.mark.usefixtures("slow")
def test_q_silences_the_progress_of_a_slow_driver(pytester: pytest.Pytester) -> None:
    out = run_slow(pytester, "-q").stdout.str()
    assert "[tinymemory]" not in out and "at the pace so far" not in out


def test_a_fast_driver_shows_no_progress(pytester: pytest.Pytester) -> None:
    out = pytester.runpytest(
        "--driver=reference", "--profile=provider", "-k", TWO_CHECKS
    ).stdout.str()
    assert "[tinymemory]" not in out and "at the pace so far" not in out
