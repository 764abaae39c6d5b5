"""Every JSON example of contract-reference part A and the section seed round-trips."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, TypeAdapter

from conformance.provider import (
    Capabilities,
    DocumentDeletion,
    DocumentListing,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    MemoryEntry,
    MemoryHealth,
    MemorySection,
    Namespace,
    NamespaceDocumentInput,
    NamespaceMemoryHit,
    NamespaceQueryResult,
    NamespaceRetrievalContext,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
    StoredMemoryDocument,
)

BREAKDOWN = (
    '{"keyword_relevance":0.5,"vector_similarity":0.25,"graph_relevance":0.0,'
    '"episodic_relevance":0.0,"freshness":0.125,"final_score":0.75}'
)
RELATION = (
    '{"namespace":"document:handbook","subject":"alice","predicate":"works_on",'
    '"object":"tinymemory","attrs":{"since":2024},"updated_at":1700000000.5,'
    '"evidence_count":2,"order_index":null,"document_ids":["doc-1"],"chunk_ids":[]}'
)
HIT = (
    '{"id":"doc-1","kind":"document","namespace":"document:handbook","key":"intro",'
    '"title":"Intro","content":"hello","category":"core","source_type":"conformance",'
    f'"updated_at":1700000000.5,"score":0.75,"score_breakdown":{BREAKDOWN},'
    f'"document_id":"doc-1","chunk_id":null,"supporting_relations":[{RELATION}],'
    '"taint":"external_sync"}'
)

# (model, compact JSON in field-declaration order): parse, then dump, gives it back.
EXAMPLES: list[tuple[type[BaseModel], str]] = [
    # A2 MemoryHealth, internally tagged by `status`.
    (MemoryHealth, '{"status":"ready"}'),
    (MemoryHealth, '{"status":"degraded","reason":"index rebuilding"}'),
    (MemoryHealth, '{"status":"down","reason":"database unreachable"}'),
    # A1 MemoryEntry as the reference driver returns it (`"{namespace}::{key}"` ids).
    (
        MemoryEntry,
        '{"id":"round-trip::k1","key":"k1","content":"the quick brown fox",'
        '"namespace":"round-trip","category":"core","timestamp":"1970-01-01T00:00:00Z",'
        '"session_id":"session-1","score":null,"taint":"internal"}',
    ),
    # A1 MemoryEntry as UnifiedMemory recall returns it (`"{ns}:{rank}"`, a score).
    (
        MemoryEntry,
        '{"id":"global:0","key":"k","content":"c","namespace":"global",'
        '"category":"custom:notes","timestamp":"2025-05-06T07:08:09Z","session_id":null,'
        '"score":0.875,"taint":"external_sync"}',
    ),
    (
        MemoryEntry,
        '{"id":"episodic:7","key":"turn","content":"user said","namespace":"conversation:t1",'
        '"category":"conversation","timestamp":"2025-05-06T07:08:09Z","session_id":"s1",'
        '"score":0.5,"taint":"internal"}',
    ),
    (NamespaceSummary, '{"namespace":"iso-a","count":2,"last_updated":null}'),
    (
        NamespaceSummary,
        '{"namespace":"conversation:thread-8f21","count":0,"last_updated":"2025-01-01T00:00:00Z"}',
    ),
    # A1 OwnedRecallOpts: None omitted, cross_session always present.
    (OwnedRecallOpts, '{"cross_session":false}'),
    (OwnedRecallOpts, '{"namespace":"recall-a","cross_session":false}'),
    (
        OwnedRecallOpts,
        '{"namespace":"conversation:t","category":"daily","session_id":"s2",'
        '"min_score":0.25,"cross_session":true}',
    ),
    (SourceScope, '{"allow":[]}'),
    (SourceScope, '{"allow":["src-abc","src-xyz"]}'),
    # A5 mandatory composition: an entry record and its page.
    (
        ExportRecord,
        '{"kind":"entry","id":"global::k","namespace":"global","taint":"external_sync",'
        '"payload":{"key":"k","content":"portable","category":"core","session_id":null,'
        '"timestamp":"1970-01-01T00:00:00Z"}}',
    ),
    # A7 reference driver payload (no timestamp).
    (
        ExportRecord,
        '{"kind":"entry","id":"portability::p1","namespace":"portability","taint":"internal",'
        '"payload":{"key":"p1","content":"portable","category":"core","session_id":null}}',
    ),
    (ExportRecord, '{"kind":"chunk","id":"c-1","namespace":null,"taint":"internal","payload":7}'),
    (ExportPage, '{"records":[],"next_cursor":null}'),
    (
        ExportPage,
        '{"records":[{"kind":"entry","id":"a::b","namespace":"a","taint":"internal",'
        '"payload":{"key":"b"}}],"next_cursor":"0:1"}',
    ),
    # A7 null driver import outcome; a rejection with its reason.
    (ImportOutcome, '{"imported":0,"skipped":3,"failed":0,"errors":[]}'),
    (
        ImportOutcome,
        '{"imported":1,"skipped":0,"failed":1,"errors":["record r2 lacks a namespace or key"]}',
    ),
    # A1 documents value types.
    (
        NamespaceDocumentInput,
        '{"namespace":"document:handbook","key":"intro","title":"first",'
        '"content":"the first body","source_type":"conformance","priority":"normal",'
        '"tags":["conformance"],"metadata":null,"category":"core","session_id":null,'
        '"document_id":null,"taint":"external_sync"}',
    ),
    (
        StoredMemoryDocument,
        '{"document_id":"doc-1","namespace":"document:handbook","key":"intro",'
        '"title":"first","content":"the first body","source_type":"conformance",'
        '"priority":"normal","tags":["conformance"],"metadata":{"a":[1,2]},"category":"core",'
        '"session_id":null,"created_at":1700000000.25,"updated_at":1700000001.5,'
        '"markdown_rel_path":"namespaces/document_handbook/intro.md","taint":"external_sync"}',
    ),
    (
        NamespaceQueryResult,
        '{"key":"intro","content":"hello","score":0.5,"category":"core","taint":"internal"}',
    ),
    (NamespaceMemoryHit, HIT),
    (
        NamespaceRetrievalContext,
        '{"namespace":"document:handbook","query":"hello","context_text":"hello",'
        f'"hits":[{HIT}]}}',
    ),
    (
        NamespaceRetrievalContext,
        '{"namespace":"document:handbook","query":null,"context_text":"","hits":[]}',
    ),
    # A4 envelopes pinned by the A@late suite.
    (
        DocumentListing,
        '{"count":1,"documents":[{"documentId":"doc-1","namespace":"document:handbook",'
        '"key":"intro","title":"first","sourceType":"conformance","priority":"normal",'
        '"createdAt":1700000000.25,"updatedAt":1700000001.5,"taint":"external_sync"}]}',
    ),
    (
        DocumentListing,
        '{"count":1,"documents":[{"documentId":"d","namespace":"n","key":"k","title":"t",'
        '"sourceType":"s","priority":"p","createdAt":1.0,"updatedAt":2.0,"taint":"internal",'
        '"markdownRelPath":"n/k.md"}],"namespace":"n"}',
    ),
    (DocumentDeletion, '{"deleted":true,"namespace":"document:handbook","documentId":"doc-1"}'),
    (DocumentDeletion, '{"deleted":false,"namespace":"n","documentId":"gone","reason":"absent"}'),
]


@pytest.mark.parametrize(("model", "text"), EXAMPLES)
def test_example_round_trips_byte_for_byte(model: type[BaseModel], text: str) -> None:
    value = model.model_validate_json(text)
    assert value.model_dump_json() == text
    assert model.model_validate(json.loads(text)).model_dump(mode="json") == json.loads(text)


def test_empty_recall_opts_decode_to_the_default() -> None:
    assert OwnedRecallOpts.model_validate_json("{}") == OwnedRecallOpts()


def test_a_limit_in_recall_opts_is_not_a_field() -> None:
    opts = OwnedRecallOpts.model_validate_json('{"limit":5}')
    assert opts == OwnedRecallOpts()
    assert opts.model_dump_json() == '{"cross_session":false}'


def test_entry_without_optional_keys_writes_them_back_as_null() -> None:
    entry = MemoryEntry.model_validate_json(
        '{"id":"i","key":"k","content":"c","category":"core","timestamp":"2025-05-06T07:08:09Z"}'
    )
    assert entry.model_dump_json() == (
        '{"id":"i","key":"k","content":"c","namespace":null,"category":"core","timestamp":"2025-05-06T07:08:09Z",'
        '"session_id":null,"score":null,"taint":"internal"}'
    )


def test_export_page_without_cursor_is_final() -> None:
    assert ExportPage.model_validate_json('{"records":[]}').next_cursor is None


@pytest.mark.parametrize(
    "text",
    [
        '["core","recall","portability"]',
        '["core","recall","documents","portability","episodic"]',
        "[]",
    ],
)
def test_capability_arrays_round_trip(text: str) -> None:
    adapter = TypeAdapter(Capabilities)
    assert adapter.dump_json(adapter.validate_json(text)).decode() == text


@pytest.mark.parametrize(
    "text",
    [
        # Section seed and A6 doc examples, including legacy and collapsed spellings.
        '"conversation:thread-8f21"',
        '"document:handbook"',
        '"learning:rust-async"',
        '"entity:people"',
        '"profile:default"',
        '"tool:github"',
        '"research-notes"',
        '"conversation_thread-8f21"',
        '"a:b_c"',
        '"a_b:c"',
        '"whatsapp-web:12025551234@c.us"',
        '"conversation:tinymemory-conformance/reference/section-thread"',
        '"global"',
    ],
)
def test_namespace_strings_round_trip(text: str) -> None:
    adapter = TypeAdapter(Namespace)
    assert adapter.dump_json(adapter.validate_json(text)).decode() == text


@pytest.mark.parametrize(
    "text", ['"conversation"', '"learning"', '"source"', '{"custom":"whatsapp-web"}']
)
def test_section_serde_round_trips(text: str) -> None:
    adapter = TypeAdapter(MemorySection)
    assert adapter.dump_json(adapter.validate_json(text)).decode() == text
