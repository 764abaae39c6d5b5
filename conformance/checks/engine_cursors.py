"""Engine checks of cursors: following them visits every item once and ends, past the
result caps stores commonly default to (10, 20, 50, 100), at small page sizes and in
pages larger than a cap; a cursor the engine never issued is refused."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    fetch_all,
    ids,
    note,
    require_a_mode,
    run_filter,
)
from conformance.checks.engine_writes import (
    BATCH_OWNER,
    require_listed,
    require_missed_held,
    store_batch,
)
from conformance.checks.outcome import DriverRaised
from conformance.checks.registry import check
from conformance.engine import (
    Document,
    FetchMode,
    FetchRequest,
    ForgetIds,
    InvalidRequest,
    ListRequest,
    MetaFilter,
    StoreItem,
)
from conformance.readings import PagedRead, between_pages_victim

PAGED = 25
"""Items paged through at small page sizes: past the 10 and 20 results stores commonly
stop at, and a multiple of no page size tried."""

PAGE_SIZES = (1, 2, 3, 7, 30)
"""Page sizes tried over the first `PAGED` items: several page boundaries each, and one
page larger than the set."""

VOLUME = 125
"""Items read in large pages: past the 50 and 100 results a store call or an adapter's
SQL `LIMIT` commonly stops at, and a multiple of neither."""

LARGE_PAGES = (50, 200)
"""Page sizes tried over all `VOLUME` items: three pages, and one page asking for more
than a cap of 100 would give."""

UNKNOWN_CURSOR = "tmconf-not-a-cursor"


def paged_items(ctx: CheckContext, first: int = 1, last: int = PAGED) -> dict[str, Document]:
    """Documents `p<first>`..`p<last>`, each text holding the query `paging_query(ctx)`."""
    return {f"p{i}": note(ctx, f"paging probe {i}") for i in range(first, last + 1)}


def paging_query(ctx: CheckContext) -> str:
    """A query every paged item's text holds verbatim (so it is a hit in every mode)."""
    return f"{ctx.marker} paging probe"


@check(
    "engine.list_paging",
    title="Following list cursors visits every item once and ends",
    clause=(
        "engine-operations.md#list, cursors.md#cursor-opaque, "
        "cursors.md#cursor-end, cursors.md#cursor-progress, "
        "cursors.md#cursor-unknown"
    ),
    storage=True,
)
def assert_list_paging(engine: Any, ctx: CheckContext) -> None:
    """Twenty-five items listed 1, 2, 3 and 7 at a time and in one page larger than the
    set, then 125 items listed 50 at a time and in one page of 200: every item exactly
    once, no cursor repeated within a read, every hit scored 0.0, and the paging ends.
    A cursor the engine never issued is `InvalidRequest`.

    Catches a listing that stops at its store's default page (10, 20, 50, 100 items),
    or ends on a page shorter than the limit asked for.
    """
    cleanup(engine, ctx)
    scope = run_filter(ctx)
    stored = store_batch(engine, ctx, paged_items(ctx))
    for limit in PAGE_SIZES:
        what = f"the {PAGED} items, {limit} at a time"
        require_listed(engine, ctx, scope, stored, what, limit, writer=BATCH_OWNER)
    stored |= store_batch(engine, ctx, paged_items(ctx, PAGED + 1, VOLUME))
    for limit in LARGE_PAGES:
        what = f"the {VOLUME} items, {limit} at a time"
        require_listed(engine, ctx, scope, stored, what, limit, writer=BATCH_OWNER)
    listing = ListRequest(filter=scope, limit=2, cursor=UNKNOWN_CURSOR)
    ctx.refused(
        f"list(cursor {UNKNOWN_CURSOR!r})",
        lambda: engine.list(listing),
        InvalidRequest,
        "InvalidRequest (a cursor the engine never issued)",
    )


