"""A small fuzz run against providers that keep the contract reports nothing.

`benchmarks/bench_fuzz_faults.py` runs the same drivers at the default budget under
five seeds; these runs stay small to keep the kit's own tests quick.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.checks.outcome import ConformanceFailure
from conformance.fuzz import PROVIDER_TARGET, FuzzFailure, run_fuzz
from conformance.provider import GLOBAL_NAMESPACE, MemoryCategory, MemoryTaint
from null_driver.provider import NullProvider
from plugins.registry import resolve_driver
from reference_driver.provider import ReferenceProvider
from tests.checks.broken_providers import GetRaises
from tests.plugins.plugin_drivers import AsyncReference

SEED = 4242
SMALL = 8


def test_the_reference_provider_passes(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_fuzz(PROVIDER_TARGET, ReferenceProvider, seed=SEED, examples=SMALL)
    assert report.passed and report.oracle == "reference"
    assert report.runs >= SMALL and report.steps > SMALL * 20
    assert report.calls > report.steps
    assert f"seed {SEED}" in capsys.readouterr().out


def test_the_null_provider_passes_against_an_empty_store() -> None:
    report = run_fuzz(PROVIDER_TARGET, NullProvider, seed=SEED, examples=SMALL)
    assert report.passed and report.oracle == "empty"


def test_the_sqlite_provider_passes_with_nothing_declared(tmp_path: Path) -> None:
    driver = resolve_driver("sqlite", {"path": str(tmp_path)})
    assert not driver.constraints.declared
    report = run_fuzz(PROVIDER_TARGET, driver, seed=SEED, examples=SMALL)
    assert report.passed and report.oracle == "reference"
    # Nothing narrowed: names such as `~/a.b` and `~/a_b` are sent, and kept apart.
    assert report.narrowing == []


def test_an_async_provider_passes() -> None:
    report = run_fuzz(PROVIDER_TARGET, AsyncReference, seed=SEED, examples=SMALL)
    assert report.passed and report.runs >= SMALL


def test_a_derandomized_run_has_no_seed_and_repeats_itself() -> None:
    first = run_fuzz(PROVIDER_TARGET, ReferenceProvider, derandomize=True, examples=4)
    second = run_fuzz(PROVIDER_TARGET, ReferenceProvider, derandomize=True, examples=4)
    assert first.seed is None and first.derandomized
    assert (first.runs, first.steps, first.calls) == (second.runs, second.steps, second.calls)


def test_the_run_leaves_foreign_entries_and_nothing_of_its_own() -> None:
    provider = ReferenceProvider()
    provider.store(
        "learning:someone-else", "k", "theirs", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
    )
    provider.store(
        GLOBAL_NAMESPACE, "k", "theirs too", MemoryCategory.DAILY, "s1", MemoryTaint.EXTERNAL_SYNC
    )
    before = provider.list(None, None, None)
    # An object is fuzzed as it is (a Driver or a class would get fresh instances).
    run_fuzz(PROVIDER_TARGET, provider, seed=SEED, examples=4)
    assert provider.list(None, None, None) == before


def test_an_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError, match=r"fuzz\.engine\.differential"):
        run_fuzz("fuzz.nothing", ReferenceProvider)


def test_a_probe_that_errs_is_a_fuzz_failure() -> None:
    with pytest.raises(FuzzFailure) as raised:
        run_fuzz(PROVIDER_TARGET, GetRaises, seed=SEED)
    assert raised.value.check_id == PROVIDER_TARGET
    assert raised.value.call.startswith("retention probe: ")
    assert isinstance(raised.value, ConformanceFailure)
