"""Provider checks of writes racing one another: one key stored, then forgotten, from
several threads at once."""

from __future__ import annotations

import re
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.provider_support import CORE, keys_of, named_keys, ns
from conformance.checks.racing import RACERS, race, require_thread_safe
from conformance.checks.registry import check
from conformance.provider import MemoryTaint

RACER = re.compile(r"racer \d+")
"""A racer's number in its content."""

ROUNDS = 6
"""Times the held key is forgotten from several threads at once (stored again between)."""


@check(
    "provider.racing_writes",
    title="One key stored from 8 threads at once holds one of their entries; one forget of it "
    "says True",
    clause=(
        "provider-families.md#core-store, provider-families.md#core-forget, "
        "kit-choices.md#racing-stores"
    ),
    storage=True,
)
def assert_racing_writes(provider: Any, ctx: CheckContext) -> None:
    """8 threads released together store one key, each its own content: afterwards the
    key lists once, `get` answers one of the 8 entries whole, and `namespaces()` counts
    1. Then, 6 times over (stored again between), 8 threads forget it at once:
    exactly one answers True, and nothing is held.

    Catches an append-only store without a unique key (two rows for one key), a row
    mixing two writers' fields, and a forget that looks up and deletes in two unguarded
    steps (two Trues). Skipped for a driver that is not thread-safe.
    """
    require_thread_safe(ctx)
    namespace = ns(ctx, "racing")
    key = "raced"
    ctx.defer(f"forget({namespace!r}, {key!r})", lambda: provider.forget(namespace, key))
    contents = [f"written by racer {n}" for n in range(RACERS)]
    racers = iter(range(RACERS))

    def store() -> None:
        content = contents[next(racers)]
        provider.store(namespace, key, content, CORE, None, MemoryTaint.INTERNAL)

    race(store)
    call = f"store({namespace!r}, {key!r}, ...) from {RACERS} threads at once"
    rows = provider.list(namespace, None, None)
    ctx.require_ids(call, keys_of(ctx, rows), named_keys(ctx, [key]), "exactly one row")
    entry = provider.get(namespace, key)
    ctx.require(
        entry is not None and entry.content in contents and entry.category == CORE,
        f"get({namespace!r}, {key!r}) after {call}",
        "one racer's entry, whole",
        # Which racer won is the race's: the message names none, so a seed replays it.
        RACER.sub("racer <n>", repr(entry)),
    )
    counted = [s.count for s in provider.namespaces() if s.namespace == namespace]
    ctx.require(counted == [1], "namespaces()", f"{namespace!r} counted once, 1", counted)
    for n in range(1, ROUNDS + 1):
        if n > 1:
            provider.store(namespace, key, contents[0], CORE, None, MemoryTaint.INTERNAL)
        forgot = race(lambda: provider.forget(namespace, key))
        call = f"forget({namespace!r}, {key!r}) from {RACERS} threads at once (round {n})"
        ctx.require(
            sorted(forgot, reverse=True) == [True] + [False] * (RACERS - 1),
            call,
            "exactly one True (the others found nothing to forget)",
            forgot,
        )
        held = provider.get(namespace, key)
        ctx.require(held is None, f"get({namespace!r}, {key!r}) after {call}", "None", held)
