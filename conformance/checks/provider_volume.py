"""Provider check that listing and counting hold past the result caps stores default to."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.provider_support import (
    FORGET_OWNER,
    Row,
    entry_ref,
    is_ours,
    keys_of,
    named_keys,
    ns,
    put_rows,
    refs,
    require_counts,
)
from conformance.provider import MemoryCategory

BIG = 27
"""Entries in one namespace: past the caps of 10 and 20 a search call often defaults to."""
SMALL_NAMESPACES = 11
"""Namespaces beside the big one (12 in all, past a cap of 10)."""
PER_SMALL = 3
"""Entries in each small namespace (60 entries in all, past a cap of 50)."""
FORGOTTEN = 15
"""Entries of the big namespace forgotten before the counts are read again."""

DAILY = MemoryCategory.DAILY
FILTERS: tuple[tuple[MemoryCategory | None, str | None], ...] = (
    (None, None),
    (DAILY, None),
    (None, "vol-s1"),
    (DAILY, "vol-s1"),
)


@check(
    "provider.listing_holds_at_volume",
    title="list, list(None) and namespaces() hold past the result caps stores default to",
    clause=(
        "provider-families.md#list-everything, provider-families.md#core-list, "
        "provider-families.md#core-namespaces"
    ),
    storage=True,
)
def assert_listing_holds_at_volume(provider: Any, ctx: CheckContext) -> None:
    """27 entries in one namespace and 12 namespaces (60 entries): `list` by namespace,
    by `None`, by category and by session returns every entry once; `namespaces()`
    counts each namespace; after forgetting 15 entries and emptying one namespace, the
    counts follow (an emptied namespace may be absent or kept with count 0).

    Catches an adapter that reads one page of its store's search (10 or 20 results, a
    common default) and never asks for the next.
    """
    big = ns(ctx, "vol/big")
    rows = [
        Row(
            big,
            f"v{i:02d}",
            f"volume entry number {i}",
            DAILY if i < BIG // 2 + 1 else MemoryCategory.CORE,
            "vol-s1" if i % 2 == 0 else "vol-s2",
        )
        for i in range(BIG)
    ]
    small = [ns(ctx, f"vol/n{j:02d}") for j in range(SMALL_NAMESPACES)]
    rows += [Row(n, f"{n[-3:]}-{k}", f"small entry {k}") for n in small for k in "abc"]
    put_rows(provider, ctx, rows)

    in_big = [r for r in rows if r.namespace == big]
    for category, session in FILTERS:
        want = named_keys(ctx, (r.key for r in in_big if r.selected_by(category, session)))
        got = provider.list(big, category, session)
        call = f"list({big!r}, {category!r}, {session!r})"
        ctx.require_ids(call, keys_of(ctx, got), want, "every entry the filters select")
    for category, session in FILTERS:
        want = [
            entry_ref(ctx, r.namespace, r.key) for r in rows if r.selected_by(category, session)
        ]
        got = [e for e in provider.list(None, category, session) if is_ours(ctx, e.namespace)]
        call = f"list(None, {category!r}, {session!r}) (entries under the root)"
        ctx.require_ids(call, refs(ctx, got), want, "every entry the filters select")
    counts = {big: BIG, **{n: PER_SMALL for n in small}}
    require_counts(provider, ctx, counts)

    forgotten = in_big[:FORGOTTEN] + [r for r in rows if r.namespace == small[0]]
    with ctx.precondition(FORGET_OWNER, "forgetting stored entries"):
        for row in forgotten:
            forgot = provider.forget(row.namespace, row.key)
            ctx.require(forgot is True, f"forget({row.namespace!r}, {row.key!r})", "True", forgot)
    counts[big] = BIG - FORGOTTEN
    del counts[small[0]]
    require_counts(provider, ctx, counts)
    kept = named_keys(ctx, (r.key for r in in_big[FORGOTTEN:]))
    got = provider.list(big, None, None)
    call = f"list({big!r}, None, None) after {FORGOTTEN} forgets"
    ctx.require_ids(call, keys_of(ctx, got), kept, "exactly the entries not forgotten")
