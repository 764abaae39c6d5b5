"""The in-memory reference engine (contract B8, B11): scoring, identity, paging, threads.

Scoring expectations are worked out by hand from the rules of B11; the single-letter
buckets used below are those of the windows `" a "`, `" b "`, ... (a=46, b=5, c=28,
d=51, e=10), which differ pairwise.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest

from conformance.engine import (
    Bucket,
    Citation,
    EngineDescriptor,
    EngineHealth,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    GetRequest,
    Hit,
    InvalidRequest,
    ItemKind,
    LearningKind,
    ListRequest,
    MemoryEngine,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallRequest,
    Role,
    StoreItem,
    ToolCallRef,
    Turn,
    Unsupported,
    conversation,
    document,
    learning,
)
from reference_driver import ReferenceEngine
from reference_driver.engine import NOTHING_ANSWERS, parse_cursor
from reference_driver.scoring import (
    DIMENSIONS,
    Profile,
    embed,
    f32,
    fnv1a_code_points,
    keyword_share,
    score,
    semantic,
    words,
)

KEYWORD, VECTOR, HYBRID = FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID


@pytest.fixture
def engine() -> ReferenceEngine:
    return ReferenceEngine()


def doc(text: str, **meta: object) -> StoreItem:
    return document(text, MemoryMeta.model_validate(meta))


def at(path: str, text: str = "note") -> StoreItem:
    return document(text, MemoryMeta(namespace=Namespace.parse(path)))


def list_all(
    engine: ReferenceEngine, filter: MetaFilter | None = None, limit: int = 1000
) -> list[Hit]:
    """Every hit of a listing, following cursors; fails on a repeated cursor."""
    hits: list[Hit] = []
    seen: set[str] = set()
    cursor: str | None = None
    while True:
        page = engine.list(ListRequest(filter=filter or MetaFilter(), limit=limit, cursor=cursor))
        assert len(page.items) <= limit
        hits.extend(page.items)
        if page.next_cursor is None:
            return hits
        assert page.next_cursor not in seen
        seen.add(page.next_cursor)
        cursor = page.next_cursor


def fetch_all(engine: ReferenceEngine, query: str, mode: FetchMode, limit: int) -> list[Hit]:
    hits: list[Hit] = []
    cursor: str | None = None
    while True:
        page = engine.fetch(FetchRequest(query=query, mode=mode, limit=limit, cursor=cursor))
        assert len(page.hits) <= limit
        hits.extend(page.hits)
        if page.next_cursor is None:
            return hits
        cursor = page.next_cursor


@contextmanager
def refused(message: str) -> Iterator[None]:
    """Expects `InvalidRequest` with exactly `message`."""
    with pytest.raises(InvalidRequest) as raised:
        yield
    assert raised.value.message == message


def texts(hits: list[Hit]) -> list[str]:
    return [hit.text for hit in hits]


# --- scoring (B11), by hand -------------------------------------------------------------


def test_words_split_on_every_non_alphanumeric_including_underscore() -> None:
    assert words("Hello, WORLD_wide-web  42x/ÉTÉ!") == [
        "hello",
        "world",
        "wide",
        "web",
        "42x",
        "été",
    ]
    assert words("a__b") == ["a", "b"]
    assert words(" -_- ") == []


def test_keyword_share_counts_distinct_query_words() -> None:
    # Query words {alpha, beta, gamma} (beta twice counts once); the text holds two of them.
    query = Profile.of("Alpha beta BETA gamma")
    assert keyword_share(query, Profile.of("beta_alpha delta")) == 2 / 3
    assert score(KEYWORD, query, Profile.of("beta_alpha delta")) == f32(2 / 3) == 0.6666666865348816
    assert score(KEYWORD, query, Profile.of("delta")) is None
    assert keyword_share(Profile.of("?!"), Profile.of("anything")) == 0.0


def test_fnv1a_window_by_hand() -> None:
    # " a " = U+0020 U+0061 U+0020; prime 0x01000193 = 2**24 + 403, so each product is
    # (low byte << 24) + 403 * h, taken mod 2**32:
    #   0x811c9dc5 ^ 0x20 = 0x811c9de5 -> 0xe5000000 + 0x400c8f7f = 0x250c8f7f
    #   0x250c8f7f ^ 0x61 = 0x250c8f1e -> 0x70c54c3a
    #   0x70c54c3a ^ 0x20 = 0x70c54c1a -> 0xa096ccee, and 0xa096ccee % 64 = 46
    assert 0x811C9DE5 * 403 % 2**32 == 0x400C8F7F
    assert fnv1a_code_points(" a ") == 0xA096CCEE
    assert fnv1a_code_points(" a ") % DIMENSIONS == 46


def test_fnv1a_hashes_code_points_not_bytes() -> None:
    # U+00E9 is xored in whole, not as its UTF-8 bytes 0xc3 0xa9.
    assert fnv1a_code_points(" é") == 0xE8C60922
    by_bytes = 0x811C9DC5
    for byte in " é".encode():
        by_bytes = ((by_bytes ^ byte) * 0x01000193) % 2**32
    assert by_bytes != 0xE8C60922


def test_embed_of_a_one_word_text() -> None:
    # "a" pads to " a ": one window, bucket 46.
    assert embed(["a"]) == tuple(1.0 if i == 46 else 0.0 for i in range(DIMENSIONS))
    # "cat" pads to " cat ": windows " ca" (47), "cat" (7), "at " (56), each 1/sqrt(3).
    third = 1 / math.sqrt(3)
    assert embed(["cat"]) == tuple(third if i in (7, 47, 56) else 0.0 for i in range(DIMENSIONS))
    assert embed([]) == (0.0,) * DIMENSIONS


def test_semantic_is_the_dot_product_of_unit_vectors() -> None:
    # " cats " has " ca" (47), "cat" (7), "ats" (33), "ts " (48): two buckets shared with
    # "cat", so 2 / (2 * sqrt(3)).
    assert semantic(Profile.of("cats"), Profile.of("cat")) == f32(1 / math.sqrt(3))
    assert semantic(Profile.of("cat"), Profile.of("cat")) == f32(1.0)
    assert semantic(Profile.of("a"), Profile.of("cat")) == 0.0


@pytest.mark.parametrize(
    ("text", "squares", "hit"),
    [
        ("a b b b c c c c", 1 + 9 + 16, False),  # 1/sqrt(26) = 0.196
        ("a b b c c d d d d", 1 + 4 + 4 + 16, True),  # 1/5: exactly the threshold
        ("a b b b c c c d d e", 1 + 9 + 9 + 4 + 1, True),  # 1/sqrt(24) = 0.204
    ],
)
def test_vector_threshold_is_0_2_inclusive(text: str, squares: int, hit: bool) -> None:
    # The query "a" is the unit vector of bucket 46, which the text holds once.
    similarity = f32(1 / math.sqrt(squares))
    assert semantic(Profile.of("a"), Profile.of(text)) == similarity
    expected = similarity if hit else None
    assert score(VECTOR, Profile.of("a"), Profile.of(text)) == expected


def test_hybrid_is_the_mean_and_admits_either_signal() -> None:
    # Keyword only: "a" is a word of the text, but the similarity 1/sqrt(26) is below 0.2.
    keyword_only = Profile.of("a b b b c c c c")
    assert score(VECTOR, Profile.of("a"), keyword_only) is None
    assert score(HYBRID, Profile.of("a"), keyword_only) == f32((1 + f32(1 / math.sqrt(26))) / 2)
    # Vector only: "cats" shares no word with "cat" but two of its trigram buckets.
    assert score(KEYWORD, Profile.of("cats"), Profile.of("cat")) is None
    assert score(HYBRID, Profile.of("cats"), Profile.of("cat")) == f32(f32(1 / math.sqrt(3)) / 2)
    # Neither: no shared word, no shared bucket.
    assert score(HYBRID, Profile.of("a"), Profile.of("b")) is None


def test_fetch_ranks_by_score_then_insertion_order(engine: ReferenceEngine) -> None:
    engine.store(doc("alpha"))  # keyword 1/2
    engine.store(doc("alpha beta"))  # keyword 1
    engine.store(doc("alpha", tags=["second"]))  # keyword 1/2, stored after the first
    engine.store(doc("gamma"))  # not a hit
    page = engine.fetch(FetchRequest(query="alpha beta", mode=KEYWORD, limit=10))
    assert [(hit.text, hit.meta.tags, hit.score) for hit in page.hits] == [
        ("alpha beta", [], 1.0),
        ("alpha", [], 0.5),
        ("alpha", ["second"], 0.5),
    ]
    assert page.next_cursor is None


@pytest.mark.parametrize("mode", list(FetchMode))
def test_fetch_scores_as_scoring_does(engine: ReferenceEngine, mode: FetchMode) -> None:
    corpus = ["a b b c c d d d d", "cat", "cats and dogs", "a", "nothing here"]
    for text in corpus:
        engine.store(doc(text))
    query = Profile.of("a cats")
    expected = [
        (text, s)
        for text in corpus
        if (s := score(mode.value, query, Profile.of(text))) is not None
    ]
    expected.sort(key=lambda pair: -pair[1])
    page = engine.fetch(FetchRequest(query="a cats", mode=mode, limit=10))
    assert [(hit.text, hit.score) for hit in page.hits] == expected


# --- descriptor and health --------------------------------------------------------------


def test_descriptor(engine: ReferenceEngine) -> None:
    assert isinstance(engine, MemoryEngine)
    assert engine.descriptor() == EngineDescriptor(
        id="reference",
        label="Reference (in-memory)",
        description=engine.descriptor().description,
        hosted=False,
        needs_endpoint=False,
        needs_key=False,
        default_endpoint=None,
        fetch_modes=[KEYWORD, VECTOR, HYBRID],
    )
    assert engine.descriptor().description
    assert engine.health() == EngineHealth.ok()


class KeywordOnly(ReferenceEngine):
    def descriptor(self) -> EngineDescriptor:
        return super().descriptor().model_copy(update={"fetch_modes": [KEYWORD]})


@pytest.mark.parametrize("mode", [VECTOR, HYBRID])
def test_an_undeclared_mode_is_refused_before_validation(mode: FetchMode) -> None:
    with pytest.raises(Unsupported) as raised:
        KeywordOnly().fetch(FetchRequest(query=" ", mode=mode, limit=0))
    assert str(raised.value) == f"unsupported: engine `reference` does not offer {mode} fetch"


# --- store and replay -------------------------------------------------------------------


def test_store_answers_the_fingerprint_and_replays(engine: ReferenceEngine) -> None:
    item = doc("hello")
    first = engine.store(item)
    assert (first.id, first.replayed) == (item.fingerprint(), False)
    again = engine.store(doc("hello"))
    assert (again.id, again.replayed) == (first.id, True)
    assert len(engine) == 1
    assert texts(list_all(engine)) == ["hello"]


def test_observed_at_alone_is_a_replay_and_keeps_the_first(engine: ReferenceEngine) -> None:
    first = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
    receipt = engine.store(doc("seen", observed_at=first))
    replay = engine.store(doc("seen", observed_at=datetime(2026, 1, 1, tzinfo=UTC)))
    assert replay.replayed and replay.id == receipt.id
    assert [hit.meta.observed_at for hit in list_all(engine)] == [first]


def test_windows_and_turn_times_are_exact_to_the_nanosecond(engine: ReferenceEngine) -> None:
    bound = "2025-05-06T07:08:09.123456789Z"
    before = engine.store(doc("just before", observed_at="2025-05-06T07:08:09.123456788Z")).id
    on = engine.store(doc("on the bound", observed_at=bound)).id
    after_window = MetaFilter(observed_after=bound)
    before_window = MetaFilter(observed_before=bound)
    assert [h.id for h in list_all(engine, after_window)] == [on]
    assert [h.id for h in list_all(engine, before_window)] == [before]
    assert list_all(engine, MetaFilter(observed_after=bound, observed_before=bound)) == []
    turns = [
        conversation([Turn(role=Role.USER, text="hi", at=f"2025-05-06T07:08:09.00000000{n}Z")])
        for n in (1, 2)
    ]
    receipts = [engine.store(item) for item in turns]
    assert not any(r.replayed for r in receipts) and receipts[0].id != receipts[1].id
    listed = {h.id: h for h in list_all(engine, MetaFilter.for_kinds(ItemKind.CONVERSATION))}
    assert set(listed) == {r.id for r in receipts}


def test_a_changed_tag_is_a_new_item(engine: ReferenceEngine) -> None:
    one = engine.store(doc("tagged", tags=["a"]))
    two = engine.store(doc("tagged", tags=["b"]))
    assert not two.replayed and two.id != one.id
    assert len(engine) == 2


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (document("  "), "document body must not be empty"),
        (conversation([]), "conversation must have at least one turn"),
        (learning("x", LearningKind.FACT, 1.5), "learning confidence 1.5 is outside 0.0..=1.0"),
    ],
)
def test_store_validates_first(engine: ReferenceEngine, item: StoreItem, message: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        engine.store(item)
    assert raised.value.message == message
    assert len(engine) == 0


def test_the_store_keeps_its_own_copy(engine: ReferenceEngine) -> None:
    item = doc("mine", tags=["kept"])
    engine.store(item)
    item.meta.tags.append("changed later")
    hit = list_all(engine)[0]
    hit.meta.tags.append("changed by a reader")
    assert list_all(engine)[0].meta.tags == ["kept"]
    assert engine.store(doc("mine", tags=["kept"])).replayed


def test_store_many_in_order_with_in_batch_repeats(engine: ReferenceEngine) -> None:
    engine.store(doc("held"))
    batch = [doc("one"), doc("held"), doc("two"), doc("one")]
    receipts = engine.store_many(batch)
    assert [r.id for r in receipts] == [item.fingerprint() for item in batch]
    assert [r.replayed for r in receipts] == [False, True, False, True]
    assert texts(list_all(engine)) == ["held", "one", "two"]


@pytest.mark.parametrize("size", [0, 101])
def test_store_many_refuses_a_batch_size(engine: ReferenceEngine, size: int) -> None:
    with refused("store_many takes between 1 and 100 items"):
        engine.store_many([doc(f"item {i}") for i in range(size)])


def test_store_many_validates_the_whole_batch_first(engine: ReferenceEngine) -> None:
    with refused("document body must not be empty"):
        engine.store_many([doc("fine"), doc("")])
    assert len(engine) == 0


# --- list -------------------------------------------------------------------------------


def test_list_hits(engine: ReferenceEngine) -> None:
    meta = MemoryMeta(workspace="/w")
    items: list[StoreItem] = [
        document("body", meta, title="Title"),
        conversation(
            [
                Turn(role=Role.USER, text="hi"),
                Turn(role=Role.ASSISTANT, text="yo", tool_calls=[ToolCallRef(name="t", id="1")]),
            ],
            meta,
        ),
        learning("likes tea", LearningKind.PREFERENCE, 0.8, meta),
    ]
    engine.store_many(items)
    hits = list_all(engine)
    assert [(h.id, h.kind, h.text, h.meta, h.score) for h in hits] == [
        (i.fingerprint(), i.kind, i.render_text(), i.meta, 0.0) for i in items
    ]
    assert texts(hits)[:2] == ["# Title\n\nbody", "user: hi\nassistant: yo [tools: t (1)]"]
    # The confidence is the item's own; only its wire form is narrowed to f32.
    assert [h.confidence for h in hits] == [None, None, 0.8]


@pytest.mark.parametrize("limit", [1, 2, 3, 7, 29, 30, 200])
def test_list_cursors_visit_every_item_once(engine: ReferenceEngine, limit: int) -> None:
    for i in range(30):
        engine.store(doc(f"note {i}", tags=["third"] if i % 3 == 0 else []))
    assert texts(list_all(engine, limit=limit)) == [f"note {i}" for i in range(30)]
    thirds = list_all(engine, MetaFilter(tags_any=["third"]), limit=limit)
    assert texts(thirds) == [f"note {i}" for i in range(0, 30, 3)]


def test_list_page_sizes(engine: ReferenceEngine) -> None:
    for i in range(5):
        engine.store(doc(f"note {i}"))
    first = engine.list(ListRequest(limit=2))
    assert len(first.items) == 2 and first.next_cursor is not None
    full = engine.list(ListRequest(limit=5))
    assert len(full.items) == 5 and full.next_cursor is None
    assert engine.list(ListRequest(limit=1, filter=MetaFilter(workspace="none"))).items == []


@pytest.mark.parametrize("cursor", ["abc", "-1", "+1", "01", " 1", "1 ", "1.0", "", "١", "1_0"])
def test_an_unknown_cursor_is_refused(engine: ReferenceEngine, cursor: str) -> None:
    engine.store(doc("x"))
    for call in (
        lambda: engine.list(ListRequest(limit=1, cursor=cursor)),
        lambda: engine.fetch(FetchRequest(query="x", mode=KEYWORD, limit=1, cursor=cursor)),
    ):
        with pytest.raises(InvalidRequest) as raised:
            call()
        assert str(raised.value) == f"invalid request: unknown cursor `{cursor}`"


def test_a_cursor_past_the_end_answers_an_empty_last_page(engine: ReferenceEngine) -> None:
    engine.store(doc("x"))
    for cursor in ["5", "9" * 40]:
        assert parse_cursor(cursor) >= 5
        page = engine.list(ListRequest(limit=1, cursor=cursor))
        assert page.items == [] and page.next_cursor is None
        fetched = engine.fetch(FetchRequest(query="x", mode=KEYWORD, limit=1, cursor=cursor))
        assert fetched.hits == [] and fetched.next_cursor is None


def test_a_list_cursor_survives_a_forget(engine: ReferenceEngine) -> None:
    items = [doc(f"note {i}") for i in range(10)]
    engine.store_many(items)
    first = engine.list(ListRequest(limit=3))
    assert texts(first.items) == ["note 0", "note 1", "note 2"]
    # Forget an item already read, the one the cursor points at, and a later one.
    gone = [items[1].fingerprint(), items[3].fingerprint(), items[6].fingerprint()]
    assert engine.forget(ForgetIds(ids=gone)).forgotten == 3
    engine.store(doc("note 10"))
    rest: list[Hit] = []
    cursor = first.next_cursor
    while cursor is not None:
        page = engine.list(ListRequest(limit=3, cursor=cursor))
        rest.extend(page.items)
        cursor = page.next_cursor
    assert texts(rest) == ["note 4", "note 5", "note 7", "note 8", "note 9", "note 10"]


def test_list_validates(engine: ReferenceEngine) -> None:
    with refused("list limit must be positive"):
        engine.list(ListRequest(limit=0))


# --- fetch ------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 4, 9, 25])
@pytest.mark.parametrize("mode", list(FetchMode))
def test_fetch_cursors_visit_every_hit_once(
    engine: ReferenceEngine, mode: FetchMode, limit: int
) -> None:
    for i in range(24):
        engine.store(doc(f"shared word {i}" + " filler" * (i % 5)))
    everything = engine.fetch(FetchRequest(query="shared word", mode=mode, limit=100)).hits
    assert len(everything) == 24
    assert fetch_all(engine, "shared word", mode, limit) == everything


def test_fetch_applies_the_filter(engine: ReferenceEngine) -> None:
    engine.store(doc("apple pie", workspace="w1"))
    engine.store(doc("apple tart", workspace="w2"))
    page = engine.fetch(
        FetchRequest(query="apple", mode=KEYWORD, limit=5, filter=MetaFilter(workspace="w2"))
    )
    assert texts(page.hits) == ["apple tart"]


@pytest.mark.parametrize(
    ("req", "message"),
    [
        (FetchRequest(query=" \t", mode=KEYWORD, limit=1), "fetch query must not be empty"),
        (FetchRequest(query="x", mode=VECTOR, limit=0), "fetch limit must be positive"),
    ],
)
def test_fetch_validates(engine: ReferenceEngine, req: FetchRequest, message: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        engine.fetch(req)
    assert raised.value.message == message


# --- forget -----------------------------------------------------------------------------


def test_forget_by_ids_counts_what_it_removed(engine: ReferenceEngine) -> None:
    items = [doc(f"note {i}") for i in range(4)]
    engine.store_many(items)
    ids = [items[0].fingerprint(), "unknown", items[2].fingerprint(), items[0].fingerprint()]
    assert engine.forget(ForgetIds(ids=ids)).forgotten == 2
    assert texts(list_all(engine)) == ["note 1", "note 3"]
    assert engine.forget(ForgetIds(ids=ids)).forgotten == 0
    assert not engine.store(items[0]).replayed  # forgotten, so storing it again is new


def test_forget_by_filter(engine: ReferenceEngine) -> None:
    engine.store_many([doc("a", tags=["drop"]), doc("b"), doc("c", tags=["drop", "x"])])
    assert engine.forget(ForgetFilter(filter=MetaFilter(tags_any=["drop"]))).forgotten == 2
    assert texts(list_all(engine)) == ["b"]
    assert engine.forget(ForgetFilter(filter=MetaFilter(tags_any=["drop"]))).forgotten == 0


def test_forget_by_a_reach_alone(engine: ReferenceEngine) -> None:
    engine.store_many([at("root"), at("agent:a"), at("agent:a/agent:b"), at("agent:c")])
    reach = Reach.subtree(Namespace.parse("agent:a"))
    assert engine.forget(ForgetFilter(filter=MetaFilter(reach=reach))).forgotten == 2
    assert [str(hit.meta.namespace) for hit in list_all(engine)] == ["root", "agent:c"]


def test_forget_refuses_an_empty_target(engine: ReferenceEngine) -> None:
    engine.store(doc("x"))
    with refused("forget needs at least one id"):
        engine.forget(ForgetIds(ids=[]))
    with refused("forget refuses an empty filter, which would mean everything"):
        engine.forget(ForgetFilter(filter=MetaFilter()))
    assert len(engine) == 1


# --- reach (B4 worked example) ----------------------------------------------------------

R, T, W = "root", "team:acme", "team:acme/agent:writer"
H, E = "team:acme/agent:writer/agent:helper", "team:acme/agent:editor"


@pytest.mark.parametrize(
    ("reach", "nodes"),
    [
        (Reach.of(Namespace.parse(W)), {R, T, W}),
        (Reach.of(Namespace.parse(E)), {R, T, E}),
        (Reach.exact(Namespace.parse(W)), {W}),
        (Reach.of(Namespace.parse(H)), {R, T, W, H}),
        (Reach.subtree(Namespace.parse(W)), {W, H}),
        (Reach.subtree(Namespace.parse(T)), {T, W, H, E}),
        (Reach(at=Namespace.parse(T), inherit=True, descendants=True), {R, T, W, H, E}),
        (Reach.default(), {R}),
        (Reach.subtree(Namespace.ROOT), {R, T, W, H, E}),
        (None, {R, T, W, H, E}),
    ],
)
def test_list_reach_follows_the_worked_example(
    engine: ReferenceEngine, reach: Reach | None, nodes: set[str]
) -> None:
    engine.store_many([at(node) for node in (R, T, W, H, E)])
    listed = list_all(engine, MetaFilter(reach=reach), limit=2)
    assert {str(hit.meta.namespace) for hit in listed} == nodes
    assert len(listed) == len(nodes)


# --- recall -----------------------------------------------------------------------------


def test_recall_quotes_the_best_hits(engine: ReferenceEngine) -> None:
    engine.store(doc("tea is hot"))
    engine.store(learning("the user likes tea", LearningKind.PREFERENCE, 0.9))
    engine.store(doc("unrelated"))
    answer = engine.recall(RecallRequest(question="tea hot", limit=5))
    assert answer.model == "reference"
    assert answer.answer == "From 2 stored items: tea is hot | the user likes tea"
    first, second = answer.citations
    assert first.snippet == "tea is hot" and first.kind is ItemKind.DOCUMENT
    assert second.kind is ItemKind.LEARNING
    hybrid = engine.fetch(FetchRequest(query="tea hot", mode=HYBRID, limit=5)).hits
    assert answer.citations == [
        Citation(id=h.id, kind=h.kind, snippet=h.text, meta=h.meta, score=h.score) for h in hybrid
    ]


def test_recall_cites_at_most_limit_and_obeys_the_filter(engine: ReferenceEngine) -> None:
    # Three equal scores: the first stored wins the single citation.
    engine.store_many([doc("tea", workspace="w"), doc("tea", tags=["2"]), doc("tea one")])
    answer = engine.recall(RecallRequest(question="tea", limit=1))
    assert answer.answer == "From 1 stored items: tea"
    assert [c.meta.workspace for c in answer.citations] == ["w"]
    only_one = engine.recall(
        RecallRequest(question="tea", limit=5, filter=MetaFilter(tags_any=["2"]))
    )
    assert [(c.snippet, c.meta.tags) for c in only_one.citations] == [("tea", ["2"])]


def test_recall_with_nothing_to_cite(engine: ReferenceEngine) -> None:
    engine.store(doc("coffee"))
    answer = engine.recall(RecallRequest(question="zzz", limit=3))
    assert (answer.answer, answer.citations, answer.model) == (NOTHING_ANSWERS, [], "reference")
    assert NOTHING_ANSWERS == "Nothing stored answers this question."


def test_recall_validates(engine: ReferenceEngine) -> None:
    with refused("recall question must not be empty"):
        engine.recall(RecallRequest(question="", limit=1))
    with refused("recall limit must be positive"):
        engine.recall(RecallRequest(question="q", limit=0))


# --- explore and get (contract defaults) ------------------------------------------------


def test_explore_by_listing(engine: ReferenceEngine) -> None:
    engine.store_many(
        [doc("a"), doc("b"), learning("c", LearningKind.FACT, 0.5), doc("d", workspace="w")]
    )
    page = engine.explore(ExploreRequest(facet=Facet.KIND, limit=10))
    assert page.buckets == [Bucket(value="document", count=3), Bucket(value="learning", count=1)]
    assert (page.total, page.missing, page.more_buckets, page.truncated) == (4, 0, 0, False)
    workspaces = engine.explore(ExploreRequest(facet=Facet.WORKSPACE, limit=10, scan_limit=3))
    assert workspaces.total == 3 and workspaces.missing == 3 and workspaces.truncated
    with refused("explore limit must be between 1 and 500"):
        engine.explore(ExploreRequest(facet=Facet.KIND, limit=0))


def test_get_by_listing(engine: ReferenceEngine) -> None:
    items = [at("root", "r"), at("agent:a", "a"), at("agent:b", "b")]
    engine.store_many(items)
    ids = [item.fingerprint() for item in items]
    hits = engine.get(GetRequest(ids=[ids[2], "missing", ids[0], ids[2]]))
    assert texts(hits) == ["b", "r"]
    confined = engine.get(GetRequest(ids=ids, reach=Reach.of(Namespace.parse("agent:b"))))
    assert texts(confined) == ["r", "b"]
    with refused("get takes between 1 and 200 ids"):
        engine.get(GetRequest(ids=[]))


# --- threads ----------------------------------------------------------------------------


def test_concurrent_stores_lose_and_duplicate_nothing(engine: ReferenceEngine) -> None:
    threads, per_thread = 8, 500
    start = threading.Barrier(threads + 1)
    failures: list[BaseException] = []

    def writer(t: int) -> None:
        start.wait()
        for i in range(per_thread):
            engine.store(doc(f"thread {t} item {i}"))

    def reader() -> None:
        start.wait()
        try:
            for _ in range(20):
                listed = [hit.id for hit in list_all(engine, limit=97)]
                assert len(listed) == len(set(listed))
        except BaseException as error:  # surfaced in the main thread below
            failures.append(error)

    workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
    workers.append(threading.Thread(target=reader))
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    expected = {f"thread {t} item {i}" for t in range(threads) for i in range(per_thread)}
    listed = texts(list_all(engine, limit=200))
    assert len(listed) == len(engine) == threads * per_thread
    assert set(listed) == expected


def test_concurrent_stores_of_one_item_write_it_once(engine: ReferenceEngine) -> None:
    threads, repeats = 8, 50
    start = threading.Barrier(threads)
    receipts: list[tuple[str, bool]] = []

    def writer() -> None:
        start.wait()
        for _ in range(repeats):
            receipt = engine.store(doc("the same item"))
            receipts.append((receipt.id, receipt.replayed))

    workers = [threading.Thread(target=writer) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    fingerprint = doc("the same item").fingerprint()
    assert Counter(receipts) == {
        (fingerprint, False): 1,
        (fingerprint, True): threads * repeats - 1,
    }
    assert len(engine) == 1
