"""Engine checks of forget: an empty target is refused, and ids and filters remove exactly
what they name, counting it, past the first page of matches or the first batch of ids
an adapter's delete commonly stops at (50, 100), and every filter field excludes from a
forget the decoys it excludes from a listing."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_filters import listed_probes, wanted
from conformance.checks.engine_support import (
    cleanup,
    ids,
    list_all,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    BATCH_OWNER,
    require_listed,
    seed,
    store_batch,
    store_each,
)
from conformance.checks.registry import check
from conformance.engine import (
    ForgetFilter,
    ForgetIds,
    GetRequest,
    InvalidRequest,
    MetaFilter,
    Namespace,
    Segment,
    SegmentKind,
    StoreItem,
)

VOLUME = 125

DROPPED = 1_050
"""Items one forget by filter removes: past SQLite's 999 variables in an `IN (...)` of
their ids, and past a backend's 1,000-row page."""
"""Items one forget removes: past the 50 and 100 a delete by ids or by a page of
matches commonly stops at."""

LISTING_PAGE = 50


def _seeded(engine: Any, ctx: CheckContext) -> dict[str, StoreItem]:
    """Seed the run and list it (a precondition); the seeded items by id."""
    stored = seed(engine, ctx)
    require_listed(engine, ctx, run_filter(ctx), stored, "the seeded items")
    return stored


@check(
    "engine.empty_forget",
    title="A forget naming nothing is refused, and removes nothing",
    clause="engine-operations.md#forget-empty, errors.md#refusals-change-nothing",
)
def assert_empty_forget(engine: Any, ctx: CheckContext) -> None:
    """`forget` of no ids and of the empty filter (which would mean everything) are each
    `InvalidRequest`, and the run's items all still list afterwards."""
    cleanup(engine, ctx)
    # Not a storage check: an engine that keeps nothing lists nothing before and after.
    seed(engine, ctx)
    before = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.refused(
        "forget(ids=[])",
        lambda: engine.forget(ForgetIds(ids=[])),
        InvalidRequest,
        "InvalidRequest (forget needs at least one id)",
    )
    ctx.refused(
        "forget(filter={})",
        lambda: engine.forget(ForgetFilter(filter=MetaFilter())),
        InvalidRequest,
        "InvalidRequest (an empty filter would mean everything)",
    )
    after = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require_ids(
        "list(run filter) after the refused forgets", after, before, "the same items as before"
    )


@check(
    "engine.forget_by_id",
    title="Forget by ids removes exactly those items, however many, counting each once",
    clause="engine-operations.md#forget-ids",
    storage=True,
)
def assert_forget_by_id(engine: Any, ctx: CheckContext) -> None:
    """Forgetting a stored item's id (at a node two below the root: ids reach every
    namespace) reports 1, the item no longer lists while the run's other items do, and
    forgetting the same id again reports 0. Forgetting 125 ids in one call (after an
    unknown id, and with one id named twice) reports 125, and none of them lists afterwards
    while the run's other items do."""
    cleanup(engine, ctx)
    seeded = _seeded(engine, ctx)
    others = list(seeded)
    # Away from the root: forget by ids removes the items wherever they are, not within
    # the default reach `of(root)` alone.
    away = Namespace.ROOT.child(Segment(SegmentKind.PROJECT, f"{ctx.marker}-forget"))
    deep = away.child(Segment(SegmentKind.AGENT, "doomed"))
    doomed = ctx.label(engine.store(note(ctx, "forget by id", namespace=deep)).id, "doomed")
    report = engine.forget(ForgetIds(ids=[doomed]))
    call = "forget(ids=[doomed])"
    ctx.require(report.forgotten == 1, call, "forgotten 1", report)
    left = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require_ids(
        "list(run filter) after the forget", left, others, "the seeded items, not doomed"
    )
    again = engine.forget(ForgetIds(ids=[doomed]))
    ctx.require(again.forgotten == 0, f"{call} again", "forgotten 0 (already gone)", again)

    items = {f"v{i}": note(ctx, f"forget by id {i}") for i in range(1, VOLUME + 1)}
    stored = store_batch(engine, ctx, items)
    bulk = list(stored)
    # Listed first: a forget is judged on items the engine is seen to hold.
    what = f"the seeded items and v1–v{VOLUME}"
    held = {**seeded, **stored}
    require_listed(engine, ctx, run_filter(ctx), held, what, LISTING_PAGE, writer=BATCH_OWNER)
    unknown = ctx.label(f"{ctx.marker}-never-stored", "unknown")
    # The unknown id first: an engine that stops at the first id it cannot find forgets
    # nothing of the rest.
    report = engine.forget(ForgetIds(ids=[unknown, *bulk, bulk[0]]))
    call = f"forget(ids=[unknown, v1–v{VOLUME}, v1])"
    want = f"forgotten {VOLUME} (the unknown id skipped, v1 counted once)"
    ctx.require(report.forgotten == VOLUME, call, want, report)
    left = ids(list_all(engine, ctx, run_filter(ctx), LISTING_PAGE))
    ctx.require_ids(
        f"list(run filter) after {call}", left, others, f"the seeded items, none of v1–v{VOLUME}"
    )


