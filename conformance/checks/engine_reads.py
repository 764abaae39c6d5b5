"""Engine checks of the reads beside list: explore counts, get by id, recall citations."""

from __future__ import annotations

from collections import Counter
from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    SEEDED_KINDS,
    cleanup,
    ids,
    list_all,
    run_filter,
    seed,
)
from conformance.engine import (
    ExploreRequest,
    Facet,
    GetRequest,
    InvalidRequest,
    RecallRequest,
)


@check(
    "engine.explore",
    title="Explore counts what a listing holds, per facet value",
    clause="contract-reference B6 (ExploreRequest), B7 (Facet, narrow), B10 §4",
    storage=True,
)
def assert_explore(engine: Any, ctx: CheckContext) -> None:
    """Explore by kind echoes the facet, is not truncated, totals what the run lists, and
    its buckets equal the per-kind counts of the listing, largest first; each bucket,
    narrowed into the filter, lists exactly its count. Explore by workspace gives one
    bucket holding everything and none missing. A limit of 0 is `InvalidRequest`."""
    cleanup(engine, ctx)
    seed(engine, ctx)
    listed = list_all(engine, ctx, run_filter(ctx))
    ctx.require(
        len(listed) == sum(SEEDED_KINDS.values()),
        "list(run filter)",
        f"the {sum(SEEDED_KINDS.values())} seeded items",
        ids(listed),
    )
    want = {kind.value: count for kind, count in Counter(hit.kind for hit in listed).items()}

    page = engine.explore(ExploreRequest(facet=Facet.KIND, filter=run_filter(ctx), limit=10))
    call = "explore(kind, run filter, limit 10)"
    ctx.require(page.facet is Facet.KIND, call, "facet kind echoed", page.facet)
    ctx.require(not page.truncated, call, "truncated=False", page.truncated)
    ctx.require(page.total == len(listed), call, f"total {len(listed)} (as listed)", page.total)
    got = {bucket.value: bucket.count for bucket in page.buckets}
    ctx.require(got == want, call, f"buckets {want} (the listing's counts)", got)
    counts = [bucket.count for bucket in page.buckets]
    ctx.require(counts == sorted(counts, reverse=True), call, "counts largest first", counts)
    ctx.require(
        page.more_buckets == 0, call, "more_buckets 0 (3 kinds, limit 10)", page.more_buckets
    )
    for bucket in page.buckets:
        narrowed = run_filter(ctx)
        Facet.KIND.narrow(narrowed, bucket.value)
        hits = list_all(engine, ctx, narrowed)
        ctx.require(
            len(hits) == bucket.count,
            f"list(kinds=[{bucket.value}] + run filter)",
            f"{bucket.count} items (the bucket's count)",
            ids(hits),
        )

    page = engine.explore(ExploreRequest(facet=Facet.WORKSPACE, filter=run_filter(ctx), limit=10))
    call = "explore(workspace, run filter, limit 10)"
    got = {bucket.value: bucket.count for bucket in page.buckets}
    ctx.require(
        got == {ctx.root: len(listed)},
        call,
        f"one bucket, the run's workspace, counting {len(listed)}",
        got,
    )
    ctx.require(page.missing == 0, call, "missing 0", page.missing)
    ctx.refused(
        "explore(kind, limit 0)",
        lambda: engine.explore(ExploreRequest(facet=Facet.KIND, filter=run_filter(ctx), limit=0)),
        InvalidRequest,
        "InvalidRequest (explore limit must be between 1 and 500)",
    )


@check(
    "engine.get",
    title="get answers the known ids, in the order asked",
    clause="contract-reference B6 (GetRequest), B7 (get), B10 §5",
    storage=True,
)
def assert_get(engine: Any, ctx: CheckContext) -> None:
    """get of the listed ids reversed, with an unknown id inserted, answers exactly the
    known ids in the asked order, each hit equal to its listing (id, kind, meta, text);
    get of no ids is `InvalidRequest`."""
    cleanup(engine, ctx)
    seed(engine, ctx)
    listed = {hit.id: hit for hit in list_all(engine, ctx, run_filter(ctx))}
    ctx.require(
        len(listed) == sum(SEEDED_KINDS.values()),
        "list(run filter)",
        f"the {sum(SEEDED_KINDS.values())} seeded items",
        list(listed),
    )
    known = list(reversed(listed))
    asked = [*known[:1], f"{ctx.marker}-missing", *known[1:]]
    hits = engine.get(GetRequest(ids=asked))
    call = f"get({len(asked)} ids, one unknown)"
    ctx.require(
        ids(hits) == known, call, f"exactly the known ids in asked order {known}", ids(hits)
    )
    for hit in hits:
        held = listed[hit.id]
        shape = (hit.id, hit.kind, hit.meta, hit.text)
        ctx.require(
            shape == (held.id, held.kind, held.meta, held.text),
            call,
            f"the hit as listed: {held!r}",
            repr(hit),
        )
    ctx.refused(
        "get([])",
        lambda: engine.get(GetRequest(ids=[])),
        InvalidRequest,
        "InvalidRequest (get takes between 1 and 200 ids)",
    )


@check(
    "engine.recall",
    title="Recall answers, citing items that list with the same kind",
    clause="contract-reference B6 (RecallRequest, Citation), B8 (recall), B10 §12",
    storage=True,
)
def assert_recall(engine: Any, ctx: CheckContext) -> None:
    """Recall of the run's marker (limit 5, run filter) answers non-blank text with 1 to 5
    citations, each naming an item the run lists, with that item's kind."""
    cleanup(engine, ctx)
    seed(engine, ctx)
    listed = {hit.id: hit.kind for hit in list_all(engine, ctx, run_filter(ctx))}
    answer = engine.recall(RecallRequest(question=ctx.marker, filter=run_filter(ctx), limit=5))
    call = "recall(marker, limit 5, run filter)"
    ctx.require(bool(answer.answer.strip()), call, "a non-blank answer", repr(answer.answer))
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
            f"{citation.id} ({citation.kind.value})",
        )
