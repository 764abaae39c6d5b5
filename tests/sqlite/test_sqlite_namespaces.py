"""Seed §4 acceptance criteria: the storage address and the logical namespace.

- A sectioned write is enumerable afterwards under its `:` spelling.
- The storage address has no character outside `[A-Za-z0-9-_/]`; a PII-bearing
  namespace is redacted in both columns.
- Two logical names that sanitise to one address are one namespace for every
  operation (reads, writes, recall, clearing); enumeration reports one of them.
- `query_documents` finds rows stored under a sectioned namespace.
(The migration criteria are in test_sqlite_schema.py.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlite_helpers import files_under, put, raw_rows

from conformance.provider import (
    MemoryCategory,
    MemoryDocuments,
    MemorySection,
    MemoryTaint,
    Namespace,
    NamespaceDocumentInput,
    OwnedRecallOpts,
)
from conformance.sections import Sections
from reference_driver.sqlite import SqliteProvider

ADDRESS = re.compile(r"[A-Za-z0-9_/-]+")


@pytest.fixture
def provider(tmp_path: Path) -> Iterator[SqliteProvider]:
    provider = SqliteProvider(tmp_path)
    yield provider
    provider.shutdown()


def documents(provider: SqliteProvider) -> MemoryDocuments:
    family = provider.as_documents()
    assert family is not None
    return family


def test_a_sectioned_write_is_enumerable_under_its_section(provider: SqliteProvider) -> None:
    written = Namespace.conversation("tinymemory-conformance/sqlite/section-thread")
    put(provider, written.as_str(), "turn-1", "hello")
    parsed = [Namespace.parse(summary.namespace) for summary in provider.namespaces()]
    matching = [ns for ns in parsed if ns.scope() == written.scope()]
    assert [ns.section() for ns in matching] == [MemorySection.CONVERSATION]
    assert [ns.as_str() for ns in matching] == [written.as_str()]
    # The storage address is the sanitised, unsectioned form; only the label differs.
    assert raw_rows(provider.workspace) == [
        (
            "conversation_tinymemory-conformance/sqlite/section-thread",
            "conversation:tinymemory-conformance/sqlite/section-thread",
            "turn-1",
        )
    ]
    entry = provider.get(written.as_str(), "turn-1")
    assert entry is not None and entry.namespace == written.as_str()


def test_the_section_api_sees_sectioned_writes(provider: SqliteProvider) -> None:
    sections = pytest.importorskip("conformance.sections")
    view = sections.Sections(provider).learnings()
    view.put("rust-async", "k", "tokio", None, None, MemoryTaint.INTERNAL)
    assert [scope.scope() for scope in view.scopes()] == ["rust-async"]


@pytest.mark.parametrize("use_fts", [True, False], ids=["fts5", "scan"])
def test_a_section_scope_carrying_personal_data_is_enumerable(
    tmp_path: Path, use_fts: bool
) -> None:
    """The issue's scenario: every enumerating call finds the write, and the national id
    reaches neither column, no file name and no mirror file."""
    provider = SqliteProvider(tmp_path / "ws", use_fts=use_fts)
    sections = Sections(provider)
    view = sections.conversations()
    view.put(
        "thread-123-45-6789",
        "turn-1",
        "the needle",
        MemoryCategory.CONVERSATION,
        None,
        MemoryTaint.INTERNAL,
    )
    entry = view.get("thread-123-45-6789", "turn-1")
    assert entry is not None and entry.content == "the needle"
    reported = "conversation:thread-_REDACTED_PII_SSN_"
    assert [s.namespace.as_str() for s in view.scopes()] == [reported]
    assert [(e.namespace, e.key) for e in view.list_section()] == [(reported, "turn-1")]
    found = sections.recall().across_section(
        MemorySection.CONVERSATION, "needle", 5, OwnedRecallOpts()
    )
    assert [(h.namespace, h.key) for h in found.hits] == [(reported, "turn-1")]
    assert (found.namespaces_searched, found.truncated) == (1, False)
    # Through the reported scope, the same row: reads, recall, forget.
    (scope,) = view.scopes()
    assert [e.key for e in view.list(scope.scope())] == ["turn-1"]
    assert raw_rows(provider.workspace) == [
        ("conversation_thread-_REDACTED_PII_SSN_", reported, "turn-1")
    ]
    for path in files_under(provider.workspace):
        assert "45-6789" not in path.relative_to(provider.workspace).as_posix()
        if path.suffix == ".md":
            assert "45-6789" not in path.read_text()
    assert view.forget(scope.scope(), "turn-1") is True
    assert view.scopes() == []
    provider.shutdown()


VALID_AWKWARD = [
    "team.alpha@example+1:thread/2",
    "x//y",
    "a:b:c",
    "UPPER_lower-09",
    "conversation:whatsapp-web:12025551234@c.us",
    "z" * 200,
]


def test_storage_addresses_stay_inside_the_allow_list(provider: SqliteProvider) -> None:
    for namespace in VALID_AWKWARD:
        put(provider, namespace, "k", "v")
    for physical, logical, _ in raw_rows(provider.workspace):
        assert ADDRESS.fullmatch(physical), physical
        assert not physical.startswith("/")
        assert logical in VALID_AWKWARD
    root = provider.workspace / "namespaces"
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        if path.is_dir():
            assert ADDRESS.fullmatch(relative), relative
        else:
            assert re.fullmatch(r"[A-Za-z0-9_/-]+\.md", relative), relative
    assert sorted(s.namespace for s in provider.namespaces()) == sorted(VALID_AWKWARD)


def test_a_pii_bearing_namespace_is_redacted_in_both_columns(provider: SqliteProvider) -> None:
    put(provider, "user:123-45-6789", "ssn-123-45-6789", "v")
    [(physical, logical, key)] = raw_rows(provider.workspace)
    assert physical == "user__REDACTED_PII_SSN_"
    assert logical == "user:_REDACTED_PII_SSN_"  # a valid namespace, for the same address
    assert key == "ssn-[REDACTED_PII_SSN]"
    on_disk = [
        path.relative_to(provider.workspace).as_posix() for path in files_under(provider.workspace)
    ]
    assert not any("45-6789" in path for path in on_disk)
    (mirror,) = files_under(provider.workspace / "namespaces")
    assert "45-6789" not in mirror.read_text()
    assert [s.namespace for s in provider.namespaces()] == ["user:_REDACTED_PII_SSN_"]
    Namespace.parse("user:_REDACTED_PII_SSN_")  # the reported name is a namespace
    # Reads apply the write path's transform, and the reported name addresses it too, as
    # does the spelling an earlier schema reported.
    for spelling in ("user:123-45-6789", "user:_REDACTED_PII_SSN_", "user:[REDACTED_PII_SSN]"):
        entry = provider.get(spelling, "ssn-123-45-6789")
        assert entry is not None and entry.namespace == "user:_REDACTED_PII_SSN_"
    put(provider, "user:_REDACTED_PII_SSN_", "second", "v")  # the reported name is writable
    put(provider, "user:[REDACTED_PII_SSN]", "third", "v")  # and so is an older export's
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [
        ("user:_REDACTED_PII_SSN_", 3)
    ]


# ------------------------------------------------------------------------- aliasing

A, B = "a:b_c", "a_b:c"  # both sanitise to "a_b_c"


def test_aliases_share_one_physical_namespace_for_reads_and_writes(
    provider: SqliteProvider,
) -> None:
    put(provider, A, "k1", "first needle")
    put(provider, B, "k2", "second needle")
    assert {row[0] for row in raw_rows(provider.workspace)} == {"a_b_c"}
    for spelling in (A, B):
        assert [e.key for e in provider.list(spelling, None, None)] == ["k1", "k2"]
        assert provider.get(spelling, "k1") is not None
        assert provider.get(spelling, "k2") is not None
        hits = provider.recall("needle", 10, OwnedRecallOpts(namespace=spelling), None)
        assert sorted(h.key for h in hits) == ["k1", "k2"]
    # Each row keeps the name it was written under.
    assert {(e.key, e.namespace) for e in provider.list(A, None, None)} == {("k1", A), ("k2", B)}
    # One summary for the address, under one representative (MIN of the logical names).
    summaries = provider.namespaces()
    assert [(s.namespace, s.count) for s in summaries] == [(A, 2)]


def test_aliases_contend_for_one_key(provider: SqliteProvider) -> None:
    put(provider, A, "k", "written as A")
    put(provider, B, "k", "written as B")
    assert len(raw_rows(provider.workspace)) == 1
    entry = provider.get(A, "k")
    assert entry is not None and (entry.content, entry.namespace) == ("written as B", B)
    assert provider.forget(A, "k") is True  # forgetting through either spelling
    assert provider.get(B, "k") is None


def test_aliases_are_cleared_and_exported_as_one_unit(provider: SqliteProvider) -> None:
    put(provider, A, "k1")
    put(provider, B, "k2")
    put(provider, "other", "k3")
    page = provider.export_page(None, 10)
    assert sorted((r.namespace, r.id) for r in page.records) == sorted(
        (e.namespace, e.id) for e in provider.list(A, None, None)
    )
    documents(provider).clear_namespace(B)
    assert provider.list(A, None, None) == []
    assert [e.key for e in provider.list(None, None, None)] == ["k3"]
    assert [p.parent.name for p in files_under(provider.workspace / "namespaces")] == ["other"]


def test_query_documents_finds_rows_under_a_sectioned_namespace(provider: SqliteProvider) -> None:
    family = documents(provider)
    family.put_document(
        NamespaceDocumentInput(
            namespace="document:handbook",
            key="intro",
            title="Onboarding",
            content="where the zinc roof is",
            source_type="upload",
            priority="normal",
            category="core",
        )
    )
    put(provider, "document:handbook", "core-entry", "zinc again")
    put(provider, "document_handbook-other", "k", "zinc elsewhere")
    context = family.query_documents("document:handbook", "zinc", 10)
    assert context.namespace == "document:handbook"
    assert sorted(hit.key for hit in context.hits) == ["core-entry", "intro"]
    assert {hit.namespace for hit in context.hits} == {"document:handbook"}
    assert "zinc roof" in context.context_text
    by_title = family.query_documents("document:handbook", "onboarding", 10)
    assert [hit.key for hit in by_title.hits] == ["intro"]
