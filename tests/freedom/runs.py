"""One configuration's suite run and fuzz run, as the matrix tests and the benchmark make them."""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.checks.context import RunSettings
from conformance.checks.outcome import CheckResult
from conformance.checks.runner import run_suite
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzReport, run_fuzz
from tests.freedom.determinism import pinned_constants
from tests.freedom.matrix import FUZZ_SEED, Configuration

SETTINGS = RunSettings(timeout=60.0, backoff=0.001)
"""The kit's defaults, but for a short backoff: the rate-limited drivers retry often."""


def settings_of(config: Configuration) -> RunSettings:
    """The run settings of `config`: `SETTINGS` with what its driver declares."""
    return dataclasses.replace(SETTINGS, constraints=config.constraints)


def suite_run(config: Configuration) -> tuple[Any, dict[str, CheckResult]]:
    """A fresh driver of `config` and the whole suite's results on it."""
    driver = config.build()
    return driver, run_suite(config.profile, driver, settings_of(config))


def fuzz_run(
    config: Configuration, examples: int | None = None, seed: int | None = None
) -> tuple[Any, FuzzReport]:
    """A fresh driver of `config` and the report of its fuzz seed (`FUZZ_SEED`, or `seed`;
    `FuzzFailure` when the fuzzer finds a difference)."""
    driver = config.build()
    target = ENGINE_TARGET if config.profile == "engine" else PROVIDER_TARGET
    with pinned_constants():
        report = run_fuzz(
            target,
            driver,
            seed=FUZZ_SEED if seed is None else seed,
            examples=config.fuzz_examples if examples is None else examples,
            settings=settings_of(config),
        )
    return driver, report
