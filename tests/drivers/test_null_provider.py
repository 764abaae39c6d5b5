"""The null provider (A7): retains nothing, every call succeeds empty."""

from __future__ import annotations

import pytest

from conformance.provider import (
    Capabilities,
    Capability,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryHealth,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
    audit_provider,
)
from null_driver.provider import NullProvider


@pytest.fixture
def provider() -> NullProvider:
    return NullProvider()


def test_identity_capabilities_and_health(provider: NullProvider) -> None:
    assert provider.driver_id() == "null"
    assert provider.capabilities() == Capabilities.mandatory()
    provider.capabilities().validate()
    assert audit_provider(provider) is None
    assert [cap for cap in Capability if provider.provides(cap)] == [
        Capability.CORE,
        Capability.RECALL,
        Capability.PORTABILITY,
    ]
    assert provider.health() == MemoryHealth.ready()


def test_shutdown_is_idempotent(provider: NullProvider) -> None:
    provider.shutdown()
    provider.shutdown()
    assert provider.health() == MemoryHealth.ready()


def test_store_is_accepted_and_discarded(provider: NullProvider) -> None:
    provider.store("probe", "probe", "probe", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    provider.store("", "", "", MemoryCategory.custom(""), "s", MemoryTaint.EXTERNAL_SYNC)
    assert provider.get("probe", "probe") is None
    assert provider.forget("probe", "probe") is False
    assert provider.forget("probe", "probe") is False
    assert provider.list(None, None, None) == []
    assert provider.list("probe", MemoryCategory.CORE, None) == []
    assert provider.namespaces() == []


def test_recall_is_always_empty(provider: NullProvider) -> None:
    provider.store("global", "k", "needle", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    assert provider.recall("needle", 8, OwnedRecallOpts(), None) == []
    assert provider.recall("needle", 8, OwnedRecallOpts(namespace="global"), None) == []
    assert provider.recall("needle", 8, OwnedRecallOpts(), SourceScope(allow=[])) == []


@pytest.mark.parametrize("limit", [1, 64])
def test_export_is_one_empty_final_page(provider: NullProvider, limit: int) -> None:
    page = provider.export_page(None, limit)
    assert (page.records, page.next_cursor) == ([], None)


@pytest.mark.parametrize("limit", [0, -1])
def test_export_refuses_a_limit_below_one(provider: NullProvider, limit: int) -> None:
    with pytest.raises(Invalid):
        provider.export_page(None, limit)


@pytest.mark.parametrize("cursor", ["0", "", "!not-a-cursor!"])
def test_export_refuses_every_cursor(provider: NullProvider, cursor: str) -> None:
    with pytest.raises(Invalid) as caught:
        provider.export_page(cursor, 8)
    assert caught.value.message == "null provider does not issue export cursors"


def test_import_skips_every_record(provider: NullProvider) -> None:
    records = [
        ExportRecord(kind="entry", id="a", namespace="ns", payload={"key": "a"}),
        ExportRecord(kind="other", id="b", payload=None),
    ]
    assert provider.import_records(records) == ImportOutcome(
        imported=0, skipped=2, failed=0, errors=[]
    )
    assert provider.import_records([]) == ImportOutcome(imported=0, skipped=0, failed=0)
    assert provider.list(None, None, None) == []
