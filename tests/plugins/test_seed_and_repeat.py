"""The run seed replays a run exactly; repeats tell a flaky check from a stable failure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance.checks import RunSettings, run_provider_suite
from conformance.checks.catalogue import all_checks
from conformance.checks.seeds import nonce_for
from conformance.report import Report
from plugins.run import repeat_seeds
from tests.plugins.verdict_drivers import MarkerSensitive

DRIVER = "--driver=tests.plugins.verdict_drivers:MarkerSensitive"
CHECK = "provider.awkward_content_round_trips"


def report_of(path: Path) -> Report:
    return Report.model_validate(json.loads(path.read_text()))


def failure_of(result: pytest.RunResult) -> list[str]:
    """The failure text of the one failing check, from its message to its explain line."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{CHECK} ("))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("explain: "))
    return lines[start : end + 1]


def failing_seed(pytester: pytest.Pytester) -> int:
    """A run seed under which the marker-sensitive driver fails the check."""
    for seed in range(1, 40):
        result = pytester.runpytest(DRIVER, "--profile=provider", f"--conformance-seed={seed}")
        if any(
            line.startswith(f"FAILED tinymemory/MarkerSensitive::{CHECK}")
            for line in result.outlines
        ):
            return seed
    raise AssertionError("no seed in 1..39 garbles the check's namespaces")


def test_the_seed_is_printed_written_and_replays_the_same_failure(
    pytester: pytest.Pytester,
) -> None:
    seed = failing_seed(pytester)
    first = pytester.runpytest(
        DRIVER, "--profile=provider", f"--conformance-seed={seed}", "--conformance-report=r.json"
    )
    first.stdout.fnmatch_lines([f"tinymemory: driver `MarkerSensitive`*seed {seed} *"])
    assert report_of(pytester.path / "r.json").seed == seed
    message = failure_of(first)
    # The marker is in the message; the message ends with how to replay and explain it.
    assert re.search(r"<root> = 'tinymemory-conformance/[0-9a-f]{16}/", "\n".join(message))
    replay = message[-2]
    assert replay == (
        f"replay: pytest --driver=tests.plugins.verdict_drivers:MarkerSensitive "
        f"--conformance-seed {seed} -k {CHECK}"
    )
    assert message[-1] == f"explain: tinymemory-conformance explain {CHECK}"
    # Replayed alone, as the message says, and from pyproject.toml: the same markers, the
    # same message.
    again = pytester.runpytest(*replay.removeprefix("replay: pytest ").split())
    assert failure_of(again) == message
    pytester.makepyprojecttoml(
        "[tool.tinymemory]\n"
        'driver = "tests.plugins.verdict_drivers:MarkerSensitive"\n'
        f"conformance-seed = {seed}\n"
    )
    assert failure_of(pytester.runpytest("-k", CHECK)) == message


def test_without_a_seed_each_run_draws_its_own(pytester: pytest.Pytester) -> None:
    seeds = set()
    for _ in range(2):
        pytester.runpytest("--driver=reference", "-k", "health", "--conformance-report=r.json")
        seeds.add(report_of(pytester.path / "r.json").seed)
    assert len(seeds) == 2


def test_repeats_report_failed_k_of_n_and_tell_flaky_from_stable(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        DRIVER,
        "--profile=provider",
        "--conformance-seed=5",
        "--conformance-repeat=8",
        "-k",
        "awkward or taint",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = report_of(pytester.path / "r.json")
    assert report.repeat == 8
    entry = next(c for c in report.checks if c.id == CHECK)
    assert entry.outcome == "failed" and entry.repeats is not None
    seeds = repeat_seeds(5, 8)
    assert len(set(seeds)) == 8 and seeds[0] == 5
    repeats = entry.repeats
    assert 0 < repeats.failed < 8 and repeats.flaky, repeats
    assert set(repeats.failed_seeds) < set(seeds)
    assert entry.reason.startswith(f"failed {repeats.failed} of 8 runs (flaky")
    result.stdout.fnmatch_lines([f"  {CHECK}: failed {repeats.failed} of 8 (flaky)"])
    assert report.summary.flaky == 1 and report.summary.verdict == "fail"
    # A run that passes every repeat is not flaky, and each of its runs was counted.
    taint = next(c for c in report.checks if c.id == "provider.taint_is_preserved")
    assert taint.outcome == "passed" and taint.repeats is not None
    assert (taint.repeats.runs, taint.repeats.failed, taint.repeats.flaky) == (8, 0, False)
    # Each failing seed replays that failure alone.
    replay = pytester.runpytest(
        DRIVER, f"--conformance-seed={repeats.failed_seeds[0]}", "-k", CHECK
    )
    replay.assert_outcomes(failed=1, deselected=len(all_checks()) - 1)


def test_a_stable_failure_fails_every_repeat(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        "--driver=tests.checks.broken_providers:RestampsTaint",
        "--profile=provider",
        "--conformance-repeat=3",
        "-k",
        "taint",
        "--conformance-report=r.json",
    )
    entry = report_of(pytester.path / "r.json").checks[0]
    assert entry.repeats is not None
    assert (entry.repeats.failed, entry.repeats.flaky) == (3, False)
    assert entry.shown_outcome() == "failed 3 of 3"


def test_the_api_without_pytest_replays_a_seed() -> None:
    def reason(seed: int) -> str:
        return run_provider_suite(MarkerSensitive(), RunSettings(seed=seed), only=[CHECK])[
            CHECK
        ].reason

    seed = next(s for s in range(1, 40) if reason(s))
    assert reason(seed) == reason(seed)
    assert f"tinymemory-conformance/{nonce_for(seed, CHECK)}/" in reason(seed)


def test_xdist_workers_share_the_run_seed_and_replay_without_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    garbles = "--driver=tests.plugins.verdict_drivers:Garbles"
    pytester.runpytest_subprocess(
        garbles, "--profile=provider", "-n", "2", "--conformance-report=r.json"
    )
    spread = report_of(pytester.path / "r.json")
    # Each message names the check's root, so its nonce: the same only from the same seed.
    failures = {c.id: c.reason for c in spread.checks if c.outcome == "failed"}
    assert len(failures) >= 2
    assert all("<root> = 'tinymemory-conformance/" in reason for reason in failures.values())
    pytester.runpytest(
        garbles,
        "--profile=provider",
        f"--conformance-seed={spread.seed}",
        "--conformance-report=again.json",
    )
    again = report_of(pytester.path / "again.json")
    assert {c.id: c.reason for c in again.checks if c.outcome == "failed"} == failures
