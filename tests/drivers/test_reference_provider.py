"""The in-memory reference provider (A7, decisions §4.1): every pinned behaviour."""

from __future__ import annotations

import threading

import pytest

from conformance.provider import (
    GLOBAL_NAMESPACE,
    SCOPE_UNAPPLIED,
    Capabilities,
    Capability,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
    audit_provider,
)
from reference_driver.provider import ReferenceProvider

CORE = MemoryCategory.CORE
DAILY = MemoryCategory.DAILY
INTERNAL = MemoryTaint.INTERNAL
EXTERNAL = MemoryTaint.EXTERNAL_SYNC


@pytest.fixture
def provider() -> ReferenceProvider:
    return ReferenceProvider()


def put(
    provider: ReferenceProvider,
    namespace: str,
    key: str,
    content: str = "x",
    category: MemoryCategory = CORE,
    session_id: str | None = None,
    taint: MemoryTaint = INTERNAL,
) -> None:
    provider.store(namespace, key, content, category, session_id, taint)


def keys(entries: list[MemoryEntry]) -> list[tuple[str | None, str]]:
    return [(entry.namespace, entry.key) for entry in entries]


def record(
    payload: object, *, kind: str = "entry", namespace: str | None = "ns", taint: str = "internal"
) -> ExportRecord:
    """A record as it arrives over the wire, so the taint string is decoded like JSON."""
    return ExportRecord.model_validate(
        {"kind": kind, "id": "r1", "namespace": namespace, "taint": taint, "payload": payload}
    )


# -- identity, capabilities, health ----------------------------------------------------


def test_identity_capabilities_and_health(provider: ReferenceProvider) -> None:
    assert provider.driver_id() == "reference"
    assert provider.capabilities() == Capabilities.mandatory().with_(Capability.DOCUMENTS)
    provider.capabilities().validate()
    assert audit_provider(provider) is None
    assert provider.health() == MemoryHealth.ready()
    provider.shutdown()
    provider.shutdown()


# -- core ------------------------------------------------------------------------------


def test_store_then_get_returns_every_field(provider: ReferenceProvider) -> None:
    put(provider, "round-trip", "k1", "the quick brown fox", DAILY, "session-1", EXTERNAL)
    assert provider.get("round-trip", "k1") == MemoryEntry(
        id="round-trip::k1",
        key="k1",
        content="the quick brown fox",
        namespace="round-trip",
        category=DAILY,
        timestamp="1970-01-01T00:00:00Z",
        session_id="session-1",
        score=None,
        taint=EXTERNAL,
    )


def test_get_missing_is_none(provider: ReferenceProvider) -> None:
    put(provider, "ns", "k")
    assert provider.get("ns", "never-stored") is None
    assert provider.get("other", "k") is None


def test_store_upserts_every_field(provider: ReferenceProvider) -> None:
    put(provider, "upsert", "same-key", "first", CORE, "s1", INTERNAL)
    put(provider, "upsert", "same-key", "second", DAILY, None, EXTERNAL)
    rows = provider.list("upsert", None, None)
    assert len(rows) == 1
    assert (rows[0].content, rows[0].category, rows[0].session_id, rows[0].taint) == (
        "second",
        DAILY,
        None,
        EXTERNAL,
    )


@pytest.mark.parametrize("taint", [INTERNAL, EXTERNAL])
def test_taint_is_kept_exactly_as_given(provider: ReferenceProvider, taint: MemoryTaint) -> None:
    put(provider, "taint", "k", taint=taint)
    entry = provider.get("taint", "k")
    assert entry is not None and entry.taint is taint


def test_restore_changes_taint_only_when_asked(provider: ReferenceProvider) -> None:
    put(provider, "taint", "k", "v1", taint=EXTERNAL)
    put(provider, "taint", "k", "v2", taint=EXTERNAL)
    entry = provider.get("taint", "k")
    assert entry is not None and entry.taint is EXTERNAL  # never downgraded on its own
    put(provider, "taint", "k", "v3", taint=INTERNAL)
    entry = provider.get("taint", "k")
    assert entry is not None and entry.taint is INTERNAL  # the caller asked


def test_forget_reports_whether_it_existed(provider: ReferenceProvider) -> None:
    put(provider, "forget", "k")
    assert provider.forget("forget", "k") is True
    assert provider.get("forget", "k") is None
    assert provider.forget("forget", "k") is False
    assert provider.forget("never", "k") is False


