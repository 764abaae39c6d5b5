"""Several checks at once: the same verdicts as one at a time, a driver that shares state
unsafely fails saying so, a driver that is not thread-safe runs serially, a call that
hangs is given up while the others go on."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

import conformance.checks.warmup as warmup
from conformance.checks.context import RunSettings
from conformance.checks.runner import run_suite
from conformance.fuzz.session import FuzzSession
from conformance.report import Report
from reference_driver.provider import ReferenceProvider
from tests.concurrency.drivers import Remote, SharesOneScratch

ROOT = Path(__file__).resolve().parents[2]
DRIVERS = "tests.concurrency.drivers"

# Checks that write and read many entries, the exports (which read the whole store
# in a still block) among them.
BUSY = [
    "provider.store_get_round_trip",
    "provider.namespaces_are_isolated",
    "provider.list_filters_narrow",
    "provider.export_covers_every_record",
    "provider.export_import_round_trip",
    "provider.export_during_writes",
    "provider.import_takes_records_written_elsewhere",
]
RACY = " or ".join(BUSY[:3])


def _outcomes(results: dict[str, object]) -> dict[str, tuple[str, str]]:
    return {k: (r.outcome, r.reason) for k, r in results.items()}  # type: ignore[attr-defined]


def test_checks_run_at_once_reach_the_verdicts_they_reach_one_at_a_time() -> None:
    settings = RunSettings(seed=11)
    serial = run_suite("provider", Remote(ReferenceProvider()), settings, BUSY)
    at_once = run_suite("provider", Remote(ReferenceProvider()), settings, BUSY, 6, warm_up=False)
    assert _outcomes(at_once) == _outcomes(serial)
    assert {r.outcome for r in at_once.values()} == {"passed"}


def test_a_driver_sharing_state_between_calls_fails_only_beside_other_checks() -> None:
    settings = RunSettings(seed=12)
    only = BUSY[:3]
    serial = run_suite("provider", Remote(SharesOneScratch()), settings, only)
    assert {r.outcome for r in serial.values()} == {"passed"}
    at_once = run_suite("provider", Remote(SharesOneScratch()), settings, only, 4, warm_up=False)
    failed = [r for r in at_once.values() if r.outcome == "failed"]
    assert failed, _outcomes(at_once)
    for result in failed:
        assert result.concurrency_only
        assert "failed only beside other checks" in result.reason
        assert "run again alone, it passed" in result.reason
        assert "Driver(thread_safe=False)" in result.reason


@pytest.fixture
def no_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks run at once from the first one, whatever the driver costs the CPU."""
    monkeypatch.setattr(warmup, "WARMUP", 0.0)
    monkeypatch.setattr(warmup, "MIN_GAIN", 0.0)


def _report(pytester: pytest.Pytester) -> Report:
    return Report.model_validate(json.loads((pytester.path / "r.json").read_text()))


@pytest.mark.usefixtures("no_warm_up")
def test_through_pytest_the_failure_says_it_shows_only_beside_others_and_how_to_see_it(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:shares_one_scratch",
        "--conformance-concurrency=4",
        "--conformance-seed=5",
        "--conformance-report=r.json",
        "-k",
        RACY,
    )
    report = _report(pytester)
    assert report.concurrency is not None and report.concurrency.used == 4
    failed = [c for c in report.checks if c.outcome == "failed"]
    assert failed, result.stdout.str()
    for entry in failed:
        assert entry.concurrency_only
        assert entry.replay is not None and "--conformance-concurrency 4" in entry.replay
        assert " -k " not in entry.replay  # what shows it is the run beside the others
        assert f"Serially it passes: pytest --driver={DRIVERS}:shares_one_scratch" in entry.reason
        assert f"-k {entry.id}" in entry.reason
    result.stdout.fnmatch_lines(["*failed only beside other checks*"])
    result.stdout.fnmatch_lines(["*Checks ran up to 4 at once*"])


def test_a_driver_that_is_not_thread_safe_runs_one_check_at_a_time(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:not_thread_safe",
        "--conformance-concurrency=8",
        "--conformance-report=r.json",
        "-k",
        RACY,
    )
    result.assert_outcomes(passed=3)
    report = _report(pytester)
    assert report.concurrency is not None and report.concurrency.used == 1
    assert "is not thread-safe" in (report.concurrency.serial_because or "")
    for page in ("r.md", "r.html"):
        assert "Checks ran one at a time, though 8 at once" in (pytester.path / page).read_text()
    result.stdout.fnmatch_lines(["*Checks ran one at a time, though 8 at once*not thread-safe*"])


def test_a_driver_that_gains_nothing_at_once_runs_one_check_at_a_time(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warmup, "WARMUP", 0.0)
    monkeypatch.setattr(warmup, "MIN_GAIN", 1e9)
    pytester.runpytest(
        "--driver=reference",
        "--profile=provider",
        "--conformance-concurrency=8",
        "--conformance-report=r.json",
        "-k",
        RACY,
    ).assert_outcomes(passed=3)
    concurrency = _report(pytester).concurrency
    assert concurrency is not None and concurrency.used == 1
    assert "(the GIL)" in (concurrency.serial_because or "")


