"""Provider checks of what recall's order and scores mean: best first, and `min_score`."""

from __future__ import annotations

import math
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.provider_support import (
    RECALL_OWNER,
    Row,
    keys_of,
    named_keys,
    ns,
    put_rows,
    require_relied_on,
)
from conformance.checks.registry import check
from conformance.checks.still import still_store
from conformance.provider import OwnedRecallOpts
from conformance.readings import first_rise

RANKED_QUERY = "amber lantern"
# The exact match sits in the middle of key and insertion order, so neither order, nor
# a reversed ranking, puts it first by accident. Every other entry holds the query as a
# substring (a substring matcher finds all five) but one of its words only inside a
# longer word no stemmer reduces to it (`lanternlight`, `chamber`): a scorer counting
# query words ranks the exact match strictly first, so even with no scores shown a tie
# cannot hide a ranking that puts another entry first.
RANKED = (
    ("r1", "the amber lanternlight swung above the north gate of the harbour all night"),
    ("r2", "a chamber lantern was found on the quay"),
    ("r3", RANKED_QUERY),
    ("r4", "amber lanternfish drift across the water"),
    ("r5", "they lit the camber lantern at dusk, as the fishermen always did"),
)
EXACT = "r3"


def _score(hit: Any) -> float | None:
    score = hit.score
    return None if score is None or math.isnan(score) else float(score)


@check(
    "provider.recall_ranks_best_first",
    title="Recall is best first: an entry equal to the query leads, scores never rise",
    clause="provider-families.md#recall-best-first",
    storage=True,
)
def assert_recall_ranks_best_first(provider: Any, ctx: CheckContext) -> None:
    """Among five entries holding the query as a substring, the one whose content
    equals it is a hit and the first hit (or, when the driver scores, ties the first
    hit's score), and scores, where given, do not increase down the list (higher is
    better, at any scale). Which of the other four match is the driver's (each holds
    one query word only inside a longer word, so a scorer counting words ranks them
    below the exact match, or misses them).

    Catches a ranking that is reversed (an L2 distance sorted as a similarity) or that
    follows key or insertion order.
    """
    namespace = ns(ctx, "ranked")
    put_rows(provider, ctx, [Row(namespace, key, text) for key, text in RANKED])
    call = f"recall({RANKED_QUERY!r}, 10, namespace={namespace!r})"
    hits = provider.recall(RANKED_QUERY, 10, OwnedRecallOpts(namespace=namespace), None)
    every = named_keys(ctx, [k for k, _ in RANKED])
    got = keys_of(ctx, hits)
    ctx.require(
        EXACT in got,
        call,
        f"{EXACT} (content {RANKED_QUERY!r}, equal to the query) among the hits, to judge",
        f"{ctx.named(got)}" if got else "no hits",
    )
    some = [key for key in every if key in got]
    require_relied_on(ctx, RECALL_OWNER, call, got, some, "only entries of the namespace, once")
    scored = [(h.key, score) for h in hits if (score := _score(h)) is not None]
    rise = first_rise([score for _, score in scored])
    if rise is not None:
        (above, high), (below, low) = scored[max(rise - 1, 0)], scored[rise]
        ctx.fail(
            call,
            "scores that do not increase down the list (best first)",
            f"{above} scored {high!r}, then {below} scored {low!r}",
        )
    first, exact = hits[0], next(h for h in hits if h.key == EXACT)
    tied = _score(first) is not None and _score(first) == _score(exact)
    ctx.require(
        first.key == EXACT or tied,
        call,
        f"{EXACT} (content {RANKED_QUERY!r}, equal to the query) as the first hit",
        f"{first.key} first, {EXACT} at position {hits.index(exact) + 1}: "
        f"{[(h.key, h.score) for h in hits]}",
    )


MIN_SCORE_QUERY = "cobalt"
SCORED = (
    ("m1", "a cobalt kettle left on the old iron stove in the back kitchen"),
    ("m2", "a cobalt kettle on the stove"),
    ("m3", "cobalt kettle"),
    ("m4", "cobalt"),
)
"""Best last by key: a driver that stops scanning at the first entry below `min_score`
(a `break` for a `continue`) loses every entry after it."""


@check(
    "provider.recall_honours_min_score",
    title="min_score drops the hits scoring below it and keeps those at or above it",
    clause="provider-families.md#recall-min-score",
    storage=True,
    whole_store=True,
)
def assert_recall_honours_min_score(provider: Any, ctx: CheckContext) -> None:
    """Scores are read from the driver's own unfiltered recall, then:

    - with `min_score` equal to the second-lowest distinct score, exactly the hits
      scoring at or above it come back (the bound is inclusive) and the lowest is gone;
    - with `min_score` above the best score, nothing comes back.

    A driver that gives no scores (`None`) cannot be held to a threshold: then recall
    with a `min_score` must still answer, with hits drawn from the unfiltered ones, each
    once. A driver scoring every hit alike is held to the second rule only.
    """
    namespace = ns(ctx, "min-score")
    put_rows(provider, ctx, [Row(namespace, key, text) for key, text in SCORED])
    every = named_keys(ctx, [k for k, _ in SCORED])

    # Scores may weigh what the whole store holds (BM25): no write may move them between
    # the unfiltered recall and the filtered ones.
    with still_store():
        _hold_min_score(provider, ctx, namespace, every)


def _hold_min_score(provider: Any, ctx: CheckContext, namespace: str, every: list[str]) -> None:
    """The recalls of `assert_recall_honours_min_score`, over the entries it wrote."""

    def recall(min_score: float | None) -> tuple[str, list[Any]]:
        opts = OwnedRecallOpts(namespace=namespace, min_score=min_score)
        call = f"recall({MIN_SCORE_QUERY!r}, 10, namespace={namespace!r}, min_score={min_score!r})"
        return call, provider.recall(MIN_SCORE_QUERY, 10, opts, None)

    call, hits = recall(None)
    require_relied_on(ctx, RECALL_OWNER, call, keys_of(ctx, hits), every, "the four entries")
    scores = {h.key: _score(h) for h in hits}
    given = {key: score for key, score in scores.items() if score is not None}
    if len(given) < len(scores):
        call, filtered = recall(0.5)
        got = keys_of(ctx, filtered)
        ctx.require_ids(call, got, [k for k in dict.fromkeys(got) if k in every], "hits")
        return
    distinct = sorted(set(given.values()))
    if len(distinct) > 1:
        bound = distinct[1]
        call, filtered = recall(bound)
        want = [key for key, score in given.items() if score >= bound]
        ctx.require_ids(
            call,
            keys_of(ctx, filtered),
            want,
            f"exactly the hits scoring at or above {bound!r} (unfiltered scores {given})",
        )
        low = [(h.key, h.score) for h in filtered if _score(h) is None or h.score < bound]
        ctx.require(not low, call, f"every hit scoring at least {bound!r}", f"{low}")
    best = distinct[-1]
    above = best + (abs(best) or 1.0) / 2
    call, filtered = recall(above)
    ctx.require(
        filtered == [],
        call,
        f"[] (the best unfiltered score is {best!r})",
        f"{[(h.key, h.score) for h in filtered]}",
    )
