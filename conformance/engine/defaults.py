"""The contract's default ``store_many``, ``explore`` and ``get``, built on ``store`` and ``list``.

Engines inherit them through ``EngineBase`` / ``AsyncEngineBase``; an engine that can
do better (aggregate server-side, look an id up directly) overrides them, and may
shape its answer with ``explore_page_of`` and ``in_request_order``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from .errors import EngineFault, InvalidRequest
from .facets import Facet
from .filters import MetaFilter
from .items import StoreItem
from .limits import MAX_STORE_MANY, SCAN_PAGE
from .requests import ExploreRequest, GetRequest, ListRequest
from .responses import Bucket, ExplorePage, Hit, ListPage


class Lister(Protocol):
    """Anything with the contract's synchronous ``list``."""

    def list(self, req: ListRequest, /) -> ListPage: ...


class AsyncLister(Protocol):
    """Anything with the contract's asynchronous ``list``."""

    async def list(self, req: ListRequest, /) -> ListPage: ...


def validate_many(items: Sequence[StoreItem]) -> None:
    """Checks a ``store_many`` batch: 1..=100 items, then each item's ``validate``; the
    first error wins."""
    if not 1 <= len(items) <= MAX_STORE_MANY:
        raise InvalidRequest(f"store_many takes between 1 and {MAX_STORE_MANY} items")
    for item in items:
        item.validate()


def explore_page_of(
    facet: Facet,
    counts: Mapping[str, int],
    limit: int,
    total: int,
    missing: int,
    truncated: bool,
) -> ExplorePage:
    """An ``ExplorePage`` from per-value counts: largest first, ties by value ascending, cut
    to ``limit`` with ``more_buckets`` naming how many values were cut."""
    ordered = sorted(counts.items(), key=lambda entry: (-entry[1], entry[0]))
    return ExplorePage(
        facet=facet,
        buckets=[Bucket(value=value, count=count) for value, count in ordered[:limit]],
        total=total,
        missing=missing,
        more_buckets=max(0, len(ordered) - limit),
        truncated=truncated,
    )


def in_request_order(ids: Sequence[str], hits: Iterable[Hit]) -> list[Hit]:
    """The hits in the order ``ids`` names them, each id at most once; ids with no hit
    are left out."""
    by_id: dict[str, Hit] = {}
    for hit in hits:
        by_id.setdefault(hit.id, hit)
    return [by_id.pop(item_id) for item_id in ids if item_id in by_id]


class _FacetTally:
    """The running state of a listing-based explore."""

    def __init__(self, req: ExploreRequest) -> None:
        self.req = req
        self.counts: dict[str, int] = {}
        self.total = 0
        self.missing = 0
        self.read = 0
        self.cursors = _CursorGuard()

    def next_request(self, cursor: str | None) -> ListRequest:
        limit = min(SCAN_PAGE, self.req.scan_limit - self.read)
        return ListRequest(filter=self.req.filter.model_copy(deep=True), limit=limit, cursor=cursor)

    def add(self, page: ListPage) -> bool:
        """Counts one page; whether the scan goes on (to ``page.next_cursor``)."""
        for hit in page.items:
            self.total += 1
            values = self.req.facet.values(hit.kind, hit.meta)
            if not values:
                self.missing += 1
            for value in values:
                self.counts[value] = self.counts.get(value, 0) + 1
        self.read += len(page.items)
        if page.next_cursor is None:
            return False
        self.cursors.see(page.next_cursor)
        return self.read < self.req.scan_limit

    def page(self, last: ListPage) -> ExplorePage:
        truncated = last.next_cursor is not None
        return explore_page_of(
            self.req.facet, self.counts, self.req.limit, self.total, self.missing, truncated
        )


class _IdCollector:
    """The running state of a listing-based get."""

    def __init__(self, req: GetRequest) -> None:
        self.req = req
        self.wanted = set(req.ids)
        self.found: dict[str, Hit] = {}
        self.cursors = _CursorGuard()

    def next_request(self, cursor: str | None) -> ListRequest:
        return ListRequest(filter=MetaFilter(reach=self.req.reach), limit=SCAN_PAGE, cursor=cursor)

    def add(self, page: ListPage) -> bool:
        """Keeps the wanted hits of one page; whether the search goes on."""
        for hit in page.items:
            if hit.id in self.wanted:
                self.found.setdefault(hit.id, hit)
        if len(self.found) == len(self.wanted) or page.next_cursor is None:
            return False
        self.cursors.see(page.next_cursor)
        return True

    def hits(self) -> list[Hit]:
        return in_request_order(self.req.ids, self.found.values())


class _CursorGuard:
    """Stops a default that pages through a broken ``list`` from looping for ever."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def see(self, cursor: str) -> None:
        if cursor in self.seen:
            raise EngineFault(f"the listing cursor `{cursor}` repeated; paging never ends")
        self.seen.add(cursor)


def explore_by_listing(engine: Lister, req: ExploreRequest) -> ExplorePage:
    """``explore`` by paging through ``list`` (200 at a time, at most ``scan_limit`` items).

    Validates first. Every item read counts once in ``total``, once in ``missing`` when
    it has no value, and once per value (a tag each). ``truncated`` when the scan
    stopped at ``scan_limit`` with a cursor pending. A listing cursor that repeats
    raises ``EngineFault`` rather than paging for ever.
    """
    req.validate()
    tally = _FacetTally(req)
    page = engine.list(tally.next_request(None))
    while tally.add(page):
        page = engine.list(tally.next_request(page.next_cursor))
    return tally.page(page)


def get_by_listing(engine: Lister, req: GetRequest) -> list[Hit]:
    """``get`` by paging through ``list`` (200 at a time, confined to ``req.reach``) until
    every id is found or the listing ends; hits in the order named, each at most once.

    Validates first. An id naming nothing, or an item outside the reach, is left out.
    """
    req.validate()
    collector = _IdCollector(req)
    page = engine.list(collector.next_request(None))
    while collector.add(page):
        page = engine.list(collector.next_request(page.next_cursor))
    return collector.hits()


async def aexplore_by_listing(engine: AsyncLister, req: ExploreRequest) -> ExplorePage:
    """``explore_by_listing`` for an engine whose ``list`` is async."""
    req.validate()
    tally = _FacetTally(req)
    page = await engine.list(tally.next_request(None))
    while tally.add(page):
        page = await engine.list(tally.next_request(page.next_cursor))
    return tally.page(page)


async def aget_by_listing(engine: AsyncLister, req: GetRequest) -> list[Hit]:
    """``get_by_listing`` for an engine whose ``list`` is async."""
    req.validate()
    collector = _IdCollector(req)
    page = await engine.list(collector.next_request(None))
    while collector.add(page):
        page = await engine.list(collector.next_request(page.next_cursor))
    return collector.hits()