def test_list_none_namespace_lists_every_namespace_sorted(provider: ReferenceProvider) -> None:
    put(provider, "b", "2")
    put(provider, GLOBAL_NAMESPACE, "g")
    put(provider, "a", "9")
    put(provider, "b", "1")
    assert keys(provider.list(None, None, None)) == [
        ("a", "9"),
        ("b", "1"),
        ("b", "2"),
        (GLOBAL_NAMESPACE, "g"),
    ]


def test_list_filters_narrow(provider: ReferenceProvider) -> None:
    put(provider, "filters", "core-a", "x", CORE, "s1")
    put(provider, "filters", "daily-b", "y", DAILY, "s2")
    put(provider, "elsewhere", "core-c", "z", CORE, "s2")
    assert keys(provider.list("filters", None, None)) == [
        ("filters", "core-a"),
        ("filters", "daily-b"),
    ]
    assert keys(provider.list("filters", CORE, None)) == [("filters", "core-a")]
    assert keys(provider.list("filters", None, "s2")) == [("filters", "daily-b")]
    assert keys(provider.list(None, CORE, "s2")) == [("elsewhere", "core-c")]
    assert provider.list("filters", DAILY, "s1") == []
    assert provider.list("iso-b", None, None) == []


def test_list_entries_carry_no_score(provider: ReferenceProvider) -> None:
    put(provider, GLOBAL_NAMESPACE, "k", "needle")
    provider.recall("needle", 5, OwnedRecallOpts(), None)
    assert [entry.score for entry in provider.list(None, None, None)] == [None]


def test_namespaces_count_per_namespace_sorted(provider: ReferenceProvider) -> None:
    assert provider.namespaces() == []
    put(provider, "zeta", "1")
    put(provider, "alpha", "1")
    put(provider, "alpha", "2")
    put(provider, "alpha", "2")
    assert provider.namespaces() == [
        NamespaceSummary(namespace="alpha", count=2, last_updated=None),
        NamespaceSummary(namespace="zeta", count=1, last_updated=None),
    ]
    provider.forget("zeta", "1")
    assert [summary.namespace for summary in provider.namespaces()] == ["alpha"]


def test_namespace_keeps_its_section(provider: ReferenceProvider) -> None:
    put(provider, "conversation:tinymemory-conformance/reference/section-thread", "k")
    assert [summary.namespace for summary in provider.namespaces()] == [
        "conversation:tinymemory-conformance/reference/section-thread"
    ]


@pytest.mark.parametrize("content", ["héllo — 👋 まいど", "", "x" * 65536, "a\nb\r\nc\0d"])
def test_awkward_content_round_trips(provider: ReferenceProvider, content: str) -> None:
    put(provider, "awkward", "k", content)
    entry = provider.get("awkward", "k")
    assert entry is not None and entry.content == content


# -- recall ----------------------------------------------------------------------------


def test_recall_none_namespace_searches_global_only(provider: ReferenceProvider) -> None:
    put(provider, GLOBAL_NAMESPACE, "g", "needle in global")
    put(provider, "recall-a", "a", "needle in a")
    hits = provider.recall("needle", 10, OwnedRecallOpts(), None)
    assert keys(hits) == [(GLOBAL_NAMESPACE, "g")]


def test_recall_named_namespace_searches_exactly_it(provider: ReferenceProvider) -> None:
    put(provider, "recall-a", "1", "needle filed in the archive room")
    put(provider, "recall-a", "2", "needle left beside the mooring rope")
    put(provider, "recall-a", "3", "needle found under the zinc roof")
    put(provider, "recall-b", "1", "shared needle text")
    put(provider, GLOBAL_NAMESPACE, "1", "shared needle text")
    hits = provider.recall("needle", 2, OwnedRecallOpts(namespace="recall-a"), None)
    assert len(hits) == 2
    assert {hit.namespace for hit in hits} == {"recall-a"}


def test_recall_is_a_case_insensitive_substring_of_the_whole_query(
    provider: ReferenceProvider,
) -> None:
    put(provider, "r", "hit", "The Quick Brown Fox")
    put(provider, "r", "words-apart", "quick red brown fox")
    opts = OwnedRecallOpts(namespace="r")
    assert keys(provider.recall("qUICK bROWN", 10, opts, None)) == [("r", "hit")]
    assert provider.recall("slow", 10, opts, None) == []


@pytest.mark.parametrize("query", ["", " ", "\t\n"])
def test_recall_blank_query_finds_nothing(provider: ReferenceProvider, query: str) -> None:
    put(provider, GLOBAL_NAMESPACE, "k", "two  spaces\t\nand more")
    assert provider.recall(query, 10, OwnedRecallOpts(), None) == []


