"""No check ran is not a pass: every selected check ends with an outcome in the report,
whatever the driver does, and the verdict says when the run is incomplete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.checks.catalogue import checks_for
from conformance.report import Report

DRIVERS = "tests.plugins.verdict_drivers"
PROVIDER_CHECKS = len(checks_for("provider"))
ENGINE_CHECKS = len(checks_for("engine"))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def subprocess_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lets a pytest subprocess import the test drivers."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def report_of(path: Path) -> Report:
    return Report.model_validate(json.loads(path.read_text()))


def markdown_head(path: Path) -> list[str]:
    """The Markdown summary's lines after its title: the verdict comes first."""
    return path.with_suffix(".md").read_text().splitlines()[2:]


def outcome(report: Report, check_id: str) -> str:
    return next(c.outcome for c in report.checks if c.id == check_id)


def test_a_run_that_selected_no_check_is_an_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=reference", "-k", "no_such_check", "--conformance-report=r.json"
    )
    assert result.ret != pytest.ExitCode.OK
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "error"
    assert [e.kind for e in report.errors] == ["nothing selected"]
    assert markdown_head(pytester.path / "r.json")[:2] == [
        "**Verdict: error**, because:",
        "- nothing selected: no conformance check was selected, so nothing was checked "
        "(a -k or -m expression, or --deselect, left none)",
    ]
    result.stdout.fnmatch_lines(["*conformance of `reference`: error*", "  nothing selected: *"])


@pytest.mark.parametrize(
    ("driver", "raised"),
    [
        ("ExitsInExport", "SystemExit: 3"),
        ("InterruptsInExport", "KeyboardInterrupt"),
        ("GeneratorExitInExport", "GeneratorExit"),
        ("CustomBaseExceptionInExport", "DriverBaseException: the driver's own"),
        # Inside a coroutine: asyncio would let these two end the kit's event loop.
        ("AsyncExitsInExport", "SystemExit: 3"),
        ("AsyncInterruptsInExport", "KeyboardInterrupt"),
    ],
)
def test_a_base_exception_from_the_driver_is_the_calling_checks_outcome(
    pytester: pytest.Pytester, driver: str, raised: str
) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:{driver}",
        "--profile=provider",
        "--driver-timeout=20",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = report_of(pytester.path / "r.json")
    assert len(report.checks) == PROVIDER_CHECKS  # every provider check has an outcome
    # None waited out the time limit on a loop the exception ended.
    assert "ran past the" not in "".join(c.reason for c in report.checks)
    assert report.summary.not_run == 0 and report.errors == []
    # The checks that call export_page fail there (or, where another check owns the
    # fault, are inconclusive naming it); every other check passes or skips as usual.
    hit = {c.id: c.reason for c in report.checks if c.outcome in ("failed", "inconclusive")}
    assert "provider.export_cursor_terminates" in hit
    for reason in hit.values():
        assert "at export_page(" in reason and f"the driver raised {raised}" in reason
    assert outcome(report, "provider.taint_is_preserved") == "passed"
    assert report.summary.verdict == "fail"


