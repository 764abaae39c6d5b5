"""Engine check that a declared constraint is a promise to refuse: an item it leaves out
is refused with `InvalidRequest` and changes nothing, and the items it admits stay apart."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import cleanup, meta, run_filter
from conformance.checks.engine_writes import require_as_stored, require_listed
from conformance.checks.evidence import show
from conformance.checks.outcome import DriverRaised
from conformance.checks.registry import check
from conformance.engine import InvalidRequest, StoreItem, document

LENGTH = 1000
"""The text length of the longest pair when no maximum is declared."""


def pairs(ctx: CheckContext) -> list[tuple[str, StoreItem, str, StoreItem]]:
    """`(label, item, neighbour label, neighbour)`: each item differs from its neighbour
    only where an engine constraint draws its line (one character past the longest text,
    a character beyond ASCII, a control character), so an engine that cuts, folds or
    strips the difference stores the item as its neighbour."""
    m = ctx.marker
    longest = ctx.settings.constraints.max_content_length or LENGTH
    head = f"{m} the longest text "
    out: list[tuple[str, StoreItem, str, StoreItem]] = [
        (
            "a text with a character beyond ASCII",
            document(f"{m} a café", meta(ctx)),
            "its ASCII neighbour",
            document(f"{m} a cafe", meta(ctx)),
        ),
        (
            "a text with a control character",
            document(f"{m} a\x00b", meta(ctx)),
            "its neighbour without it",
            document(f"{m} ab", meta(ctx)),
        ),
    ]
    if longest > len(head):
        text = head + "x" * (longest - len(head))
        out.insert(
            0,
            (
                f"a text of {longest + 1:,} characters",
                document(text + "x", meta(ctx)),
                f"its neighbour of {longest:,}",
                document(text, meta(ctx)),
            ),
        )
    return out


@check(
    "engine.declared_constraints_refuse",
    title="An item a declared constraint leaves out is refused with InvalidRequest and "
    "changes nothing; items it admits stay apart",
    clause="kit-choices.md#declared-constraints-refuse, kit-choices.md#declared-constraints",
    storage=True,
)
def assert_engine_declared_constraints_refuse(engine: Any, ctx: CheckContext) -> None:
    """Pairs of documents differing only where an engine constraint draws its line: one
    character past the longest text (the declared maximum, else 1,000), `café` beside
    `cafe`, `a\\0b` beside `ab`. Each neighbour the declaration admits is stored first.

    An item the declaration leaves out (`max_content_length`, `non_ascii=False`,
    `control_characters=False`) must be refused with `InvalidRequest` and change
    nothing; an item it admits must be stored as an item of its own, never a replay of
    its neighbour. The run's workspace then lists exactly the items taken, unchanged.
    """
    cleanup(engine, ctx)
    limits = ctx.settings.constraints
    stored: dict[str, StoreItem] = {}
    accepted: list[str] = []
    for label, item, neighbour_label, neighbour in pairs(ctx):
        # Only the text differs between items: it alone decides what is admitted.
        if limits.admits_content(neighbour.render_text()):
            receipt = engine.store(neighbour)
            stored[ctx.label(receipt.id, neighbour_label)] = neighbour
        call = f"store({label})"
        if limits.admits_content(item.render_text()):
            receipt = engine.store(item)
            ctx.require(
                receipt.id not in stored and not receipt.replayed,
                call,
                f"an item of its own, apart from {neighbour_label}",
                f"{show(receipt.id)} (replayed={receipt.replayed}), "
                f"the id of {ctx.named([receipt.id])}",
            )
            stored[ctx.label(receipt.id, label)] = item
            continue
        try:
            with ctx.answer_or_refusal():
                receipt = engine.store(item)
        except DriverRaised as raised:
            if isinstance(raised.error, InvalidRequest):
                continue
            ctx.fail(call, "InvalidRequest", f"{type(raised.error).__name__}: {raised.error}")
        merged = f", the id of {ctx.named([receipt.id])}" if receipt.id in stored else ""
        accepted.append(f"{label} as {show(receipt.id)} (replayed={receipt.replayed}{merged})")
    ctx.require(
        not accepted,
        "store(...)",
        "each item the declared constraints leave out refused with InvalidRequest, "
        "changing nothing",
        f"accepted {len(accepted)}: " + "; ".join(accepted),
    )
    hits = require_listed(engine, ctx, run_filter(ctx), stored, "the items taken")
    for hit in hits:
        require_as_stored(ctx, "list(run filter)", stored[hit.id], hit)
