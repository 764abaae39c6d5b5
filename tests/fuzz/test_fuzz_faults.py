"""At the default budget each fuzzer finds faults that need several steps, a large store,
a near-miss sibling or a tie, and the regression test it writes fails alone for the same
reason (and passes against the reference driver). These runs prove reach, so they use
the default budget; `benchmarks/bench_fuzz_faults.py` repeats them under five seeds and
times them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzFailure, run_fuzz
from tests.checks import broken_engines, broken_providers
from tests.fuzz import deep_faults, document_faults, engine_faults, provider_faults
from tests.fuzz.helpers import run_pytest, with_driver

FAULTS: dict[str, list[type]] = {
    ENGINE_TARGET: [
        *deep_faults.ENGINE_FAULTS,
        deep_faults.AcceptsMalformedItems,
        *engine_faults.ISSUE_13_ENGINE_FAULTS,
        # The fault a check proves too: the fuzzer must find it on its own.
        broken_engines.WindowAtMicroseconds,
    ],
    PROVIDER_TARGET: [
        *deep_faults.PROVIDER_FAULTS,
        deep_faults.RefusesWithBackend,
        *provider_faults.ISSUE_13_PROVIDER_FAULTS,
        *document_faults.DOCUMENT_FAULTS,
        broken_providers.DocumentIdFromKey,
        broken_providers.ExportRefusesCursorAtTheEnd,
    ],
}
CASES = [(target, fault) for target, faults in FAULTS.items() for fault in faults]
SEED = 20261129
SHRINK_CALLS = 4000
"""Shrinking kept short: these tests are about finding, and the file failing."""

_CUT = re.compile(r"…<\d+ more characters>…")


def _same_reason(reason: str, output: str) -> bool:
    """`reason` is in `output`, but where a long value was cut around its middle: the
    run root's length moves the cut by a few characters, so each piece is compared less
    16 characters on the side of the cut."""
    pieces = _CUT.split(reason)
    if len(pieces) == 1:
        return reason in output
    return all(
        piece[16 * (n > 0) : len(piece) - 16 * (n < len(pieces) - 1)] in output
        for n, piece in enumerate(pieces)
    )


Found = Callable[[str], dict[str, FuzzFailure]]


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> Found:
    """Fuzz each faulty driver of a target once at the default budget, on first use of
    that target in this process."""
    runs: dict[str, dict[str, FuzzFailure]] = {}

    def failures_of(target: str) -> dict[str, FuzzFailure]:
        if target not in runs:
            repro_dir = tmp_path_factory.mktemp(f"{target}-repro")
            runs[target] = {}
            for fault in FAULTS[target]:
                try:
                    run_fuzz(
                        target, fault, seed=SEED, shrink_calls=SHRINK_CALLS, repro_dir=repro_dir
                    )
                except FuzzFailure as failure:
                    runs[target][fault.__name__] = failure
        return runs[target]

    return failures_of


@pytest.mark.parametrize(("target", "fault"), CASES, ids=lambda v: getattr(v, "__name__", v))
def test_the_fuzzer_finds_the_fault(found: Found, target: str, fault: type) -> None:
    failure = found(target).get(fault.__name__)
    assert failure is not None, f"{fault.__name__} passed a default fuzz run"
    assert failure.check_id == target
    assert failure.seed == SEED
    text = str(failure)
    assert "Minimal failing program" in text and "with fuzz.program() as m:" in text
    assert failure.repro_path is not None and failure.repro_path.exists()


@pytest.mark.parametrize("target", list(FAULTS))
def test_each_reproduction_fails_alone_and_passes_against_the_reference(
    found: Found, target: str, tmp_path: Path
) -> None:
    files: list[Path] = []
    reasons: dict[str, str] = {}
    for failure in found(target).values():
        assert failure.repro_path is not None
        files.append(failure.repro_path)
        files.append(with_driver(failure.repro_path, "reference", tmp_path))
        reasons[failure.repro_path.stem] = str(failure).splitlines()[0]
    outcomes, output = run_pytest(files, tmp_path)
    for stem, reason in reasons.items():
        assert outcomes.get(stem) == "FAILED", output
        assert _same_reason(reason, output), f"{stem} failed for another reason:\n{output}"
        assert outcomes.get(f"{stem}_reference") == "PASSED", output
