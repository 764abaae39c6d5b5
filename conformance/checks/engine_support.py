"""What engine checks share: the run's workspace, paging that must progress, cleanup, the probe.

Every item a check writes carries ``meta.workspace = ctx.root`` (or the probe
workspace under it), and every read and forget names that workspace, so a check
never sees or touches data outside its own run (decisions §4.9).

A fault is reported by the check that owns the operation: paging a listing belongs to
`engine.list_paging`, paging a fetch to `engine.cursor_progress`, and another check that
only needs them to work (to list its own writes, say) ends inconclusive when they do
not, naming the owner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NoReturn, Protocol

from conformance.checks.context import CheckContext
from conformance.checks.evidence import name_ids, show
from conformance.checks.outcome import CheckSkipped
from conformance.engine import (
    Conversation,
    Document,
    FetchMode,
    FetchRequest,
    ForgetFilter,
    Hit,
    ItemKind,
    Learning,
    LearningKind,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Role,
    StoreItem,
    Turn,
    conversation,
    document,
    learning,
    to_f32,
)

LIST_PAGE = 2
"""The page size `list_all` reads with: small, so paging is exercised on every read."""

MAX_PAGES = 10_000
"""Pages after which a listing that still hands out cursors is judged never to end."""

NO_FETCH_MODE = "engine declares no fetch mode"

LIST_OWNER = "engine.list_paging"
"""The check that owns list paging: listings elsewhere are its preconditions."""

FETCH_OWNER = "engine.cursor_progress"
"""The check that owns fetch paging."""

IDENTITY_OWNER = "engine.replay"
"""The check that owns identity: distinct items get distinct ids."""

Page = tuple[list[Hit], str | None]


def meta(ctx: CheckContext, workspace: str | None = None, **fields: Any) -> MemoryMeta:
    """Metadata naming the run's workspace (or `workspace`), plus `fields`."""
    return MemoryMeta(workspace=workspace or ctx.root, **fields)


def run_filter(ctx: CheckContext, workspace: str | None = None, **fields: Any) -> MetaFilter:
    """A filter naming the run's workspace (or `workspace`), plus `fields`."""
    return MetaFilter(workspace=workspace or ctx.root, **fields)


def probe_workspace(ctx: CheckContext) -> str:
    """The workspace of the fetch-filter probes, inside the run's own."""
    return f"{ctx.root}/probes"


def note(ctx: CheckContext, label: str, **fields: Any) -> Document:
    """The document `<marker> <label> note` in the run's workspace."""
    return document(f"{ctx.marker} {label} note", meta(ctx, **fields))


def fact(ctx: CheckContext, label: str, confidence: float = 0.9, **fields: Any) -> Learning:
    """The learning `<marker> <label> fact` in the run's workspace."""
    text = f"{ctx.marker} {label} fact"
    return learning(text, LearningKind.FACT, confidence, meta(ctx, **fields))


def exchange(ctx: CheckContext, label: str, **fields: Any) -> Conversation:
    """A two-turn conversation about `label` in the run's workspace."""
    turns = [
        Turn(role=Role.USER, text=f"{ctx.marker} {label} question"),
        Turn(role=Role.ASSISTANT, text=f"{label} answer"),
    ]
    return conversation(turns, meta(ctx, **fields))


AT = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
"""A fixed observation time: every timestamp a check writes is whole seconds, UTC."""


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


SEEDED_KINDS = {ItemKind.DOCUMENT: 3, ItemKind.LEARNING: 2, ItemKind.CONVERSATION: 1}
"""How many items of each kind `seed` stores."""


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


def ids(hits: Sequence[Hit]) -> list[str]:
    """The ids of `hits`, in order."""
    return [hit.id for hit in hits]


def cleanup(engine: Any, ctx: CheckContext, *workspaces: str) -> None:
    """When the check ends, forget by the run's workspace filter (and each of
    `workspaces`), then require that nothing is left there to list."""
    for workspace in (ctx.root, *workspaces):
        ctx.defer(f"forget(workspace={workspace!r})", _forgetter(engine, ctx, workspace))


def _forgetter(engine: Any, ctx: CheckContext, workspace: str) -> Callable[[], None]:
    def forget() -> None:
        engine.forget(ForgetFilter(filter=MetaFilter(workspace=workspace)))
        left = list_all(engine, ctx, MetaFilter(workspace=workspace))
        ctx.require(
            not left,
            f"list(workspace={workspace!r}) after the cleanup forget",
            "nothing left",
            f"{len(left)} items survived a forget by workspace filter: {ctx.named(ids(left))}",
        )

    return forget


class Verdicts(Protocol):
    """What can fail a read at a call: a `CheckContext`, or the fuzzer's differential."""

    def fail(self, call: str, expected: str, got: str) -> NoReturn: ...

    def require(self, condition: bool, call: str, expected: str, got: str) -> None: ...


class Owned:
    """Verdicts on an operation `owner` checks: inside another check, a failure is a
    failed precondition (inconclusive, naming `owner`); inside `owner`, a failure."""

    def __init__(self, ctx: CheckContext, owner: str, what: str) -> None:
        self.ctx = ctx
        self.owner = owner
        self.what = what

    def fail(self, call: str, expected: str, got: str) -> NoReturn:
        with self.ctx.precondition(self.owner, self.what):
            self.ctx.fail(call, expected, got)
        raise AssertionError("unreachable: a failure inside a precondition still raises")

    def require(self, condition: bool, call: str, expected: str, got: str) -> None:
        if not condition:
            self.fail(call, expected, got)


