"""The reference provider's `documents` family: every rule its docstring states."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from conformance.checks.context import RunSettings
from conformance.checks.provider_documents import assert_documents_round_trip
from conformance.provider import (
    Capability,
    DocumentDeletion,
    DocumentListing,
    Invalid,
    MemoryCategory,
    MemoryDocuments,
    MemoryItemKind,
    MemoryTaint,
    NamespaceDocumentInput,
    audit_provider,
)
from reference_driver.documents import DOCUMENT_TIME, ReferenceDocuments
from reference_driver.provider import ReferenceProvider


def doc(
    namespace: str = "document:handbook",
    key: str = "k",
    content: str = "body",
    **fields: Any,
) -> NamespaceDocumentInput:
    values: dict[str, Any] = {
        "namespace": namespace,
        "key": key,
        "title": "Title",
        "content": content,
        "source_type": "upload",
        "priority": "normal",
        "category": "core",
    }
    values.update(fields)
    return NamespaceDocumentInput(**values)


@pytest.fixture
def docs() -> ReferenceDocuments:
    return ReferenceDocuments()


def test_the_reference_provider_offers_the_family_honestly() -> None:
    provider = ReferenceProvider()
    assert Capability.DOCUMENTS in provider.capabilities()
    assert provider.provides(Capability.DOCUMENTS)
    assert isinstance(provider.as_documents(), MemoryDocuments)
    assert provider.as_documents() is provider.as_documents()
    assert audit_provider(provider) is None


def test_the_documents_check_passes() -> None:
    assert_documents_round_trip(ReferenceProvider(), None)


def test_put_then_get_returns_every_field(docs: ReferenceDocuments) -> None:
    put = doc(
        tags=["a", "b"],
        metadata={"pages": 3},
        category="custom:notes",
        session_id="s1",
        taint=MemoryTaint.EXTERNAL_SYNC,
    )
    document_id = docs.put_document(put)
    got = docs.get_document("document:handbook", "k")
    assert got is not None
    assert got.model_dump() == {
        "document_id": document_id,
        "namespace": "document:handbook",
        "key": "k",
        "title": "Title",
        "content": "body",
        "source_type": "upload",
        "priority": "normal",
        "tags": ["a", "b"],
        "metadata": {"pages": 3},
        "category": "custom:notes",
        "session_id": "s1",
        "created_at": DOCUMENT_TIME,
        "updated_at": DOCUMENT_TIME,
        "markdown_rel_path": "",
        "taint": MemoryTaint.EXTERNAL_SYNC,
    }
    assert docs.get_document("document:handbook", "missing") is None
    assert docs.get_document("document:other", "k") is None


def test_a_category_is_stored_in_its_wire_form_and_an_empty_one_refused(
    docs: ReferenceDocuments,
) -> None:
    docs.put_document(doc(category="notes"))
    got = docs.get_document("document:handbook", "k")
    assert got is not None and got.category == str(MemoryCategory.custom("notes"))
    with pytest.raises(Invalid, match="unknown memory category"):
        docs.put_document(doc(key="other", category=""))
    assert docs.get_document("document:handbook", "other") is None


def test_a_second_put_replaces_every_field_and_keeps_the_id(docs: ReferenceDocuments) -> None:
    first = docs.put_document(doc(taint=MemoryTaint.EXTERNAL_SYNC, tags=["old"]))
    second = docs.put_document(doc(content="second", title="New", tags=[]))
    assert first == second == "document:handbook::k"
    got = docs.get_document("document:handbook", "k")
    assert got is not None
    assert (got.content, got.title, got.tags, got.taint) == ("second", "New", [], "internal")
    listing = DocumentListing.model_validate(docs.list_documents("document:handbook"))
    assert listing.count == len(listing.documents) == 1


def test_explicit_ids_are_kept_and_never_shared(docs: ReferenceDocuments) -> None:
    assert docs.put_document(doc(document_id="mine")) == "mine"
    assert docs.put_document(doc(content="again")) == "mine"  # the existing id stays
    with pytest.raises(Invalid, match="already names another document"):
        docs.put_document(doc(key="other", document_id="mine"))
    assert docs.get_document("document:handbook", "other") is None
    with pytest.raises(Invalid, match="must not be blank"):
        docs.put_document(doc(key="blank", document_id="  "))


def test_the_list_envelope(docs: ReferenceDocuments) -> None:
    docs.put_document(doc(key="b"))
    docs.put_document(doc(key="a"))
    docs.put_document(doc(namespace="document:other", key="z"))
    listing = DocumentListing.model_validate(docs.list_documents("document:handbook"))
    assert listing.is_consistent()
    assert [(row.namespace, row.key) for row in listing.documents] == [
        ("document:handbook", "a"),
        ("document:handbook", "b"),
    ]
    row = listing.documents[0]
    assert (row.document_id, row.title, row.source_type, row.priority) == (
        "document:handbook::a",
        "Title",
        "upload",
        "normal",
    )
    everything = DocumentListing.model_validate(docs.list_documents(None))
    assert everything.count == 3
    assert DocumentListing.model_validate(docs.list_documents("nothing-here")).count == 0
    assert docs.list_namespaces() == ["document:handbook", "document:other"]


def test_delete_twice_and_clear(docs: ReferenceDocuments) -> None:
    document_id = docs.put_document(doc())
    docs.put_document(doc(key="kept"))
    first = DocumentDeletion.model_validate(docs.delete_document("document:handbook", document_id))
    assert (first.deleted, first.namespace, first.document_id) == (
        True,
        "document:handbook",
        document_id,
    )
    second = DocumentDeletion.model_validate(docs.delete_document("document:handbook", document_id))
    assert second.deleted is False
    # An id is deleted only in the namespace named.
    other = docs.put_document(doc(namespace="document:other", key="x"))
    gone = DocumentDeletion.model_validate(docs.delete_document("document:handbook", other))
    assert gone.deleted is False and docs.get_document("document:other", "x") is not None
    docs.clear_namespace("document:handbook")
    assert docs.get_document("document:handbook", "kept") is None
    assert docs.get_document("document:other", "x") is not None
    assert docs.list_namespaces() == ["document:other"]
    docs.clear_namespace("document:handbook")  # clearing nothing is not an error


def test_query_ranks_substring_hits_by_coverage(docs: ReferenceDocuments) -> None:
    docs.put_document(doc(key="long", title="Cache", content="the cache keeps renders warm"))
    docs.put_document(doc(key="short", title="Cache", content="CACHE"))
    docs.put_document(doc(key="none", title="Other", content="nothing to see"))
    docs.put_document(doc(namespace="document:other", key="far", content="cache"))
    found = docs.query_documents("document:handbook", "cache", 10)
    assert (found.namespace, found.query) == ("document:handbook", "cache")
    assert [hit.key for hit in found.hits] == ["short", "long"]
    best = found.hits[0]
    assert best.kind == MemoryItemKind.DOCUMENT and best.document_id == best.id
    assert best.score == pytest.approx(len("cache") / len("cache\ncache"))
    assert best.score_breakdown.final_score == best.score
    assert best.score_breakdown.keyword_relevance == best.score
    assert found.context_text == "## Cache\n\nCACHE\n\n## Cache\n\nthe cache keeps renders warm"
    assert [h.key for h in docs.query_documents("document:handbook", "cache", 1).hits] == ["short"]
    assert docs.query_documents("document:handbook", "title", 10).hits == []
    assert docs.query_documents("document:handbook", "Other", 10).hits[0].key == "none"


@pytest.mark.parametrize("query", ["", "   "])
def test_a_blank_query_or_zero_limit_finds_nothing(docs: ReferenceDocuments, query: str) -> None:
    docs.put_document(doc())
    assert docs.query_documents("document:handbook", query, 10).hits == []
    assert docs.query_documents("document:handbook", "body", 0).hits == []
    assert docs.recall_documents("document:handbook", 0).hits == []


def test_a_negative_limit_is_invalid(docs: ReferenceDocuments) -> None:
    with pytest.raises(Invalid):
        docs.query_documents("document:handbook", "x", -1)
    with pytest.raises(Invalid):
        docs.recall_documents("document:handbook", -1)


def test_recall_answers_the_latest_writes_first(docs: ReferenceDocuments) -> None:
    for key in ("a", "b", "c"):
        docs.put_document(doc(key=key, content=key))
    docs.put_document(doc(key="a", content="a again"))  # rewriting makes it the latest
    recalled = docs.recall_documents("document:handbook", 2)
    assert recalled.query is None
    assert [hit.key for hit in recalled.hits] == ["a", "c"]
    assert [hit.score for hit in recalled.hits] == [1.0, 0.5]
    assert recalled.hits[0].score_breakdown.freshness == 1.0
    docs.delete_document("document:handbook", "document:handbook::a")
    assert [hit.key for hit in docs.recall_documents("document:handbook", 5).hits] == ["c", "b"]


def test_documents_are_records_of_their_own_not_core_entries() -> None:
    provider = ReferenceProvider()
    documents = provider.as_documents()
    assert documents is not None
    documents.put_document(doc())
    assert provider.get("document:handbook", "k") is None
    assert provider.namespaces() == []
    provider.store("document:handbook", "entry", "x", MemoryCategory.CORE, None, "internal")
    assert documents.list_namespaces() == ["document:handbook"]
    assert DocumentListing.model_validate(documents.list_documents(None)).count == 1


def test_concurrent_puts_keep_every_document(docs: ReferenceDocuments) -> None:
    def write(start: int) -> None:
        for index in range(start, start + 50):
            docs.put_document(doc(key=f"k{index:03d}"))

    threads = [threading.Thread(target=write, args=(n * 50,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert DocumentListing.model_validate(docs.list_documents(None)).count == 200


def test_the_suite_reaches_the_top_level_on_the_provider_profile() -> None:
    from conformance.checks.runner import run_provider_suite

    results = run_provider_suite(ReferenceProvider(), RunSettings(timeout=10.0, retries=0))
    assert results["provider.documents_round_trip"].outcome == "passed"
