"""What an engine check writes, and how it reads its own writes back.

Storing distinct items and listing them back are what most checks rely on, not what
they test: a fault there is reported by the check that owns the operation (identity by
`engine.replay`, listing by `engine.list_paging`), and the relying check ends
inconclusive. An item the engine does not hold at all is the relying check's failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    LIST_OWNER,
    LIST_PAGE,
    describe_filter,
    exchange,
    fact,
    ids,
    list_all,
    note,
)
from conformance.checks.evidence import name_ids, show
from conformance.engine import Hit, Learning, MetaFilter, StoreItem, to_f32

IDENTITY_OWNER = "engine.replay"
"""The check that owns identity: distinct items get distinct ids."""


def seed(engine: Any, ctx: CheckContext) -> dict[str, StoreItem]:
    """Store six items in the run's workspace (3 documents, 2 learnings, 1 conversation,
    so every kind has its own count), labelled `s1`..`s6`; their ids in store order,
    each with its item."""
    items: list[StoreItem] = [
        note(ctx, "seed one"),
        note(ctx, "seed two"),
        note(ctx, "seed three"),
        fact(ctx, "seed four"),
        fact(ctx, "seed five", 0.5),
        exchange(ctx, "seed six"),
    ]
    return store_each(engine, ctx, {f"s{i}": item for i, item in enumerate(items, 1)})


def store_each(
    engine: Any, ctx: CheckContext, items: Mapping[str, StoreItem]
) -> dict[str, StoreItem]:
    """Store each of `items` (distinct items, by label), label its receipt id, and return
    the items by id in store order.

    Distinct items must get distinct ids; that is `engine.replay`'s to report.
    """
    stored: dict[str, StoreItem] = {}
    for label, item in items.items():
        receipt = engine.store(item)
        with ctx.precondition(IDENTITY_OWNER, f"storing {len(items)} distinct items"):
            ctx.require(
                receipt.id not in stored,
                f"store({label})",
                "an id of its own (a distinct item)",
                f"{show(receipt.id)}, the id of {ctx.named([receipt.id])}",
            )
        stored[ctx.label(receipt.id, label)] = item
    return stored


def require_listed(
    engine: Any,
    ctx: CheckContext,
    filter: MetaFilter,
    stored: Mapping[str, StoreItem],
    what: str,
    limit: int = LIST_PAGE,
) -> list[Hit]:
    """The listing of `filter`, which must hold exactly the ids of `stored`, each once.

    Listing its own writes is a precondition of the calling check: a listing that
    repeats items, or misses items the engine holds (storing one again is a replay of
    its id), is `engine.list_paging`'s to report. An item the engine does not hold, or
    one the check did not write, is the calling check's failure.
    """
    hits = list_all(engine, ctx, filter, limit)
    got = ids(hits)
    call = f"list({describe_filter(filter)})"
    missing = [item_id for item_id in stored if item_id not in set(got)]
    if missing:
        require_held(engine, ctx, stored, missing)
    _require_no_strays(ctx, call, hits, set(stored), what)
    with ctx.precondition(LIST_OWNER, f"listing {what}"):
        ctx.require_ids(call, got, list(stored), f"exactly {what}, each once")
    return hits


def identify(
    engine: Any,
    ctx: CheckContext,
    filter: MetaFilter,
    items: Mapping[str, StoreItem],
    what: str,
    limit: int = LIST_PAGE,
) -> dict[str, str]:
    """The id each of `items` (by label, each text its own) lists under, read from the
    listing of `filter` by text and labelled; the listing must hold exactly them, as
    `require_listed` demands (for writes whose ids are what the check tests)."""
    hits = list_all(engine, ctx, filter, limit)
    by_text: dict[str, str] = {}
    for hit in hits:
        by_text.setdefault(hit.text, hit.id)
    found = {
        label: ctx.label(by_text[item.render_text()], label)
        for label, item in items.items()
        if item.render_text() in by_text
    }
    unlisted = [label for label in items if label not in found]
    if unlisted:
        require_held(engine, ctx, items, unlisted, by_label=True)
    call = f"list({describe_filter(filter)})"
    known = set(found.values())
    _require_no_strays(ctx, call, hits, known, what)
    with ctx.precondition(LIST_OWNER, f"listing {what}"):
        ctx.require_ids(call, ids(hits), list(found.values()), f"exactly {what}, each once")
        ctx.require(
            not unlisted,
            call,
            f"all of {what}",
            f"got {len(found)} of {len(items)}; missing "
            + name_ids(unlisted, {label: label for label in unlisted}),
        )
    return found


def _require_no_strays(
    ctx: CheckContext, call: str, hits: Sequence[Hit], known: set[str], what: str
) -> None:
    """Fail if `hits` hold items the check did not write (a copy, say), showing the first."""
    strays = [hit for hit in hits if hit.id not in known]
    if strays:
        first = strays[0]
        ctx.fail(
            call,
            f"only {what}",
            f"{len(strays)} more: {ctx.named([h.id for h in strays])}; the first has text "
            f"{show(first.text)} and metadata {show(first.meta.model_dump(mode='json'))}",
        )


def require_held(
    engine: Any,
    ctx: CheckContext,
    stored: Mapping[str, StoreItem],
    missing: Sequence[str],
    *,
    by_label: bool = False,
) -> None:
    """A read missed `missing`, keys of `stored` (ids, or labels `by_label`): fail unless
    the engine holds them (storing the first again replays it, under its id)."""
    labels = {label: label for label in missing} if by_label else ctx.labels
    names, first = name_ids(missing, labels), name_ids(missing[:1], labels)
    again = engine.store(stored[missing[0]])
    ctx.require(
        again.replayed and (by_label or again.id == missing[0]),
        f"store({first}) again, after a read missed it",
        f"a replay of {first} (the engine holds what it stored)",
        f"{again!r}: the engine does not hold {len(missing)} of the {len(stored)} items it "
        f"stored ({names})",
    )


def require_as_stored(ctx: CheckContext, call: str, item: StoreItem, hit: Hit) -> None:
    """`hit` reads back `item` unchanged: kind, text (`render_text`), metadata and
    confidence (as f32), each difference named."""
    name = ctx.named([hit.id])
    ctx.require_same(call, item.kind, hit.kind, f"{name}'s kind")
    ctx.require_same(call, item.render_text(), hit.text, f"{name}'s text (render_text)")
    ctx.require_same(call, item.meta, hit.meta, f"{name}'s metadata")
    want = to_f32(item.confidence) if isinstance(item, Learning) else None
    got = None if hit.confidence is None else to_f32(hit.confidence)
    ctx.require_same(call, want, got, f"{name}'s confidence")
