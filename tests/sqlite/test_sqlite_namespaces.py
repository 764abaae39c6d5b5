"""Seed §4 acceptance criteria: the storage address and the logical namespace.

- A sectioned write is enumerable afterwards under its `:` spelling.
- The storage address has no character outside `[A-Za-z0-9-_/]`; a PII-bearing
  namespace is redacted in both columns.
- Two logical names that sanitise to one address are two namespaces for every
  operation (reads, writes, recall, listing, export, documents, clearing); the address
  only places their files, side by side in one directory.
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
    ExportRecord,
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


# ----------------------------------------------------------- names sharing an address

THREE = ("agent:a_b", "agent:a.b", "agent:a@b")  # all three sanitise to "agent_a_b"


def test_three_names_sharing_an_address_are_three_namespaces(provider: SqliteProvider) -> None:
    """The issue's reproduction: three stores, three distinct gets, three summaries."""
    for namespace in THREE:
        put(provider, namespace, "k", f"content of {namespace}")
    for namespace in THREE:
        entry = provider.get(namespace, "k")
        assert entry is not None
        assert (entry.namespace, entry.content) == (namespace, f"content of {namespace}")
    assert sorted((s.namespace, s.count) for s in provider.namespaces()) == sorted(
        (namespace, 1) for namespace in THREE
    )
    assert {row[0] for row in raw_rows(provider.workspace)} == {"agent_a_b"}
    # One directory (the address), one file per entry.
    files = files_under(provider.workspace / "namespaces")
    assert len(files) == 3 and {f.parent.name for f in files} == {"agent_a_b"}


A, B = "a:b_c", "a_b:c"  # both sanitise to "a_b_c"


@pytest.mark.parametrize("use_fts", [True, False], ids=["fts5", "scan"])
def test_names_sharing_an_address_never_share_an_entry(tmp_path: Path, use_fts: bool) -> None:
    provider = SqliteProvider(tmp_path / "ws", use_fts=use_fts)
    put(provider, A, "k", "needle written as A", MemoryCategory.CORE, "s1")
    put(provider, B, "k", "needle written as B", MemoryCategory.DAILY, "s2")
    put(provider, B, "only-b", "needle kept only in B")
    assert len(raw_rows(provider.workspace)) == 3
    for spelling, own in ((A, ["k"]), (B, ["k", "only-b"])):
        listed = provider.list(spelling, None, None)
        assert [(e.namespace, e.key) for e in listed] == [(spelling, key) for key in own]
        hits = provider.recall("needle", 10, OwnedRecallOpts(namespace=spelling), None)
        assert sorted((h.namespace, h.key) for h in hits) == [(spelling, key) for key in own]
    entry = provider.get(A, "k")
    assert entry is not None and (entry.content, entry.session_id) == ("needle written as A", "s1")
    assert provider.get(A, "only-b") is None
    assert [e.key for e in provider.list(None, None, "s2")] == ["k"]
    assert sorted((s.namespace, s.count) for s in provider.namespaces()) == [(A, 1), (B, 2)]
    # Forgetting through one name leaves the other's entry and file.
    assert provider.forget(A, "k") is True
    assert provider.forget(A, "k") is False
    entry = provider.get(B, "k")
    assert entry is not None and entry.content == "needle written as B"
    assert len(files_under(provider.workspace / "namespaces")) == 2
    provider.shutdown()


def test_names_sharing_an_address_export_import_and_clear_apart(provider: SqliteProvider) -> None:
    put(provider, A, "k", "written as A")
    put(provider, B, "k", "written as B")
    put(provider, "other", "k3")
    records: list[ExportRecord] = []
    cursor: str | None = None
    while True:
        page = provider.export_page(cursor, 10)
        records += page.records
        if (cursor := page.next_cursor) is None:
            break
    exported = {(r.namespace, r.payload["content"]) for r in records}
    assert exported == {(A, "written as A"), (B, "written as B"), ("other", "content")}
    documents(provider).clear_namespace(B)
    assert [(e.namespace, e.key) for e in provider.list(None, None, None)] == [
        (A, "k"),
        ("other", "k3"),
    ]
    assert provider.import_records(records).imported == 3
    assert sorted(s.namespace for s in provider.namespaces()) == sorted([A, B, "other"])
    entry = provider.get(B, "k")
    assert entry is not None and entry.content == "written as B"


def test_documents_of_names_sharing_an_address_stay_apart(provider: SqliteProvider) -> None:
    family = documents(provider)
    ids = {}
    for namespace in THREE:
        ids[namespace] = family.put_document(
            NamespaceDocumentInput(
                namespace=namespace,
                key="intro",
                title=f"title of {namespace}",
                content=f"zinc roof of {namespace}",
                source_type="upload",
                priority="normal",
                category="core",
            )
        )
    assert len(set(ids.values())) == 3
    for namespace in THREE:
        stored = family.get_document(namespace, "intro")
        assert stored is not None and stored.content == f"zinc roof of {namespace}"
        listed = family.list_documents(namespace)
        assert isinstance(listed, dict) and listed["count"] == 1
        context = family.query_documents(namespace, "zinc", 10)
        assert [(h.namespace, h.content) for h in context.hits] == [
            (namespace, f"zinc roof of {namespace}")
        ]
        recent = family.recall_documents(namespace, 10)
        assert [h.namespace for h in recent.hits] == [namespace]
    assert sorted(family.list_namespaces()) == sorted(THREE)
    deleted = family.delete_document("agent:a.b", ids["agent:a_b"])
    assert isinstance(deleted, dict) and deleted["deleted"] is False  # not that name's document
    deleted = family.delete_document("agent:a_b", ids["agent:a_b"])
    assert isinstance(deleted, dict) and deleted["deleted"] is True
    assert [family.get_document(n, "intro") is None for n in THREE] == [True, False, False]


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