def test_recall_scores_query_length_over_content_length(provider: ReferenceProvider) -> None:
    put(provider, "r", "long", "needle" + "." * 14)  # 6 / 20
    put(provider, "r", "exact", "NEEDLE")  # 6 / 6
    put(provider, "r", "mid", "a needle")  # 6 / 8
    hits = provider.recall("needle", 10, OwnedRecallOpts(namespace="r"), None)
    assert [(hit.key, hit.score) for hit in hits] == [
        ("exact", 1.0),
        ("mid", 0.75),
        ("long", 0.3),
    ]


def test_recall_ties_go_by_key(provider: ReferenceProvider) -> None:
    for key in ["c", "a", "b"]:
        put(provider, "r", key, "same needle")
    hits = provider.recall("needle", 10, OwnedRecallOpts(namespace="r"), None)
    assert [hit.key for hit in hits] == ["a", "b", "c"]


def test_recall_respects_limit(provider: ReferenceProvider) -> None:
    for key in "abcde":
        put(provider, "r", key, "needle")
    opts = OwnedRecallOpts(namespace="r")
    assert [hit.key for hit in provider.recall("needle", 3, opts, None)] == ["a", "b", "c"]
    assert provider.recall("needle", 0, opts, None) == []
    with pytest.raises(Invalid):
        provider.recall("needle", -1, opts, None)


def test_recall_honours_category_and_session(provider: ReferenceProvider) -> None:
    put(provider, "r", "core-s1", "needle", CORE, "s1")
    put(provider, "r", "daily-s1", "needle", DAILY, "s1")
    put(provider, "r", "core-s2", "needle", CORE, "s2")
    put(provider, "r", "core-none", "needle", CORE, None)

    def recall(**opts: object) -> list[str]:
        hits = provider.recall("needle", 10, OwnedRecallOpts(namespace="r", **opts), None)
        return [hit.key for hit in hits]

    assert recall(category=CORE) == ["core-none", "core-s1", "core-s2"]
    assert recall(session_id="s1") == ["core-s1", "daily-s1"]
    assert recall(category=DAILY, session_id="s2") == []
    assert recall(category=MemoryCategory.custom("core")) == []


def test_recall_drops_hits_below_min_score(provider: ReferenceProvider) -> None:
    put(provider, "r", "half", "needle" * 2)  # 0.5
    put(provider, "r", "full", "needle")  # 1.0
    put(provider, "r", "third", "needle" * 3)  # 1/3
    opts = OwnedRecallOpts(namespace="r", min_score=0.5)
    assert [hit.key for hit in provider.recall("needle", 10, opts, None)] == ["full", "half"]
    with pytest.raises(Invalid):
        provider.recall("needle", 10, OwnedRecallOpts(min_score=float("nan")), None)


def test_recall_cross_session_changes_nothing(provider: ReferenceProvider) -> None:
    put(provider, "r", "mine", "needle", session_id="s1")
    put(provider, "r", "theirs", "needle", session_id="s2")
    plain = provider.recall("needle", 10, OwnedRecallOpts(namespace="r", session_id="s1"), None)
    crossed = provider.recall(
        "needle", 10, OwnedRecallOpts(namespace="r", session_id="s1", cross_session=True), None
    )
    assert crossed == plain
    assert [hit.key for hit in crossed] == ["mine"]


@pytest.mark.parametrize("scope", [SourceScope(allow=[]), SourceScope(allow=["anything"])])
def test_recall_refuses_any_scope(provider: ReferenceProvider, scope: SourceScope) -> None:
    put(provider, GLOBAL_NAMESPACE, "k", "source scoped needle", taint=EXTERNAL)
    with pytest.raises(Invalid) as caught:
        provider.recall("needle", 8, OwnedRecallOpts(), scope)
    assert caught.value.message == SCOPE_UNAPPLIED
    assert caught.value.message == (
        "source scope is not applied by this driver's recall path yet: the scope predicate "
        "belongs inside the query and lands with the tree capability family"
    )


def test_recall_hits_are_copies(provider: ReferenceProvider) -> None:
    put(provider, GLOBAL_NAMESPACE, "k", "needle")
    (hit,) = provider.recall("needle", 1, OwnedRecallOpts(), None)
    assert hit.score == 1.0
    entry = provider.get(GLOBAL_NAMESPACE, "k")
    assert entry is not None and entry.score is None
    assert hit.model_copy(update={"score": None}) == entry


