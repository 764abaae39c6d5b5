"""The sqlite driver's export pages and import (A5 §4 and §5): cursors that name a
position, messages, round trips."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import JsonValue
from sqlite_helpers import put

from conformance.provider import (
    ENTRY_KIND,
    ExportRecord,
    Invalid,
    MemoryCategory,
    MemoryTaint,
    NamespaceDocumentInput,
)
from reference_driver.sqlite import SqliteProvider
from reference_driver.sqlite.portability import issue_cursor, parse_cursor


@pytest.fixture
def provider(tmp_path: Path) -> Iterator[SqliteProvider]:
    provider = SqliteProvider(tmp_path / "source")
    yield provider
    provider.shutdown()


def export_all(
    provider: SqliteProvider, limit: int, cursor: str | None = None
) -> tuple[list[ExportRecord], list[str | None]]:
    records: list[ExportRecord] = []
    cursors: list[str | None] = []
    for _ in range(1000):
        page = provider.export_page(cursor, limit)
        records.extend(page.records)
        cursors.append(page.next_cursor)
        if page.next_cursor is None:
            return records, cursors
        cursor = page.next_cursor
    raise AssertionError("export did not terminate")


def invalid_message(call: object) -> str:
    assert callable(call)
    with pytest.raises(Invalid) as caught:
        call()
    return caught.value.message


@pytest.mark.parametrize("limit", [0, -1])
def test_a_limit_of_zero_is_refused(provider: SqliteProvider, limit: int) -> None:
    message = invalid_message(lambda: provider.export_page(None, limit))
    assert message == "export page limit must be greater than zero"


FORGED = issue_cursor("ns", "k")[:-2]  # cut: decodes to no position


@pytest.mark.parametrize(
    "cursor",
    ["!not-a-cursor!", "", "3", "0:0", "after:", "after:!!", "after:WzEsMl0", FORGED, " after:"],
)
def test_a_foreign_cursor_is_refused_verbatim(provider: SqliteProvider, cursor: str) -> None:
    put(provider, "ns", "k")
    message = invalid_message(lambda: provider.export_page(cursor, 8))
    assert message == f"export cursor not issued by this driver: {cursor}"


def test_a_cursor_names_the_row_it_resumes_after() -> None:
    assert parse_cursor(None) is None
    cursor = issue_cursor("conversation:é", "k 1")
    assert cursor.startswith("after:") and parse_cursor(cursor) == ("conversation:é", "k 1")


def test_an_empty_store_exports_one_empty_final_page(provider: SqliteProvider) -> None:
    page = provider.export_page(None, 8)
    assert (page.records, page.next_cursor) == ([], None)
    # A position past every row is the end, on an empty store as on any other.
    assert provider.export_page(issue_cursor("zzz", "k"), 8) == page


def test_paging_visits_every_row_once_in_namespace_order(provider: SqliteProvider) -> None:
    expected = []
    for namespace, count in (("alpha", 5), ("beta", 1), ("conversation:gamma", 3)):
        for i in range(count):
            put(provider, namespace, f"k{i}", f"{namespace} {i}")
            expected.append((namespace, f"k{i}"))
    records, cursors = export_all(provider, 2)
    assert [(r.namespace, r.kind) for r in records][:1] == [("alpha", ENTRY_KIND)]
    assert [(r.namespace, payload_str(r, "key")) for r in records] == expected
    # Five full pages; the last page says it is the last.
    assert len(cursors) == 5 and cursors[-1] is None
    assert [parse_cursor(c) for c in cursors[:-1]] == expected[1:-1:2]


def test_writes_between_pages_shift_no_row_twice_or_out(provider: SqliteProvider) -> None:
    for key in ("b1", "b2", "b3", "b4"):
        put(provider, "b", key)
    first = provider.export_page(None, 2)
    assert [payload_str(r, "key") for r in first.records] == ["b1", "b2"]
    # A namespace sorting first, and a row forgotten before the cursor, move no position.
    put(provider, "a", "new")
    assert provider.forget("b", "b1") is True
    records, _ = export_all(provider, 2, first.next_cursor)
    assert [(r.namespace, payload_str(r, "key")) for r in records] == [("b", "b3"), ("b", "b4")]


def payload_str(record: ExportRecord, name: str) -> str:
    assert isinstance(record.payload, dict)
    value = record.payload[name]
    assert isinstance(value, str)
    return value


def test_records_carry_the_mandatory_payload(provider: SqliteProvider) -> None:
    put(provider, "p", "k", "portable", MemoryCategory.custom("x"), "s1", MemoryTaint.EXTERNAL_SYNC)
    (record,) = provider.export_page(None, 8).records
    entry = provider.get("p", "k")
    assert entry is not None
    assert (record.kind, record.id, record.namespace, record.taint) == (
        "entry",
        entry.id,
        "p",
        MemoryTaint.EXTERNAL_SYNC,
    )
    assert isinstance(record.payload, dict)
    mandatory = {
        name: record.payload[name]
        for name in ("key", "content", "category", "session_id", "timestamp")
    }
    assert mandatory == {
        "key": "k",
        "content": "portable",
        "category": "custom:x",
        "session_id": "s1",
        "timestamp": entry.timestamp.rfc3339(),
    }


def test_export_then_import_round_trips_taint_and_content(
    provider: SqliteProvider, tmp_path: Path
) -> None:
    put(provider, "portability", "p1", "portable", taint=MemoryTaint.EXTERNAL_SYNC)
    put(provider, "conversation:t-1", "p2", "chat", MemoryCategory.CONVERSATION, "s9")
    put(provider, "user:123-45-6789", "p3", "redacted namespace")
    provider.as_documents().put_document(  # type: ignore[union-attr]
        NamespaceDocumentInput(
            namespace="document:handbook",
            key="intro",
            title="Introduction",
            content="welcome aboard",
            source_type="upload",
            priority="high",
            tags=["onboarding"],
            metadata={"pages": 3},
            category="core",
            taint=MemoryTaint.EXTERNAL_SYNC,
        )
    )
    records, _ = export_all(provider, 3)
    assert provider.forget("portability", "p1") is True

    outcome = provider.import_records(records)
    assert (outcome.imported, outcome.skipped, outcome.failed, outcome.errors) == (4, 0, 0, [])
    restored = provider.get("portability", "p1")
    assert restored is not None and restored.taint is MemoryTaint.EXTERNAL_SYNC

    target = SqliteProvider(tmp_path / "target")
    assert target.import_records(records).imported == 4

    def view(p: SqliteProvider) -> list[tuple[object, ...]]:
        return [
            (e.namespace, e.key, e.content, e.category, e.session_id, e.taint, e.id)
            for e in p.list(None, None, None)
        ]

    assert view(target) == view(provider)
    assert [s.namespace for s in target.namespaces()] == [
        s.namespace for s in provider.namespaces()
    ]
    document = target.as_documents().get_document("document:handbook", "intro")  # type: ignore[union-attr]
    assert document is not None
    assert (document.title, document.source_type, document.priority, document.tags) == (
        "Introduction",
        "upload",
        "high",
        ["onboarding"],
    )
    assert document.metadata == {"pages": 3}
    target.shutdown()


def record(
    payload: JsonValue, *, kind: str = "entry", namespace: str | None = "imports"
) -> ExportRecord:
    return ExportRecord(kind=kind, id="r1", namespace=namespace, payload=payload)


GOOD: dict[str, JsonValue] = {"key": "k", "content": "c", "category": "core"}


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (
            record(GOOD, kind="chunk"),
            "record r1: unsupported kind 'chunk' (this driver exports 'entry')",
        ),
        (
            record({"content": "c", "category": "core"}),
            "record r1: payload is missing a string 'key'",
        ),
        (record({**GOOD, "content": 5}), "record r1: payload is missing a string 'content'"),
        (record({"key": "k", "content": "c"}), "record r1: payload is missing a string 'category'"),
        (record({**GOOD, "category": ""}), "record r1: category is not a known category"),
        (record("not an object"), "record r1: payload is missing a string 'key'"),
        (
            record(GOOD, namespace="has space"),
            "record r1: namespace contains disallowed character ' '",
        ),
        (record({**GOOD, "key": ""}), "record r1: key must not be empty"),
    ],
)
def test_a_malformed_record_fails_alone_with_its_reason(
    provider: SqliteProvider, bad: ExportRecord, reason: str
) -> None:
    good = ExportRecord(kind="entry", id="r2", namespace="imports", payload={**GOOD, "key": "ok"})
    outcome = provider.import_records([bad, good])
    assert (outcome.imported, outcome.failed, outcome.errors) == (1, 1, [reason])
    assert outcome.is_consistent()
    assert [e.key for e in provider.list(None, None, None)] == ["ok"]


def test_an_import_without_namespace_lands_in_global(provider: SqliteProvider) -> None:
    outcome = provider.import_records([record({**GOOD, "session_id": 7}, namespace=None)])
    assert outcome.imported == 1
    entry = provider.get("global", "k")
    assert entry is not None and entry.session_id is None


def test_import_keeps_each_records_taint(provider: SqliteProvider) -> None:
    records = [
        ExportRecord(
            kind="entry", id=str(i), namespace="t", taint=taint, payload={**GOOD, "key": str(i)}
        )
        for i, taint in enumerate([MemoryTaint.INTERNAL, MemoryTaint.EXTERNAL_SYNC])
    ]
    provider.import_records(records)
    assert [e.taint for e in provider.list("t", None, None)] == [
        MemoryTaint.INTERNAL,
        MemoryTaint.EXTERNAL_SYNC,
    ]
