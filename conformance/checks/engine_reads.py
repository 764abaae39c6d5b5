"""Engine checks of the reads beside list and fetch: get by id, recall citations."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_outranked import outranked_clause, store_outranked
from conformance.checks.engine_support import (
    cleanup,
    ids,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    BATCH_OWNER,
    identify,
    require_as_stored,
    require_listed,
    require_missed_held,
    seed,
    store_batch,
)
from conformance.checks.evidence import show
from conformance.checks.registry import check
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

IN_REACH = 165
"""Ids asked for that the reach admits: past the 50 and 100 ids a store's lookup or one
listing page commonly stops at."""

AT_NODE = 100
"""Of the items in reach, those at the node itself (the rest at its child)."""

OUT_OF_REACH = 10

LISTING_PAGE = 200
"""The page size the items are listed with first: that of the contract's default get,
so that a listing fault there is `engine.list_paging`'s to report, not get's."""

OUTRANKED_LIMIT = 5
"""Recall's limit over the outranked items: a cut at the limit plus 50 stays below the
130 items above them."""


def get_items(ctx: CheckContext) -> tuple[Reach, dict[str, StoreItem]]:
    """A reach, `subtree(agent:<m>-get)`, and items by label: `in1`..`in165` at its node
    and a child, `out1`..`out10` beside it at `agent:<m>-getx` (its id a string prefix
    away) and at the root."""
    m = ctx.marker
    node = Namespace.ROOT.child(Segment(SegmentKind.AGENT, f"{m}-get"))
    child = node.child(Segment(SegmentKind.AGENT, f"{m}-sub"))
    beside = Namespace.ROOT.child(Segment(SegmentKind.AGENT, f"{m}-getx"))
    items: dict[str, StoreItem] = {}
    for i in range(1, IN_REACH + 1):
        items[f"in{i}"] = note(ctx, f"get in {i}", namespace=node if i <= AT_NODE else child)
    for i in range(1, OUT_OF_REACH + 1):
        items[f"out{i}"] = note(ctx, f"get out {i}", namespace=beside if i <= 6 else Namespace.ROOT)
    return Reach.subtree(node), items


def asked_ids(
    ctx: CheckContext, inside: list[str], outside: list[str]
) -> tuple[list[str], list[str]]:
    """`MAX_GET_IDS` ids to ask for, and the answer they call for: every id in reach,
    among unknown ids, ids out of reach and repeats, 85 of them reversed from position
    108 on (past any first 50 or 100); the answer is each id in reach once, where first
    asked."""
    unknown = [ctx.label(f"{ctx.marker}-missing-{i}", f"unknown{i}") for i in range(1, MAX_GET_IDS)]
    asked = [
        *unknown[:10],
        *outside[:5],
        *inside[:80],
        inside[3],
        *unknown[10:15],
        *outside[5:],
        outside[0],
        *reversed(inside[80:]),
        inside[100],
    ]
    asked += unknown[15 : 15 + MAX_GET_IDS - len(asked)]
    return asked, [*inside[:80], *reversed(inside[80:])]


@check(
    "engine.get",
    title="get of a full request answers each id in reach once, in the order asked",
    clause="engine-operations.md#get",
    storage=True,
)
def assert_get(engine: Any, ctx: CheckContext) -> None:
    """get of `MAX_GET_IDS` (200) ids with reach `subtree(node)`: 165 ids in reach (85 of
    them past position 107), 10 out of reach (at a sibling whose id extends the node's,
    and at the root), unknown ids, and ids asked twice. It answers exactly the 165, each
    once, in the order first asked, each hit as stored (kind, text, metadata) and scored
    0.0 as its listing is. get
    without a reach answers known ids at the node, below it, beside it and at the root
    (no reach reads every namespace, not the root alone). get of no ids is
    `InvalidRequest`.

    Catches a get that looks up only its store's first batch of ids (50, 100), or that
    reads one page of a listing (50, 100 items) to find them.
    """
    cleanup(engine, ctx)
    reach, items = get_items(ctx)
    store_batch(engine, ctx, items)
    # Each id's own item is read from the listing, not from the receipts of a batch.
    found = identify(
        engine,
        ctx,
        run_filter(ctx),
        items,
        f"the {len(items)} items",
        LISTING_PAGE,
        writer=BATCH_OWNER,
    )
    stored = {found[label]: items[label] for label in items}
    inside = [found[label] for label in items if label.startswith("in")]
    outside = [found[label] for label in items if label.startswith("out")]
    asked, want = asked_ids(ctx, inside, outside)
    hits = engine.get(GetRequest(ids=asked, reach=reach))
    call = f"get({len(asked)} ids: in, out of reach, unknown, repeated; reach subtree(node))"
    ctx.require_ids(
        call, ids(hits), want, "each id in reach once, in the order first asked", ordered=True
    )
    for hit in hits:
        require_as_stored(ctx, call, stored[hit.id], hit)
        # A got hit equals the item's listing, whose score is 0.0.
        ctx.require(hit.score == 0.0, call, "score 0.0, as its listing", repr(hit.score))
    # Without a reach, get reads every namespace: not the default reach `of(root)`.
    unreached = [outside[0], inside[0], inside[-1], outside[-1], asked[0]]
    hits = engine.get(GetRequest(ids=unreached))
    ctx.require_ids(
        "get(out1 beside the node, in1 at it, in165 below it, out10 at the root, "
        "unknown1; no reach)",
        ids(hits),
        unreached[:4],
        "every known id, in the order asked (no reach reads every namespace)",
        ordered=True,
    )
    ctx.refused(
        "get([])",
        lambda: engine.get(GetRequest(ids=[])),
        InvalidRequest,
        f"InvalidRequest (get takes between 1 and {MAX_GET_IDS} ids)",
    )


@check(
    "engine.recall",
    title="Recall answers, citing only items its filter admits, each listing with its kind",
    clause="engine-operations.md#recall",
    storage=True,
)
def assert_recall(engine: Any, ctx: CheckContext) -> None:
    """Recall of the run's marker (limit 5, run filter) answers non-blank text with 1 to 5
    citations, each naming an item the run lists, with that item's kind; with a filter
    admitting nothing, an answer and no citation. Then, with three
    items beneath 130 whose text is the question itself, recall with each filter that
    admits exactly the three (a tag, a folder prefix, a subtree reach) cites at least
    one item and only items the filter admits (the filter is applied inside the
    ranking, not to a top-k cut of it).

    Recall is not asked for a limit above 100: the contract bounds its citations from
    above only, so a recall citing fewer than it may is conformant.
    """
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

    # A filter admitting nothing: no citation, and still an answer (its text is the
    # engine's, blank included).
    nothing = run_filter(ctx).model_copy(update={"tags_any": [f"{ctx.marker}-no-such-tag"]})
    empty = engine.recall(RecallRequest(question=ctx.marker, filter=nothing, limit=5))
    call = "recall(marker, limit 5, a filter admitting nothing)"
    ctx.require(isinstance(empty.answer, str), call, "an answer text", show(empty.answer))
    ctx.require(
        not empty.citations,
        call,
        "no citations (the filter admits no item)",
        f"citations {ctx.named([c.id for c in empty.citations])}",
    )

    outranked = store_outranked(engine, ctx)
    admitted = set(outranked.kept)
    for label, filter in outranked.filters.items():
        req = RecallRequest(question=outranked.query, filter=filter, limit=OUTRANKED_LIMIT)
        cited = [citation.id for citation in engine.recall(req).citations]
        call = f"recall(question, limit {OUTRANKED_LIMIT}, {label})"
        if not cited:
            require_missed_held(engine, ctx, outranked.kept, cited, writer=BATCH_OWNER)
        ctx.require(
            bool(cited) and all(item_id in admitted for item_id in cited),
            call,
            outranked_clause(f"1 to {OUTRANKED_LIMIT} citations, each an item the filter admits"),
            f"citations {ctx.named(cited)}" if cited else "no citations",
        )
