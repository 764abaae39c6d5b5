"""The freedom drivers do what their options say: otherwise the matrix proves nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from conformance.constraints import Constraints
from conformance.engine import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    InvalidRequest,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    RecallRequest,
    Role,
    Turn,
    Unsupported,
    conversation,
    document,
)
from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemoryTaint,
    NamespaceDocumentInput,
    OwnedRecallOpts,
    ProviderError,
    SourceScope,
)
from conformance.timestamps import Timestamp
from reference_driver.provider import TIMESTAMP
from tests.freedom.clock import at_offset
from tests.freedom.cursors import CursorStyle
from tests.freedom.free_documents import DocumentFreedoms
from tests.freedom.free_engine import EngineFreedoms, FreeEngine
from tests.freedom.free_provider import FreeProvider, ProviderFreedoms
from tests.freedom.paging import PageShape, cut

CORE = MemoryCategory.CORE
AT = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)


def keyed(n: int) -> list[tuple[list[Any], int]]:
    return [([i], i) for i in range(n)]


# -- pages and cursors ---------------------------------------------------------------


def test_pages_are_cut_as_their_shape_says() -> None:
    assert cut(keyed(5), None, 0, 2, PageShape()).items == [0, 1]
    short = cut(keyed(5), None, 0, 4, PageShape(short=True))
    assert (short.items, short.more, short.shapes) == ([0, 1], True, {"short"})
    capped = cut(keyed(5), [1], 1, 50, PageShape(cap=2))
    assert (capped.items, capped.after) == ([2, 3], [3])
    first = cut(keyed(5), None, 0, 2, PageShape(empty_pages=True))
    assert (first.items, first.more, first.after) == ([], True, None)
    later = cut(keyed(5), None, 0, 2, PageShape(empty_pages=True, empty_first=False))
    assert later.items == [0, 1]
    full_last = cut(keyed(4), [1], 1, 2, PageShape(trailing_empty=True))
    assert (full_last.items, full_last.more) == ([2, 3], True)
    after_it = cut(keyed(4), [3], 2, 2, PageShape(trailing_empty=True))
    assert (after_it.items, after_it.more) == ([], False)


@pytest.mark.parametrize("form", ["base64-json", "token", "uuid"])
def test_every_cursor_format_refuses_what_it_did_not_issue(form: Any) -> None:
    engine = FreeEngine(EngineFreedoms(cursors=CursorStyle(format=form)))
    for i in range(3):
        engine.store(document(f"note {i}", MemoryMeta(workspace="w")))
    page = engine.list(ListRequest(filter=MetaFilter(workspace="w"), limit=1))
    assert page.next_cursor is not None
    for foreign in ("tmconf-not-a-cursor", "!not-a-cursor!", page.next_cursor[:-2] + "AA"):
        with pytest.raises(InvalidRequest):
            engine.list(ListRequest(filter=MetaFilter(workspace="w"), limit=1, cursor=foreign))


def test_a_single_use_cursor_is_refused_the_second_time() -> None:
    engine = FreeEngine(EngineFreedoms(cursors=CursorStyle(single_use=True)))
    for i in range(3):
        engine.store(document(f"note {i}", MemoryMeta(workspace="w")))
    scope = MetaFilter(workspace="w")
    cursor = engine.list(ListRequest(filter=scope, limit=1)).next_cursor
    engine.list(ListRequest(filter=scope, limit=1, cursor=cursor))
    with pytest.raises(InvalidRequest):
        engine.list(ListRequest(filter=scope, limit=1, cursor=cursor))


def test_a_bound_cursor_is_refused_with_another_filter() -> None:
    engine = FreeEngine(EngineFreedoms(cursors=CursorStyle(bound=True)))
    for i in range(3):
        engine.store(document(f"note {i}", MemoryMeta(workspace="w", tags=["t"])))
    cursor = engine.list(ListRequest(filter=MetaFilter(workspace="w"), limit=1)).next_cursor
    other = MetaFilter(workspace="w", tags_any=["t"])
    with pytest.raises(InvalidRequest):
        engine.list(ListRequest(filter=other, limit=1, cursor=cursor))


# -- the engine ------------------------------------------------------------------------


def test_engine_ids_are_its_own() -> None:
    item = document("a note")
    assert FreeEngine(EngineFreedoms(ids="uuid")).store(item).id != item.fingerprint()
    counted = FreeEngine(EngineFreedoms(ids="counter"))
    ids = [counted.store(document(f"note {i}")).id for i in range(10)]
    assert ids[0] == "m1" and ids[9] == "m10" and ids[9].startswith(ids[0])
    assert counted.store(document("note 0")).id == "m1"  # a replay answers the first id


def test_engine_lists_newest_first() -> None:
    engine = FreeEngine(EngineFreedoms(order="newest"))
    ids = [engine.store(document(f"note {i}")).id for i in range(3)]
    assert [hit.id for hit in engine.list(ListRequest(limit=10)).items] == ids[::-1]


def test_engine_scores_below_zero_best_first() -> None:
    engine = FreeEngine(EngineFreedoms(scores="negative"))
    engine.store(document("alpha beta"))
    engine.store(document("alpha"))
    hits = engine.fetch(FetchRequest(query="alpha beta", mode=FetchMode.KEYWORD, limit=5)).hits
    scores = [hit.score for hit in hits]
    assert len(scores) == 2 and all(s < 0 for s in scores) and scores == sorted(scores)[::-1]


def test_engine_refuses_the_modes_it_does_not_declare() -> None:
    engine = FreeEngine(EngineFreedoms(fetch_modes=()))
    assert engine.descriptor().fetch_modes == []
    with pytest.raises(Unsupported):
        engine.fetch(FetchRequest(query="x", mode=FetchMode.HYBRID, limit=0))
    assert FreeEngine(options={"keyword": "all"}).descriptor().fetch_modes == list(FetchMode)


def test_engine_explores_everything_whatever_the_scan_limit() -> None:
    engine = FreeEngine(EngineFreedoms(server_explore=True))
    for i in range(3):
        engine.store(document(f"note {i}"))
    page = engine.explore(ExploreRequest(facet=Facet.KIND, limit=5, scan_limit=1))
    assert (page.total, page.truncated) == (3, False)


def test_times_are_written_at_an_offset_every_digit_kept() -> None:
    moment = Timestamp.parse("2025-05-06T07:08:09.123456789Z")
    assert at_offset(moment, 330) == "2025-05-06T12:38:09.123456789+05:30"
    assert at_offset(moment, -180) == "2025-05-06T04:08:09.123456789-03:00"
    assert Timestamp.parse(at_offset(moment, -180)) == moment


def test_engine_writes_observed_at_back_at_its_offset() -> None:
    engine = FreeEngine(EngineFreedoms(utc_offset_minutes=330))
    engine.store(document("seen", MemoryMeta(observed_at=AT)))
    (hit,) = engine.list(ListRequest(limit=5)).items
    assert hit.meta.observed_at == AT
    assert engine.used["offset-timestamps"] == 1


def test_engine_terse_recall_cites_one_item_unscored() -> None:
    engine = FreeEngine(EngineFreedoms(terse_recall=True))
    for i in range(3):
        engine.store(document(f"needle {i}"))
    answer = engine.recall(RecallRequest(question="needle", limit=3))
    assert len(answer.citations) == 1 and answer.citations[0].score is None


def test_engine_keyword_fetch_needs_every_word_and_vector_a_floor() -> None:
    engine = FreeEngine(EngineFreedoms(keyword_every_word=True, similarity_floor=0.9))
    whole = engine.store(document("alpha beta")).id
    engine.store(document("alpha gamma delta epsilon"))
    keyword = engine.fetch(FetchRequest(query="alpha beta", mode=FetchMode.KEYWORD, limit=5))
    assert [hit.id for hit in keyword.hits] == [whole]
    vector = engine.fetch(FetchRequest(query="alpha beta", mode=FetchMode.VECTOR, limit=5))
    assert [hit.id for hit in vector.hits] == [whole]
    assert engine.used["keyword-every-word"] and engine.used["similarity-floor"]


def test_engine_offset_cursors_rank_again_and_skip_what_went_before() -> None:
    engine = FreeEngine(EngineFreedoms(offset_cursors=True))
    ids = [engine.store(document(f"note {i}")).id for i in range(3)]
    first = engine.list(ListRequest(limit=1))
    engine.store(document("note x"))  # lands at the end: the position still holds
    rest = engine.list(ListRequest(limit=5, cursor=first.next_cursor))
    assert [h.id for h in first.items + rest.items][:3] == ids
    assert engine.used["offset-cursors"] == 1


def test_engine_refuses_what_it_declares_measured_on_the_rendered_text() -> None:
    declared = Constraints(max_content_length=20)
    engine = FreeEngine(EngineFreedoms(constraints=declared))
    engine.store(document("short"))
    talk = conversation([Turn(role=Role.USER, text="a" * 10), Turn(role=Role.USER, text="b")])
    assert len(talk.render_text()) == 24  # each text short, the rendered text not
    with pytest.raises(InvalidRequest):
        engine.store(talk)
    with pytest.raises(InvalidRequest):
        engine.store_many([document("fine"), document("x" * 21)])


# -- the provider ----------------------------------------------------------------------


def test_provider_entries_carry_its_ids_and_offset_timestamps() -> None:
    provider = FreeProvider(ProviderFreedoms(ids="uuid", utc_offset_minutes=-180))
    provider.store("learning:a", "k", "v", CORE, None, MemoryTaint.INTERNAL)
    entry = provider.get("learning:a", "k")
    assert entry is not None and entry.id != "learning:a::k"
    assert entry.timestamp != TIMESTAMP and provider.used["offset-timestamps"] == 1
    (summary,) = provider.namespaces()
    assert summary.last_updated == entry.timestamp


def test_provider_lists_newest_first() -> None:
    provider = FreeProvider(ProviderFreedoms(order="newest"))
    for key in ("b", "a", "c"):
        provider.store("learning:a", key, key, CORE, None, MemoryTaint.INTERNAL)
    assert [e.key for e in provider.list("learning:a", None, None)] == ["c", "a", "b"]


@pytest.mark.parametrize(
    ("reading", "keys"), [("deny", []), ("unattributed", ["mine"])], ids=["deny", "unattributed"]
)
def test_provider_reads_an_empty_source_scope_its_way(reading: Any, keys: list[str]) -> None:
    provider = FreeProvider(ProviderFreedoms(scope=reading))
    provider.store("learning:a", "mine", "needle", CORE, None, MemoryTaint.INTERNAL)
    provider.store("learning:a", "synced", "needle", CORE, None, MemoryTaint.EXTERNAL_SYNC)
    hits = provider.recall(
        "needle", 8, OwnedRecallOpts(namespace="learning:a"), SourceScope(allow=[])
    )
    assert [h.key for h in hits] == keys


def test_provider_scores_on_its_own_scale() -> None:
    provider = FreeProvider(ProviderFreedoms(scores="none"))
    provider.store("global", "k", "needle", CORE, None, MemoryTaint.INTERNAL)
    (hit,) = provider.recall("needle", 8, OwnedRecallOpts(), None)
    assert hit.score is None


def test_provider_refuses_a_malformed_namespace_everywhere() -> None:
    provider = FreeProvider(ProviderFreedoms(validate_namespaces=True))
    for call in (
        lambda: provider.get("a/../b", "k"),
        lambda: provider.forget("a/../b", "k"),
        lambda: provider.list("", None, None),
        lambda: provider.recall("x", 1, OwnedRecallOpts(namespace="/a"), None),
    ):
        with pytest.raises(Invalid):
            call()


def test_provider_keeps_an_emptied_namespace_with_count_zero() -> None:
    provider = FreeProvider(ProviderFreedoms(keep_empty_namespaces=True))
    provider.store("learning:a", "k", "v", CORE, None, MemoryTaint.INTERNAL)
    provider.forget("learning:a", "k")
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [("learning:a", 0)]


def test_provider_exports_in_pages_of_its_choosing() -> None:
    shape = PageShape(cap=1, empty_pages=True, empty_first=False, trailing_empty=True)
    provider = FreeProvider(ProviderFreedoms(export_pages=shape))
    for key in ("a", "b"):
        provider.store("learning:a", key, key, CORE, None, MemoryTaint.INTERNAL)
    sizes = []
    cursor = None
    while True:
        page = provider.export_page(cursor, 8)
        sizes.append(len(page.records))
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert sizes == [1, 0, 1, 0]
    with pytest.raises(Invalid):
        provider.export_page("!not-a-cursor!", 8)


def test_provider_refuses_empty_content_and_what_it_declares() -> None:
    provider = FreeProvider(ProviderFreedoms(refuse_empty_content=True))
    with pytest.raises(Invalid):
        provider.store("learning:a", "k", "", CORE, None, MemoryTaint.INTERNAL)
    assert provider.get("learning:a", "k") is None
    declared = FreeProvider(ProviderFreedoms(constraints=Constraints(max_key_length=3)))
    with pytest.raises(Invalid):
        declared.store("learning:a", "long", "v", CORE, None, MemoryTaint.INTERNAL)


def test_provider_refuses_every_source_scope() -> None:
    provider = FreeProvider(ProviderFreedoms(scope="refuse"))
    with pytest.raises(Invalid):
        provider.recall("x", 1, OwnedRecallOpts(), SourceScope(allow=["a"]))
    assert provider.used["scope-refused"] == 1


def test_provider_redacts_a_national_id_from_a_name_and_reads_it_under_both() -> None:
    provider = FreeProvider(ProviderFreedoms(redact_names=True))
    written = "conversation:thread-123-45-6789"
    provider.store(written, "k", "v", CORE, None, MemoryTaint.INTERNAL)
    redacted = "conversation:thread-_REDACTED_PII_SSN_"
    assert [s.namespace for s in provider.namespaces()] == [redacted]
    for name in (written, redacted):
        entry = provider.get(name, "k")
        assert entry is not None and entry.namespace == redacted


def test_provider_ranks_by_words_level_with_the_exact_match() -> None:
    provider = FreeProvider(ProviderFreedoms(ranking="words", scores="none"))
    texts = {"a": "amber lantern glow", "b": "amber lantern", "c": "camber lanternfish"}
    for key, text in texts.items():
        provider.store("global", key, text, CORE, None, MemoryTaint.INTERNAL)
    hits = provider.recall("amber lantern", 8, OwnedRecallOpts(), None)
    # "a" and "b" hold both words: level, ties by key; "c" holds the query only as a
    # substring (the reference's match), neither word whole.
    assert [(h.key, h.score) for h in hits] == [("a", None), ("b", None), ("c", None)]


def test_provider_documents_take_new_ids_and_may_refuse_recall() -> None:
    provider = FreeProvider(
        ProviderFreedoms(documents=DocumentFreedoms(new_ids=True, recall=False, stamped=True))
    )
    docs = provider.as_documents()
    assert docs is not None and "documents" in provider.capabilities().to_wire()
    put = NamespaceDocumentInput(
        namespace="document:a",
        key="k",
        title="t",
        content="c",
        source_type="chat",
        priority="high",
        category="core",
    )
    first, second = docs.put_document(put), docs.put_document(put)
    assert first != second and first != "document:a::k"
    held = docs.get_document("document:a", "k")
    assert held is not None and held.document_id == second and held.created_at > 0
    with pytest.raises(ProviderError, match="unsupported capability: documents"):
        docs.recall_documents("document:a", 5)
