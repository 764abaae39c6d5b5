"""Engine check that contract-valid but unusual input is taken and read back unchanged:
every character class, very long texts, metadata with dots, slashes and `@`, deep
namespaces, the bounds of confidence. A store that cannot take some of it declares a
constraint (`Driver(constraints=...)`), which narrows what is sent."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    meta,
    run_filter,
)
from conformance.checks.engine_writes import (
    require_as_stored,
    require_listed,
)
from conformance.checks.outcome import DriverRaised
from conformance.checks.registry import check
from conformance.constraints import Constraints, strings_in
from conformance.engine import (
    MAX_DEPTH,
    MAX_SEGMENT_ID,
    InvalidRequest,
    LearningKind,
    Namespace,
    ObservedActor,
    Role,
    Segment,
    SegmentKind,
    SourceKind,
    SourceRef,
    StoreItem,
    ToolCallRef,
    Turn,
    TurnRange,
    conversation,
    document,
    learning,
)

LONG_TEXT = 100_000
"""Characters of the longest text sent (fewer when the driver declares a maximum)."""

MANY_TAGS = 128


def _texts(ctx: CheckContext) -> dict[str, str]:
    m = ctx.marker
    return {
        "non-ASCII text": f"{m} café naïve Zürich 東京 Ελληνικά עברית العربية हिन्दी",
        "emoji": f"{m} 🧠 💾 👩\u200d💻 🏳️\u200d🌈 👨\u200d👩\u200d👧\u200d👦",
        "carriage returns": f"{m} one\r\ntwo\rthree\n",
        "NUL and other control characters": (
            f"{m} nul\x00 bell\x07 backspace\x08 escape\x1b delete\x7f next-line\x85 tab\t end"
        ),
        "dots": f"{m} version 1.2.3 of archive.tar.gz... e.g. a.b.c.",
        "surrounding whitespace": f"   {m} padded \t \n",
        "combining and zero-width characters": f"{m} e\u0301 zero\u200bwidth \ufeffmark",
    }


def _long(ctx: CheckContext, length: int) -> StoreItem:
    head = f"{ctx.marker} long text "
    filler = "0123456789 abcdefghijklmnopqrstuvwxyz. " * (length // 39 + 1)
    return document((head + filler)[:length], meta(ctx))


def _dotted_meta(ctx: CheckContext) -> StoreItem:
    m = ctx.marker
    fields = meta(
        ctx,
        folder="/srv/dotted.dir/sub@dir",
        file_path="/srv/dotted.dir/a.b.c.tar.gz",
        language="zh-Hant-TW",
        repo="git@github.com:owner/name.with.dots.git",
        commit="0123456789abcdef0123456789abcdef01234567",
        url="https://example.test/a.b/c@d?q=1.2&r=a/b#frag.x",
        thread_id="thread.1@host/x",
        agent_id="agent@host.example/v1.2",
        tool_call=ToolCallRef(name="tools.search/v2@x", id="call.1@x"),
        source=SourceRef(kind=SourceKind.FILE, id="/path/with.dots@v1"),
        tags=["a.b", "c/d", "e@f", "with space", "UPPER", "-dash", "x:y", "g,h", "i;j", "k|l"],
        observed_actor=ObservedActor(id="user:priya@acme.com", name="Priya"),
        derive=True,
        turns=TurnRange(first=0, last=0xFFFF_FFFF),
    )
    return document(f"{m} metadata with dots, slashes and @", fields)


def _unicode_meta(ctx: CheckContext) -> StoreItem:
    fields = meta(
        ctx,
        folder="/données/東京",
        file_path="/données/東京/ノート.md",
        language="日本語",
        repo="owner/répo",
        url="https://例え.テスト/パス",
        thread_id="スレッド-1",
        agent_id="agent-é",
        tags=["ü", "東京", "🏷️"],
        observed_actor=ObservedActor(id="user:priyá@acme.com", name="Priyá 👩\u200d💻"),
    )
    return document(f"{ctx.marker} metadata in unicode", fields)


def _deep(ctx: CheckContext) -> StoreItem:
    kinds = [*SegmentKind, SegmentKind.AGENT, SegmentKind.AGENT]
    namespace = Namespace.ROOT
    for depth, kind in enumerate(kinds[:MAX_DEPTH], 1):
        namespace = namespace.child(Segment(kind, f"{ctx.marker}-{depth}"))
    return document(f"{ctx.marker} at depth {MAX_DEPTH}", meta(ctx, namespace=namespace))


def _longest_segment(ctx: CheckContext) -> StoreItem:
    name = (f"{ctx.marker}-" + "x_-9" * MAX_SEGMENT_ID)[:MAX_SEGMENT_ID]
    namespace = Namespace.ROOT.child(Segment(SegmentKind.AGENT, name))
    return document(f"{ctx.marker} longest segment id", meta(ctx, namespace=namespace))


def _turns(ctx: CheckContext) -> StoreItem:
    calls = [ToolCallRef(name="search.web/v2", id="call.1@x"), ToolCallRef(name="no_id")]
    return conversation(
        [
            Turn(role=Role.SYSTEM, text="be brief."),
            Turn(role=Role.USER, text=f"{ctx.marker} find the report"),
            Turn(role=Role.ASSISTANT, text="searching…", tool_calls=calls),
            Turn(role=Role.TOOL, text='{"hits": 2}', tool_calls=[calls[0]]),
        ],
        meta(ctx),
    )


def valid_inputs(ctx: CheckContext) -> dict[str, StoreItem]:
    """Contract-valid, unusual items by label, narrowed by the driver's constraints."""
    constraints = ctx.settings.constraints
    m = ctx.marker
    items: dict[str, StoreItem] = {
        label: document(text, meta(ctx)) for label, text in _texts(ctx).items()
    }
    longest = min(LONG_TEXT, constraints.max_content_length or LONG_TEXT)
    items[f"a text of {longest:,} characters"] = _long(ctx, longest)
    items.update(
        {
            "a title and mime type": document(
                f"{m} titled body", meta(ctx), title="Ünïcödé title, v1.2", mime="text/plain"
            ),
            "confidence 0.0": learning(f"{m} never so", LearningKind.CORRECTION, 0.0, meta(ctx)),
            "confidence 1.0": learning(
                f"{m} always so", LearningKind.PROCEDURE, 1.0, meta(ctx), evidence="seen: 3×"
            ),
            "turns with tool calls": _turns(ctx),
            "metadata with dots, slashes and @": _dotted_meta(ctx),
            "metadata in unicode": _unicode_meta(ctx),
            f"{MANY_TAGS} tags": document(
                f"{m} many tags", meta(ctx, tags=[f"tag.{i}/x@y" for i in range(MANY_TAGS)])
            ),
            f"a namespace {MAX_DEPTH} deep": _deep(ctx),
            f"a segment id of {MAX_SEGMENT_ID} characters": _longest_segment(ctx),
        }
    )
    return {label: item for label, item in items.items() if admitted(constraints, item)}


