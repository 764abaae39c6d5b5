"""Engine check of cursors: following them visits every item once and ends; a cursor the
engine never issued is refused."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    fetch_all,
    ids,
    list_all,
    modes,
    note,
    run_filter,
)
from conformance.engine import FetchRequest, InvalidRequest, ListRequest

ITEMS = 7
"""More than two pages at every page size tried, and a multiple of none of them."""

PAGE_SIZES = (1, 2, 3)

UNKNOWN_CURSOR = "tmconf-not-a-cursor"

WHOLE = 50
"""A page size larger than the run, for the reference answer of a fetch."""


def _once_each(ctx: CheckContext, call: str, got: list[str], want: list[str]) -> None:
    twice = sorted(i for i, n in Counter(got).items() if n > 1)
    ctx.require(not twice, call, "every item once", f"repeated {twice}")
    missing = sorted(set(want) - set(got))
    ctx.require(not missing, call, f"all {len(want)} items", f"missing {missing}")
    strays = sorted(set(got) - set(want))
    ctx.require(not strays, call, "only the run's items", f"also {strays}")


@check(
    "engine.cursor_progress",
    per_mode=True,
    title="Following cursors visits every item once and ends",
    clause="contract-reference B8 (cursors: opaque, only a missing next_cursor ends, an "
    "unrecognised cursor is InvalidRequest), C2",
    storage=True,
)
def assert_cursor_progress(engine: Any, ctx: CheckContext) -> None:
    """Seven items listed, and fetched in every declared mode, 1, 2 and 3 at a time: every
    matching item exactly once, no cursor repeated, and the paging ends. A cursor the
    engine never issued is `InvalidRequest` for list and for fetch."""
    cleanup(engine, ctx)
    stored = [engine.store(note(ctx, f"cursor item {i}")).id for i in range(ITEMS)]
    ctx.require(len(set(stored)) == ITEMS, f"store({ITEMS} items)", f"{ITEMS} distinct ids", stored)
    scope = run_filter(ctx)
    for limit in PAGE_SIZES:
        got = ids(list_all(engine, ctx, scope, limit))
        _once_each(ctx, f"list(run filter) {limit} at a time", got, stored)
    declared = modes(engine, ctx)
    for mode in declared:
        # Which items a mode ranks as hits is the engine's affair; paging must not change it.
        whole = ids(fetch_all(engine, ctx, ctx.marker, mode, scope, WHOLE))
        _once_each(ctx, f"fetch(marker, {mode.value}, limit {WHOLE})", whole, stored)
        for limit in PAGE_SIZES:
            got = ids(fetch_all(engine, ctx, ctx.marker, mode, scope, limit))
            _once_each(ctx, f"fetch(marker, {mode.value}) {limit} at a time", got, whole)

    listing = ListRequest(filter=scope, limit=2, cursor=UNKNOWN_CURSOR)
    ctx.refused(
        f"list(cursor {UNKNOWN_CURSOR!r})",
        lambda: engine.list(listing),
        InvalidRequest,
        "InvalidRequest (a cursor the engine never issued)",
    )
    for mode in declared:
        req = FetchRequest(
            query=ctx.marker, mode=mode, filter=scope, limit=2, cursor=UNKNOWN_CURSOR
        )
        ctx.refused(
            f"fetch(marker, {mode.value}, cursor {UNKNOWN_CURSOR!r})",
            partial(engine.fetch, req),
            InvalidRequest,
            "InvalidRequest (a cursor the engine never issued)",
        )
