"""Engine checks of the basics: it serves, the probe answers, and items read back whole."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    AT,
    cleanup,
    engine_retains_writes,
    ids,
    list_all,
    meta,
    run_filter,
)
from conformance.checks.engine_writes import (
    require_as_stored,
)
from conformance.checks.registry import check
from conformance.engine import (
    Conversation,
    Document,
    Learning,
    LearningKind,
    Role,
    SourceKind,
    SourceRef,
    ToolCallRef,
    Turn,
    conversation,
    document,
    learning,
)


@check(
    "engine.health",
    title="The engine reports that it serves",
    clause="engine-operations.md#health",
)
def assert_health(engine: Any, ctx: CheckContext) -> None:
    """`health()` answers, and `is_serving()` is true (the engine is not down)."""
    health = engine.health()
    ctx.require(health.is_serving(), "health()", "a serving engine (ok or degraded)", health)


@check(
    "engine.retention_probe",
    title="The retention probe answers without error",
    clause=(
        "kit-choices.md#retention-probe, engine-operations.md#store, engine-operations.md#list"
    ),
)
def assert_engine_retention_probe(engine: Any, ctx: CheckContext) -> None:
    """Store one document under the run's root and list it back without error (an engine
    that keeps nothing passes)."""
    engine_retains_writes(engine, ctx)


def round_trip_items(ctx: CheckContext) -> list[Document | Conversation | Learning]:
    """One item of each kind, with titles, tool calls and evidence set (B10 round trip),
    each cut to a declared `max_content_length` (the conversation, holding the marker and
    a tool call, renders to about 120 characters)."""
    m = ctx.marker
    fit = ctx.settings.constraints.fit_item
    items: list[Document | Conversation | Learning] = [
        document(
            f"{m} document body",
            meta(ctx, tags=["roundtrip"]),
            title="Round trip",
            mime="text/markdown",
        ),
        conversation(
            [
                Turn(role=Role.USER, text=f"{m} what is in the plan", at=AT),
                Turn(
                    role=Role.ASSISTANT,
                    text="the plan has three steps",
                    at=AT,
                    tool_calls=[ToolCallRef(name="read_plan", id="call-1")],
                ),
            ],
            meta(ctx, source=SourceRef(kind=SourceKind.CONVERSATION, id=f"{m}-thread")),
        ),
        learning(
            f"{m} the user prefers short answers",
            LearningKind.PREFERENCE,
            0.75,
            meta(ctx),
            evidence="said so twice",
        ),
    ]
    return [fit(item) for item in items]


@check(
    "engine.round_trip",
    title="Each kind of item lists back exactly as stored",
    clause=(
        "engine-operations.md#store, engine-operations.md#hits, "
        "items-and-fingerprints.md#item-kinds, "
        "items-and-fingerprints.md#render-text, "
        "items-and-fingerprints.md#memory-meta"
    ),
    storage=True,
)
def assert_round_trip(engine: Any, ctx: CheckContext) -> None:
    """A document, a conversation and a learning each store as new, and a listing by kind
    holds exactly that one item: its receipt id, kind, full metadata, confidence and
    rendered text."""
    cleanup(engine, ctx)
    items = round_trip_items(ctx)
    receipts = []
    for item in items:
        receipt = engine.store(item)
        ctx.label(receipt.id, item.kind.value)
        ctx.require(
            not receipt.replayed,
            f"store({item.kind.value})",
            "replayed=False (the item is new)",
            receipt,
        )
        receipts.append(receipt)
    # All three are held before any is read, so each kind filter has others to exclude.
    for item, receipt in zip(items, receipts, strict=True):
        filter = run_filter(ctx, kinds=[item.kind])
        call = f"list(kinds=[{item.kind.value}] + run filter)"
        hits = list_all(engine, ctx, filter)
        ctx.require_ids(call, ids(hits), [receipt.id], f"exactly the {item.kind.value}")
        require_as_stored(ctx, call, item, hits[0])
