"""Engine check of explore: counts per facet value past the 10 and 100 values facet calls
commonly default to, ties cut by `limit`, items without a value, a scan cut short, and
counts after a forget."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    exchange,
    fact,
    list_all,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    BATCH_OWNER,
    require_listed,
    store_batch,
    store_each,
)
from conformance.checks.registry import check
from conformance.engine import (
    MAX_BUCKETS,
    Bucket,
    ExplorePage,
    ExploreRequest,
    Facet,
    ForgetIds,
    InvalidRequest,
    MetaFilter,
    Namespace,
    Segment,
    SegmentKind,
    SourceKind,
    SourceRef,
    StoreItem,
    ToolCallRef,
    TurnRange,
    explore_page_of,
)

VALUES = (
    ("kilo", 4),
    ("echo", 3),
    ("juliet", 2),
    ("alpha", 3),
    ("mike", 1),
    ("golf", 2),
    ("bravo", 3),
    ("delta", 1),
    ("hotel", 2),
    ("lima", 1),
    ("charlie", 2),
    ("india", 1),
    ("foxtrot", 1),
)
"""Thirteen languages (more than the 10 values facet calls commonly stop at) with their
counts, in store order: neither store order nor its reverse sorts ties by value."""

UNSET = 3
"""Items carrying no language (`missing`)."""

ALL_VALUES = 20
"""A limit above the number of values."""

CUT = 6
"""A limit that cuts the four values counted 2 after two of them."""

SCAN = 10
"""A scan limit well below the number of items."""

LISTING_PAGE = 10

FORGOTTEN = ("alpha 1", "mike 1", "unset 1")
"""The items forgotten before counting again."""

DISTINCT = 130
"""Values explored at once, one item each: past the 100 values a facet or aggregation
call commonly answers by default."""

WIDE_LIMITS = (200, 120)
"""Limits above 100: one above the number of values, and one cutting ten of them."""

WIDE_LISTING_PAGE = 200
"""The page size the valued items are listed with first: that of the contract's default
explore, so that a listing fault there is `engine.list_paging`'s to report."""


def facets_workspace(ctx: CheckContext) -> str:
    """The workspace of the items explored by every facet, inside the run's own."""
    return f"{ctx.root}/facets"


def faceted_items(ctx: CheckContext) -> dict[str, StoreItem]:
    """Four items in their own workspace, one of each kind and one with little set,
    giving every facet a value on some and none on others: two tags on one item (a
    tag facet counts an item once per tag, so its buckets add up to more than
    `total`), one tool named twice with two call ids (the facet is the tool's name),
    sources of three kinds, one of them without an id, two folders one inside the
    other, and two namespaces, the root one of them."""
    m, workspace = ctx.marker, facets_workspace(ctx)
    at = Namespace.ROOT.child(Segment(SegmentKind.AGENT, f"{m}-facets"))
    return {
        "f1": note(
            ctx,
            "faceted one",
            workspace=workspace,
            namespace=at,
            source=SourceRef(kind=SourceKind.FILE, id=f"{m}-src-a"),
            folder=f"/{m}/a",
            file_path=f"/{m}/a/one.rs",
            language=f"{m}-rust",
            repo=f"owner/{m}",
            url=f"https://{m}.test/one",
            agent_id=f"{m}-agent-1",
            tool_call=ToolCallRef(name=f"{m}-tool", id=f"{m}-call-1"),
            tags=[f"{m}-tag-a", f"{m}-tag-b"],
        ),
        "f2": exchange(
            ctx,
            "faceted two",
            workspace=workspace,
            namespace=at,
            source=SourceRef(kind=SourceKind.CONVERSATION, id=f"{m}-src-b"),
            thread_id=f"{m}-thread",
            turns=TurnRange(first=0, last=1),
            agent_id=f"{m}-agent-2",
            tool_call=ToolCallRef(name=f"{m}-tool", id=f"{m}-call-2"),
            tags=[f"{m}-tag-b"],
        ),
        "f3": fact(
            ctx,
            "faceted three",
            workspace=workspace,
            source=SourceRef(kind=SourceKind.IMPORT),
            folder=f"/{m}/a/b",
            agent_id=f"{m}-agent-1",
        ),
        "f4": note(ctx, "faceted four", workspace=workspace),
    }


