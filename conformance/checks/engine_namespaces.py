"""Engine check of the namespace tree: every reach admits exactly its nodes (B4's example)."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    fact,
    fetch_all,
    ids,
    list_all,
    modes,
    run_filter,
)
from conformance.engine import (
    ExploreRequest,
    Facet,
    ForgetFilter,
    GetRequest,
    Namespace,
    Reach,
    Segment,
    SegmentKind,
)


def tree(ctx: CheckContext) -> dict[str, Namespace]:
    """B4's worked example with the run's marker in every node id: R (the root),
    T (a team), W (a writer in T), H (W's helper) and E (an editor in T)."""
    m = ctx.marker
    team = Namespace.ROOT.child(Segment(SegmentKind.TEAM, f"{m}-acme"))
    writer = team.child(Segment(SegmentKind.AGENT, f"{m}-writer"))
    return {
        "R": Namespace.ROOT,
        "T": team,
        "W": writer,
        "H": writer.child(Segment(SegmentKind.AGENT, f"{m}-helper")),
        "E": team.child(Segment(SegmentKind.AGENT, f"{m}-editor")),
    }


def reaches(nodes: dict[str, Namespace]) -> list[tuple[str, Reach | None, str]]:
    """Each reader of B4's example, named, with the nodes it must admit (in `RTWHE` order)."""
    root, team, writer, helper, editor = (nodes[n] for n in "RTWHE")
    return [
        ("of(W)", Reach.of(writer), "RTW"),
        ("of(E)", Reach.of(editor), "RTE"),
        ("exact(W)", Reach.exact(writer), "W"),
        ("of(H)", Reach.of(helper), "RTWH"),
        ("subtree(W)", Reach.subtree(writer), "WH"),
        ("subtree(T)", Reach.subtree(team), "TWHE"),
        ("{at: T, inherit, descendants}", Reach(at=team, inherit=True, descendants=True), "RTWHE"),
        ("of(root)", Reach.of(root), "R"),
        ("subtree(root)", Reach.subtree(root), "RTWHE"),
        ("no reach", None, "RTWHE"),
    ]


@check(
    "engine.namespaces",
    title="Every reach admits exactly its nodes, for list, get, fetch, explore and forget",
    clause="contract-reference B4 (Namespace, Reach, worked example), B7, B10 §9",
    storage=True,
)
def assert_namespaces(engine: Any, ctx: CheckContext) -> None:
    """One learning at each node of B4's example (root, team, writer, helper, editor; the
    writer's and editor's texts equal, their ids distinct). Listing with each reach of
    the example admits exactly its nodes; get with `of(E)` answers E, T, R in the order
    asked; fetch with `of(W)` (first declared mode) answers only R, T or W; explore by
    namespace counts one per node; forget with `exact(W)` removes exactly W's item."""
    cleanup(engine, ctx)
    nodes = tree(ctx)
    tag = f"{ctx.marker}-ns"
    texts = {"R": "root", "T": "team", "W": "same", "H": "helper", "E": "same"}
    items = [fact(ctx, f"{texts[n]} shared", namespace=nodes[n], tags=[tag]) for n in nodes]
    receipts = engine.store_many(items)
    by_node = {n: r.id for n, r in zip(nodes, receipts, strict=True)}
    ctx.require(
        len(set(by_node.values())) == len(nodes),
        "store_many(5 learnings)",
        "five distinct ids (the same text at W and E is two items)",
        by_node,
    )
    node_of = {item_id: n for n, item_id in by_node.items()}

    def named(hit_ids: list[str]) -> str:
        return "".join(sorted((node_of.get(i, "?") for i in hit_ids), key="RTWHE?".index))

    for label, reach, want in reaches(nodes):
        got = named(ids(list_all(engine, ctx, run_filter(ctx, tags_any=[tag], reach=reach))))
        ctx.require(
            got == want,
            f"list(reach {label}, tag + run filter)",
            f"the items at {', '.join(want)}",
            ", ".join(got),
        )

    asked = [by_node[n] for n in "HEWTR"]
    hits = ids(engine.get(GetRequest(ids=asked, reach=Reach.of(nodes["E"]))))
    got = "".join(node_of.get(i, "?") for i in hits)
    ctx.require(
        got == "ETR",
        "get(H, E, W, T, R; reach of(E))",
        "E, T, R in the order asked (W and H are out of reach)",
        ", ".join(got),
    )

    declared = modes(engine)
    if declared:
        filter = run_filter(ctx, tags_any=[tag], reach=Reach.of(nodes["W"]))
        query = f"{ctx.marker} shared fact"
        got = named(ids(fetch_all(engine, ctx, query, declared[0], filter, 20)))
        ctx.require(
            set(got) <= set("RTW"),
            f"fetch({declared[0].value}, reach of(W))",
            "hits only at R, T or W",
            ", ".join(got),
        )

    page = engine.explore(
        ExploreRequest(facet=Facet.NAMESPACE, filter=run_filter(ctx, tags_any=[tag]), limit=10)
    )
    buckets = {bucket.value: bucket.count for bucket in page.buckets}
    want_buckets = {str(node): 1 for node in nodes.values()}
    ctx.require(
        buckets == want_buckets,
        "explore(namespace, tag + run filter)",
        f"one per node {want_buckets}",
        buckets,
    )

    report = engine.forget(
        ForgetFilter(filter=run_filter(ctx, tags_any=[tag], reach=Reach.exact(nodes["W"])))
    )
    ctx.require(
        report.forgotten == 1,
        "forget(tag + run filter, reach exact(W))",
        "forgotten 1 (the item at W)",
        report,
    )
    got = named(
        ids(
            list_all(
                engine, ctx, run_filter(ctx, tags_any=[tag], reach=Reach.subtree(Namespace.ROOT))
            )
        )
    )
    ctx.require(
        got == "RTHE",
        "list(reach subtree(root)) after the forget",
        "the items at R, T, H, E",
        ", ".join(got),
    )
