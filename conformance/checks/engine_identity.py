"""Engine checks of identity: an identical store is a replay, any change is a new item.

Ids are opaque (decisions §4.2): the checks compare ids with what the engine itself
answered earlier, never with the fingerprint.
"""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import AT, cleanup, ids, list_all, note, run_filter
from conformance.engine import (
    Document,
    InvalidRequest,
    ObservedActor,
    StoreReceipt,
    ToolCallRef,
)


def _variant(item: Document, **meta_fields: Any) -> Document:
    """`item` with some metadata fields replaced."""
    return item.model_copy(update={"meta": item.meta.model_copy(update=meta_fields)})


@check(
    "engine.replay",
    title="An identical store is a replay; any change is a new item",
    clause="contract-reference B2 (fingerprint), B8 (store), B10 §3; decisions §4.2, §4.3",
    storage=True,
)
def assert_fingerprint_replay(engine: Any, ctx: CheckContext) -> None:
    """Storing an item twice answers `replayed` with the first id and keeps one copy; a
    copy differing by one tag or one character is a new item with its own id; a copy
    differing only in when it was observed, who said it or the tool call's id is a
    replay with the first id."""
    cleanup(engine, ctx)
    base = note(
        ctx, "replay", tags=["replay"], tool_call=ToolCallRef(name="replay_tool", id="call-1")
    )
    first = engine.store(base)
    ctx.require(not first.replayed, "store(replay note)", "replayed=False (new)", first)
    again = engine.store(base)
    ctx.require(
        again == StoreReceipt(id=first.id, replayed=True),
        "store(replay note) again",
        f"replayed=True with the first id {first.id}",
        again,
    )
    listed = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require(listed == [first.id], "list(run filter)", "exactly one copy", listed)

    changed = {
        "one more tag": _variant(base, tags=["replay", "another"]),
        "one more character": base.model_copy(
            update={"body": base.body.model_copy(update={"text": f"{base.body.text}!"})}
        ),
    }
    new_ids = [first.id]
    for what, item in changed.items():
        receipt = engine.store(item)
        call = f"store(replay note with {what})"
        ctx.require(not receipt.replayed, call, "replayed=False (a different item)", receipt)
        ctx.require(
            receipt.id not in new_ids, call, f"an id of its own, not one of {new_ids}", receipt.id
        )
        new_ids.append(receipt.id)
    listed = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require(
        sorted(listed) == sorted(new_ids),
        "list(run filter)",
        f"the first item and both changed copies {new_ids}",
        listed,
    )

    # The fingerprint clears these three: they say when, by whom and through which call
    # an item was seen, not what it is.
    presentation = {
        "observed_at": _variant(base, observed_at=AT),
        "observed_actor": _variant(base, observed_actor=ObservedActor(id="user:tmconf")),
        "tool_call.id": _variant(base, tool_call=ToolCallRef(name="replay_tool", id="call-2")),
    }
    for what, item in presentation.items():
        receipt = engine.store(item)
        ctx.require(
            receipt == StoreReceipt(id=first.id, replayed=True),
            f"store(replay note with another {what})",
            f"a replay (replayed=True, id {first.id}): {what} is not identity",
            receipt,
        )
    listed = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require(
        sorted(listed) == sorted(new_ids), "list(run filter)", f"still only {new_ids}", listed
    )


@check(
    "engine.store_many",
    title="store_many answers in item order and replays a batch sent again",
    clause="contract-reference B8 (store_many, validate_many), B10 §6; decisions §4.2",
    storage=True,
)
def assert_store_many(engine: Any, ctx: CheckContext) -> None:
    """A batch of three new items answers three fresh receipts in item order (each id the
    one a later store of that item replays to), all listed on return; the batch sent
    again is all replays with the same ids; an item repeated inside a batch replays its
    first copy; an empty batch is `InvalidRequest`."""
    cleanup(engine, ctx)
    batch = [note(ctx, f"bulk-{i}") for i in range(3)]
    receipts = engine.store_many(batch)
    call = "store_many(bulk-0..2)"
    ctx.require(len(receipts) == 3, call, "3 receipts", receipts)
    ctx.require(not any(r.replayed for r in receipts), call, "none replayed", receipts)
    listed = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require(
        sorted(listed) == sorted(r.id for r in receipts),
        "list(run filter)",
        "the three items, listed on return",
        listed,
    )
    for i, (item, receipt) in enumerate(zip(batch, receipts, strict=True)):
        own = engine.store(item)
        ctx.require(
            own == StoreReceipt(id=receipt.id, replayed=True),
            f"store(bulk-{i})",
            f"a replay with receipt {i}'s id {receipt.id} (receipts in item order)",
            own,
        )
    again = engine.store_many(batch)
    ctx.require(
        again == [StoreReceipt(id=r.id, replayed=True) for r in receipts],
        f"{call} again",
        "every item replayed, with the same ids in the same order",
        again,
    )

    fresh = note(ctx, "bulk-3")
    inner = engine.store_many([fresh, batch[0], fresh])
    call = "store_many([bulk-3, bulk-0, bulk-3])"
    ctx.require(len(inner) == 3, call, "3 receipts", inner)
    ctx.require(
        [r.replayed for r in inner] == [False, True, True]
        and inner[1].id == receipts[0].id
        and inner[2].id == inner[0].id,
        call,
        "bulk-3 new, bulk-0 replayed to its id, bulk-3 replayed to its first copy",
        inner,
    )
    ctx.refused(
        "store_many([])",
        lambda: engine.store_many([]),
        InvalidRequest,
        "InvalidRequest (store_many takes between 1 and 100 items)",
    )