def facet_page(facet: Facet, items: Mapping[str, StoreItem]) -> ExplorePage:
    """The page exploring `items` by `facet` answers: each item's values for the facet
    (the contract's own `Facet.values`) counted, `total` the items, `missing` those
    with no value."""
    counts: Counter[str] = Counter()
    missing = 0
    for item in items.values():
        values = facet.values(item.kind, item.meta)
        missing += not values
        counts.update(values)
    return explore_page_of(facet, counts, MAX_BUCKETS, len(items), missing, False)


def _require_every_facet(engine: Any, ctx: CheckContext) -> None:
    """Explore `faceted_items` by each of the 14 facets: exactly the contract's values,
    counts, `total` and `missing`. An engine aggregating server-side maps each facet
    to a stored field, and a facet whose name is not its field's (`thread`, `agent`,
    `source`, `source_id`, `tool_call`), or whose field holds several values (`tag`),
    is where that mapping goes wrong."""
    items = faceted_items(ctx)
    stored = store_batch(engine, ctx, items)
    faceted = MetaFilter(workspace=facets_workspace(ctx))
    require_listed(engine, ctx, faceted, stored, f"the {len(stored)} faceted items", LISTING_PAGE)
    for facet in Facet:
        req = ExploreRequest(facet=facet, filter=faceted, limit=MAX_BUCKETS)
        _require_page(
            ctx,
            f"explore({facet.value}, facets workspace, limit {MAX_BUCKETS})",
            engine.explore(req),
            facet_page(facet, items),
        )


def values_workspace(ctx: CheckContext) -> str:
    """The workspace of the `DISTINCT` valued items, inside the run's own."""
    return f"{ctx.root}/values"


def repo_value(ctx: CheckContext, n: int) -> str:
    """The repo of valued item `n`, labelled `r<n>` (three digits: value order is
    number order)."""
    return ctx.label(f"owner/{ctx.marker}-r{n:03d}", f"r{n:03d}")


def valued_items(ctx: CheckContext) -> dict[str, StoreItem]:
    """`DISTINCT` documents in their own workspace, each with a repo of its own, by label
    (`r000`..`r129`), stored in an order that sorts by neither value nor its reverse."""
    order = [n * 47 % DISTINCT for n in range(DISTINCT)]
    workspace = values_workspace(ctx)
    return {
        f"r{n:03d}": note(ctx, f"valued {n}", workspace=workspace, repo=repo_value(ctx, n))
        for n in order
    }


def explored_items(ctx: CheckContext) -> dict[str, StoreItem]:
    """The items by label (`kilo 1`, ..., `unset 3`), interleaved so that values with
    equal counts are not stored in value order; a mix of all three kinds."""
    items: dict[str, StoreItem] = {}
    rounds = max(count for _, count in VALUES)
    for round in range(1, rounds + 1):
        for value, count in VALUES:
            if round <= count:
                items[f"{value} {round}"] = _item(ctx, len(items), language=f"{ctx.marker}-{value}")
    for n in range(1, UNSET + 1):
        items[f"unset {n}"] = _item(ctx, len(items))
    return items


def _item(ctx: CheckContext, n: int, **fields: Any) -> StoreItem:
    label = f"explored {n}"
    if n % 5 == 1:
        return fact(ctx, label, **fields)
    if n % 7 == 3:
        return exchange(ctx, label, **fields)
    return note(ctx, label, **fields)


def expected(
    counts: Mapping[str, int], limit: int, missing: int, facet: Facet = Facet.LANGUAGE
) -> ExplorePage:
    """The exact page: largest count first, ties by value ascending, cut to `limit`."""
    ordered = sorted(counts.items(), key=lambda entry: (-entry[1], entry[0]))
    return ExplorePage(
        facet=facet,
        buckets=[Bucket(value=value, count=count) for value, count in ordered[:limit]],
        total=sum(counts.values()) + missing,
        missing=missing,
        more_buckets=max(0, len(ordered) - limit),
        truncated=False,
    )


