"""Provider check that listing and counting hold past the result caps stores default to."""

from __future__ import annotations

from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.fan_out import each
from conformance.checks.provider_support import (
    FORGET_OWNER,
    Row,
    entry_ref,
    forget_held,
    is_ours,
    keys_of,
    named_keys,
    ns,
    put_rows,
    refs,
    require_counts,
    where,
)
from conformance.checks.registry import check
from conformance.provider import MemoryCategory

BIG = 125
"""Entries in one namespace: past the caps of 10, 20, 50 and 100 a search or count call
often defaults to."""
SMALL_NAMESPACES = 120
"""Namespaces beside the big one, an entry each (121 in all, 245 entries): past the 100
namespaces an enumeration call (LangGraph's `list_namespaces`) answers by default."""
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
    """125 entries in one namespace and 121 namespaces (245 entries): `list` by
    namespace, by `None`, by category and by session returns every entry once;
    `namespaces()` lists every namespace with its count; after forgetting 15 entries
    and emptying one namespace, the counts follow (an emptied namespace may be absent
    or kept with count 0).

    Catches an adapter that reads one page of its store's search, count or namespace
    enumeration (10, 20, 50 or 100 results, common defaults) and never asks for the
    next.
    """
    big = ns(ctx, "vol/big")
    rows = [
        Row(
            big,
            f"v{i:03d}",
            f"volume entry number {i}",
            DAILY if i < BIG // 2 + 1 else MemoryCategory.CORE,
            "vol-s1" if i % 2 == 0 else "vol-s2",
        )
        for i in range(BIG)
    ]
    small = [ns(ctx, f"vol/n{j:03d}") for j in range(SMALL_NAMESPACES)]
    rows += [Row(n, "only", "small entry") for n in small]
    for namespace in small:
        entry_ref(ctx, namespace, "only", where(ctx, namespace))
    put_rows(provider, ctx, rows, in_any_order=True)

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
    counts = {big: BIG, **dict.fromkeys(small, 1)}
    require_counts(provider, ctx, counts)

    forgotten = in_big[:FORGOTTEN] + [r for r in rows if r.namespace == small[0]]
    with ctx.precondition(FORGET_OWNER, "forgetting stored entries"):
        each(partial(forget_held, provider, ctx), forgotten)
    counts[big] = BIG - FORGOTTEN
    del counts[small[0]]
    require_counts(provider, ctx, counts)
    kept = named_keys(ctx, (r.key for r in in_big[FORGOTTEN:]))
    got = provider.list(big, None, None)
    call = f"list({big!r}, None, None) after {FORGOTTEN} forgets"
    ctx.require_ids(call, keys_of(ctx, got), kept, "exactly the entries not forgotten")