def admitted(constraints: Constraints, item: StoreItem) -> bool:
    """Whether the driver's declared constraints let the suite send `item`."""
    return constraints.admits_item(item)


def _constraint_for(label: str, item: StoreItem) -> str:
    """The declaration that would cover refusing `item`, for the message."""
    texts = list(strings_in(item.model_dump(mode="json")))
    if len(item.render_text()) > 1000:
        return "`max_content_length`"
    if not all(text.isascii() for text in texts):
        return "`non_ascii=False`"
    if not all(Constraints(control_characters=False).admits_text(text) for text in texts):
        return "`control_characters=False`"
    return f"none in the kit's vocabulary covers {label}"


@check(
    "engine.accepts_valid_input",
    title="Contract-valid but unusual items are taken and read back unchanged",
    clause=(
        "errors.md#valid-input-taken, items-and-fingerprints.md#item-validation, "
        "filters-and-reach.md#namespace-tree, engine-operations.md#hits, "
        "kit-choices.md#declared-constraints"
    ),
    storage=True,
)
def assert_engine_accepts_valid_input(engine: Any, ctx: CheckContext) -> None:
    """Items the contract calls valid, each unusual in one way: texts with non-ASCII,
    emoji, `\\r`, NUL and other control characters, dots, surrounding whitespace,
    combining marks, 100,000 characters; a title; confidence exactly 0.0 and 1.0; turns
    of every role with tool calls; metadata with dots, slashes, `@` and unicode (tags
    holding `,`, `;` and `|`, which a store joining tags with one splits); 128
    tags; a namespace 8 deep and a segment id of 128 characters. Each is stored (a
    refusal fails, unless the driver declares the constraint it hits, which leaves that
    input out) and lists back unchanged: kind, text, metadata and confidence."""
    cleanup(engine, ctx)
    stored: dict[str, StoreItem] = {}
    for label, item in valid_inputs(ctx).items():
        try:
            receipt = engine.store(item)
        except DriverRaised as raised:
            if not isinstance(raised.error, InvalidRequest):
                raise
            ctx.fail(
                f"store({label})",
                f"{label} taken (the contract allows it)",
                f"refused as invalid: {raised.error}. A store that cannot take it declares "
                f"a constraint (Driver(constraints=...)): "
                f"{_constraint_for(label, item)}",
            )
        stored[ctx.label(receipt.id, label)] = item
    hits = require_listed(engine, ctx, run_filter(ctx), stored, "the unusual items", 8)
    for hit in hits:
        require_as_stored(ctx, "list(run filter)", stored[hit.id], hit)