def rendered(ctx: CheckContext, page: ExplorePage) -> str:
    """`page` on one line, values without the run's marker."""
    buckets = ", ".join(f"{b.value.removeprefix(f'{ctx.marker}-')} {b.count}" for b in page.buckets)
    return (
        f"{len(page.buckets)} buckets [{buckets}], total {page.total}, missing {page.missing}, "
        f"more_buckets {page.more_buckets}, truncated {page.truncated}"
    )


def _require_page(ctx: CheckContext, call: str, got: ExplorePage, want: ExplorePage) -> None:
    ctx.require(got == want, call, rendered(ctx, want), rendered(ctx, got))


def _require_wide_page(ctx: CheckContext, call: str, got: ExplorePage, want: ExplorePage) -> None:
    """`got` is `want`, a page of many buckets; each is summarised by its values as
    ranges of their labels (`r000–r099`)."""

    def summary(page: ExplorePage) -> str:
        counts = sorted({b.count for b in page.buckets})
        values = ctx.named([b.value for b in page.buckets])
        return (
            f"{len(page.buckets)} buckets ({values}) counting {counts}, total {page.total}, "
            f"missing {page.missing}, more_buckets {page.more_buckets}, "
            f"truncated {page.truncated}"
        )

    ctx.require(got == want, call, summary(want), summary(got))


def _require_consistent_scan(
    ctx: CheckContext, call: str, got: ExplorePage, exact: ExplorePage, items: int
) -> None:
    """A scan cut at `SCAN` items is either exact (an engine counting server-side may
    ignore `scan_limit`) or truncated and consistent with what it scanned."""
    if not got.truncated:
        _require_page(ctx, f"{call}, not truncated", got, exact)
        return
    held = {b.value: b.count for b in exact.buckets}
    counts = [b.count for b in got.buckets]
    order = [(-b.count, b.value) for b in got.buckets]
    faults = [
        (got.facet is Facet.LANGUAGE, "the facet echoed"),
        (SCAN <= got.total < items, f"total between scan_limit {SCAN} and {items - 1}"),
        (got.missing <= exact.missing, f"missing at most {exact.missing}"),
        (len(got.buckets) <= ALL_VALUES, f"at most {ALL_VALUES} buckets"),
        (order == sorted(order), "buckets largest first, ties by value ascending"),
        (
            all(b.value in held and b.count <= held[b.value] for b in got.buckets),
            "every bucket a stored value, counting at most what is stored",
        ),
        (
            sum(counts) + got.missing <= got.total
            and (got.more_buckets > 0 or sum(counts) + got.missing == got.total),
            "bucket counts and missing adding up to total (one language per item)",
        ),
    ]
    for holds, what in faults:
        ctx.require(holds, f"{call}, truncated", what, rendered(ctx, got))


