"""The engine suite passes correct engines that use the freedoms the contract leaves:
opaque ids, newest-first listing, short and empty pages, pages capped by the store with a
cursor, single-use cursors, scores of any scale or sign, no fetch mode, server-side
explore, recall citing fewer items than its limit, times at any UTC offset."""

from __future__ import annotations

import builtins
import threading
import uuid

import pytest

from conformance.checks.context import RunSettings
from conformance.checks.runner import run_engine_suite
from conformance.engine import (
    MAX_SCAN_LIMIT,
    EngineDescriptor,
    ExplorePage,
    ExploreRequest,
    FetchPage,
    FetchRequest,
    ForgetIds,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    Timestamp,
    document,
    explore_by_listing,
)
from reference_driver.engine import ReferenceEngine

FAST = RunSettings(timeout=10.0, retries=0)


class OpaqueIds(ReferenceEngine):
    """Ids are random tokens, not fingerprints (stable for an item once given)."""

    def __init__(self) -> None:
        super().__init__()
        self._out: dict[str, str] = {}
        self._in: dict[str, str] = {}
        # Racing stores of one item must be given one id (engine.racing_stores).
        self._naming = threading.Lock()

    def _opaque(self, inner: str) -> str:
        with self._naming:
            if inner not in self._out:
                self._out[inner] = f"id-{uuid.uuid4().hex}"
                self._in[self._out[inner]] = inner
            return self._out[inner]

    def _hits(self, hits: builtins.list[Hit]) -> builtins.list[Hit]:
        return [hit.model_copy(update={"id": self._opaque(hit.id)}) for hit in hits]

    def store(self, item: StoreItem) -> StoreReceipt:
        receipt = super().store(item)
        return receipt.model_copy(update={"id": self._opaque(receipt.id)})

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if isinstance(target, ForgetIds) and target.ids:
            target = ForgetIds(ids=[self._in.get(i, f"unknown-{i}") for i in target.ids])
        return super().forget(target)

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        # A blank id stays blank: its refusal is the reference's to make.
        inner = [self._in.get(i, f"unknown-{i}" if i.strip() else i) for i in req.ids]
        return self._hits(super().get(req.model_copy(update={"ids": inner})))

    def list(self, req: ListRequest) -> ListPage:
        page = super().list(req)
        return page.model_copy(update={"items": self._hits(page.items)})

    def fetch(self, req: FetchRequest) -> FetchPage:
        page = super().fetch(req)
        return page.model_copy(update={"hits": self._hits(page.hits)})

    def recall(self, req: RecallRequest) -> RecallAnswer:
        answer = super().recall(req)
        cited = [c.model_copy(update={"id": self._opaque(c.id)}) for c in answer.citations]
        return answer.model_copy(update={"citations": cited})


class NewestFirst(ReferenceEngine):
    """Lists newest first, with cursors of its own format."""

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        start = 0
        if req.cursor is not None:
            if not req.cursor.startswith("newest:") or not req.cursor[7:].isdigit():
                raise InvalidRequest(f"unknown cursor `{req.cursor}`")
            start = int(req.cursor[7:])
        everything = super().list(req.model_copy(update={"limit": 10**9, "cursor": None}))
        items = everything.items[::-1][start : start + req.limit]
        end = start + len(items)
        more = end < len(everything.items)
        return ListPage(items=items, next_cursor=f"newest:{end}" if more else None)


