"""The shrunk program is one a person can read: a fault a store size shows is one bulk of
that size, not the dozen writes the search happened to reach it with."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzFailure, run_fuzz
from conformance.fuzz.minimise import least_count
from tests.fuzz import engine_faults, provider_faults


def steps_of(program: list[str]) -> list[str]:
    return [
        line.strip() for line in program if line.strip().startswith("m.") and "verify" not in line
    ]


def shrunk(target: str, driver: type, seed: int, tmp_path: Path) -> FuzzFailure:
    with pytest.raises(FuzzFailure) as raised:
        run_fuzz(target, driver, seed=seed, repro_dir=tmp_path)
    return raised.value


def test_a_list_capped_at_50_is_shown_by_one_bulk_of_51(tmp_path: Path) -> None:
    # Seed 1 reached the 51st item through 14 writes (28 lines with their checks).
    failure = shrunk(ENGINE_TARGET, engine_faults.ListCappedAt50, 1, tmp_path)
    (step,) = steps_of(failure.program)
    assert re.fullmatch(r"m\.store_bulk\(51, \d+\)", step), step
    assert failure.repro_path is not None
    source = failure.repro_path.read_text(encoding="utf-8")
    assert step in source
    assert source.count("m.store") == 1  # the regression file holds the shortest program


def test_a_provider_listing_capped_at_50_needs_at_most_a_few_steps(tmp_path: Path) -> None:
    # Seed 2 reached 51 rows through ten writes into eight namespaces.
    failure = shrunk(PROVIDER_TARGET, provider_faults.ListCappedAt50, 2, tmp_path)
    steps = steps_of(failure.program)
    assert len(steps) <= 2, failure.program
    assert steps[0].startswith("m.store_bulk(")
    assert "got 50 rows where 51 were due" in str(failure)


def test_a_count_is_bisected_to_the_least_that_fails() -> None:
    tried: list[int] = []

    def fails(count: int) -> bool:
        tried.append(count)
        return count >= 51

    assert least_count(4805, fails) == 51
    assert len(tried) <= 13  # log2(4805), not a walk down one by one
    assert least_count(1, fails) == 1