@check(
    "engine.cursor_progress",
    per_mode=True,
    title="Following fetch cursors visits every hit once and ends, in every declared mode",
    clause=(
        "engine-operations.md#fetch, cursors.md#cursor-opaque, "
        "cursors.md#cursor-end, cursors.md#cursor-progress, "
        "cursors.md#cursor-unknown"
    ),
    storage=True,
)
def assert_cursor_progress(engine: Any, ctx: CheckContext) -> None:
    """Twenty-five items whose texts each hold the query verbatim, fetched in every
    declared mode 1, 2, 3 and 7 at a time and in one page larger than the set, then 125
    such items fetched 50 at a time and in one page of 200: every item is a hit exactly
    once, no cursor repeated within a read, and the paging ends. A cursor the engine
    never issued is `InvalidRequest`.

    Catches a fetch that ranks only its store's first page of hits (20, 50, 100), or
    ends on a page shorter than the limit asked for.
    """
    declared = require_a_mode(engine, ctx)
    cleanup(engine, ctx)
    stored = store_batch(engine, ctx, paged_items(ctx))
    _require_fetched(engine, ctx, declared, stored, PAGE_SIZES)
    stored |= store_batch(engine, ctx, paged_items(ctx, PAGED + 1, VOLUME))
    _require_fetched(engine, ctx, declared, stored, LARGE_PAGES)
    query, scope = paging_query(ctx), run_filter(ctx)
    for mode in declared:
        req = FetchRequest(query=query, mode=mode, filter=scope, limit=2, cursor=UNKNOWN_CURSOR)
        ctx.refused(
            f"fetch(query, {mode.value}, cursor {UNKNOWN_CURSOR!r})",
            partial(engine.fetch, req),
            InvalidRequest,
            "InvalidRequest (a cursor the engine never issued)",
        )


def _require_fetched(
    engine: Any,
    ctx: CheckContext,
    declared: list[FetchMode],
    stored: Mapping[str, StoreItem],
    sizes: tuple[int, ...],
) -> None:
    """In every declared mode and at every page size, the paging query fetches each of
    `stored` exactly once (missing items must be held: see `require_held`)."""
    query, scope = paging_query(ctx), run_filter(ctx)
    for mode in declared:
        for limit in sizes:
            got = ids(fetch_all(engine, ctx, query, mode, scope, limit))
            require_missed_held(engine, ctx, stored, got, writer=BATCH_OWNER)
            ctx.require_ids(
                f"fetch(query, {mode.value}) {limit} at a time",
                got,
                list(stored),
                f"all {len(stored)} items (each holds the query verbatim), each once",
            )


BETWEEN = 60
"""Items listed while others are stored and forgotten between the pages."""

WRITES = 6
"""Pages preceded by a write (after them the store holds still, so any listing ends)."""