class ShortPages(ReferenceEngine):
    """Pages hold at most half the limit; every other page is empty but carries a cursor;
    a read ending on a full page hands out one more cursor, to an empty last page."""

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        inner, empty_first = self._unwrap(req.cursor)
        if empty_first:
            return ListPage(items=[], next_cursor=f"go:{inner or ''}")
        if inner == "end":
            return ListPage(items=[], next_cursor=None)
        half = max(1, req.limit // 2)
        page = super().list(req.model_copy(update={"limit": half, "cursor": inner}))
        if page.next_cursor is None:
            return ListPage(items=page.items, next_cursor="go:end" if page.items else None)
        return ListPage(items=page.items, next_cursor=f"wait:{page.next_cursor}")

    def _unwrap(self, cursor: str | None) -> tuple[str | None, bool]:
        if cursor is None:
            return None, False
        kind, _, inner = cursor.partition(":")
        if kind not in ("wait", "go"):
            raise InvalidRequest(f"unknown cursor `{cursor}`")
        return inner or None, kind == "wait"


class PagesOfAtMostHundred(ReferenceEngine):
    """List and fetch pages hold at most 100 items (its store's largest page), with a
    cursor while more remain, however large the limit."""

    def list(self, req: ListRequest) -> ListPage:
        return super().list(req.model_copy(update={"limit": min(req.limit, 100)}))

    def fetch(self, req: FetchRequest) -> FetchPage:
        return super().fetch(req.model_copy(update={"limit": min(req.limit, 100)}))


class CitesBestOnly(ReferenceEngine):
    """Recall cites only its best hit, whatever the limit."""

    def recall(self, req: RecallRequest) -> RecallAnswer:
        answer = super().recall(req)
        return answer.model_copy(update={"citations": answer.citations[:1]})


class SingleUseCursors(ReferenceEngine):
    """Every cursor is a token good for one request."""

    def __init__(self) -> None:
        super().__init__()
        self._tokens: dict[str, str] = {}

    def _take(self, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        if cursor not in self._tokens:
            raise InvalidRequest(f"unknown cursor `{cursor}`")
        return self._tokens.pop(cursor)

    def _give(self, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        token = uuid.uuid4().hex
        self._tokens[token] = cursor
        return token

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        page = super().list(req.model_copy(update={"cursor": self._take(req.cursor)}))
        return page.model_copy(update={"next_cursor": self._give(page.next_cursor)})

    def fetch(self, req: FetchRequest) -> FetchPage:
        self.descriptor().ensure_mode(req.mode)
        req.validate()
        page = super().fetch(req.model_copy(update={"cursor": self._take(req.cursor)}))
        return page.model_copy(update={"next_cursor": self._give(page.next_cursor)})


class ScaledScores(ReferenceEngine):
    """Scores on its own scale, all negative (higher is still better)."""

    def fetch(self, req: FetchRequest) -> FetchPage:
        page = super().fetch(req)
        hits = [hit.model_copy(update={"score": hit.score * 1000 - 5000}) for hit in page.hits]
        return page.model_copy(update={"hits": hits})


class NoFetchModes(ReferenceEngine):
    """Declares no fetch mode at all."""

    def descriptor(self) -> EngineDescriptor:
        return super().descriptor().model_copy(update={"fetch_modes": []})


class ServerSideExplore(ReferenceEngine):
    """Counts server-side: exact counts whatever the scan limit, never truncated."""

    def explore(self, req: ExploreRequest) -> ExplorePage:
        req.validate()
        return explore_by_listing(self, req.model_copy(update={"scan_limit": MAX_SCAN_LIMIT}))


class TimesAtAnOffset(ReferenceEngine):
    """Returns observation times at UTC+02:00 (the same instants)."""

    def list(self, req: ListRequest) -> ListPage:
        page = super().list(req)
        return page.model_copy(update={"items": [_shifted(hit) for hit in page.items]})

    def fetch(self, req: FetchRequest) -> FetchPage:
        page = super().fetch(req)
        return page.model_copy(update={"hits": [_shifted(hit) for hit in page.hits]})


TWO_HOURS = 2 * 3600 * 10**9


def _shifted(hit: Hit) -> Hit:
    at = hit.meta.observed_at
    if at is None:
        return hit
    # The hit as a remote engine's JSON would give it: the same instant, written at +02:00.
    wire = hit.model_dump(mode="json")
    wire["meta"]["observed_at"] = Timestamp(at.nanos + TWO_HOURS).rfc3339()[:-1] + "+02:00"
    return Hit.model_validate(wire)


FREEDOMS = [
    OpaqueIds,
    NewestFirst,
    ShortPages,
    PagesOfAtMostHundred,
    CitesBestOnly,
    SingleUseCursors,
    ScaledScores,
    NoFetchModes,
    ServerSideExplore,
    TimesAtAnOffset,
]


@pytest.mark.parametrize("engine_type", FREEDOMS, ids=lambda e: e.__name__)
def test_a_correct_engine_using_a_freedom_passes(engine_type: type[ReferenceEngine]) -> None:
    engine = engine_type()
    results = run_engine_suite(engine, FAST)
    assert {k: r.reason for k, r in results.items() if not r.ok} == {}
    assert len(engine) == 0


def test_opaque_ids_are_not_fingerprints() -> None:
    item = document("opaque")
    assert OpaqueIds().store(item).id != item.fingerprint()


def test_several_freedoms_at_once_pass() -> None:
    class Everything(OpaqueIds, NewestFirst, SingleUseCursors, ScaledScores, ServerSideExplore):
        pass

    results = run_engine_suite(Everything(), FAST)
    assert {k: r.reason for k, r in results.items() if not r.ok} == {}


def test_without_fetch_modes_the_fetch_checks_skip_and_the_list_checks_run() -> None:
    results = run_engine_suite(NoFetchModes(), FAST)
    skipped = {k for k, r in results.items() if r.outcome == "skipped"}
    assert {"engine.cursor_progress", "engine.ranking", "engine.fetch_filters"} <= skipped
    ran = {"engine.list_paging", "engine.list_filters", "engine.unsupported_modes"}
    assert all(results[k].outcome == "passed" for k in ran)


def test_short_pages_really_are_short_and_empty() -> None:
    engine = ShortPages()
    for i in range(5):
        engine.store(document(f"x{i}"))
    sizes = []
    cursor = None
    while True:
        page = engine.list(ListRequest(limit=4, cursor=cursor))
        sizes.append(len(page.items))
        cursor = page.next_cursor
        if cursor is None:
            break
    assert 0 in sizes and max(sizes) <= 2 and sum(sizes) == 5
