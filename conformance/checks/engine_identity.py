"""Engine checks of identity: an identical store is a replay, any change is a new item,
however many items lie between; store_many answers for each item in order.

Ids are opaque (decisions §4.2): the checks compare ids with what the engine itself
answered earlier, never with the fingerprint.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    AT,
    cleanup,
    exchange,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    identify,
    require_listed,
)
from conformance.checks.registry import check
from conformance.engine import (
    MAX_STORE_MANY,
    Document,
    InvalidRequest,
    MemoryMeta,
    ObservedActor,
    StoreReceipt,
    Timestamp,
    ToolCallRef,
)

VOLUME = 100
"""Items stored between an item and its replay: past windows of 50 (or fewer) recent
items that replay detection sometimes only looks at."""


REPEAT_AT = 70
"""Where `store_many`'s full batch repeats an item it holds earlier (at `REPEATED`)."""

REPEATED = 6

HELD_AT = 30
"""Where `store_many`'s full batch holds an item stored before the batch."""

LISTING_PAGE = 25
"""Page size for listing a whole batch: a few pages, not fifty."""


def _variant(item: Document, **meta_fields: Any) -> Document:
    """`item` with some metadata fields replaced, each validated as a caller's would be (an
    observation `datetime` becomes the `Timestamp` the field holds)."""
    meta = item.meta.model_copy()
    for name, value in meta_fields.items():
        setattr(meta, name, value)
    return item.model_copy(update={"meta": meta})


def _presentation(meta: MemoryMeta) -> dict[str, object]:
    """The metadata the fingerprint leaves out, which only the first store may write."""
    return {
        "observed_at": meta.observed_at,
        "observed_actor": meta.observed_actor,
        "tool_call": meta.tool_call,
    }


def _replay_of(ctx: CheckContext, call: str, receipt: StoreReceipt, first: str, why: str) -> None:
    ctx.require(
        receipt == StoreReceipt(id=first, replayed=True),
        call,
        f"a replay (replayed=True) with the first id, {ctx.named([first])}: {why}",
        f"{receipt!r}" + (f" ({ctx.named([receipt.id])})" if receipt.id in ctx.labels else ""),
    )


@check(
    "engine.replay",
    title="An identical store is a replay, however many items later; any change is a new item",
    clause=(
        "engine-operations.md#store-replay, engine-operations.md#store-new-item, "
        "items-and-fingerprints.md#fingerprint, "
        "items-and-fingerprints.md#fingerprint-exclusions, "
        "kit-choices.md#opaque-ids"
    ),
    storage=True,
)
def assert_fingerprint_replay(engine: Any, ctx: CheckContext) -> None:
    """Storing an item twice answers `replayed` with the first id and keeps one copy; a
    copy differing by one tag or one character is a new item with its own id; a copy
    differing only in when it was observed, who said it or the tool call's id is a
    replay with the first id, and the original still lists with its own observation (a
    replay writes nothing; an upsert keeps the latest). A conversation whose first turn
    is 1 ns later is a new item (a turn's time is identity). After 100 more items,
    storing the first of them, the original and the latest again each replays with its
    first id."""
    cleanup(engine, ctx)
    base = note(
        ctx, "replay", tags=["replay"], tool_call=ToolCallRef(name="replay_tool", id="call-1")
    )
    first = engine.store(base)
    ctx.label(first.id, "original")
    ctx.require(not first.replayed, "store(original)", "replayed=False (new)", first)
    _replay_of(ctx, "store(original) again", engine.store(base), first.id, "the same item")
    kept = {first.id: base}
    require_listed(engine, ctx, run_filter(ctx), kept, "one copy of the original")

    changed = {
        "one more tag": _variant(base, tags=["replay", "another"]),
        "one more character": base.model_copy(
            update={"body": base.body.model_copy(update={"text": f"{base.body.text}!"})}
        ),
    }
    new_ids = [first.id]
    for what, item in changed.items():
        receipt = engine.store(item)
        call = f"store(original with {what})"
        ctx.require(not receipt.replayed, call, "replayed=False (a different item)", receipt)
        ctx.require(
            receipt.id not in new_ids,
            call,
            f"an id of its own, not one of {ctx.named(new_ids)}",
            f"the id of {ctx.named([receipt.id])}",
        )
        kept[ctx.label(receipt.id, f"with {what}")] = item
        new_ids.append(receipt.id)
    require_listed(engine, ctx, run_filter(ctx), kept, "the original and both changed copies")

    # The fingerprint clears these three: they say when, by whom and through which call
    # an item was seen, not what it is.
    presentation = {
        "observed_at": _variant(base, observed_at=AT),
        "observed_actor": _variant(base, observed_actor=ObservedActor(id="user:tmconf")),
        "tool_call.id": _variant(base, tool_call=ToolCallRef(name="replay_tool", id="call-2")),
    }
    for what, item in presentation.items():
        receipt = engine.store(item)
        call = f"store(original with another {what})"
        _replay_of(ctx, call, receipt, first.id, f"{what} is not identity")
    listed = require_listed(
        engine, ctx, run_filter(ctx), kept, "the original and both changed copies"
    )
    # A replay writes nothing: a store that upserts by id (LangGraph's `put`, a vector
    # database's upsert) answers the replay right but keeps the latest observation.
    original = next(hit for hit in listed if hit.id == first.id)
    ctx.require_same(
        f"list(run filter) after storing the original again with another {', '.join(presentation)}",
        _presentation(base.meta),
        _presentation(original.meta),
        "the original's observation (a replay writes nothing)",
    )

    # A turn's time is part of what a conversation is (the fingerprint keeps it).
    said = exchange(ctx, "replay turn", observed_at=AT)
    said.turns[0].at = Timestamp.from_datetime(AT)
    once = engine.store(said)
    ctx.label(once.id, "conversation")
    later_turn = said.model_copy(deep=True)
    # One nanosecond: a time read into a microsecond type would make the two one item.
    later_turn.turns[0].at = Timestamp(Timestamp.from_datetime(AT).nanos + 1)
    receipt = engine.store(later_turn)
    call = "store(conversation with its first turn 1 ns later)"
    ctx.require(not receipt.replayed, call, "replayed=False (turn times are identity)", receipt)
    ctx.require(
        receipt.id != once.id, call, "an id of its own", f"the id of {ctx.named([receipt.id])}"
    )
    _replay_of(ctx, "store(conversation) again", engine.store(said), once.id, "the same item")

    fillers = [note(ctx, f"replay filler {i}") for i in range(1, VOLUME + 1)]
    filler_ids: list[str] = []
    for i, item in enumerate(fillers, 1):
        receipt = engine.store(item)
        ctx.require(not receipt.replayed, f"store(f{i})", "replayed=False (a new item)", receipt)
        filler_ids.append(ctx.label(receipt.id, f"f{i}"))
    later = f"after {VOLUME} more items"
    for label, item, item_id in (
        ("f1", fillers[0], filler_ids[0]),
        ("original", base, first.id),
        (f"f{VOLUME}", fillers[-1], filler_ids[-1]),
    ):
        _replay_of(ctx, f"store({label}) again, {later}", engine.store(item), item_id, later)


