"""The freedom matrix: every configuration passes the whole suite and one fuzz seed, uses
every freedom it stands for, and leaves the other writer's data alone (issue 17)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from conformance.bridge import as_sync
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET
from conformance.report import Report
from tests.freedom.determinism import pinned_constants
from tests.freedom.matrix import (
    BUILT,
    CONFIGURATIONS,
    FUZZ_SEED,
    Configuration,
    held_beside_foreign,
    used,
)
from tests.freedom.runs import fuzz_run, suite_run
from tests.freedom.verdicts import problems, unused

DIRECT = [c for c in CONFIGURATIONS.values() if not c.via_plugin]
PLUGIN = [c for c in CONFIGURATIONS.values() if c.via_plugin]


def name_of(config: Configuration) -> str:
    return config.name


def declares_modes(driver: Any, config: Configuration) -> bool:
    return config.profile == "provider" or bool(as_sync(driver).descriptor().fetch_modes)


def test_the_matrix_covers_both_profiles_with_thirty_configurations() -> None:
    profiles = [c.profile for c in CONFIGURATIONS.values()]
    assert len(profiles) >= 30
    assert profiles.count("engine") >= 15 and profiles.count("provider") >= 15


@pytest.mark.parametrize("config", DIRECT, ids=name_of)
def test_the_whole_suite_passes(config: Configuration) -> None:
    driver, results = suite_run(config)
    outcomes = [(r.id, r.outcome, r.reason) for r in results.values()]
    assert problems(config, outcomes, declares_modes(driver, config)) == []
    # The report counts calls where the driver refused valid input: a correct driver has none.
    assert {r.id: r.refusals for r in results.values() if r.refusals} == {}
    assert unused(config, used(driver), "suite") == []
    assert held_beside_foreign(driver) == []


@pytest.mark.parametrize("config", DIRECT, ids=name_of)
def test_one_fuzz_seed_passes(config: Configuration) -> None:
    driver, report = fuzz_run(config)
    assert report.passed
    assert unused(config, used(driver), "fuzz") == [], "raise the configuration's fuzz budget"
    assert held_beside_foreign(driver) == []


@pytest.mark.parametrize("config", PLUGIN, ids=name_of)
def test_the_suite_and_a_fuzz_seed_pass_through_the_plugin(
    config: Configuration, pytester: pytest.Pytester
) -> None:
    BUILT.pop(config.name, None)
    pytester.makepyprojecttoml("[tool.tinymemory]\ndriver-backoff = 0.001\n")
    options = [f"--driver-option={key}={value}" for key, value in config.options.items()]
    with pinned_constants():
        result = pytester.runpytest(
            "--driver=tests.freedom.matrix:freedom_driver",
            f"--driver-option=config={config.name}",
            *options,
            f"--profile={config.profile}",
            "--fuzz",
            f"--fuzz-examples={config.fuzz_examples}",
            f"--fuzz-seed={FUZZ_SEED}",
            "--conformance-report=report.json",
        )
    report = Report.model_validate(json.loads((pytester.path / "report.json").read_text()))
    # One instance for the suite, and the fuzzer's own or the same one.
    built = BUILT[config.name]
    outcomes = [(c.id, c.outcome, c.reason) for c in report.checks]
    assert problems(config, outcomes, declares_modes(built[0], config)) == []
    assert report.summary.verdict == "pass", result.stdout.str()
    assert unused(config, sum((used(d) for d in built), Counter[str]()), "plugin") == []
    assert [held_beside_foreign(d) for d in built] == [[] for _ in built]
    assert {c.id: c.refusals for c in report.checks if c.refusals} == {}
    entries = {c.id: c for c in report.checks}
    if "credential-option" in config.freedoms:
        assert entries[f"{config.profile}.no_credential_in_errors"].outcome == "passed"
    if "transient-unavailable" in config.freedoms:
        # Every retry is reported, by the suites and by the fuzzer alike (decisions §4.11).
        fuzz = ENGINE_TARGET if config.profile == "engine" else PROVIDER_TARGET
        assert sum(c.retries for c in report.checks if c.id != fuzz) > 0
        assert entries[fuzz].retries > 0
