"""Constants, health, and the portability and documents value types (A1, A2)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conformance.provider import (
    CONTRACT_VERSION,
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    INBOUND_SCAN_LIMIT,
    MAX_NAMESPACE_LEN,
    NULL_DRIVER_ID,
    REFERENCE_DRIVER_ID,
    SCOPE_UNAPPLIED,
    DocumentListing,
    ImportOutcome,
    MemoryHealth,
    MemoryItemKind,
    NamespaceDocumentInput,
    NamespaceSummary,
    is_compatible,
)


def test_constants() -> None:
    assert GLOBAL_NAMESPACE == "global"
    assert CONTRACT_VERSION == (2, 2)
    assert (CONTRACT_VERSION.major, CONTRACT_VERSION.minor) == (2, 2)
    assert MAX_NAMESPACE_LEN == 200
    assert NULL_DRIVER_ID == "null"
    assert REFERENCE_DRIVER_ID == "reference"
    assert ENTRY_KIND == "entry"
    assert INBOUND_SCAN_LIMIT == 4096
    assert SCOPE_UNAPPLIED == (
        "source scope is not applied by this driver's recall path yet: the scope predicate "
        "belongs inside the query and lands with the tree capability family"
    )


@pytest.mark.parametrize(
    ("remote", "compatible"),
    [((2, 2), True), ((2, 0), True), ((2, 9), True), ((1, 9), False), ((3, 2), False)],
)
def test_only_the_major_version_decides_compatibility(
    remote: tuple[int, int], compatible: bool
) -> None:
    assert is_compatible(remote) is compatible


# health


def test_health_constructors_and_display() -> None:
    assert str(MemoryHealth.ready()) == "ready"
    assert str(MemoryHealth.degraded("index rebuilding")) == "degraded: index rebuilding"
    assert str(MemoryHealth.down("no disk")) == "down: no disk"
    assert MemoryHealth.ready().is_usable()
    assert MemoryHealth.degraded("slow").is_usable()
    assert not MemoryHealth.down("gone").is_usable()
    assert MemoryHealth.degraded("slow").reason == "slow"


@pytest.mark.parametrize(
    "wire",
    ['{"status":"down"}', '{"status":"degraded"}', '{"status":"ok"}', '{"reason":"x"}', "{}"],
)
def test_health_refuses_malformed_shapes(wire: str) -> None:
    with pytest.raises(ValidationError):
        MemoryHealth.model_validate_json(wire)


def test_a_reason_beside_ready_is_ignored() -> None:
    health = MemoryHealth.model_validate_json('{"status":"ready","reason":"x"}')
    assert health == MemoryHealth.ready()
    assert health.model_dump_json() == '{"status":"ready"}'


# portability


def test_import_outcome_consistency() -> None:
    assert ImportOutcome(imported=2, skipped=0, failed=0).is_consistent()
    explained = ImportOutcome(imported=0, skipped=0, failed=1, errors=["record r lacks a key"])
    assert explained.is_consistent()
    assert not ImportOutcome(imported=0, skipped=0, failed=1).is_consistent()


@pytest.mark.parametrize("field", ["imported", "skipped", "failed"])
def test_import_outcome_counts_are_not_negative(field: str) -> None:
    counts = {"imported": 0, "skipped": 0, "failed": 0, field: -1}
    with pytest.raises(ValidationError):
        ImportOutcome.model_validate(counts)


def test_namespace_summary_count_is_not_negative() -> None:
    with pytest.raises(ValidationError):
        NamespaceSummary(namespace="n", count=-1)


# documents


def test_document_input_defaults() -> None:
    document = NamespaceDocumentInput.model_validate_json(
        '{"namespace":"n","key":"k","title":"t","content":"c","source_type":"chat",'
        '"priority":"medium","category":"core"}'
    )
    assert document.tags == []
    assert document.metadata is None
    assert document.session_id is None
    assert document.document_id is None


def test_document_listing_count_must_match() -> None:
    row = {
        "documentId": "d",
        "namespace": "n",
        "key": "k",
        "title": "t",
        "sourceType": "s",
        "priority": "p",
        "createdAt": 1.0,
        "updatedAt": 1.0,
        "taint": "internal",
    }
    assert DocumentListing.model_validate({"count": 1, "documents": [row]}).is_consistent()
    assert not DocumentListing.model_validate({"count": 2, "documents": [row]}).is_consistent()


def test_memory_item_kinds() -> None:
    assert [kind.value for kind in MemoryItemKind] == ["document", "kv", "episodic", "event"]
