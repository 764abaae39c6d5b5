"""The tests mutmut runs against each mutant (copied as `tests/test_subject.py`).

`benchmarks/bench_mutation.py` copies the reference drivers into a package named
`subject_driver` and lets mutmut mutate that copy only. Each test here holds one
subject (the engine, the provider, or the sqlite provider, all from the copy) to one
check of the kit, or to one fuzz target: the oracle the fuzzer compares with is the
unmutated `reference_driver`, so a mutant never judges itself.

A mutant is killed when the kit would stop a vendor's CI on it: a check failed or
was inconclusive, a fuzz target did not pass, or the run reached a lower level than
the unmutated copy (a check the copy passes is skipped because the store seems to
retain nothing, or an optional family's or a fetch mode's check is skipped). The outcomes of the
unmutated copy are read from `baseline.json`, written by the bench before mutmut runs.

`MUTATION_PHASE` chooses the tests: `suite` (every check) or `fuzz` (every fuzz
target with `MUTATION_FUZZ_SEED`: at the default budget, scale phase included, unless
`MUTATION_FUZZ_EXAMPLES` names a subject's own, e.g. `sqlite=8`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import Driver
from conformance.checks.catalogue import CATALOGUE, checks_for
from conformance.checks.context import RunSettings
from conformance.checks.outcome import RETAINS_NOTHING
from conformance.checks.runner import run_suite
from conformance.constraints import Constraints
from conformance.driver import Profile
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, run_fuzz
from conformance.fuzz.runner import FuzzFailure, FuzzInconclusive

PHASE = os.environ.get("MUTATION_PHASE", "suite")
FUZZ_SEED = int(os.environ.get("MUTATION_FUZZ_SEED", "20261202"))
FUZZ_EXAMPLES = dict(
    (name, int(count))
    for name, _, count in (
        part.partition("=") for part in os.environ.get("MUTATION_FUZZ_EXAMPLES", "").split(",")
    )
    if count
)
"""Programs per fuzz run by subject, where not the default budget."""
BASELINE = Path(__file__).with_name("baseline.json")
CALL_LIMIT = 5.0
"""Seconds per driver call: a mutant that loops is inconclusive, which kills it."""


def _sqlite_constraints() -> Constraints:
    from subject_driver.sqlite import plugin

    declared = plugin.tinymemory_driver(name="sqlite", options={}).constraints
    return declared if declared is not None else Constraints()


class Subject:
    """One driver of the copy: how to build it, its profile and its declared constraints."""

    def __init__(
        self,
        profile: Profile,
        factory: Callable[[], Any],
        constraints: Callable[[], Constraints] = Constraints,
    ) -> None:
        self.profile = profile
        self.factory = factory
        self.constraints = constraints

    def settings(self) -> RunSettings:
        return RunSettings(timeout=CALL_LIMIT, retries=1, constraints=self.constraints())


def _engine() -> Any:
    from subject_driver.engine import ReferenceEngine

    return ReferenceEngine()


def _provider() -> Any:
    from subject_driver.provider import ReferenceProvider

    return ReferenceProvider()


_workspaces: list[Path] = []


def _sqlite() -> Any:
    from subject_driver.sqlite.provider import SqliteProvider

    # In memory where the machine has it: every mutant reopens a store many times.
    shm = Path("/dev/shm")
    workspace = Path(tempfile.mkdtemp(prefix="mutation-sqlite-", dir=shm if shm.is_dir() else None))
    _workspaces.append(workspace)
    return SqliteProvider(workspace)


SUBJECTS: dict[str, Subject] = {
    "engine": Subject("engine", _engine),
    "provider": Subject("provider", _provider),
    "sqlite": Subject("provider", _sqlite, _sqlite_constraints),
}


@pytest.fixture(autouse=True)
def _remove_workspaces() -> Iterator[None]:
    yield
    while _workspaces:
        shutil.rmtree(_workspaces.pop(), ignore_errors=True)


def _baseline() -> dict[str, dict[str, str]]:
    if not BASELINE.exists():
        return {}
    loaded: dict[str, dict[str, str]] = json.loads(BASELINE.read_text())
    return loaded


def _check_cases() -> list[Any]:
    return [
        pytest.param(name, chk.id, id=f"{name}-{chk.id}")
        for name, subject in SUBJECTS.items()
        for chk in checks_for(subject.profile)
    ]


def _fuzz_cases() -> list[Any]:
    return [pytest.param(name, id=name) for name in SUBJECTS]


def check_outcome(name: str, check_id: str) -> tuple[str, str]:
    """The outcome and reason of one check against subject `name` (a fresh instance)."""
    subject = SUBJECTS[name]
    result = run_suite(subject.profile, subject.factory(), subject.settings(), only=[check_id])
    outcome = result[check_id]
    return outcome.outcome, outcome.reason


def fuzz_outcome(name: str) -> tuple[str, str]:
    """`passed`, `failed` or `inconclusive`, and why, for the subject's fuzz target."""
    subject = SUBJECTS[name]
    target = ENGINE_TARGET if subject.profile == "engine" else PROVIDER_TARGET
    driver = Driver(name=f"subject-{name}", **{subject.profile: subject.factory})
    try:
        run_fuzz(
            target,
            driver,
            seed=FUZZ_SEED,
            settings=subject.settings(),
            shrink_calls=0,
            examples=FUZZ_EXAMPLES.get(name),
        )
    except FuzzFailure as failure:
        return "failed", str(failure)
    except FuzzInconclusive as stop:
        return "inconclusive", str(stop)
    return "passed", ""


def lowers_the_level(check_id: str, clean: str, outcome: str, reason: str) -> bool:
    """Whether a check's outcome under a mutant costs the run its verdict or its level."""
    if outcome == clean:
        return False
    if outcome in ("failed", "inconclusive"):
        return True
    if outcome == "skipped":
        # A storage check skipped because the store seems to keep nothing drops the
        # run to `shape-only`; an optional family's check, or a fetch mode's, skipped
        # drops `full` (which needs every family, and every mode, offered).
        chk = CATALOGUE[check_id]
        return reason == RETAINS_NOTHING or chk.needs is not None or chk.per_mode
    return False


if PHASE == "suite":

    @pytest.mark.parametrize(("name", "check_id"), _check_cases())
    def test_check(name: str, check_id: str) -> None:
        clean = _baseline().get(name, {}).get(check_id, "passed")
        outcome, reason = check_outcome(name, check_id)
        assert not lowers_the_level(check_id, clean, outcome, reason), (
            f"{check_id}: {outcome} (clean: {clean}): {reason}"
        )

else:

    @pytest.mark.parametrize("name", _fuzz_cases())
    def test_fuzz(name: str) -> None:
        outcome, reason = fuzz_outcome(name)
        assert outcome == "passed", reason
