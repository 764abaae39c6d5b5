"""At the default budget each fuzzer finds faults that need several steps, a large store,
a near-miss sibling or a tie, and the regression test it writes fails alone for the same
reason (and passes against the reference driver). These runs prove reach, so they use
the default budget; `benchmarks/bench_fuzz_faults.py` repeats them under five seeds and
times them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzFailure, run_fuzz
from tests.checks import broken_engines, broken_providers
from tests.fuzz import deep_faults, document_faults, engine_faults, provider_faults
from tests.fuzz.helpers import run_pytest, same_reason, with_driver

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
SEED = 216
"""A seed under which every fault of `FAULTS` is found (the search is cut into shards, and
seeds name other programs than they did; `benchmarks/bench_fuzz_faults.py` gives rates)."""
SHRINK_CALLS = 4000
"""Shrinking kept short: these tests are about finding, and the file failing."""

GROUPS_PER_TARGET = {ENGINE_TARGET: 2, PROVIDER_TARGET: 1}
"""Each target's faults are fuzzed in groups of about 20 s, one test each: `-n 2` balances
them, and no group is fuzzed twice (a module fixture was, on each worker that ran one of
its tests). More groups would cost a pytest process each for the regression files."""
GROUPS = [
    pytest.param(target, faults[n::count], id=f"{target}-{n + 1}of{count}")
    for target, faults in FAULTS.items()
    for count in [GROUPS_PER_TARGET[target]]
    for n in range(count)
]


def test_every_fault_is_in_exactly_one_group() -> None:
    for target, faults in FAULTS.items():
        grouped = [f for p in GROUPS if p.values[0] == target for f in p.values[1]]
        assert sorted(f.__name__ for f in grouped) == sorted(f.__name__ for f in faults)


@pytest.mark.parametrize(("target", "group"), GROUPS)
def test_the_fuzzer_finds_each_fault_and_its_reproduction_fails_alone(
    target: str, group: list[type], tmp_path: Path
) -> None:
    """Each fault of `group` is found at the default budget; then the regression tests
    written, run alone in one pytest process, each fail for the reason the fuzzer gave
    and pass against the reference driver."""
    repro_dir = tmp_path / "repro"
    repro_dir.mkdir()
    found: dict[str, FuzzFailure] = {}
    for fault in group:
        try:
            run_fuzz(target, fault, seed=SEED, shrink_calls=SHRINK_CALLS, repro_dir=repro_dir)
        except FuzzFailure as failure:
            found[fault.__name__] = failure
    assert [f.__name__ for f in group if f.__name__ not in found] == [], (
        "these faults passed a default fuzz run"
    )
    for name, failure in found.items():
        assert failure.check_id == target, name
        assert failure.seed == SEED, name
        text = str(failure)
        assert "Minimal failing program" in text and "with fuzz.program() as m:" in text, name
        assert failure.repro_path is not None and failure.repro_path.exists(), name

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
        assert same_reason(reason, output), f"{stem} failed for another reason:\n{output}"
        assert outcomes.get(f"{stem}_reference") == "PASSED", output
