"""Engine check of the namespace tree: every reach admits exactly its nodes (B4's example),
on segment boundaries, not string prefixes (`agent:x-a` is no ancestor of `agent:x-ab`)."""

from __future__ import annotations

from typing import Any

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
from conformance.checks.engine_writes import (
    require_listed,
    store_each,
)
from conformance.checks.registry import check
from conformance.engine import (
    ExploreRequest,
    Facet,
    ForgetFilter,
    GetRequest,
    MetaFilter,
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
        # The root read alone: an adapter whose store reads an empty prefix as every
        # namespace (a LangGraph `namespace_prefix` of `()`) admits the whole tree.
        ("exact(root)", Reach.exact(root), "R"),
        ("subtree(root)", Reach.subtree(root), "RTWHE"),
        ("no reach", None, "RTWHE"),
    ]


def near_misses(ctx: CheckContext) -> dict[str, Namespace]:
    """Nodes whose paths are string prefixes of one another without being ancestors:
    `a`, `ab` and `a-b` side by side, then four levels below `a` with a sibling at each
    depth whose id extends the node's (`s`/`s2`, `t`/`t-1`, `u`/`uu`), and `ab/s`; and
    `a_b` beside `aXb`, each with a child `s`, which only a `_` read as a wildcard mixes."""

    def agent(parent: Namespace, name: str) -> Namespace:
        return parent.child(Segment(SegmentKind.AGENT, name))

    m = ctx.marker
    a = agent(Namespace.ROOT, f"{m}-a")
    ab = agent(Namespace.ROOT, f"{m}-ab")
    s = agent(a, "s")
    t = agent(s, "t")
    a_b = agent(Namespace.ROOT, f"{m}-a_b")
    a_x_b = agent(Namespace.ROOT, f"{m}-aXb")
    return {
        "root": Namespace.ROOT,
        "a": a,
        "ab": ab,
        "a-b": agent(Namespace.ROOT, f"{m}-a-b"),
        "a/s": s,
        "a/s2": agent(a, "s2"),
        "a/s/t": t,
        "a/s/t-1": agent(s, "t-1"),
        "a/s/t/u": agent(t, "u"),
        "a/s/t/uu": agent(t, "uu"),
        "ab/s": agent(ab, "s"),
        # `_` is a wildcard to SQL LIKE: `subtree(a_b)` as `LIKE 'a_b/%'` admits `aXb/s`.
        "a_b": a_b,
        "a_b/s": agent(a_b, "s"),
        "aXb": a_x_b,
        "aXb/s": agent(a_x_b, "s"),
    }


NEAR_MISS_READS: tuple[tuple[str, str, str], ...] = (
    ("of", "a/s/t", "root a a/s a/s/t"),
    ("of", "a/s/t-1", "root a a/s a/s/t-1"),
    ("of", "ab", "root ab"),
    ("of", "a-b", "root a-b"),
    ("of", "ab/s", "root ab ab/s"),
    ("exact", "a", "a"),
    ("exact", "a/s", "a/s"),
    ("exact", "a/s/t", "a/s/t"),
    ("subtree", "a", "a a/s a/s2 a/s/t a/s/t-1 a/s/t/u a/s/t/uu"),
    ("subtree", "a/s", "a/s a/s/t a/s/t-1 a/s/t/u a/s/t/uu"),
    ("subtree", "a/s/t", "a/s/t a/s/t/u a/s/t/uu"),
    ("subtree", "a/s/t/u", "a/s/t/u"),
    ("subtree", "a_b", "a_b a_b/s"),
    ("of", "aXb/s", "root aXb aXb/s"),
)
"""Reads of `near_misses`: the reach, its node, and the nodes it admits."""

SUBTREE_FORGOTTEN = ("a/s/t", "a/s/t/u", "a/s/t/uu")
"""The near misses a forget by `subtree(a/s/t)` alone removes (not `a/s/t-1`)."""

_REACH = {"of": Reach.of, "exact": Reach.exact, "subtree": Reach.subtree}


