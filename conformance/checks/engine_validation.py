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

Invalid = tuple[str, Callable[[], Any]]


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
    """Every request B2 and B6 call invalid, as a labelled call on `engine`."""
    scope = run_filter(ctx)
    calls: list[Invalid] = []
    for what, item in invalid_items(ctx):
        calls.append((f"store({what})", partial(engine.store, item)))
    valid = [note(ctx, f"valid {i}") for i in range(MAX_STORE_MANY + 1)]
    bad = invalid_items(ctx)[0][1]
    calls += [
        ("store_many([])", lambda: engine.store_many([])),
        (f"store_many({MAX_STORE_MANY + 1} items)", lambda: engine.store_many(valid)),
        # validate_many checks every item before storing any, so the valid items around
        # the blank one must not be stored either.
        (
            "store_many([valid, blank body, valid])",
            lambda: engine.store_many([valid[0], bad, valid[1]]),
        ),
        (
            "recall(blank question)",
            lambda: engine.recall(RecallRequest(question=" ", filter=scope, limit=5)),
        ),
        (
            "recall(limit 0)",
            lambda: engine.recall(RecallRequest(question=ctx.marker, filter=scope, limit=0)),
        ),
        ("list(limit 0)", lambda: engine.list(ListRequest(filter=scope, limit=0))),
        ("forget(ids=[])", lambda: engine.forget(ForgetIds(ids=[]))),
        ("forget(filter={})", lambda: engine.forget(ForgetFilter(filter=MetaFilter()))),
    ]
    for limit, scan in ((0, 10), (501, 10), (10, 0), (10, MAX_SCAN_LIMIT + 1)):
        explore = ExploreRequest(facet=Facet.KIND, filter=scope, limit=limit, scan_limit=scan)
        calls.append(
            (f"explore(limit {limit}, scan_limit {scan})", partial(engine.explore, explore))
        )
    for asked in ([], [f"{ctx.marker}-{i}" for i in range(MAX_GET_IDS + 1)], [" "]):
        calls.append(
            (
                f"get({len(asked)} ids{', blank' if asked == [' '] else ''})",
                partial(engine.get, GetRequest(ids=asked)),
            )
        )
    # The mode is checked before the request (B8), so only a declared mode reaches the
    # request's own validation.
    for mode in modes(engine)[:1]:
        for query, limit in ((" ", 5), (ctx.marker, 0)):
            fetch = FetchRequest(query=query, mode=mode, filter=scope, limit=limit)
            calls.append(
                (f"fetch({query!r}, {mode.value}, limit {limit})", partial(engine.fetch, fetch))
            )
    return calls


@check(
    "engine.validation",
    title="Every invalid request is refused as InvalidRequest and stores nothing",
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
    error), and afterwards the run lists nothing."""
    cleanup(engine, ctx)
    for label, call in invalid_requests(engine, ctx):
        ctx.refused(label, call, InvalidRequest, "InvalidRequest")
    left = ids(list_all(engine, ctx, run_filter(ctx)))
    ctx.require_ids(
        "list(run filter) after the invalid requests",
        left,
        [],
        "nothing (invalid requests store nothing)",
    )