# -- export ----------------------------------------------------------------------------


def export_all(provider: ReferenceProvider, limit: int) -> tuple[list[ExportRecord], list[int]]:
    records: list[ExportRecord] = []
    sizes: list[int] = []
    cursor: str | None = None
    for _ in range(1000):
        page = provider.export_page(cursor, limit)
        records.extend(page.records)
        sizes.append(len(page.records))
        cursor = page.next_cursor
        if cursor is None:
            return records, sizes
    raise AssertionError("export did not terminate")


@pytest.mark.parametrize(
    ("limit", "sizes"),
    [(1, [1] * 150), (7, [7] * 21 + [3]), (64, [64, 64, 22]), (1000, [64, 64, 22])],
)
def test_export_yields_every_row_once_in_clamped_pages(
    provider: ReferenceProvider, limit: int, sizes: list[int]
) -> None:
    for i in range(150):
        put(provider, f"ns{i % 4}", f"k{i:03}")
    records, got_sizes = export_all(provider, limit)
    assert got_sizes == sizes
    assert [r.id for r in records] == [e.id for e in provider.list(None, None, None)]
    assert len({r.id for r in records}) == 150


def test_export_record_shape(provider: ReferenceProvider) -> None:
    put(provider, "portability", "p1", "portable", MemoryCategory.custom("mine"), "s9", EXTERNAL)
    page = provider.export_page(None, 8)
    assert page.next_cursor is None
    assert page.records == [
        ExportRecord(
            kind="entry",
            id="portability::p1",
            namespace="portability",
            taint=EXTERNAL,
            payload={
                "key": "p1",
                "content": "portable",
                "category": "custom:mine",
                "session_id": "s9",
                "timestamp": "1970-01-01T00:00:00Z",
            },
        )
    ]


def test_export_of_an_empty_store_is_one_final_page(provider: ReferenceProvider) -> None:
    page = provider.export_page(None, 8)
    assert (page.records, page.next_cursor) == ([], None)


@pytest.mark.parametrize("limit", [0, -1])
def test_export_refuses_a_limit_below_one(provider: ReferenceProvider, limit: int) -> None:
    with pytest.raises(Invalid) as caught:
        provider.export_page(None, limit)
    assert caught.value.message == "export page limit must be greater than zero"


@pytest.mark.parametrize(
    "cursor", ["!not-a-cursor!", "", "abc", "-1", "+1", " 1", "01", "1.0", "4"]
)
def test_export_refuses_a_cursor_it_did_not_issue(provider: ReferenceProvider, cursor: str) -> None:
    for key in "abc":
        put(provider, "ns", key)
    with pytest.raises(Invalid) as caught:
        provider.export_page(cursor, 8)
    assert caught.value.message == f"unknown export cursor: {cursor}"


def test_export_cursor_at_the_end_after_forgets_ends_cleanly(provider: ReferenceProvider) -> None:
    for key in "abcd":
        put(provider, "ns", key)
    page = provider.export_page(None, 2)
    assert page.next_cursor == "2"
    provider.forget("ns", "c")
    provider.forget("ns", "d")
    last = provider.export_page(page.next_cursor, 2)
    assert (last.records, last.next_cursor) == ([], None)


# -- import ----------------------------------------------------------------------------


def test_export_import_round_trip_into_a_fresh_provider(provider: ReferenceProvider) -> None:
    put(provider, "a", "1", "one", CORE, None, INTERNAL)
    put(provider, "a", "2", "two", DAILY, "s1", EXTERNAL)
    put(provider, "b", "1", "", MemoryCategory.custom(""), None, EXTERNAL)
    records, _ = export_all(provider, 2)
    fresh = ReferenceProvider()
    assert fresh.import_records(records) == ImportOutcome(
        imported=3, skipped=0, failed=0, errors=[]
    )
    assert fresh.list(None, None, None) == provider.list(None, None, None)


def test_import_replaces_an_existing_row(provider: ReferenceProvider) -> None:
    put(provider, "ns", "k", "old", taint=INTERNAL)
    outcome = provider.import_records(
        [record({"key": "k", "content": "new"}, taint="external_sync")]
    )
    assert outcome == ImportOutcome(imported=1, skipped=0, failed=0, errors=[])
    entry = provider.get("ns", "k")
    assert entry is not None and (entry.content, entry.taint) == ("new", EXTERNAL)
    assert len(provider.list("ns", None, None)) == 1


