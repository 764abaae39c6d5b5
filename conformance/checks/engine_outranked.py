"""Items a filter admits, ranked beneath many better items it excludes.

An adapter over a vector store often ranks the whole collection, keeps the top k (10,
50, 100, or the limit plus a margin) and applies the filter to those in its own code:
whatever the filter admits below the cut is lost. The contract ranks the items the
filter admits (B8: fetch, and recall's citations), so every one of them stays
reachable however many better items the filter excludes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import meta, run_filter
from conformance.checks.engine_writes import store_batch
from conformance.engine import (
    MetaFilter,
    Namespace,
    Reach,
    Segment,
    SegmentKind,
    StoreItem,
    document,
)

OUTRANKING = 130
"""Excluded items ranked above the admitted ones: past a cut at 100, and past a cut at
the limit plus 50 for every limit the checks ask with."""

ADMITTED = 3
"""Items the filter admits, each holding every word of the query and more: a hit in
every reading of every mode (keyword fetch needing every query word, vector fetch with a
similarity floor), ranked at best level with the items above them."""


@dataclass(frozen=True)
class Outranked:
    """The query, the filters (by label) that each admit exactly the kept items, and
    those items by id (labelled `kept1`..)."""

    query: str
    filters: dict[str, MetaFilter]
    kept: dict[str, StoreItem]


def outranked_items(
    ctx: CheckContext,
) -> tuple[str, dict[str, MetaFilter], dict[str, StoreItem], dict[str, StoreItem]]:
    """The query, the filters, the items they admit and the items above them, by label.

    `kept1`..`kept3` hold the whole query and two words more, a tag, the folder
    `/<m>/kept` and the namespace `agent:<m>-kept/agent:<m>-leaf`: a hit in every
    reading of every mode. `above1`..`above130` have the query itself as their text
    (level with the kept items or above them for a scorer counting query words, above
    them for one measuring similarity or penalising length; the reference breaks ties by
    insertion order, so they are stored first), another tag, the folder `/<m>/keptx`
    and the parent namespace. Each filter (the run's workspace and one of: the tag, the
    folder prefix, a subtree reach at the leaf) admits exactly the kept items. A store
    filters on a tag inside its ranking more often than on a path prefix or a namespace
    subtree, which an adapter tends to apply in its own code.
    """
    m = ctx.marker
    query = f"{m} amber falcon river"
    wanted = f"{m}-wanted"
    parent = Namespace.ROOT.child(Segment(SegmentKind.AGENT, f"{m}-kept"))
    leaf = parent.child(Segment(SegmentKind.AGENT, f"{m}-leaf"))
    kept: dict[str, StoreItem] = {
        f"kept{i}": document(
            f"{query} kept {i}",
            meta(ctx, tags=[wanted], folder=f"/{m}/kept/notes", namespace=leaf),
        )
        for i in range(1, ADMITTED + 1)
    }
    above: dict[str, StoreItem] = {
        f"above{i}": document(
            query, meta(ctx, tags=[f"{m}-other{i}"], folder=f"/{m}/keptx", namespace=parent)
        )
        for i in range(1, OUTRANKING + 1)
    }
    filters = {
        "tag filter": run_filter(ctx, tags_any=[wanted]),
        "folder filter": run_filter(ctx, folder=f"/{m}/kept"),
        "subtree reach": run_filter(ctx, reach=Reach.subtree(leaf)),
    }
    return query, filters, kept, above


def store_outranked(engine: Any, ctx: CheckContext) -> Outranked:
    """Store the outranked items in the run's workspace, in batches (the admitted ones
    last, in a batch of their own, so that receipts in any order name them); what a read
    of them asks for, and the ids it must answer."""
    query, filters, kept, above = outranked_items(ctx)
    store_batch(engine, ctx, above)
    stored = store_batch(engine, ctx, kept)
    return Outranked(query, filters, stored)


def outranked_clause(want: str) -> str:
    """`want`, what a read of the outranked items must answer, with why, for messages."""
    return (
        f"{want}, though {OUTRANKING} items the filter excludes rank above them (a filter "
        "applied to a top-k cut of the ranking loses what it admits)"
    )
