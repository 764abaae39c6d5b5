"""The faults table `explain` prints is exactly the broken drivers the tests prove with."""

from __future__ import annotations

from collections import defaultdict

from conformance.checks.catalogue import CATALOGUE, all_checks
from conformance.checks.faults import PROVEN_AGAINST
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET
from conformance.fuzz.runner import FUZZ_TARGETS
from tests.checks.broken_engines import BROKEN_ENGINES
from tests.checks.broken_providers import BROKEN_PROVIDERS
from tests.fuzz import deep_faults


def broken_drivers() -> dict[str, set[str]]:
    """Check or target id → the names of the broken drivers the tests prove it with."""
    proven: dict[str, set[str]] = defaultdict(set)
    for registry in (BROKEN_ENGINES, BROKEN_PROVIDERS):
        for driver, check_id in registry.items():
            proven[check_id].add(driver.__name__)
    for driver in (*deep_faults.ENGINE_FAULTS, deep_faults.AcceptsMalformedItems):
        proven[ENGINE_TARGET].add(driver.__name__)
    for driver in (*deep_faults.PROVIDER_FAULTS, deep_faults.RefusesWithBackend):
        proven[PROVIDER_TARGET].add(driver.__name__)
    return dict(proven)


def test_the_table_names_exactly_the_broken_drivers_of_the_tests() -> None:
    table = {check_id: {f.driver for f in faults} for check_id, faults in PROVEN_AGAINST.items()}
    assert table == broken_drivers(), (
        "conformance/checks/faults.py and the broken drivers of the tests disagree: add a "
        "Fault(driver, description) line for each broken driver a test proves a check with"
    )


def test_every_id_in_the_table_is_a_check_or_a_fuzz_target() -> None:
    assert set(PROVEN_AGAINST) <= set(CATALOGUE) | set(FUZZ_TARGETS)


def test_every_check_and_target_is_proven_against_some_fault() -> None:
    ids = {c.id for c in all_checks()} | set(FUZZ_TARGETS)
    assert ids - set(PROVEN_AGAINST) == set()


def test_descriptions_are_one_line() -> None:
    for faults in PROVEN_AGAINST.values():
        for fault in faults:
            assert fault.description and "\n" not in fault.description
            assert len(fault.description) <= 90, fault
