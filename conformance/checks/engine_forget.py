"""Engine checks of forget: an empty target is refused, and ids and filters remove exactly
what they name, counting it."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    ids,
    list_all,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    require_listed,
    seed,
)
from conformance.engine import ForgetFilter, ForgetIds, InvalidRequest, MetaFilter


def _seeded(engine: Any, ctx: CheckContext) -> list[str]:
    """Seed the run and list it (a precondition); the seeded ids."""
    stored = seed(engine, ctx)
    require_listed(engine, ctx, run_filter(ctx), stored, "the seeded items")
    return list(stored)


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
    title="Forget by id removes that item only, and counts it once",
    clause="engine-operations.md#forget-ids",
    storage=True,
)
def assert_forget_by_id(engine: Any, ctx: CheckContext) -> None:
    """Forgetting a stored item's id reports 1, the item no longer lists while the run's
    other items do, and forgetting the same id again reports 0."""
    cleanup(engine, ctx)
    others = _seeded(engine, ctx)
    doomed = ctx.label(engine.store(note(ctx, "forget by id")).id, "doomed")
    report = engine.forget(ForgetIds(ids=[doomed]))
    call = "forget(ids=[doomed])"
    ctx.require(report.forgotten == 1, call, "forgotten 1", report)
    left = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require_ids(
        "list(run filter) after the forget", left, others, "the seeded items, not doomed"
    )
    again = engine.forget(ForgetIds(ids=[doomed]))
    ctx.require(again.forgotten == 0, f"{call} again", "forgotten 0 (already gone)", again)


@check(
    "engine.forget_by_filter",
    title="Forget by filter removes every admitted item and nothing else",
    clause="engine-operations.md#forget-filter, filters-and-reach.md#meta-filter",
    storage=True,
)
def assert_forget_by_filter(engine: Any, ctx: CheckContext) -> None:
    """Two items tagged for dropping are removed by a tag + run filter, which reports 2;
    none of them lists afterwards and the run's other items all do."""
    cleanup(engine, ctx)
    others = _seeded(engine, ctx)
    tag = f"{ctx.marker}-drop"
    for label in ("drop1", "drop2"):
        ctx.label(engine.store(note(ctx, label, tags=[tag])).id, label)
    report = engine.forget(ForgetFilter(filter=run_filter(ctx, tags_any=[tag])))
    ctx.require(
        report.forgotten == 2, "forget(tags_any=[drop] + run filter)", "forgotten 2", report
    )
    dropped = ids(list_all(engine, ctx, run_filter(ctx, tags_any=[tag])))
    ctx.require_ids("list(tags_any=[drop] + run filter)", dropped, [], "nothing")
    left = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require_ids(
        "list(run filter) after the forget", left, others, "the seeded items, none dropped"
    )