def pages(
    ctx: Verdicts,
    what: str,
    limit: int,
    read: Callable[[str | None], Page],
    noun: str = "listing",
) -> list[Hit]:
    """Every hit of a paged read, following `next_cursor` until it is unset.

    Fails when a page holds more than `limit` hits, when a cursor repeats (the read
    would never end) or after `MAX_PAGES` pages.
    """
    hits: list[Hit] = []
    seen: set[str] = set()
    cursor: str | None = None
    call = what
    for _ in range(MAX_PAGES):
        call = f"{what} (limit {limit}, cursor {cursor!r})"
        items, next_cursor = read(cursor)
        ctx.require(len(items) <= limit, call, f"at most {limit} hits", f"{len(items)} hits")
        hits.extend(items)
        if next_cursor is None:
            return hits
        if next_cursor in seen:
            ctx.fail(
                call,
                "a cursor that makes progress",
                f"the {noun} cursor {show(next_cursor)} repeated; paging never ends",
            )
        seen.add(next_cursor)
        cursor = next_cursor
    ctx.fail(call, f"a read that ends within {MAX_PAGES} pages", "a cursor on every page")


def list_all(
    engine: Any, ctx: CheckContext, filter: MetaFilter, limit: int = LIST_PAGE
) -> list[Hit]:
    """Every item `filter` admits, listed `limit` at a time; every score must be 0.0.

    How the listing pages is `engine.list_paging`'s to judge.
    """
    what = f"list({describe_filter(filter)})"
    verdicts = Owned(ctx, LIST_OWNER, f"paging {what}")

    def read(cursor: str | None) -> Page:
        page = engine.list(ListRequest(filter=filter, limit=limit, cursor=cursor))
        scored = [hit for hit in page.items if hit.score != 0.0]
        if scored:
            verdicts.fail(
                f"{what} (limit {limit}, cursor {cursor!r})",
                "every listing hit scored 0.0",
                f"score {scored[0].score} on {ctx.named([scored[0].id])}",
            )
        return page.items, page.next_cursor

    return pages(verdicts, what, limit, read)


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
    strays = [item_id for item_id in dict.fromkeys(got) if item_id not in stored]
    ctx.require(
        not strays,
        call,
        f"only {what}",
        f"{len(strays)} more: {ctx.named(strays)}",
    )
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
    strays = [item_id for item_id in dict.fromkeys(ids(hits)) if item_id not in known]
    ctx.require(not strays, call, f"only {what}", f"{len(strays)} more: {ctx.named(strays)}")
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


def fetch_all(
    engine: Any, ctx: CheckContext, query: str, mode: FetchMode, filter: MetaFilter, limit: int
) -> list[Hit]:
    """Every hit of a fetch in `mode`, `limit` at a time.

    How the fetch pages is `engine.cursor_progress`'s to judge.
    """

    def read(cursor: str | None) -> Page:
        req = FetchRequest(query=query, mode=mode, filter=filter, limit=limit, cursor=cursor)
        page = engine.fetch(req)
        return page.hits, page.next_cursor

    what = f"fetch({query!r}, {mode.value}, {describe_filter(filter)})"
    return pages(Owned(ctx, FETCH_OWNER, f"paging {what}"), what, limit, read, "fetch")


def describe_filter(filter: MetaFilter) -> str:
    """The set fields of `filter`, for messages (`workspace=...` shortened to its last step)."""
    shown = filter.model_dump(mode="json")
    if "workspace" in shown:
        shown["workspace"] = "…/" + str(shown["workspace"]).rsplit("/", 1)[-1]
    return ", ".join(f"{key}={value}" for key, value in shown.items()) or "{}"


def modes(engine: Any, ctx: CheckContext | None = None) -> list[FetchMode]:
    """The fetch modes under test: those the engine declares, in contract order, narrowed
    to `ctx.fetch_mode` when the runner parametrises a check by mode."""
    declared = set(engine.descriptor().fetch_modes)
    chosen = [mode for mode in FetchMode if mode in declared]
    if ctx is not None and ctx.fetch_mode is not None:
        return [mode for mode in chosen if mode.value == ctx.fetch_mode]
    return chosen


def require_a_mode(engine: Any, ctx: CheckContext | None = None) -> list[FetchMode]:
    """The fetch modes under test; skips the check when there are none."""
    declared = modes(engine, ctx)
    if not declared:
        raise CheckSkipped(NO_FETCH_MODE)
    return declared


def engine_retains_writes(engine: Any, ctx: CheckContext | None = None) -> bool:
    """The retention probe (decisions §4.8): store one document under the run's root and
    list it back. Errors propagate; cleanup runs whatever happens.

    Deliberately not a flag the engine sets: an engine that means to retain and
    silently does not must be caught by the storage checks, not excused from them.
    """
    context = ctx if ctx is not None else CheckContext("engine.retention_probe")
    bound = context.bind(engine)
    try:
        cleanup(bound, context)
        bound.store(note(context, "retention probe"))
        held = list_all(bound, context, run_filter(context))
    finally:
        failure = context.run_cleanups()
    if failure is not None:
        raise failure
    return bool(held)