@pytest.mark.parametrize(
    ("raw", "taint"),
    [("internal", INTERNAL), ("external_sync", EXTERNAL), ("garbage", EXTERNAL), ("", EXTERNAL)],
)
def test_import_keeps_the_record_taint_decoded_fail_closed(
    provider: ReferenceProvider, raw: str, taint: MemoryTaint
) -> None:
    provider.import_records([record({"key": "k"}, taint=raw)])
    entry = provider.get("ns", "k")
    assert entry is not None and entry.taint is taint


def test_import_from_json_with_garbage_taint_is_external_sync(provider: ReferenceProvider) -> None:
    raw = '{"kind":"entry","id":"x","namespace":"ns","taint":"Internal","payload":{"key":"k"}}'
    provider.import_records([ExportRecord.model_validate_json(raw)])
    entry = provider.get("ns", "k")
    assert entry is not None and entry.taint is EXTERNAL


def test_import_defaults_content_and_category(provider: ReferenceProvider) -> None:
    provider.import_records([record({"key": "k"})])
    assert provider.get("ns", "k") == MemoryEntry(
        id="ns::k",
        key="k",
        content="",
        namespace="ns",
        category=CORE,
        timestamp="1970-01-01T00:00:00Z",
        session_id=None,
        taint=INTERNAL,
    )


@pytest.mark.parametrize(
    ("raw", "category"),
    [("daily", DAILY), ("custom:x", MemoryCategory.custom("x")), ("x", MemoryCategory.custom("x"))],
)
def test_import_parses_the_category(
    provider: ReferenceProvider, raw: str, category: MemoryCategory
) -> None:
    provider.import_records([record({"key": "k", "category": raw})])
    entry = provider.get("ns", "k")
    assert entry is not None and entry.category == category


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (record({"key": "k"}, kind="document"), 'record r1 has kind "document", not "entry"'),
        (record({"key": "k"}, namespace=None), "record r1 lacks a namespace or key"),
        (record({"content": "c"}), "record r1 lacks a namespace or key"),
        (record({"key": 7}), "record r1 lacks a namespace or key"),
        (record("not an object"), "record r1 lacks a namespace or key"),
        (record({"key": "k", "category": ""}), "record r1: unknown memory category: "),
        (record({"key": "k", "category": 3}), "record r1 has a non-string category"),
        (record({"key": "k", "content": ["c"]}), "record r1 has a non-string content"),
        (record({"key": "k", "session_id": 1}), "record r1 has a non-string session_id"),
    ],
)
def test_import_rejects_a_bad_record_with_its_reason(
    provider: ReferenceProvider, bad: ExportRecord, reason: str
) -> None:
    good = ExportRecord(kind="entry", id="ok", namespace="ns", payload={"key": "good"})
    outcome = provider.import_records([bad, good])
    assert outcome == ImportOutcome(imported=1, skipped=0, failed=1, errors=[reason])
    assert outcome.is_consistent()
    assert keys(provider.list(None, None, None)) == [("ns", "good")]


def test_import_of_nothing(provider: ReferenceProvider) -> None:
    assert provider.import_records([]) == ImportOutcome(imported=0, skipped=0, failed=0)


# -- threads ---------------------------------------------------------------------------


def test_concurrent_stores_and_lists_lose_and_duplicate_nothing(
    provider: ReferenceProvider,
) -> None:
    threads_n, per_thread = 8, 500
    start = threading.Barrier(threads_n + 2)
    failures: list[str] = []
    done = threading.Event()

    def writer(t: int) -> None:
        start.wait()
        for i in range(per_thread):
            put(provider, f"t{t}", f"k{i:04}", f"{t}-{i}")
            put(provider, f"t{t}", f"k{i:04}", f"{t}-{i}")  # an upsert, never a second row

    def reader() -> None:
        start.wait()
        while not done.is_set():
            rows = provider.list(None, None, None)
            ids = [row.id for row in rows]
            order = [(row.namespace or "", row.key) for row in rows]
            if len(ids) != len(set(ids)) or order != sorted(order):
                failures.append("a list returned duplicated or unsorted rows")
            provider.namespaces()
            provider.export_page(None, 64)

    writers = [threading.Thread(target=writer, args=(t,)) for t in range(threads_n)]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for thread in writers + readers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in readers:
        thread.join()

    assert failures == []
    rows = provider.list(None, None, None)
    assert len(rows) == threads_n * per_thread
    assert len({row.id for row in rows}) == threads_n * per_thread
    assert [s.count for s in provider.namespaces()] == [per_thread] * threads_n
    records, _ = export_all(provider, 64)
    assert len(records) == threads_n * per_thread
