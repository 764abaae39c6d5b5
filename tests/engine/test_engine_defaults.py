"""The contract defaults: store_many, explore_by_listing, get_by_listing (contract B7, B8).

They run against a tiny list-backed engine defined here, with decimal offset cursors.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from conformance.engine import (
    AsyncEngineBase,
    AsyncMemoryEngine,
    Bucket,
    EngineBase,
    EngineDescriptor,
    EngineFault,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    Facet,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ItemKind,
    Learning,
    LearningKind,
    ListPage,
    ListRequest,
    MemoryEngine,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    aexplore_by_listing,
    aget_by_listing,
    document,
    explore_by_listing,
    explore_page_of,
    get_by_listing,
    in_request_order,
    learning,
)

DESCRIPTOR = EngineDescriptor(
    id="listed",
    label="List-backed",
    description="Items in a list; listing pages by offset.",
    hosted=False,
    needs_endpoint=False,
    needs_key=False,
)


def hit_of(item: StoreItem) -> Hit:
    confidence = item.confidence if isinstance(item, Learning) else None
    return Hit(
        id=item.fingerprint(),
        kind=item.kind,
        text=item.render_text(),
        meta=item.meta,
        score=0.0,
        confidence=confidence,
    )


class ListedEngine(EngineBase):
    """Holds items in insertion order; ``list`` pages by decimal offset."""

    def __init__(self, items: Sequence[StoreItem] = ()) -> None:
        self.items: list[StoreItem] = []
        self.ids: set[str] = set()
        self.list_calls: list[ListRequest] = []
        for item in items:
            self.store(item)

    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> EngineHealth:
        return EngineHealth.ok()

    def store(self, item: StoreItem) -> StoreReceipt:
        item.validate()
        identity = item.fingerprint()
        replayed = identity in self.ids
        if not replayed:
            self.items.append(item)
            self.ids.add(identity)
        return StoreReceipt(id=identity, replayed=replayed)

    def fetch(self, req: FetchRequest) -> FetchPage:
        DESCRIPTOR.ensure_mode(req.mode)
        raise AssertionError("unreachable: the engine declares no mode")

    def recall(self, req: RecallRequest) -> RecallAnswer:
        req.validate()
        return RecallAnswer(answer="nothing")

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        self.list_calls.append(req)
        matching = [hit_of(item) for item in self.items if req.filter.matches(item.kind, item.meta)]
        start = int(req.cursor or 0)
        page = matching[start : start + req.limit]
        end = start + len(page)
        return ListPage(items=page, next_cursor=str(end) if end < len(matching) else None)

    def forget(self, target: ForgetTarget) -> ForgetReport:
        target.validate()
        return ForgetReport(forgotten=0)


class AsyncListedEngine(AsyncEngineBase):
    """``ListedEngine`` behind the async protocol."""

    def __init__(self, items: Sequence[StoreItem] = ()) -> None:
        self.inner = ListedEngine(items)

    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    async def health(self) -> EngineHealth:
        return self.inner.health()

    async def store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.store(item)

    async def fetch(self, req: FetchRequest) -> FetchPage:
        return self.inner.fetch(req)

    async def recall(self, req: RecallRequest) -> RecallAnswer:
        return self.inner.recall(req)

    async def list(self, req: ListRequest) -> ListPage:
        return self.inner.list(req)

    async def forget(self, target: ForgetTarget) -> ForgetReport:
        return self.inner.forget(target)


def tagged(text: str, *tags: str, workspace: str | None = None) -> StoreItem:
    return document(text, MemoryMeta(tags=list(tags), workspace=workspace))


def test_the_fakes_satisfy_the_protocols() -> None:
    assert isinstance(ListedEngine(), MemoryEngine)
    assert isinstance(AsyncListedEngine(), AsyncMemoryEngine)


class TestExplorePageOf:
    def test_sorted_by_count_then_value_and_cut(self) -> None:
        page = explore_page_of(
            Facet.TAG, {"b": 2, "a": 2, "c": 5, "d": 1}, 2, total=7, missing=1, truncated=False
        )
        assert page == ExplorePage(
            facet=Facet.TAG,
            buckets=[Bucket(value="c", count=5), Bucket(value="a", count=2)],
            total=7,
            missing=1,
            more_buckets=2,
            truncated=False,
        )

    def test_no_buckets_cut(self) -> None:
        page = explore_page_of(Facet.KIND, {"document": 1}, 10, 1, 0, True)
        assert page.more_buckets == 0
        assert page.truncated

    def test_wire_form(self) -> None:
        page = explore_page_of(Facet.SOURCE_ID, {"s": 3}, 1, 4, 1, False)
        assert page.model_dump(mode="json") == {
            "facet": "source_id",
            "buckets": [{"value": "s", "count": 3}],
            "total": 4,
            "missing": 1,
            "more_buckets": 0,
            "truncated": False,
        }


class TestExploreByListing:
    def test_counts_tags_once_each_and_missing(self) -> None:
        engine = ListedEngine(
            [tagged("1", "a", "b"), tagged("2", "a"), tagged("3"), tagged("4", "c", "a")]
        )
        page = engine.explore(ExploreRequest(facet=Facet.TAG, limit=10))
        assert page.buckets == [
            Bucket(value="a", count=3),
            Bucket(value="b", count=1),
            Bucket(value="c", count=1),
        ]
        assert (page.total, page.missing, page.more_buckets, page.truncated) == (4, 1, 0, False)

    def test_counts_kinds(self) -> None:
        engine = ListedEngine(
            [
                document("d1"),
                document("d2"),
                learning("l", LearningKind.FACT, 0.5),
            ]
        )
        page = explore_by_listing(engine, ExploreRequest(facet=Facet.KIND, limit=1))
        assert page.buckets == [Bucket(value="document", count=2)]
        assert page.more_buckets == 1
        assert page.total == 3

    def test_applies_the_filter(self) -> None:
        engine = ListedEngine([tagged("1", "a", workspace="w"), tagged("2", "b")])
        request = ExploreRequest(facet=Facet.TAG, limit=5, filter=MetaFilter(workspace="w"))
        assert engine.explore(request).buckets == [Bucket(value="a", count=1)]

    def test_pages_two_hundred_at_a_time(self) -> None:
        engine = ListedEngine([tagged(f"d{n}", "t") for n in range(450)])
        page = engine.explore(ExploreRequest(facet=Facet.TAG, limit=5))
        assert [call.limit for call in engine.list_calls] == [200, 200, 200]
        assert [call.cursor for call in engine.list_calls] == [None, "200", "400"]
        assert (page.total, page.truncated) == (450, False)

    def test_truncates_at_scan_limit_with_more_pending(self) -> None:
        engine = ListedEngine([tagged(f"d{n}", "t") for n in range(300)])
        page = engine.explore(ExploreRequest(facet=Facet.TAG, limit=5, scan_limit=250))
        assert [call.limit for call in engine.list_calls] == [200, 50]
        assert page.total == 250
        assert page.buckets == [Bucket(value="t", count=250)]
        assert page.truncated

    def test_a_scan_limit_meeting_the_end_is_not_truncated(self) -> None:
        engine = ListedEngine([tagged(f"d{n}", "t") for n in range(5)])
        page = engine.explore(ExploreRequest(facet=Facet.TAG, limit=5, scan_limit=5))
        assert (page.total, page.truncated) == (5, False)

    def test_scan_limit_one(self) -> None:
        engine = ListedEngine([tagged(f"d{n}", "t") for n in range(3)])
        page = engine.explore(ExploreRequest(facet=Facet.TAG, limit=5, scan_limit=1))
        assert [call.limit for call in engine.list_calls] == [1]
        assert (page.total, page.truncated) == (1, True)

    def test_empty_engine(self) -> None:
        page = ListedEngine().explore(ExploreRequest(facet=Facet.KIND, limit=5))
        assert (page.buckets, page.total, page.missing, page.truncated) == ([], 0, 0, False)

    def test_validates_before_listing(self) -> None:
        engine = ListedEngine([document("a")])
        with pytest.raises(InvalidRequest, match="explore limit must be between 1 and 500"):
            engine.explore(ExploreRequest(facet=Facet.KIND, limit=0))
        assert engine.list_calls == []

    def test_namespace_facet_counts_root_as_root(self) -> None:
        engine = ListedEngine(
            [document("r"), document("a", MemoryMeta(namespace=Namespace.parse("agent:a")))]
        )
        page = engine.explore(ExploreRequest(facet=Facet.NAMESPACE, limit=5))
        assert page.buckets == [Bucket(value="agent:a", count=1), Bucket(value="root", count=1)]

    def test_a_repeating_cursor_is_an_engine_fault_not_a_hang(self) -> None:
        class Stuck(ListedEngine):
            def list(self, req: ListRequest) -> ListPage:
                return ListPage(items=[], next_cursor="again")

        with pytest.raises(EngineFault, match="`again` repeated"):
            Stuck().explore(ExploreRequest(facet=Facet.KIND, limit=5))


class TestGetByListing:
    def test_returns_hits_in_the_order_named(self) -> None:
        items = [document(f"d{n}") for n in range(5)]
        engine = ListedEngine(items)
        ids = [items[3].fingerprint(), "missing", items[0].fingerprint(), items[4].fingerprint()]
        hits = engine.get(GetRequest(ids=ids))
        assert [hit.id for hit in hits] == [ids[0], ids[2], ids[3]]
        assert hits[0] == hit_of(items[3])

    def test_each_id_at_most_once(self) -> None:
        item = document("once")
        hits = ListedEngine([item]).get(GetRequest(ids=[item.fingerprint()] * 3))
        assert [hit.id for hit in hits] == [item.fingerprint()]

    def test_stops_listing_when_every_id_is_found(self) -> None:
        items = [document(f"d{n}") for n in range(500)]
        engine = ListedEngine(items)
        hits = engine.get(GetRequest(ids=[items[10].fingerprint(), items[150].fingerprint()]))
        assert len(hits) == 2
        assert len(engine.list_calls) == 1
        assert engine.list_calls[0].limit == 200

    def test_pages_to_the_end_for_ids_not_held(self) -> None:
        items = [document(f"d{n}") for n in range(450)]
        engine = ListedEngine(items)
        hits = engine.get(GetRequest(ids=[items[449].fingerprint(), "nope"]))
        assert [hit.id for hit in hits] == [items[449].fingerprint()]
        assert [call.cursor for call in engine.list_calls] == [None, "200", "400"]

    def test_confined_to_the_reach(self) -> None:
        root = learning("root fact", LearningKind.FACT, 0.9)
        at_a = learning(
            "same", LearningKind.FACT, 0.9, MemoryMeta(namespace=Namespace.parse("agent:a"))
        )
        at_b = learning(
            "same", LearningKind.FACT, 0.9, MemoryMeta(namespace=Namespace.parse("agent:b"))
        )
        engine = ListedEngine([root, at_a, at_b])
        ids = [item.fingerprint() for item in (at_a, root, at_b)]
        hits = engine.get(GetRequest(ids=ids, reach=Reach.of(Namespace.parse("agent:b"))))
        assert [hit.id for hit in hits] == [root.fingerprint(), at_b.fingerprint()]
        assert engine.list_calls[0].filter == MetaFilter(reach=Reach.of(Namespace.parse("agent:b")))
        assert len(engine.get(GetRequest(ids=ids))) == 3

    def test_validates_before_listing(self) -> None:
        engine = ListedEngine([document("a")])
        with pytest.raises(InvalidRequest, match="get takes between 1 and 200 ids"):
            get_by_listing(engine, GetRequest(ids=[]))
        assert engine.list_calls == []


def test_in_request_order() -> None:
    hits = [hit_of(document(text)) for text in ("a", "b", "c")]
    a, _, c = (hit.id for hit in hits)
    assert in_request_order([c, "x", a, c], hits) == [hits[2], hits[0]]
    assert in_request_order([], hits) == []


class TestStoreMany:
    def test_receipts_in_item_order_with_replays(self) -> None:
        engine = ListedEngine()
        items = [document(f"bulk-{n}") for n in range(3)]
        receipts = engine.store_many([*items, items[1]])
        assert [receipt.id for receipt in receipts] == [
            *(item.fingerprint() for item in items),
            items[1].fingerprint(),
        ]
        assert [receipt.replayed for receipt in receipts] == [False, False, False, True]
        again = engine.store_many(items)
        assert all(receipt.replayed for receipt in again)
        assert len(engine.items) == 3

    def test_an_invalid_batch_stores_nothing(self) -> None:
        engine = ListedEngine()
        with pytest.raises(InvalidRequest, match="document body must not be empty"):
            engine.store_many([document("fine"), document(" ")])
        with pytest.raises(InvalidRequest, match="store_many takes between 1 and 100 items"):
            engine.store_many([])
        assert engine.items == []


class TestAsyncDefaults:
    def test_async_explore_get_and_store_many(self) -> None:
        items = [tagged(f"d{n}", "t") for n in range(260)]
        engine = AsyncListedEngine(items)

        async def scenario() -> None:
            page = await engine.explore(ExploreRequest(facet=Facet.TAG, limit=5, scan_limit=250))
            assert (page.total, page.truncated) == (250, True)
            hits = await engine.get(
                GetRequest(ids=[items[259].fingerprint(), items[0].fingerprint()])
            )
            assert [hit.id for hit in hits] == [items[259].fingerprint(), items[0].fingerprint()]
            receipts = await engine.store_many([items[0], document("new")])
            assert [receipt.replayed for receipt in receipts] == [True, False]
            direct = await aexplore_by_listing(engine, ExploreRequest(facet=Facet.KIND, limit=5))
            assert direct.buckets == [Bucket(value=ItemKind.DOCUMENT.value, count=261)]
            assert await aget_by_listing(engine, GetRequest(ids=["nope"])) == []
            with pytest.raises(InvalidRequest):
                await engine.get(GetRequest(ids=[" "]))

        asyncio.run(scenario())