def test_the_users_interrupt_stops_the_run_and_the_report_says_so(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        interrupting="""
        import os, signal
        from reference_driver.provider import ReferenceProvider

        # A terminal delivers Ctrl-C; a launcher that ran this test in the background
        # (a non-interactive shell's `&`) left SIGINT ignored, and no terminal would.
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)

        class SignalsInExport(ReferenceProvider):
            def export_page(self, cursor, limit):
                os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C on the terminal
                return super().export_page(cursor, limit)
        """
    )
    result = pytester.runpytest_subprocess(
        "--driver=interrupting:SignalsInExport",
        "--profile=provider",
        "-p",
        "no:randomly",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "error"
    assert [e.kind for e in report.errors][:1] == ["interrupted"]
    assert report.summary.not_run > 0
    assert markdown_head(pytester.path / "r.json")[1].startswith("- interrupted: ")


def test_a_collection_time_driver_error_is_reported_as_such(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:DescriptorRaises", "--profile=engine", "--conformance-report=r.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "error"
    error = report.errors[0]
    assert (error.kind, error.worker) == ("collection", "main")
    assert error.message.startswith("engine.descriptor() failed while the checks were collected")
    assert "RuntimeError: descriptor service down" in error.message
    # The checks still ran, once each, and every one has an outcome: not "0 of 0".
    assert len(report.checks) == ENGINE_CHECKS and report.summary.not_run == 0
    assert outcome(report, "engine.health") == "passed"
    assert outcome(report, "engine.fetch_filters") == "failed"
    assert markdown_head(pytester.path / "r.json")[1].startswith("- collection (main): engine.")


@pytest.mark.usefixtures("subprocess_path")
def test_a_worker_killed_mid_check_fails_that_check_and_lists_what_never_ran(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        f"--driver={DRIVERS}:DiesInExport",
        "--profile=provider",
        "-n",
        "1",
        "--max-worker-restart=0",
        "-p",
        "no:randomly",
        "--conformance-report=r.json",
    )
    assert result.ret != pytest.ExitCode.OK
    report = report_of(pytester.path / "r.json")
    # Under xdist the longest checks go first: the first to call export_page crashes.
    [crashed] = [c for c in report.checks if c.outcome == "failed"]
    assert "export" in crashed.id
    assert "worker 'gw0' crashed while running" in crashed.reason
    never = [c.id for c in report.checks if c.outcome == "not run"]
    assert never and crashed.id not in never
    assert report.summary.verdict == "error"
    assert report.errors[-1].kind == "not run"
    assert (
        f"{len(never)} of {PROVIDER_CHECKS} selected checks never ran" in report.errors[-1].message
    )
    assert outcome(report, "provider.listing_holds_at_volume") == "passed"  # ran before it


@pytest.mark.usefixtures("subprocess_path")
def test_a_driver_that_cannot_be_built_on_one_worker_is_an_error(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        f"--driver={DRIVERS}:locked_store",
        "--driver-option=path=store",
        "--profile=provider",
        "-n",
        "2",
        "--conformance-report=r.json",
    )
    assert result.ret != pytest.ExitCode.OK
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "error"
    builds = [e for e in report.errors if e.kind == "build"]
    assert len(builds) == 1 and builds[0].worker in ("gw0", "gw1")
    assert "already accessed by another process" in builds[0].message
    head = markdown_head(pytester.path / "r.json")
    assert head[0] == "**Verdict: error**, because:"
    assert head[1].startswith(f"- build ({builds[0].worker}): driver `locked` failed to build")
    result.stdout.fnmatch_lines(["*conformance of `locked`: error*", "  build (gw*"])


@pytest.mark.usefixtures("subprocess_path")
def test_worker_placeholder_gives_each_worker_its_own_store(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        f"--driver={DRIVERS}:locked_store",
        "--driver-option=path=store-{worker}",
        "--profile=provider",
        "-n",
        "2",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert {p.name for p in pytester.path.glob("store-*")} == {"store-gw0", "store-gw1"}
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "pass"
    assert report.driver.options == {"path": "store-{worker}"}


def test_without_xdist_the_worker_is_main(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:locked_store",
        "--driver-option=path=store-{worker}",
        "--profile=provider",
        "-k",
        "taint",
    )
    result.assert_outcomes(passed=1)
    assert (pytester.path / "store-main").is_dir()


def test_k_selects_by_check_id_even_when_the_driver_is_named_like_a_check(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(f"--driver={DRIVERS}:replay_engine", "-k", "replay", "-q")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest(f"--driver={DRIVERS}:replay_engine", "-q", "--co")
    result.stdout.fnmatch_lines(["tinymemory/replay-engine::engine.replay"])
    assert result.ret == pytest.ExitCode.OK  # listing the checks gives no verdict


@pytest.mark.parametrize(
    ("driver", "profile", "level", "features"),
    [
        ("reference", "engine", "full", ["keyword", "vector", "hybrid"]),
        ("tests.drivers.test_reference_engine:KeywordOnly", "engine", "core", ["keyword"]),
        (f"{DRIVERS}:MandatoryFamiliesOnly", "provider", "core", []),
        ("reference", "provider", "full", ["documents"]),
        ("sqlite", "provider", "full", ["documents"]),
    ],
)
def test_levels_mean_the_same_for_both_profiles(
    pytester: pytest.Pytester, driver: str, profile: str, level: str, features: list[str]
) -> None:
    pytester.runpytest(f"--driver={driver}", f"--profile={profile}", "--conformance-report=r.json")
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "pass"
    info = report.profiles[profile]
    assert (info.level, info.features) == (level, features)
    offered = ", ".join(features) or "none"
    wanted = ", ".join(info.optional_features)
    assert (
        f"| {profile} | {level} | {offered} (of {wanted}) |" in (pytester.path / "r.md").read_text()
    )


def test_a_fuzz_target_that_could_not_run_has_not_passed(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:misconfigured_fuzz",
        "--profile=provider",
        "--fuzz",
        "--fuzz-examples=3",
        "-k",
        "fuzz",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    entry = report_of(pytester.path / "r.json").checks[0]
    assert (entry.id, entry.outcome) == ("fuzz.provider.differential", "failed")
    assert entry.reason.startswith("fuzz target `fuzz.provider.differential` could not run")
    assert "does not contain '~', the run root" in entry.reason
