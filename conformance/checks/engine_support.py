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

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NoReturn, Protocol

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.outcome import CheckSkipped
from conformance.engine import (
    Conversation,
    Document,
    FetchMode,
    FetchRequest,
    ForgetFilter,
    Hit,
    Learning,
    LearningKind,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Role,
    Turn,
    conversation,
    document,
    learning,
)

LIST_PAGE = 2
"""The page size `list_all` reads with: small, so paging is exercised on every read."""

CLEANUP_PAGE = 50
"""The page size a cleanup lists what survived with: one page when nothing did."""

MAX_PAGES = 10_000
"""Pages after which a listing that still hands out cursors is judged never to end."""

NO_FETCH_MODE = "engine declares no fetch mode"

LIST_OWNER = "engine.list_paging"
"""The check that owns list paging: listings elsewhere are its preconditions."""

FETCH_OWNER = "engine.cursor_progress"
"""The check that owns fetch paging."""

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


def ids(hits: Sequence[Hit]) -> list[str]:
    """The ids of `hits`, in order."""
    return [hit.id for hit in hits]


def cleanup(engine: Any, ctx: CheckContext, *workspaces: str) -> None:
    """When the check ends, forget by the run's workspace filter (and each of
    `workspaces`), then require that nothing is left there to list."""
    for workspace in (ctx.root, *workspaces):
        ctx.defer(f"forget(workspace={workspace!r})", _forgetter(engine, ctx, workspace))


FORGET_OWNER = "engine.forget_by_filter"
"""The check that owns forget by filter, which every check's cleanup relies on."""


def _forgetter(engine: Any, ctx: CheckContext, workspace: str) -> Callable[[], None]:
    def forget() -> None:
        engine.forget(ForgetFilter(filter=MetaFilter(workspace=workspace)))
        left = list_all(engine, ctx, MetaFilter(workspace=workspace), CLEANUP_PAGE)
        with ctx.precondition(FORGET_OWNER, "forgetting the check's items when it ends"):
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
