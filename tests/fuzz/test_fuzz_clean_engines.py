"""A small fuzz run against engines that keep the contract reports nothing (the default
budget under five seeds is `benchmarks/bench_fuzz_faults.py`'s)."""

from __future__ import annotations

from conformance.engine import ListRequest, MemoryMeta, document
from conformance.fuzz import ENGINE_TARGET, run_fuzz
from null_driver.engine import NullEngine
from reference_driver.engine import ReferenceEngine
from tests.fuzz.helpers import AsyncReferenceEngine

SEED = 4242
SMALL = 6


def test_the_reference_engine_passes() -> None:
    report = run_fuzz(ENGINE_TARGET, ReferenceEngine, seed=SEED, examples=SMALL)
    assert report.passed and report.oracle == "reference"
    assert report.runs >= SMALL
    median, _ = report.stats.peak_sizes()
    assert median >= 20


def test_the_null_engine_passes_against_an_empty_store() -> None:
    report = run_fuzz(ENGINE_TARGET, NullEngine, seed=SEED, examples=SMALL)
    assert report.passed and report.oracle == "empty"


def test_an_async_engine_passes() -> None:
    report = run_fuzz(ENGINE_TARGET, AsyncReferenceEngine, seed=SEED, examples=4)
    assert report.passed and report.runs >= 4


def test_the_run_leaves_foreign_items_and_nothing_of_its_own() -> None:
    engine = ReferenceEngine()
    engine.store(document("someone else's note", MemoryMeta(workspace="elsewhere")))
    engine.store(document("a note with no workspace at all"))
    before = engine.list(ListRequest(limit=100)).items
    run_fuzz(ENGINE_TARGET, engine, seed=SEED, examples=3)
    assert engine.list(ListRequest(limit=100)).items == before
