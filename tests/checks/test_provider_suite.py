"""The provider suite against the baseline drivers and against one broken provider per fault."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.catalogue import checks_for
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import RETAINS_NOTHING, ConformanceFailure
from conformance.checks.runner import run_provider_suite
from conformance.constraints import Constraints
from conformance.provider import MemoryCategory, MemoryTaint
from null_driver.provider import NullProvider
from reference_driver.provider import ReferenceProvider
from tests.checks.broken_providers import BROKEN_PROVIDERS
from tests.checks.typical import assert_table_is_current

FAST = RunSettings(timeout=10.0, retries=0)
NO_CREDENTIAL = "no credential option given to the driver"


def test_reference_passes_every_check() -> None:
    results = run_provider_suite(ReferenceProvider(), FAST)
    assert set(results) == {c.id for c in checks_for("provider")}
    failing = {k: r.reason for k, r in results.items() if r.outcome not in ("passed", "skipped")}
    assert failing == {}
    skipped = {k: r.reason for k, r in results.items() if r.outcome == "skipped"}
    assert skipped == {"provider.no_credential_in_errors": NO_CREDENTIAL}
    assert_table_is_current(results)


def test_null_passes_and_every_storage_check_skips_with_the_reason() -> None:
    results = run_provider_suite(NullProvider(), FAST)
    for chk in checks_for("provider"):
        result = results[chk.id]
        if chk.storage:
            assert (result.outcome, result.reason) == ("skipped", RETAINS_NOTHING), chk.id
        elif chk.id == "provider.no_credential_in_errors":
            assert (result.outcome, result.reason) == ("skipped", NO_CREDENTIAL)
        else:
            assert result.outcome == "passed", (chk.id, result.reason)


@pytest.mark.parametrize(
    "chk", [c for c in checks_for("provider") if c.storage and c.needs is None], ids=lambda c: c.id
)
def test_vacuity_guard_every_storage_check_fails_on_the_null_driver(chk: Any) -> None:
    with pytest.raises(ConformanceFailure) as failure:
        chk.run(NullProvider(), CheckContext(chk.id, FAST))
    assert failure.value.check_id == chk.id


def settings_for(broken: type[Any]) -> RunSettings:
    """FAST, with the provider's own secret and declared constraints when it has them."""
    secret = getattr(broken, "secret", None)
    return RunSettings(
        timeout=10.0,
        retries=0,
        secrets=() if secret is None else (secret,),
        constraints=getattr(broken, "constraints", Constraints()),
    )


@pytest.mark.parametrize("broken", list(BROKEN_PROVIDERS), ids=lambda b: b.__name__)
def test_each_broken_provider_fails_its_check_alone_on_a_fresh_instance(
    broken: type[Any],
) -> None:
    # No check may rely on what earlier checks wrote: `-k <check>` must find the fault.
    expected = BROKEN_PROVIDERS[broken]
    results = run_provider_suite(broken(), settings_for(broken), only=[expected])
    assert set(results) == {expected}
    assert results[expected].outcome == "failed", results[expected]
    assert f"conformance check `{expected}` failed" in results[expected].reason


def test_every_provider_check_is_triggered_by_some_broken_provider() -> None:
    triggered = set(BROKEN_PROVIDERS.values())
    untriggered = {c.id for c in checks_for("provider") if c.id not in triggered}
    assert untriggered == set()


FOREIGN = (
    (
        "global",
        "user-note",
        "needle in the user's own data",
        MemoryCategory.CORE,
        None,
        MemoryTaint.INTERNAL,
    ),
    (
        "conversation:thread-1",
        "turn-1",
        "hello",
        MemoryCategory.CONVERSATION,
        "s1",
        MemoryTaint.EXTERNAL_SYNC,
    ),
    (
        "tinymemory-conformance/other-run/x",
        "k",
        "another run's data",
        MemoryCategory.DAILY,
        None,
        MemoryTaint.INTERNAL,
    ),
)


def held(provider: ReferenceProvider) -> list[Any]:
    """Everything the provider holds, read through the reference's own (unbroken) list."""
    rows = ReferenceProvider.list(provider, None, None, None)
    return sorted(rows, key=lambda e: (e.namespace or "", e.key))


@pytest.mark.parametrize(
    "provider_type", [ReferenceProvider, *BROKEN_PROVIDERS], ids=lambda b: b.__name__
)
def test_foreign_data_survives_the_whole_suite(provider_type: type[ReferenceProvider]) -> None:
    provider = provider_type()
    # Through the reference's own write path: a broken store must not mangle the preload.
    for row in FOREIGN:
        ReferenceProvider.store(provider, *row)
    before = held(provider)
    assert len(before) == len(FOREIGN)
    run_provider_suite(provider, FAST)
    after = held(provider)
    if provider_type is ReferenceProvider:
        assert after == before  # the suite cleans up everything it wrote
    else:
        # A broken driver may hide rows from cleanup; foreign rows must still be untouched.
        assert [row for row in after if row in before] == before
        foreign_namespaces = {row.namespace for row in before}
        assert [row for row in after if row.namespace in foreign_namespaces] == before
