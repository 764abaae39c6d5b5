"""Engine check of timestamps: every time an engine returns is the instant it was given,
to the nanosecond."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    exchange,
    fact,
    fetch_all,
    modes,
    note,
    run_filter,
)
from conformance.checks.engine_writes import (
    require_listed,
    store_each,
)
from conformance.checks.evidence import show
from conformance.checks.registry import check
from conformance.engine import (
    GetRequest,
    MemoryMeta,
    RecallRequest,
    StoreItem,
    Timestamp,
)

STAMPS = {
    "ns at +05:30": Timestamp.parse("2025-05-06T12:38:09.123456789+05:30"),
    "last ns of 1999": Timestamp.parse("1999-12-31T23:59:59.999999999Z"),
    "ms at -08:00": Timestamp.parse("2024-02-29T16:00:00.005-08:00"),
    "whole second": Timestamp.parse("2025-05-06T07:08:09Z"),
}
"""Observation times by label: fractions of 9 and 3 digits and none, offsets other than
UTC (which the contract holds as the same instant in UTC)."""


def stamped_items(ctx: CheckContext) -> dict[str, StoreItem]:
    """One item per time in `STAMPS`, of every kind, labelled by the time."""
    makers: tuple[Callable[..., StoreItem], ...] = (note, fact, exchange, note)
    return {
        label: make(ctx, f"stamped {i}", observed_at=at)
        for i, ((label, at), make) in enumerate(zip(STAMPS.items(), makers, strict=True))
    }


def _require_stamp(
    ctx: CheckContext, call: str, item_id: str, got: MemoryMeta, want: Timestamp
) -> None:
    name = ctx.named([item_id])
    stamp = got.observed_at
    if not isinstance(stamp, Timestamp):
        # Only a driver building its answer without validation gets here: a field holding
        # a time reads RFC 3339 text, which carries an offset, into a `Timestamp`.
        ctx.fail(call, f"{name}'s observed_at an instant (RFC 3339 with an offset)", show(stamp))
    ctx.require(
        stamp == want,
        call,
        f"{name}'s observed_at {want.rfc3339()}, the instant stored, to the nanosecond",
        stamp.rfc3339(),
    )


@check(
    "engine.timestamps",
    title="Returned times are the instant stored, to the nanosecond",
    clause="items-and-fingerprints.md#timestamps, engine-operations.md#hits",
    storage=True,
)
def assert_timestamps(engine: Any, ctx: CheckContext) -> None:
    """Four items observed at times with 9, 3 and no fractional digits, given at UTC
    offsets other than zero: `meta.observed_at` as list, get, fetch (every declared
    mode) and recall citations return it is the instant stored, every nanosecond
    included. (No operation of the core contract returns a turn, so turn times are
    checked only through identity, by `engine.replay`.)"""
    cleanup(engine, ctx)
    stored = store_each(engine, ctx, stamped_items(ctx))
    want = {item_id: STAMPS[ctx.labels[item_id]] for item_id in stored}
    scope = run_filter(ctx)
    reads = [("list(run filter)", require_listed(engine, ctx, scope, stored, "the stamped items"))]
    reads.append(("get(every id)", engine.get(GetRequest(ids=list(stored)))))
    for mode in modes(engine):
        hits = fetch_all(engine, ctx, ctx.marker, mode, scope, 10)
        reads.append((f"fetch(marker, {mode.value})", hits))
    for call, hits in reads:
        for hit in hits:
            if hit.id in want:
                _require_stamp(ctx, call, hit.id, hit.meta, want[hit.id])
    answer = engine.recall(RecallRequest(question=ctx.marker, filter=scope, limit=len(stored)))
    for citation in answer.citations:
        if citation.id in want:
            call = "recall(marker, run filter)"
            _require_stamp(ctx, call, citation.id, citation.meta, want[citation.id])
