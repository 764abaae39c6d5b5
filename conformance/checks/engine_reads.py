"""Engine checks of the reads beside list and fetch: get by id, recall citations."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    ids,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    require_as_stored,
    require_listed,
    seed,
    store_each,
)
from conformance.checks.evidence import show
from conformance.engine import (
    MAX_GET_IDS,
    GetRequest,
    InvalidRequest,
    Namespace,
    Reach,
    RecallRequest,
    Segment,
    SegmentKind,
    StoreItem,
)

IN_REACH = 30
OUT_OF_REACH = 10
LISTING_PAGE = 10


def get_items(ctx: CheckContext) -> tuple[Reach, dict[str, StoreItem]]:
    """A reach, `subtree(agent:<m>-get)`, and items by label: `in1`..`in30` at its node
    and a child, `out1`..`out10` beside it at `agent:<m>-getx` (its id a string prefix
    away) and at the root."""
    m = ctx.marker
    node = Namespace.ROOT.child(Segment(SegmentKind.AGENT, f"{m}-get"))
    child = node.child(Segment(SegmentKind.AGENT, f"{m}-sub"))
    beside = Namespace.ROOT.child(Segment(SegmentKind.AGENT, f"{m}-getx"))
    items: dict[str, StoreItem] = {}
    for i in range(1, IN_REACH + 1):
        items[f"in{i}"] = note(ctx, f"get in {i}", namespace=node if i <= 20 else child)
    for i in range(1, OUT_OF_REACH + 1):
        items[f"out{i}"] = note(ctx, f"get out {i}", namespace=beside if i <= 6 else Namespace.ROOT)
    return Reach.subtree(node), items


def asked_ids(
    ctx: CheckContext, inside: list[str], outside: list[str]
) -> tuple[list[str], list[str]]:
    """`MAX_GET_IDS` ids to ask for, and the answer they call for: ids in reach among
    unknown ids, ids out of reach and repeats, the last twenty in reach past position 120,
    in an order other than store order; the answer is each id in reach once, where first
    asked."""
    unknown = [ctx.label(f"{ctx.marker}-missing-{i}", f"unknown{i}") for i in range(1, 200)]
    asked = [
        *unknown[:40],
        *outside[:5],
        *inside[:10],
        inside[3],
        *unknown[40:100],
        *outside[5:],
        outside[0],
        *reversed(inside[10:]),
        inside[12],
    ]
    asked += unknown[100 : 100 + MAX_GET_IDS - len(asked)]
    return asked, [*inside[:10], *reversed(inside[10:])]


@check(
    "engine.get",
    title="get of a full request answers each id in reach once, in the order asked",
    clause="engine-operations.md#get",
    storage=True,
)
def assert_get(engine: Any, ctx: CheckContext) -> None:
    """get of `MAX_GET_IDS` (200) ids with reach `subtree(node)`: 30 ids in reach (20 of
    them past position 120), 10 out of reach (at a sibling whose id extends the node's,
    and at the root), unknown ids, and ids asked twice. It answers exactly the 30, each
    once, in the order first asked, each hit as stored (kind, text, metadata). get of no
    ids is `InvalidRequest`."""
    cleanup(engine, ctx)
    reach, items = get_items(ctx)
    stored = store_each(engine, ctx, items)
    require_listed(engine, ctx, run_filter(ctx), stored, f"the {len(stored)} items", LISTING_PAGE)
    inside = [i for i in stored if ctx.labels[i].startswith("in")]
    outside = [i for i in stored if ctx.labels[i].startswith("out")]
    asked, want = asked_ids(ctx, inside, outside)
    hits = engine.get(GetRequest(ids=asked, reach=reach))
    call = f"get({len(asked)} ids: in, out of reach, unknown, repeated; reach subtree(node))"
    ctx.require_ids(
        call, ids(hits), want, "each id in reach once, in the order first asked", ordered=True
    )
    for hit in hits:
        require_as_stored(ctx, call, stored[hit.id], hit)
    ctx.refused(
        "get([])",
        lambda: engine.get(GetRequest(ids=[])),
        InvalidRequest,
        f"InvalidRequest (get takes between 1 and {MAX_GET_IDS} ids)",
    )


@check(
    "engine.recall",
    title="Recall answers, citing items that list with the same kind",
    clause="engine-operations.md#recall",
    storage=True,
)
def assert_recall(engine: Any, ctx: CheckContext) -> None:
    """Recall of the run's marker (limit 5, run filter) answers non-blank text with 1 to 5
    citations, each naming an item the run lists, with that item's kind."""
    cleanup(engine, ctx)
    stored = seed(engine, ctx)
    listed = {
        hit.id: hit.kind
        for hit in require_listed(engine, ctx, run_filter(ctx), stored, "the seeded items")
    }
    answer = engine.recall(RecallRequest(question=ctx.marker, filter=run_filter(ctx), limit=5))
    call = "recall(marker, limit 5, run filter)"
    ctx.require(bool(answer.answer.strip()), call, "a non-blank answer", show(answer.answer))
    ctx.require(
        1 <= len(answer.citations) <= 5,
        call,
        "1 to 5 citations",
        f"{len(answer.citations)} citations",
    )
    for citation in answer.citations:
        ctx.require(
            listed.get(citation.id) is citation.kind,
            call,
            "each citation an item the run lists, with that item's kind",
            f"{ctx.named([citation.id])} ({citation.kind.value})",
        )
