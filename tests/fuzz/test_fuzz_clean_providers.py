"""A default fuzz run against providers that keep the contract reports nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.checks.outcome import ConformanceFailure
from conformance.fuzz import PROVIDER_TARGET, FuzzFailure, run_fuzz
from conformance.provider import GLOBAL_NAMESPACE, MemoryCategory, MemoryTaint
from null_driver.provider import NullProvider
from reference_driver.provider import ReferenceProvider
from reference_driver.sqlite.provider import SqliteProvider
from tests.checks.broken_providers import GetRaises
from tests.plugins.plugin_drivers import AsyncReference

SEED = 4242


def test_the_reference_provider_passes(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_fuzz(PROVIDER_TARGET, ReferenceProvider(), seed=SEED)
    assert report.passed and report.oracle == "reference"
    assert report.examples == 100 and report.steps_per_example == 30
    assert report.runs >= 100 and report.steps > 1000
    assert f"seed {SEED}" in capsys.readouterr().out


def test_the_null_provider_passes_against_an_empty_store() -> None:
    report = run_fuzz(PROVIDER_TARGET, NullProvider(), seed=SEED)
    assert report.passed and report.oracle == "empty"


def test_the_sqlite_provider_passes(tmp_path: Path) -> None:
    provider = SqliteProvider(tmp_path)
    try:
        report = run_fuzz(PROVIDER_TARGET, provider, seed=SEED)
    finally:
        provider.shutdown()
    assert report.passed and report.oracle == "reference"


def test_an_async_provider_passes() -> None:
    report = run_fuzz(PROVIDER_TARGET, AsyncReference(), seed=SEED, examples=30)
    assert report.passed and report.runs >= 30


def test_a_derandomized_run_has_no_seed_and_repeats_itself() -> None:
    first = run_fuzz(PROVIDER_TARGET, ReferenceProvider(), derandomize=True, examples=10)
    second = run_fuzz(PROVIDER_TARGET, ReferenceProvider(), derandomize=True, examples=10)
    assert first.seed is None and first.derandomized
    assert (first.runs, first.steps) == (second.runs, second.steps)


def test_the_run_leaves_foreign_entries_and_nothing_of_its_own() -> None:
    provider = ReferenceProvider()
    provider.store(
        "learning:someone-else", "k", "theirs", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
    )
    provider.store(
        GLOBAL_NAMESPACE, "k", "theirs too", MemoryCategory.DAILY, "s1", MemoryTaint.EXTERNAL_SYNC
    )
    before = provider.list(None, None, None)
    run_fuzz(PROVIDER_TARGET, provider, seed=SEED, examples=30)
    assert provider.list(None, None, None) == before


def test_an_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError, match=r"fuzz\.engine\.differential"):
        run_fuzz("fuzz.nothing", ReferenceProvider())


def test_a_probe_that_errs_is_a_fuzz_failure() -> None:
    with pytest.raises(FuzzFailure) as raised:
        run_fuzz(PROVIDER_TARGET, GetRaises(), seed=SEED)
    assert raised.value.check_id == PROVIDER_TARGET
    assert raised.value.call.startswith("retention probe: ")
    assert isinstance(raised.value, ConformanceFailure)