@check(
    "engine.writes_between_pages",
    title="A listing with writes between its pages ends, and misses or repeats items only "
    "as the writes move them",
    clause="cursors.md#cursor-progress, cursors.md#writes-between-pages",
    storage=True,
)
def assert_writes_between_pages(engine: Any, ctx: CheckContext) -> None:
    """Sixty items listed 7 at a time while, before each of the next six pages, one new
    item is stored and one held item is forgotten (the last one answered, as a reader
    working through a queue does; the oldest; the newest; one in the middle): the
    listing ends; every hit is an item held at some moment of the read; an item held
    throughout is missed at most once per item forgotten while it ran, and answered
    twice at most once per item stored while it ran (`conformance.readings.PagedRead`).
    Then, the store holding still, one listing holds exactly what is held; and two more
    listings are followed to their end while the store shrinks under their cursors, to
    exactly a cursor's place and past it.

    Every reading of a cursor passes (a snapshot, a key to resume after, an offset into
    a listing recomputed on each page). Catches a cursor that starts over after a write
    (answering everything again), and one that loses its place when the item it names
    is forgotten (ending the listing early), and one refused once the store shrank past it.
    """
    cleanup(engine, ctx)
    scope = run_filter(ctx)
    stored = store_batch(engine, ctx, paged_items(ctx, 1, BETWEEN))
    order = list(stored)
    require_listed(engine, ctx, scope, stored, f"the {BETWEEN} items", 50, writer=BATCH_OWNER)

    def name(item_id: str) -> str:
        return ctx.labels.get(item_id, item_id)

    read = PagedRead(before={name(i) for i in order}, entered=set(), left=set())
    held = dict(stored)
    added = 0
    answered: list[str] = []
    cursor: str | None = None
    call = "list(run filter, limit 7) with writes between pages"
    for page_number in range(1, 1_000):
        if cursor is not None and added < WRITES:
            added += 1
            fresh = note(ctx, f"written between pages {added}")
            receipt = engine.store(fresh)
            held[ctx.label(receipt.id, f"w{added}")] = fresh
            read.entered.add(name(receipt.id))
            victim = between_pages_victim(order, answered, page_number)
            order.remove(victim)
            engine.forget(ForgetIds(ids=[victim]))
            held.pop(victim)
            read.left.add(name(victim))
        page = engine.list(ListRequest(filter=scope, limit=7, cursor=cursor))
        ctx.require(len(page.items) <= 7, call, "at most 7 hits", f"{len(page.items)} hits")
        answered += [hit.id for hit in page.items]
        if page.next_cursor is None:
            break
        ctx.require(
            page.next_cursor != cursor,
            call,
            "a cursor that makes progress",
            f"the cursor {page.next_cursor!r} again",
        )
        cursor = page.next_cursor
    else:
        ctx.fail(call, "a listing that ends", "a cursor on every one of 1,000 pages")
    wrong = read.judge(name(i) for i in answered)
    ctx.require(
        wrong is None,
        call,
        "what a listing may answer while the store changes (docs/contract/cursors.md)",
        wrong,
    )
    require_listed(engine, ctx, scope, held, "what is held after the writes", 50)
    _list_while_shrinking(engine, ctx, scope, list(held))


def _list_while_shrinking(
    engine: Any, ctx: CheckContext, scope: MetaFilter, order: list[str]
) -> None:
    """Two listings, 7 items a page, over a store that shrinks under their cursors: the
    first, after two pages, loses every item it has not reached (an offset cursor then
    sits exactly at the end); the second, after one page, loses every item left (its
    cursor now points past the end). Each cursor was issued, so each is followed: the
    listing ends with a last page, never a refusal, and answers only items held at some
    moment of it."""
    for pages_before, keep_answered in ((2, True), (1, False)):
        read = PagedRead(before=set(order), entered=set(), left=set())
        answered: list[str] = []
        cursor: str | None = None
        what = f"list(run filter, limit 7), the store shrinking after page {pages_before}"
        for page_number in range(1, 1_000):
            if page_number == pages_before + 1:
                gone = [i for i in order if not (keep_answered and i in answered)]
                if gone:
                    engine.forget(ForgetIds(ids=gone))
                order[:] = [i for i in order if i not in gone]
                read.left.update(gone)
            call = f"list(run filter, limit 7, cursor={cursor!r}), {what}"
            try:
                page = engine.list(ListRequest(filter=scope, limit=7, cursor=cursor))
            except DriverRaised as raised:
                ctx.fail(
                    call,
                    "a page: the cursor was issued by this listing, and items forgotten "
                    "since do not unmake it (cursors.md#writes-between-pages)",
                    f"{type(raised.error).__name__}: {raised.error}",
                )
            answered += [hit.id for hit in page.items]
            if page.next_cursor is None:
                break
            ctx.require(page.next_cursor != cursor, call, "a cursor that makes progress", page)
            cursor = page.next_cursor
        else:
            ctx.fail(what, "a listing that ends", "a cursor on every one of 1,000 pages")
        wrong = read.judge(answered)
        ctx.require(
            wrong is None,
            f"{what}, every page",
            "what a listing may answer while the store changes (docs/contract/cursors.md)",
            wrong,
        )