@pytest.mark.usefixtures("no_warm_up")
def test_a_call_that_hangs_beside_others_is_given_up_and_the_rest_go_on(
    pytester: pytest.Pytester,
) -> None:
    hangs = "provider.list_filters_narrow"  # it counts entries with namespaces()
    result = pytester.runpytest(
        "--driver=tests.plugins.hostile_drivers:SwallowsTheAlarm",
        "--driver-timeout=0.5",
        "--conformance-concurrency=4",
        "--conformance-report=r.json",
        "-k",
        f"provider.health or {hangs} or provider.document_ids or provider.store_get_round_trip",
    )
    report = _report(pytester)
    got = {c.id: c for c in report.checks}
    assert got[hangs].outcome == "inconclusive", result.stdout.str()
    assert "left the call behind" in got[hangs].reason
    assert got[hangs].hang is not None and got[hangs].hang.call == "namespaces()"
    assert {c.outcome for i, c in got.items() if i != hangs} == {"passed"}
    assert len(report.driver.rebuilt) == 1 and hangs in report.driver.rebuilt[0]


@pytest.mark.usefixtures("no_warm_up")
def test_fuzz_targets_run_beside_the_checks_and_reach_the_serial_verdicts(
    pytester: pytest.Pytester,
) -> None:
    # One store under every instance: the fuzzer's exports and the checks' writes meet.
    selected = "fuzz or export_covers or listing_holds or export_during_writes or racing_writes"
    reports = []
    for flags in ((), ("--conformance-concurrency=6",)):
        result = pytester.runpytest(
            f"--driver={DRIVERS}:one_store",
            "--fuzz",
            "--fuzz-examples=12",  # 2 shards: their programs run at once too
            "--conformance-seed=8",
            "--conformance-report=r.json",
            "-k",
            selected,
            *flags,
        )
        result.assert_outcomes(passed=5, skipped=1)  # no engine: its fuzz target skips
        reports.append(_report(pytester))
    serial, at_once = reports
    assert at_once.concurrency is not None and at_once.concurrency.used == 6

    def verdicts(report: Report) -> dict[str, tuple[str, str]]:
        # The same programs, steps and findings; only the calls differ, as the fuzzer's
        # exports page through the entries the checks beside it hold in the one store.
        calls = re.compile(r"\d+ driver calls \([\d.]+ per step\)")
        return {c.id: (c.outcome, calls.sub("<calls>", c.reason)) for c in report.checks}

    assert verdicts(at_once) == verdicts(serial)


@pytest.mark.usefixtures("no_warm_up")
@pytest.mark.parametrize(
    ("fault", "target"),
    [
        # Under fuzz seed 1 both pass the first shard's 10 programs and show in the second's
        # (a shard after it may fail too, beside it: the second is reported). The taint is
        # lost after 400 writes to one instance: its failure needs the shard's history.
        ("tests.fuzz.engine_faults:WindowEndInclusive", "fuzz.engine.differential"),
        ("tests.fuzz.provider_faults:TaintLostAfter400Writes", "fuzz.provider.differential"),
    ],
)
def test_a_fuzz_target_runs_its_shards_at_once_and_reports_the_first_that_failed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fault: str, target: str
) -> None:
    threads: set[str] = set()
    real = FuzzSession.open

    def opened(self: FuzzSession, *args: Any, **kwargs: Any) -> Any:
        threads.add(threading.current_thread().name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(FuzzSession, "open", opened)
    reports, ran_on = [], []
    for flags in ((), ("--conformance-concurrency=4",)):
        threads.clear()
        pytester.runpytest(
            f"--driver={fault}",
            "--fuzz",
            "--fuzz-examples=20",
            "--fuzz-seed=1",
            "--conformance-report=r.json",
            "-k",
            target,
            *flags,
        ).assert_outcomes(failed=1)
        reports.append({c.id: (c.outcome, c.reason) for c in _report(pytester).checks})
        ran_on.append(len(threads))
    serial, at_once = reports
    assert at_once == serial
    assert "unreliable" not in serial[target][1]
    assert ran_on[0] == 1 and ran_on[1] >= 2


@pytest.mark.usefixtures("no_warm_up")
def test_a_put_made_beside_the_check_that_hangs_is_left_behind_and_the_rest_go_on(
    pytester: pytest.Pytester,
) -> None:
    volume = "provider.listing_holds_at_volume"  # its puts go several at once
    pytester.runpytest(
        f"--driver={DRIVERS}:hangs_on_one_key",
        "--driver-timeout=0.5",
        "--conformance-concurrency=4",
        "--conformance-report=r.json",
        "-k",
        f"{volume} or provider.health or provider.store_get_round_trip or export_covers",
    ).assert_outcomes(passed=3)
    report = _report(pytester)
    got = {c.id: c for c in report.checks}
    assert got[volume].outcome == "inconclusive"
    assert "'v100'" in got[volume].reason and "left the call behind" in got[volume].reason
    assert len(report.driver.rebuilt) == 1 and volume in report.driver.rebuilt[0]
    assert {c.outcome for i, c in got.items() if i != volume} == {"passed"}