@check(
    "engine.explore",
    title="Explore counts every value, orders and cuts buckets exactly, and says what it left out",
    clause=(
        "engine-operations.md#explore, engine-operations.md#explore-narrow, "
        "filters-and-reach.md#facets"
    ),
    storage=True,
)
def assert_explore(engine: Any, ctx: CheckContext) -> None:
    """Over 29 items, 26 carrying one of 13 languages and 3 none: explore by language
    answers all 13 buckets, largest first and ties by value ascending, with `total` 29
    and `missing` 3; a `limit` of 6 cuts inside a tie, keeping the lesser values, with
    `more_buckets` 7; a `scan_limit` of 10 answers either the exact counts untruncated or
    a consistent truncated count of at least 10 items; after forgetting three items the
    counts drop by them. Explore by kind counts each kind, and each bucket narrowed
    into the filter lists its count; by workspace, one bucket. Over 130 items each with
    a repo of its own, explore by repo with a limit of 200 answers all 130 buckets in
    value order, and with a limit of 120 the first 120 with `more_buckets` 10. Over
    four items giving every facet a value on some (two tags on one, a tool named twice
    with two call ids, sources of three kinds, an agent node and the root),
    explore by each of the 14 facets answers the contract's values, counts, `total`
    (items, not tags) and `missing`. A limit of 0 is `InvalidRequest`."""
    cleanup(engine, ctx, values_workspace(ctx), facets_workspace(ctx))
    items = explored_items(ctx)
    stored = store_each(engine, ctx, items)
    scope = run_filter(ctx)
    require_listed(engine, ctx, scope, stored, f"the {len(stored)} explored items", LISTING_PAGE)
    counts = {f"{ctx.marker}-{value}": count for value, count in VALUES}

    def explore(facet: Facet, limit: int, **fields: Any) -> tuple[str, ExplorePage]:
        req = ExploreRequest(facet=facet, filter=scope, limit=limit, **fields)
        extra = "".join(f", {key} {value}" for key, value in fields.items())
        return f"explore({facet.value}, run filter, limit {limit}{extra})", engine.explore(req)

    exact = expected(counts, ALL_VALUES, UNSET)
    _require_page(ctx, *explore(Facet.LANGUAGE, ALL_VALUES), exact)
    _require_page(ctx, *explore(Facet.LANGUAGE, CUT), expected(counts, CUT, UNSET))
    call, page = explore(Facet.LANGUAGE, ALL_VALUES, scan_limit=SCAN)
    _require_consistent_scan(ctx, call, page, exact, len(stored))

    kinds = Counter(item.kind.value for item in items.values())
    call, page = explore(Facet.KIND, 10)
    _require_page(ctx, call, page, expected(kinds, 10, 0, Facet.KIND))
    for bucket in page.buckets:
        narrowed = run_filter(ctx)
        Facet.KIND.narrow(narrowed, bucket.value)
        listed = list_all(engine, ctx, narrowed, LISTING_PAGE)
        ctx.require(
            len(listed) == bucket.count,
            f"list(kinds=[{bucket.value}] + run filter)",
            f"{bucket.count} items (the bucket's count)",
            f"{len(listed)} items",
        )
    call, page = explore(Facet.WORKSPACE, 10)
    _require_page(ctx, call, page, expected({ctx.root: len(stored)}, 10, 0, Facet.WORKSPACE))

    by_label = {label: item_id for item_id, label in ctx.labels.items()}
    doomed = [by_label[label] for label in FORGOTTEN]
    with ctx.precondition("engine.forget_by_id", "forgetting three explored items"):
        report = engine.forget(ForgetIds(ids=doomed))
        ctx.require(
            report.forgotten == len(doomed),
            f"forget({ctx.named(doomed)})",
            f"forgotten {len(doomed)}",
            report,
        )
    counts[f"{ctx.marker}-alpha"] -= 1
    del counts[f"{ctx.marker}-mike"]
    call, page = explore(Facet.LANGUAGE, ALL_VALUES)
    _require_page(
        ctx,
        f"{call} after forgetting {', '.join(FORGOTTEN)}",
        page,
        expected(counts, ALL_VALUES, UNSET - 1),
    )

    wide = store_batch(engine, ctx, valued_items(ctx))
    valued = MetaFilter(workspace=values_workspace(ctx))
    what = f"the {DISTINCT} valued items"
    require_listed(engine, ctx, valued, wide, what, WIDE_LISTING_PAGE, writer=BATCH_OWNER)
    repos = {repo_value(ctx, n): 1 for n in range(DISTINCT)}
    for limit in WIDE_LIMITS:
        req = ExploreRequest(facet=Facet.REPO, filter=valued, limit=limit)
        want = expected(repos, limit, 0, Facet.REPO)
        _require_wide_page(
            ctx, f"explore(repo, values workspace, limit {limit})", engine.explore(req), want
        )
    _require_every_facet(engine, ctx)

    ctx.refused(
        "explore(kind, limit 0)",
        lambda: engine.explore(ExploreRequest(facet=Facet.KIND, filter=scope, limit=0)),
        InvalidRequest,
        "InvalidRequest (explore limit must be between 1 and 500)",
    )
