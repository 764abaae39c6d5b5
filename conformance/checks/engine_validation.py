"""Engine check of validation: every request the contract calls invalid is refused as
`InvalidRequest` before anything is stored."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    exchange,
    fact,
    ids,
    list_all,
    meta,
    modes,
    note,
    run_filter,
)
from conformance.checks.registry import check
from conformance.engine import (
    MAX_GET_IDS,
    MAX_SCAN_LIMIT,
    MAX_STORE_MANY,
    Conversation,
    Document,
    DocumentBody,
    ExploreRequest,
    Facet,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    GetRequest,
    InvalidRequest,
    Learning,
    ListRequest,
    MetaFilter,
    RecallRequest,
    Role,
    Turn,
    conversation,
    document,
)
from conformance.engine.errors import EngineError
from conformance.engine.refusals import carries, pinned_message

Invalid = tuple[str, Callable[[], Any], Any]
"""A labelled call the contract refuses, and what it sends (whose validation gives the
message the refusal must carry)."""


def invalid_items(ctx: CheckContext) -> list[tuple[str, Document | Conversation | Learning]]:
    """Items each breaking one rule of B2, all in the run's workspace (so any that is
    stored anyway lists)."""
    blank_turn = exchange(ctx, "blank turn")
    blank_turn.turns.append(Turn(role=Role.USER, text=" \t\n"))
    return [
        ("a blank document body", document(" \n\t ", meta(ctx))),
        (
            "a uri document body",
            Document(body=DocumentBody(uri=f"https://{ctx.marker}.test/doc"), meta=meta(ctx)),
        ),
        ("a conversation without turns", conversation([], meta(ctx))),
        ("a conversation with a blank turn", blank_turn),
        ("a blank learning", fact(ctx, "blank").model_copy(update={"text": "  "})),
        ("confidence 1.5", fact(ctx, "too sure", 1.5)),
        ("confidence -0.1", fact(ctx, "too unsure", -0.1)),
        ("confidence NaN", fact(ctx, "unsure how sure", float("nan"))),
    ]


def invalid_requests(engine: Any, ctx: CheckContext) -> list[Invalid]:
    """Every request B2 and B6 call invalid, as a labelled call on `engine` with what it
    sends."""
    scope = run_filter(ctx)
    calls: list[Invalid] = []

    def add(label: str, operation: Callable[[Any], Any], sent: Any) -> None:
        calls.append((label, partial(operation, sent), sent))

    for what, item in invalid_items(ctx):
        add(f"store({what})", engine.store, item)
    valid = [note(ctx, f"valid {i}") for i in range(MAX_STORE_MANY + 1)]
    bad = invalid_items(ctx)[0][1]
    add("store_many([])", engine.store_many, [])
    add(f"store_many({MAX_STORE_MANY + 1} items)", engine.store_many, valid)
    # validate_many checks every item before storing any, so the valid items around the
    # blank one must not be stored either.
    add("store_many([valid, blank body, valid])", engine.store_many, [valid[0], bad, valid[1]])
    add("recall(blank question)", engine.recall, RecallRequest(question=" ", filter=scope, limit=5))
    add(
        "recall(limit 0)",
        engine.recall,
        RecallRequest(question=ctx.marker, filter=scope, limit=0),
    )
    add("list(limit 0)", engine.list, ListRequest(filter=scope, limit=0))
    add("forget(ids=[])", engine.forget, ForgetIds(ids=[]))
    add("forget(filter={})", engine.forget, ForgetFilter(filter=MetaFilter()))
    for limit, scan in ((0, 10), (501, 10), (10, 0), (10, MAX_SCAN_LIMIT + 1)):
        explore = ExploreRequest(facet=Facet.KIND, filter=scope, limit=limit, scan_limit=scan)
        add(f"explore(limit {limit}, scan_limit {scan})", engine.explore, explore)
    for asked in ([], [f"{ctx.marker}-{i}" for i in range(MAX_GET_IDS + 1)], [" "]):
        blank = ", blank" if asked == [" "] else ""
        add(f"get({len(asked)} ids{blank})", engine.get, GetRequest(ids=asked))
    # The mode is checked before the request (B8), so only a declared mode reaches the
    # request's own validation.
    for mode in modes(engine)[:1]:
        for query, limit in ((" ", 5), (ctx.marker, 0)):
            fetch = FetchRequest(query=query, mode=mode, filter=scope, limit=limit)
            add(f"fetch({query!r}, {mode.value}, limit {limit})", engine.fetch, fetch)
    return calls


@check(
    "engine.validation",
    title="Every invalid request is refused as InvalidRequest, with the contract's message, "
    "and stores nothing",
    clause=(
        "engine-operations.md#validate-first, "
        "items-and-fingerprints.md#item-validation, "
        "engine-operations.md#store-many, errors.md#refusals-change-nothing"
    ),
)
def assert_validation(engine: Any, ctx: CheckContext) -> None:
    """Blank or unresolved document bodies, empty or blank conversations, blank learnings,
    confidences outside 0..=1 or NaN, store_many of 0, 101 or a batch holding one invalid
    item, a blank recall question or fetch query, zero recall/fetch/list limits, forget
    of nothing, explore and get outside their bounds: each is `InvalidRequest` (no other
    error) carrying the contract's message (`document body must not be empty`, ...), and
    afterwards the run lists nothing."""
    cleanup(engine, ctx)
    for label, call, sent in invalid_requests(engine, ctx):
        error = ctx.refused(label, call, InvalidRequest, "InvalidRequest")
        pinned = pinned_message(sent)
        if pinned is not None:
            ctx.require(
                carries(error, pinned),
                label,
                f"InvalidRequest with the contract's message {pinned!r}",
                repr(error.message if isinstance(error, EngineError) else str(error)),
            )
    left = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require_ids(
        "list(run filter) after the invalid requests",
        left,
        [],
        "nothing (invalid requests store nothing)",
    )