@check(
    "engine.store_many",
    title="store_many of a full batch answers in item order, replays repeats, lists it all",
    clause="engine-operations.md#store-many, kit-choices.md#opaque-ids",
    storage=True,
)
def assert_store_many(engine: Any, ctx: CheckContext) -> None:
    """A batch of `MAX_STORE_MANY` (100) items (98 new, one held before the batch, one
    repeating an earlier item of the batch) answers 100 receipts in item order: the new
    ones fresh and distinct, the held one replayed to its id, the repeat replayed to its
    first copy's id; every item lists on return, each under its receipt's id. The batch
    sent again is all replays with the same ids; an empty batch is `InvalidRequest`."""
    cleanup(engine, ctx)
    held = note(ctx, "bulk held")
    held_id = ctx.label(engine.store(held).id, "held")
    fresh = [note(ctx, f"bulk {i}") for i in range(1, MAX_STORE_MANY - 1)]
    batch = list(fresh)
    batch.insert(HELD_AT, held)
    batch.insert(REPEAT_AT, fresh[REPEATED])
    labels = [f"b{i}" for i in range(1, len(fresh) + 1)]
    labels.insert(HELD_AT, "held")
    labels.insert(REPEAT_AT, f"b{REPEATED + 1}")
    receipts = engine.store_many(batch)
    call = f"store_many({len(batch)} items: 98 new, held at {HELD_AT + 1}, b{REPEATED + 1} "
    call += f"again at {REPEAT_AT + 1})"
    ctx.require(
        len(receipts) == len(batch), call, f"{len(batch)} receipts", f"{len(receipts)} receipts"
    )

    # Which id is which item is read from the listing, not from the receipts under test.
    unique = dict(zip(labels, batch, strict=True))
    scope = run_filter(ctx)
    own = identify(engine, ctx, scope, unique, "the batch (listed on return)", LISTING_PAGE)
    ctx.require(
        own["held"] == held_id,
        "list(run filter)",
        "the held item under the id its own store answered",
        f"the id of {ctx.named([own['held']])}",
    )
    for place, (label, receipt) in enumerate(zip(labels, receipts, strict=True), 1):
        replay = label == "held" or place == REPEAT_AT + 1
        want = StoreReceipt(id=own[label], replayed=replay)
        ctx.require(
            receipt == want,
            call,
            f"receipt {place} for {label}: {'a replay of' if replay else 'new, with'} "
            f"{label}'s id (receipts in item order)",
            f"replayed={receipt.replayed}, the id of {ctx.named([receipt.id])}",
        )

    again = engine.store_many(batch)
    ctx.require(
        again == [StoreReceipt(id=r.id, replayed=True) for r in receipts],
        f"{call} again",
        "every item replayed, with the same ids in the same order",
        f"{sum(not r.replayed for r in again)} not replayed; ids of "
        f"{ctx.named([r.id for r in again])}",
    )
    ctx.refused(
        "store_many([])",
        lambda: engine.store_many([]),
        InvalidRequest,
        f"InvalidRequest (store_many takes between 1 and {MAX_STORE_MANY} items)",
    )
