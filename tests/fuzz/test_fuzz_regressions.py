"""Regression files that fail against the broken driver: replayed on a fresh instance
before they are written, carrying the history a fault needs, or refused with the reason;
shrunk the same way for one seed; blaming the operation that went wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.fuzz import PROVIDER_TARGET, FuzzFailure, run_fuzz
from tests.fuzz import provider_faults
from tests.fuzz.helpers import run_pytest, same_reason, with_driver

SEED = 11


def _failure(driver: object, **kwargs: object) -> FuzzFailure:
    with pytest.raises(FuzzFailure) as raised:
        run_fuzz(PROVIDER_TARGET, driver, seed=SEED, **kwargs)  # type: ignore[arg-type]
    return raised.value


def test_a_fault_needing_history_is_written_with_the_programs_before_it(tmp_path: Path) -> None:
    failure = _failure(provider_faults.TaintLostAfter400Writes, repro_dir=tmp_path / "repro")
    assert failure.repro_path is not None, failure.report.repro_refused
    source = failure.repro_path.read_text(encoding="utf-8")
    assert "# history: program 1 of" in source
    assert "# the failing program" in source
    assert "earlier program(s) on the same driver" in source
    copy = with_driver(failure.repro_path, "reference", tmp_path)
    outcomes, output = run_pytest([failure.repro_path, copy], tmp_path)
    assert outcomes.get(failure.repro_path.stem) == "FAILED", output
    assert same_reason(str(failure).splitlines()[0], output), output
    assert outcomes.get(copy.stem) == "PASSED", output


def test_a_fault_no_fresh_instance_shows_gets_no_regression_file(tmp_path: Path) -> None:
    provider_faults.BrokenInTheFirstInstanceOnly.made = 0
    failure = _failure(provider_faults.BrokenInTheFirstInstanceOnly, repro_dir=tmp_path)
    assert failure.repro_path is None
    assert list(tmp_path.iterdir()) == []
    refused = failure.report.repro_refused or ""
    assert "did not fail again on a fresh instance" in refused
    assert "a regression test would pass against the broken driver" in refused
    assert "(unreliable: it did not fail again on a fresh instance)" in failure.got
    assert f"No regression file: {refused}" in str(failure)


def test_one_seed_gives_one_short_program_and_one_message() -> None:
    first = _failure(provider_faults.ListsNamespacePrefix)
    second = _failure(provider_faults.ListsNamespacePrefix)
    assert str(first) == str(second)
    assert first.program == second.program
    steps = [
        line for line in first.program if line.strip().startswith("m.") and "verify" not in line
    ]
    assert 1 <= len(steps) <= 6, first.program


def test_a_fault_is_blamed_on_the_forget_that_made_it() -> None:
    failure = _failure(provider_faults.ForgetsKeyPrefix)
    assert failure.call.startswith("forget("), str(failure)
    assert failure.expected.startswith("only the forgotten row")


def test_the_search_stops_at_its_first_failure_and_counts_every_driver_call() -> None:
    failure = _failure(provider_faults.TaintLostAfter20Writes)
    report = failure.report
    assert report.time_to_failure is not None
    assert report.runs == 1  # the first program's first bulk crosses 20 writes
    assert report.calls > report.steps
    assert not report.passed and report.failure == str(failure).split("\n\nMinimal")[0]