@check(
    "engine.namespaces",
    title="Every reach admits exactly its nodes, on segment boundaries, for list, get, fetch, "
    "explore and forget",
    clause=(
        "filters-and-reach.md#namespace-tree, filters-and-reach.md#reach, "
        "filters-and-reach.md#reach-worked-example, engine-operations.md#get, "
        "engine-operations.md#forget-filter, filters-and-reach.md#facets"
    ),
    storage=True,
)
def assert_namespaces(engine: Any, ctx: CheckContext) -> None:
    """One learning at each node of the reach worked example (root, team, writer, helper,
    editor; the writer's and editor's texts equal, their ids distinct). Listing with each
    reach of the example, and with `exact(root)`, admits exactly its nodes; get with
    `of(E)` answers E, T, R in the order asked; fetch with `of(W)` (first declared
    mode) answers only R, T or W; explore by namespace counts one per node; forget with
    `exact(W)` removes exactly W's item.
    Then one learning at each of eleven nodes whose ids are string prefixes of their
    siblings' (`a`, `ab`, `a-b`, and siblings at depths 2 to 4): `of`, `exact` and
    `subtree` each admit exactly their nodes and none of the near misses, and forget
    with `exact(a)` removes `a`'s item alone; a forget whose filter holds only the reach
    `subtree(a/s/t)` removes the three items there and nothing else (not `a/s/t-1`'s)."""
    cleanup(engine, ctx)
    _worked_example(engine, ctx)
    _near_misses(engine, ctx)


def _worked_example(engine: Any, ctx: CheckContext) -> None:
    nodes = tree(ctx)
    tag = f"{ctx.marker}-ns"
    texts = {"R": "root", "T": "team", "W": "same", "H": "helper", "E": "same"}
    items = [fact(ctx, f"{texts[n]} shared", namespace=nodes[n], tags=[tag]) for n in nodes]
    by_node = {n: ctx.label(engine.store(item).id, n) for n, item in zip(nodes, items, strict=True)}
    ctx.require(
        by_node["W"] != by_node["E"],
        "store(W's learning), store(E's learning)",
        "two distinct ids (the same text at W and E is two items: namespace is identity)",
        f"one id for both, {by_node['W']!r}",
    )
    stored = {by_node[n]: item for n, item in zip(nodes, items, strict=True)}
    tagged = run_filter(ctx, tags_any=[tag])
    require_listed(engine, ctx, tagged, stored, "the five example items")
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
    ctx.require_ids(
        "get(H, E, W, T, R; reach of(E))",
        hits,
        [by_node[n] for n in "ETR"],
        "E, T, R in the order asked (W and H are out of reach)",
        ordered=True,
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

    _forget_exactly(engine, ctx, tag, nodes["W"], "W", "the item at W")
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


def _near_misses(engine: Any, ctx: CheckContext) -> None:
    nodes = near_misses(ctx)
    tag = f"{ctx.marker}-near"
    items = {
        name: fact(ctx, f"near miss {i}", namespace=node, tags=[tag])
        for i, (name, node) in enumerate(nodes.items())
    }
    stored = store_each(engine, ctx, items)
    at = {ctx.labels[item_id]: item_id for item_id in stored}
    tagged = run_filter(ctx, tags_any=[tag])
    require_listed(engine, ctx, tagged, stored, f"the {len(stored)} near-miss items")
    for how, node, want in NEAR_MISS_READS:
        reach = _REACH[how](nodes[node])
        got = ids(list_all(engine, ctx, run_filter(ctx, tags_any=[tag], reach=reach)))
        ctx.require_ids(
            f"list(reach {how}({node}), tag + run filter)",
            got,
            [at[name] for name in want.split()],
            f"the items at {want.replace(' ', ', ')}",
        )
    _forget_exactly(engine, ctx, tag, nodes["a"], "a", "the item at a, not ab or a-b")
    # A filter holding only a reach is not empty: it must remove that reach's items,
    # neither be refused as empty nor, with the reach dropped, remove everything.
    # Safe outside the run's workspace: every node below `a` is named by the marker.
    report = engine.forget(ForgetFilter(filter=MetaFilter(reach=Reach.subtree(nodes["a/s/t"]))))
    ctx.require(
        report.forgotten == len(SUBTREE_FORGOTTEN),
        "forget({reach: subtree(a/s/t)}, nothing else)",
        f"forgotten {len(SUBTREE_FORGOTTEN)} (the items at {', '.join(SUBTREE_FORGOTTEN)})",
        report,
    )
    left = ids(list_all(engine, ctx, tagged))
    gone = {"a", *SUBTREE_FORGOTTEN}
    ctx.require_ids(
        "list(tag + run filter) after the forgets",
        left,
        [item_id for name, item_id in at.items() if name not in gone],
        "every near-miss item but those at a and in subtree(a/s/t)",
    )


def _forget_exactly(
    engine: Any, ctx: CheckContext, tag: str, node: Namespace, name: str, what: str
) -> None:
    """Forget by the tag and `exact(node)`, which must remove one item: `what`."""
    reach = Reach.exact(node)
    report = engine.forget(ForgetFilter(filter=run_filter(ctx, tags_any=[tag], reach=reach)))
    ctx.require(
        report.forgotten == 1,
        f"forget(tag + run filter, reach exact({name}))",
        f"forgotten 1 ({what})",
        report,
    )
