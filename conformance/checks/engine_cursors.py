"""Engine checks of cursors: following them visits every item once and ends, past the
result caps stores commonly default to; a cursor the engine never issued is refused."""

from __future__ import annotations

from functools import partial
from typing import Any

from conformance.checks.catalogue import check
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
    require_listed,
    store_each,
)
from conformance.engine import Document, FetchRequest, InvalidRequest, ListRequest

PAGED = 25
"""Items paged through: past the 10 and 20 results stores commonly stop at, and a
multiple of no page size tried."""

PAGE_SIZES = (1, 2, 3, 7, 30)
"""Page sizes tried: several page boundaries each, and one page larger than the set."""

UNKNOWN_CURSOR = "tmconf-not-a-cursor"


def paged_items(ctx: CheckContext) -> dict[str, Document]:
    """`PAGED` documents `p1`..`p25`, each text holding the query `paging_query(ctx)`."""
    return {f"p{i}": note(ctx, f"paging probe {i}") for i in range(1, PAGED + 1)}


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
    set: every item exactly once, no cursor repeated within a read, every hit scored 0.0,
    and the paging ends. A cursor the engine never issued is `InvalidRequest`."""
    cleanup(engine, ctx)
    stored = store_each(engine, ctx, paged_items(ctx))
    scope = run_filter(ctx)
    for limit in PAGE_SIZES:
        require_listed(engine, ctx, scope, stored, f"the {PAGED} items, {limit} at a time", limit)
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
    declared mode 1, 2, 3 and 7 at a time and in one page larger than the set: every item
    is a hit exactly once, no cursor repeated within a read, and the paging ends. A cursor
    the engine never issued is `InvalidRequest`."""
    declared = require_a_mode(engine, ctx)
    cleanup(engine, ctx)
    stored = list(store_each(engine, ctx, paged_items(ctx)))
    scope = run_filter(ctx)
    query = paging_query(ctx)
    for mode in declared:
        for limit in PAGE_SIZES:
            got = ids(fetch_all(engine, ctx, query, mode, scope, limit))
            ctx.require_ids(
                f"fetch(query, {mode.value}) {limit} at a time",
                got,
                stored,
                f"all {PAGED} items (each holds the query verbatim), each once",
            )
        req = FetchRequest(query=query, mode=mode, filter=scope, limit=2, cursor=UNKNOWN_CURSOR)
        ctx.refused(
            f"fetch(query, {mode.value}, cursor {UNKNOWN_CURSOR!r})",
            partial(engine.fetch, req),
            InvalidRequest,
            "InvalidRequest (a cursor the engine never issued)",
        )