@check(
    "engine.forget_by_filter",
    title="Forget by filter removes every admitted item, however many, and nothing else",
    clause="engine-operations.md#forget-filter, filters-and-reach.md#meta-filter",
    storage=True,
)
def assert_forget_by_filter(engine: Any, ctx: CheckContext) -> None:
    """1,050 items tagged for dropping are removed by one tag + run filter forget, which
    reports 1,050; none of them lists afterwards, and every decoy the filter excludes
    still does: the run's other items, items tagged with an extension of the tag
    (`drop` and `dropx`), and items carrying the tag in a workspace whose name extends
    the run's.

    Catches a forget that deletes only the first page of matches (50, 100, 1,000), one
    that deletes them with one `IN (...)` of their ids (SQLite refuses past 999), one
    matching the tag or the workspace as a string prefix, and one that cannot take the
    quote the tag holds.
    """
    sibling = f"{ctx.root}x"
    cleanup(engine, ctx, sibling)
    seeded = _seeded(engine, ctx)
    # The quote: a forget spliced into a query string unescaped breaks on it.
    tag = f"{ctx.marker}-o'drop"
    drop_items = {f"drop{i}": note(ctx, f"drop {i}", tags=[tag]) for i in range(1, DROPPED + 1)}
    near_items = {f"near{i}": note(ctx, f"near miss {i}", tags=[f"{tag}x"]) for i in (1, 2, 3)}
    beside_items = {
        f"beside{i}": note(ctx, f"beside {i}", workspace=sibling, tags=[tag]) for i in (1, 2, 3)
    }
    # A batch of each kind, so that receipts in any order name an item of the right kind.
    drops, near, beside = (
        store_batch(engine, ctx, kind) for kind in (drop_items, near_items, beside_items)
    )
    in_run = {**seeded, **drops, **near}
    kept = [*seeded, *near]
    # Listed first: a forget is judged on items the engine is seen to hold.
    what = f"the seeded items, drop1–drop{DROPPED} and near1–near3"
    require_listed(engine, ctx, run_filter(ctx), in_run, what, LISTING_PAGE, writer=BATCH_OWNER)
    require_listed(
        engine, ctx, MetaFilter(workspace=sibling), beside, "beside1–beside3", writer=BATCH_OWNER
    )

    report = engine.forget(ForgetFilter(filter=run_filter(ctx, tags_any=[tag])))
    call = "forget(tags_any=[drop] + run filter)"
    ctx.require(report.forgotten == DROPPED, call, f"forgotten {DROPPED}", report)
    dropped = ids(list_all(engine, ctx, run_filter(ctx, tags_any=[tag]), LISTING_PAGE))
    ctx.require_ids(f"list(tags_any=[drop] + run filter) after {call}", dropped, [], "nothing")
    left = ids(list_all(engine, ctx, run_filter(ctx), LISTING_PAGE))
    ctx.require_ids(
        f"list(run filter) after {call}", left, kept, "the seeded items and near1–near3"
    )
    left = ids(list_all(engine, ctx, MetaFilter(workspace=sibling)))
    call = f"list(workspace={sibling!r}) after {call}"
    ctx.require_ids(call, left, list(beside), "beside1–beside3")


@check(
    "engine.forget_filters",
    title="Every filter field forgets exactly the items it lists, and none of their decoys",
    clause=(
        "engine-operations.md#forget-filter, filters-and-reach.md#meta-filter, "
        "filters-and-reach.md#filter-exact-fields, filters-and-reach.md#filter-path-prefix, "
        "filters-and-reach.md#filter-lists, filters-and-reach.md#filter-window"
    ),
    storage=True,
)
def assert_forget_filters(engine: Any, ctx: CheckContext) -> None:
    """Forgetting with each filter of `engine.list_filters` removes exactly the probes
    that filter lists, counts them, and leaves every decoy among the 54: a prefix
    sibling of a folder or an exact field, a value, tag or folder differing only in
    case, `_` and `%` in a path, a quote, a tag holding a comma, an overlapping turn
    range, a time one microsecond or one nanosecond outside a bound. The forgotten
    probes are stored again before the next filter.

    Catches a store whose delete builds its own predicate and gets a field wrong there
    while its reads get it right (chromadb's `delete(where=...)`, lancedb's
    `delete(predicate)` beside their queries).
    """
    stored, cases, probes = listed_probes(engine, ctx, LISTING_PAGE)
    for case in cases:
        gone = wanted(ctx, stored, case)
        call = f"forget({case.label} filter)"
        report = engine.forget(ForgetFilter(filter=case.filter))
        left = ids(list_all(engine, ctx, probes, LISTING_PAGE))
        kept = [item_id for item_id in stored if item_id not in gone]
        ctx.require_ids(f"list(probes) after {call}", left, kept, "every probe it does not admit")
        ctx.require(report.forgotten == len(gone), call, f"forgotten {len(gone)}", report)
        # Stored again, under the ids the engine gives them now, for the next filter; read
        # back by id, so that an item not taken again is not blamed on the next filter.
        back = store_each(engine, ctx, {ctx.labels[i]: stored.pop(i) for i in gone})
        if back:
            held = ids(engine.get(GetRequest(ids=list(back))))
            again = f"get({ctx.named(list(back))}) stored again after {call}"
            ctx.require_ids(again, held, list(back), "each item forgotten and stored again")
        stored.update(back)
