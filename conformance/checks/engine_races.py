"""Engine checks of stores racing one another: one item stored from several threads."""

from __future__ import annotations

from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import cleanup, note, run_filter
from conformance.checks.engine_writes import require_listed
from conformance.checks.racing import RACERS, race, require_thread_safe
from conformance.checks.registry import check
from conformance.engine import StoreItem

ROUNDS = 6
"""Items raced, one after the other."""


@check(
    "engine.racing_stores",
    title="One item stored from 8 threads at once is held once, and one receipt says written",
    clause="engine-operations.md#store-replay, kit-choices.md#racing-stores",
    storage=True,
)
def assert_racing_stores(engine: Any, ctx: CheckContext) -> None:
    """One item stored, then stored again by 8 threads released together: each receipt
    a replay with its id. Then six items, each stored by 8 threads released
    together: every receipt carries the item's one id, exactly one says `replayed=False`
    (the others found it held), and each item lists once.

    Catches a store that looks the fingerprint up and writes in two unguarded steps:
    two copies held, or two receipts that each say they wrote it. Skipped for a driver
    that is not thread-safe (`Driver.thread_safe`), which is never called so.
    """
    require_thread_safe(ctx)
    cleanup(engine, ctx)
    held = note(ctx, "held before the race")
    first = engine.store(held)
    kept: dict[str, StoreItem] = {ctx.label(first.id, "held"): held}
    replays = race(partial(engine.store, held))
    ctx.require(
        all(r.id == first.id and r.replayed for r in replays),
        f"store(held) from {RACERS} threads at once, after it was stored",
        f"every receipt a replay (replayed=True) with the first id, {ctx.named([first.id])}",
        replays,
    )
    for n in range(1, ROUNDS + 1):
        item = note(ctx, f"raced {n}")
        receipts = race(partial(engine.store, item))
        call = f"store(raced {n}) from {RACERS} threads at once"
        ctx.require(
            len({r.id for r in receipts}) == 1,
            call,
            "one id in every receipt",
            ", ".join(sorted({r.id for r in receipts})),
        )
        kept[ctx.label(receipts[0].id, f"raced {n}")] = item
        written = sum(1 for r in receipts if not r.replayed)
        ctx.require(
            written == 1,
            call,
            "exactly one receipt with replayed=False, the others replayed=True",
            f"{written} with replayed=False",
        )
    require_listed(engine, ctx, run_filter(ctx), kept, "the held item and the raced ones, once")
