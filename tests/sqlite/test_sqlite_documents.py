"""The sqlite driver's optional `documents` family (A4, A9 #17)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import JsonValue
from sqlite_helpers import files_under, put

from conformance.provider import (
    DocumentDeletion,
    DocumentListing,
    Invalid,
    MemoryCategory,
    MemoryDocuments,
    MemoryTaint,
    NamespaceDocumentInput,
)
from reference_driver.sqlite import SqliteProvider

NS = "document:conformance"


@pytest.fixture
def provider(tmp_path: Path) -> Iterator[SqliteProvider]:
    provider = SqliteProvider(tmp_path)
    yield provider
    provider.shutdown()


@pytest.fixture
def family(provider: SqliteProvider) -> MemoryDocuments:
    documents = provider.as_documents()
    assert isinstance(documents, MemoryDocuments)
    return documents


def doc(
    key: str = "doc-1", content: str = "the first body", **fields: object
) -> NamespaceDocumentInput:
    values: dict[str, object] = {
        "namespace": NS,
        "key": key,
        "title": "first",
        "content": content,
        "source_type": "conformance",
        "priority": "normal",
        "tags": ["conformance"],
        "metadata": None,
        "category": "core",
        "taint": MemoryTaint.EXTERNAL_SYNC,
        **fields,
    }
    return NamespaceDocumentInput.model_validate(values)


def test_documents_round_trip(family: MemoryDocuments) -> None:
    document_id = family.put_document(doc())
    stored = family.get_document(NS, "doc-1")
    assert stored is not None
    assert (stored.document_id, stored.content, stored.namespace, stored.key, stored.taint) == (
        document_id,
        "the first body",
        NS,
        "doc-1",
        MemoryTaint.EXTERNAL_SYNC,
    )
    assert (stored.title, stored.source_type, stored.priority, stored.tags, stored.metadata) == (
        "first",
        "conformance",
        "normal",
        ["conformance"],
        None,
    )
    assert stored.created_at <= stored.updated_at

    assert family.put_document(doc(content="the second body")) == document_id
    replaced = family.get_document(NS, "doc-1")
    assert replaced is not None and replaced.content == "the second body"
    assert replaced.created_at == stored.created_at

    listing = DocumentListing.model_validate(family.list_documents(NS))
    assert listing.is_consistent() and listing.count == 1
    (row,) = listing.documents
    assert (row.document_id, row.namespace, row.key, row.title, row.taint) == (
        document_id,
        NS,
        "doc-1",
        "first",
        MemoryTaint.EXTERNAL_SYNC,
    )

    recalled = family.recall_documents(NS, 10)
    assert recalled.context_text and [hit.key for hit in recalled.hits] == ["doc-1"]

    deleted = DocumentDeletion.model_validate(family.delete_document(NS, document_id))
    assert (deleted.deleted, deleted.namespace, deleted.document_id) == (True, NS, document_id)
    again = DocumentDeletion.model_validate(family.delete_document(NS, document_id))
    assert again.deleted is False
    assert family.get_document(NS, "doc-1") is None


def test_listing_rows_carry_the_pinned_camel_case_keys(family: MemoryDocuments) -> None:
    family.put_document(doc())
    listing = family.list_documents(None)
    assert isinstance(listing, dict)
    rows = listing["documents"]
    assert isinstance(rows, list) and isinstance(rows[0], dict)
    pinned = {
        "documentId",
        "namespace",
        "key",
        "title",
        "sourceType",
        "priority",
        "createdAt",
        "updatedAt",
        "taint",
    }
    assert pinned <= set(rows[0])
    assert listing["count"] == 1


def test_the_mirror_file_is_where_the_document_says(
    provider: SqliteProvider, family: MemoryDocuments
) -> None:
    family.put_document(doc(metadata={"pages": 2}))
    stored = family.get_document(NS, "doc-1")
    assert stored is not None
    mirror = provider.workspace / stored.markdown_rel_path
    assert mirror.is_file() and mirror.is_relative_to(provider.workspace / "namespaces")
    text = mirror.read_text()
    assert text.startswith("---\n") and text.endswith("\n---\n\nthe first body")
    assert 'namespace: "document:conformance"' in text and 'metadata: {"pages": 2}' in text


def test_documents_and_entries_share_rows(
    provider: SqliteProvider, family: MemoryDocuments
) -> None:
    family.put_document(doc())
    entry = provider.get(NS, "doc-1")
    assert entry is not None and (entry.content, entry.taint) == (
        "the first body",
        MemoryTaint.EXTERNAL_SYNC,
    )
    # A core store keeps the document's own fields and replaces what the entry owns.
    put(provider, NS, "doc-1", "core body", MemoryCategory.DAILY, "s1", MemoryTaint.INTERNAL)
    stored = family.get_document(NS, "doc-1")
    assert stored is not None
    assert (stored.title, stored.tags, stored.content, stored.category, stored.session_id) == (
        "first",
        ["conformance"],
        "core body",
        "daily",
        "s1",
    )
    put(provider, NS, "entry-only", "plain")
    plain = family.get_document(NS, "entry-only")
    assert plain is not None and (plain.title, plain.source_type, plain.priority) == (
        "entry-only",
        "chat",
        "medium",
    )


def test_categories_are_stored_in_canonical_form(
    family: MemoryDocuments, provider: SqliteProvider
) -> None:
    family.put_document(doc(category="notes"))
    stored = family.get_document(NS, "doc-1")
    assert stored is not None and stored.category == "custom:notes"
    entry = provider.get(NS, "doc-1")
    assert entry is not None and entry.category == MemoryCategory.custom("notes")
    with pytest.raises(Invalid):
        family.put_document(doc(key="bad", category=""))


def test_explicit_document_ids(family: MemoryDocuments) -> None:
    assert family.put_document(doc(document_id="chosen-id")) == "chosen-id"
    assert family.put_document(doc()) == "chosen-id"  # kept when the update names none
    with pytest.raises(Invalid, match="already used"):
        family.put_document(doc(key="other", document_id="chosen-id"))
    with pytest.raises(Invalid):
        family.put_document(doc(key="blank-id", document_id="  "))


def test_put_document_validates_like_store(
    family: MemoryDocuments, provider: SqliteProvider
) -> None:
    for bad in (doc(namespace="bad namespace"), doc(key="")):
        with pytest.raises(Invalid):
            family.put_document(bad)
    assert provider.namespaces() == []


def test_list_namespaces_and_clear(provider: SqliteProvider, family: MemoryDocuments) -> None:
    family.put_document(doc())
    family.put_document(doc(key="doc-2"))
    put(provider, "learning:x", "k")
    assert family.list_namespaces() == [NS, "learning:x"]
    family.clear_namespace(NS)
    assert family.list_documents(NS) == {"count": 0, "documents": []}
    assert family.list_namespaces() == ["learning:x"]
    assert [p.parent.name for p in files_under(provider.workspace / "namespaces")] == ["learning_x"]
    family.clear_namespace("never-written")  # not an error


def test_query_and_recall_documents(family: MemoryDocuments) -> None:
    family.put_document(doc("a", "zinc roof", title="Roofing"))
    family.put_document(doc("b", "mooring rope", title="Harbour zinc"))
    family.put_document(doc("c", "unrelated", title="Other"))
    context = family.query_documents(NS, "zinc", 10)
    assert sorted(hit.key for hit in context.hits) == ["a", "b"]
    assert context.query == "zinc"
    hit = context.hits[0]
    assert hit.score == hit.score_breakdown.final_score == hit.score_breakdown.keyword_relevance
    assert hit.document_id == hit.id
    assert family.query_documents(NS, "zinc", 1).hits[0].key == context.hits[0].key
    assert family.query_documents(NS, "   ", 10).hits == []
    assert family.query_documents(NS, "zinc", 0).hits == []
    with pytest.raises(Invalid):
        family.query_documents(NS, "zinc", -1)
    latest = family.recall_documents(NS, 2)
    assert [h.key for h in latest.hits] == ["c", "b"]
    assert latest.hits[0].score > latest.hits[1].score


def test_json_values_round_trip(family: MemoryDocuments) -> None:
    metadata: JsonValue = {"nested": [1, 2.5, None, True, "ü"], "empty": {}}
    family.put_document(doc(metadata=metadata, tags=["a", "b", "é"]))
    stored = family.get_document(NS, "doc-1")
    assert stored is not None and stored.metadata == metadata and stored.tags == ["a", "b", "é"]
