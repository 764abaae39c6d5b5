"""Engine check of timestamps: every time an engine returns is timezone-aware and the
instant it was given, to the microsecond."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from conformance.checks.catalogue import check
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
from conformance.engine import (
    GetRequest,
    MemoryMeta,
    RecallRequest,
    StoreItem,
    rfc3339,
)

STAMPS = {
    "µs at +05:30": datetime(
        2025, 5, 6, 12, 38, 9, 123_456, tzinfo=timezone(timedelta(hours=5, minutes=30))
    ),
    "last µs of 1999": datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    "ms at -08:00": datetime(2024, 2, 29, 16, 0, 0, 5_000, tzinfo=timezone(timedelta(hours=-8))),
    "whole second": datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC),
}
"""Observation times by label: fractions of 6 and 3 digits and none, offsets other than
UTC (which the contract holds as the same instant in UTC)."""


def stamped_items(ctx: CheckContext) -> dict[str, StoreItem]:
    """One item per time in `STAMPS`, of every kind, labelled by the time."""
    makers: tuple[Callable[..., StoreItem], ...] = (note, fact, exchange, note)
    return {
        label: make(ctx, f"stamped {i}", observed_at=at)
        for i, ((label, at), make) in enumerate(zip(STAMPS.items(), makers, strict=True))
    }


def _require_stamp(
    ctx: CheckContext, call: str, item_id: str, got: MemoryMeta, want: datetime
) -> None:
    name = ctx.named([item_id])
    stamp = got.observed_at
    if not (isinstance(stamp, datetime) and stamp.utcoffset() is not None):
        ctx.fail(
            call, f"{name}'s observed_at timezone-aware (RFC 3339 carries an offset)", show(stamp)
        )
    ctx.require(
        stamp == want,
        call,
        f"{name}'s observed_at {rfc3339(want)}, the instant stored, to the microsecond",
        f"{show(stamp)} ({rfc3339(stamp)})",
    )


@check(
    "engine.timestamps",
    title="Returned times are timezone-aware and the instant stored, to the microsecond",
    clause="contract-reference B2 (timestamps: chrono UTC RFC 3339), B3 (MemoryMeta."
    "observed_at), B6 (Hit.meta, Citation.meta)",
    storage=True,
)
def assert_timestamps(engine: Any, ctx: CheckContext) -> None:
    """Four items observed at times with 6, 3 and no fractional digits, given at UTC
    offsets other than zero: `meta.observed_at` as list, get, fetch (every declared
    mode) and recall citations return it is timezone-aware and equal to the instant
    stored, microseconds included. (No operation of the core contract returns a turn,
    so turn times are checked only through identity, by `engine.replay`.)"""
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
