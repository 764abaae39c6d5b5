"""Engine checks of fetch itself: ranked hits come best first, and an undeclared mode is
refused."""

from __future__ import annotations

from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    FETCH_OWNER,
    cleanup,
    fetch_all,
    meta,
    modes,
    require_a_mode,
    run_filter,
)
from conformance.checks.engine_writes import (
    store_each,
)
from conformance.checks.registry import check
from conformance.engine import FetchMode, FetchRequest, Hit, StoreItem, Unsupported, document
from conformance.readings import first_rise

WHOLE = 100
"""A page larger than the ranking, so it arrives in one page."""

SMALL_PAGE = 2
"""A page size that spreads the ranking over several pages."""


def ranked_items(ctx: CheckContext) -> tuple[str, dict[str, StoreItem]]:
    """The query, and documents by label: `exact` holds the query and nothing else; the
    others share fewer of its words, or none. `exact` is stored neither first nor last,
    so neither insertion order nor its reverse puts it first."""
    m = ctx.marker
    query = f"{m} amber falcon river"
    texts = {
        "one word": f"{m} quartz meadow lantern",
        "three words": f"{m} amber falcon",
        "unrelated": "granite orchard",
        "exact": query,
        "two words": f"{m} amber",
        "two words, no marker": "amber river stone",
        "unrelated too": "quartz meadow lantern",
    }
    return query, {label: document(text, meta(ctx)) for label, text in texts.items()}


def _require_best_first(ctx: CheckContext, call: str, hits: list[Hit], exact: str) -> None:
    with ctx.precondition(FETCH_OWNER, f"paging {call}"):
        ctx.require_ids(
            call, [h.id for h in hits], list(dict.fromkeys(h.id for h in hits)), "each hit once"
        )
    ctx.require(
        bool(hits) and hits[0].id == exact,
        call,
        "the item whose text equals the query as the first hit",
        f"first {ctx.named([hits[0].id])} (score {hits[0].score!r}), "
        f"then {ctx.named([h.id for h in hits[1:]])}"
        if hits
        else "no hits",
    )
    rise = first_rise([hit.score for hit in hits])
    if rise is not None:
        above, below = hits[rise - 1] if rise else hits[rise], hits[rise]
        ctx.fail(
            call,
            "scores that never increase down the ranking (best first)",
            f"{ctx.named([above.id])} at {max(rise, 1)} scored {above.score!r}, "
            f"{ctx.named([below.id])} at {rise + 1} scored {below.score!r}",
        )


@check(
    "engine.ranking",
    per_mode=True,
    title="Ranked hits come best first, in every declared mode",
    clause="engine-operations.md#fetch-best-first, engine-operations.md#fetch",
    storage=True,
)
def assert_ranking(engine: Any, ctx: CheckContext) -> None:
    """Among seven documents sharing more, fewer or none of the query's words, the one
    whose text equals the query is the first hit in every declared mode, and scores never
    increase down the ranking: in one page, and across pages of two (any scale or sign;
    higher is better)."""
    declared = require_a_mode(engine, ctx)
    cleanup(engine, ctx)
    query, items = ranked_items(ctx)
    stored = store_each(engine, ctx, items)
    exact = next(item_id for item_id in stored if ctx.labels[item_id] == "exact")
    scope = run_filter(ctx)
    for mode in declared:
        for limit in (WHOLE, SMALL_PAGE):
            hits = fetch_all(engine, ctx, query, mode, scope, limit)
            _require_best_first(ctx, f"fetch(query, {mode.value}) {limit} at a time", hits, exact)


@check(
    "engine.unsupported_modes",
    title="A fetch mode the engine does not declare is refused as Unsupported",
    clause="engine-operations.md#descriptor, engine-operations.md#fetch-modes",
)
def assert_unsupported_modes(engine: Any, ctx: CheckContext) -> None:
    """Every fetch mode missing from the descriptor's `fetch_modes` is refused with
    `Unsupported`, not served and not refused otherwise."""
    declared = modes(engine)
    for mode in FetchMode:
        if mode in declared:
            continue
        req = FetchRequest(query=ctx.marker, mode=mode, filter=run_filter(ctx), limit=5)
        ctx.refused(
            f"fetch(marker, {mode.value}, limit 5)",
            partial(engine.fetch, req),
            Unsupported,
            f"Unsupported (the engine does not declare {mode.value} fetch)",
        )
