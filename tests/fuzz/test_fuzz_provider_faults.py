"""At the default budget the provider fuzzer finds faults that show only after several
steps, and the regression test it writes fails alone for the same reason (and passes
against the reference provider)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.fuzz import PROVIDER_TARGET, FuzzFailure, run_fuzz
from tests.fuzz import deep_faults
from tests.fuzz.helpers import run_pytest, with_driver

FAULTS = [*deep_faults.PROVIDER_FAULTS, deep_faults.RefusesWithBackend]
SEED = 20261129


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FuzzFailure]:
    """Fuzz each faulty provider once at the default budget (shrinking kept short)."""
    repro_dir = tmp_path_factory.mktemp("provider-repro")
    failures: dict[str, FuzzFailure] = {}
    for fault in FAULTS:
        spec = f"{fault.__module__}:{fault.__qualname__}"
        try:
            run_fuzz(
                PROVIDER_TARGET,
                fault(),
                seed=SEED,
                shrink_seconds=1.0,
                repro_dir=repro_dir,
                driver_spec=spec,
            )
        except FuzzFailure as failure:
            failures[fault.__name__] = failure
    return failures


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.__name__)
def test_the_fuzzer_finds_the_fault(found: dict[str, FuzzFailure], fault: type) -> None:
    failure = found.get(fault.__name__)
    assert failure is not None, f"{fault.__name__} passed a default fuzz run"
    assert failure.check_id == PROVIDER_TARGET
    assert failure.seed == SEED
    text = str(failure)
    assert "Minimal failing program" in text and "m.teardown()" in text
    assert failure.program[0] == "m.verify()"
    assert failure.repro_path is not None and failure.repro_path.exists()


def test_each_reproduction_fails_alone_and_passes_against_the_reference(
    found: dict[str, FuzzFailure], tmp_path: Path
) -> None:
    files: list[Path] = []
    reasons: dict[str, str] = {}
    for failure in found.values():
        assert failure.repro_path is not None
        files.append(failure.repro_path)
        files.append(with_driver(failure.repro_path, "reference", tmp_path))
        reasons[failure.repro_path.stem] = str(failure).splitlines()[0]
    outcomes, output = run_pytest(files, tmp_path)
    for stem, reason in reasons.items():
        assert outcomes.get(stem) == "FAILED", output
        assert reason in output, f"{stem} failed for another reason:\n{output}"
        assert outcomes.get(f"{stem}_reference") == "PASSED", output
