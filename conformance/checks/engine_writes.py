"""What an engine check writes, and how it reads its own writes back.

Storing distinct items and listing them back are what most checks rely on, not what
they test: a fault there is reported by the check that owns the operation (identity by
`engine.replay`, batches by `engine.store_many`, listing by `engine.list_paging`), and
the relying check ends inconclusive. An item the engine does not hold at all is the
relying check's failure, unless a batch write held only some of its items.
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
from conformance.engine import MAX_STORE_MANY, Hit, Learning, MetaFilter, StoreItem, to_f32

IDENTITY_OWNER = "engine.replay"
"""The check that owns identity: distinct items get distinct ids."""

BATCH_OWNER = "engine.store_many"
"""The check that owns `store_many`: one fresh receipt per item, every item held."""


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


def store_batch(
    engine: Any, ctx: CheckContext, items: Mapping[str, StoreItem]
) -> dict[str, StoreItem]:
    """Store `items` (distinct and new, by label) through `store_many`, `MAX_STORE_MANY`
    at a time, label each receipt's id, and return the items by id in store order.

    One call per hundred items rather than one per item, as a remote store is paid per
    call. Each batch must answer one fresh receipt per item, ids all distinct; that is
    `engine.store_many`'s to report. Receipts are taken in item order: a check that
    needs each id's own item reads it from a listing (`identify`).
    """
    labels = list(items)
    stored: dict[str, StoreItem] = {}
    for start in range(0, len(labels), MAX_STORE_MANY):
        batch = labels[start : start + MAX_STORE_MANY]
        receipts = engine.store_many([items[label] for label in batch])
        call = f"store_many({name_ids(batch, {label: label for label in batch})})"
        with ctx.precondition(BATCH_OWNER, f"storing {len(items)} distinct items in batches"):
            ctx.require(
                len(receipts) == len(batch),
                call,
                f"{len(batch)} receipts",
                f"{len(receipts)} receipts",
            )
            for label, receipt in zip(batch, receipts, strict=True):
                taken = f", the id of {ctx.named([receipt.id])}" if receipt.id in stored else ""
                ctx.require(
                    not receipt.replayed and not taken,
                    call,
                    f"a fresh id of its own for {label} (distinct new items)",
                    f"{receipt!r}{taken}",
                )
                stored[ctx.label(receipt.id, label)] = items[label]
                ctx.written_by[receipt.id] = ctx.written_by[label] = call
    return stored


def require_listed(
    engine: Any,
    ctx: CheckContext,
    filter: MetaFilter,
    stored: Mapping[str, StoreItem],
    what: str,
    limit: int = LIST_PAGE,
    *,
    writer: str | None = None,
) -> list[Hit]:
    """The listing of `filter`, which must hold exactly the ids of `stored`, each once.

    Listing its own writes is a precondition of the calling check: a listing that
    repeats items, or misses items the engine holds (storing one again is a replay of
    its id), is `engine.list_paging`'s to report. An item the engine does not hold, or
    one the check did not write, is the calling check's failure; `writer` names the
    check owning the call that wrote `stored` when that was not `store` (see
    `require_held`).
    """
    hits = list_all(engine, ctx, filter, limit)
    got = ids(hits)
    call = f"list({describe_filter(filter)})"
    require_missed_held(engine, ctx, stored, got, writer=writer)
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
    *,
    writer: str | None = None,
) -> dict[str, str]:
    """The id each of `items` (by label, each text its own) lists under, read from the
    listing of `filter` by text and labelled; the listing must hold exactly them, as
    `require_listed` demands (for writes whose ids are what the check tests, or that a
    batch wrote)."""
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
        require_held(engine, ctx, items, unlisted, by_label=True, writer=writer)
    call = f"list({describe_filter(filter)})"
    known = set(found.values())
    _require_no_strays(ctx, call, hits, known, what)
    with ctx.precondition(LIST_OWNER, f"listing {what}"):
        ctx.require_ids(call, ids(hits), list(found.values()), f"exactly {what}, each once")
        ctx.require(
            not unlisted,
            call,
            f"all of {what}",
            f"{len(found)} of {len(items)}; missing "
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


def require_missed_held(
    engine: Any,
    ctx: CheckContext,
    stored: Mapping[str, StoreItem],
    got: Sequence[str],
    *,
    writer: str | None = None,
) -> None:
    """Whatever of `stored` (by id) a read left out of `got` must still be held, so that
    the miss is the read's fault (see `require_held`)."""
    seen = set(got)
    missing = [item_id for item_id in stored if item_id not in seen]
    if missing:
        require_held(engine, ctx, stored, missing, writer=writer)


def require_held(
    engine: Any,
    ctx: CheckContext,
    stored: Mapping[str, StoreItem],
    missing: Sequence[str],
    *,
    by_label: bool = False,
    writer: str | None = None,
) -> None:
    """A read missed `missing`, keys of `stored` (ids, or labels `by_label`): fail unless
    the engine holds them (storing the first again replays it, under its id).

    When `writer` (the check owning the batch call that wrote `stored`) is given and
    the engine holds some of `stored`, a miss is the batch's fault, reported by
    `writer`; an engine holding none of them fails the calling check, which has
    nothing to judge.
    """
    labels = {label: label for label in missing} if by_label else ctx.labels
    names, first = name_ids(missing, labels), name_ids(missing[:1], labels)
    again = engine.store(stored[missing[0]])
    if again.replayed and (by_label or again.id == missing[0]):
        return
    call = f"store({first}) again, after a read missed it"
    expected = f"a replay of {first} (the engine holds what it stored)"
    got = (
        f"{again!r}: the engine does not hold {len(missing)} of the {len(stored)} items it "
        f"stored ({names})"
    )
    if writer is not None and len(missing) < len(stored):
        batch = ctx.written_by.get(missing[0])
        what = f"holding all {len(stored)} items a batch stored"
        if batch is not None:
            what += f" ({batch} answered a receipt for {first})"
        with ctx.precondition(writer, what):
            ctx.fail(call, expected, got)
    ctx.fail(call, expected, got)


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
