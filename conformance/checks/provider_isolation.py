"""Provider check that a namespace is matched exactly, never as a string or path prefix."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.provider_support import (
    Row,
    entry_ref,
    ns,
    put_rows,
    read_back,
    refs,
    require_counts,
    sectioned,
)
from conformance.checks.registry import check
from conformance.provider import OwnedRecallOpts

# Names that share a string prefix, or a path prefix: a store matching namespaces with
# LIKE 'x%', startswith, or a hierarchical prefix search mixes them up.
SIBLINGS = (
    ("a", "iso/a"),
    ("ab", "iso/ab"),
    ("a-b", "iso/a-b"),
    ("a/b", "iso/a/b"),
)
SECTIONED_SIBLINGS = (("x", "iso-x"), ("xy", "iso-xy"))
NEAR_MISSES = (("a", "ab"), ("ab", "a"), ("a", "a-b"), ("a-b", "a"), ("a", "a/b"), ("a/b", "a"))
SECTIONED_NEAR_MISSES = (("x", "xy"), ("xy", "x"))

# Separators a store may join a namespace and a key with into one id or path: each is
# valid inside a namespace, so `(a + s + "j", "k")` and `(a, "j" + s + "k")` join alike
# and must stay two entries.
JOINERS = (":", "::", "/", ".", "")


@check(
    "provider.namespaces_are_isolated",
    title="An entry is visible in its namespace and in no other, however alike their names",
    clause="provider-families.md#namespace-isolation",
    storage=True,
)
def assert_namespaces_are_isolated(provider: Any, ctx: CheckContext) -> None:
    """Namespaces that are string-prefix siblings (`a`, `ab`, `a-b`), a path child (`a/b`)
    and sectioned siblings (`learning:…x`, `learning:…xy`) never see each other; nor do
    two entries whose namespace and key join into one string (`(a:j, k)` and
    `(a, j:k)`, for `:`, `::`, `/`, `.` and no separator).

    Each holds the key `k` and a key of its own: `list`, `get`, `recall` and the
    `namespaces()` counts of one never include the other; forgetting `k` in `a`
    removes it there only; a namespace never written lists and recalls nothing.
    """
    admits = ctx.settings.constraints.admits_namespace
    names = {label: ns(ctx, what) for label, what in SIBLINGS if "/" not in label}
    # The path child keeps its `/` (under a separator of `-`, `iso-a-b` would be the
    # sibling `a-b` itself); a declared alphabet without `/` leaves it out.
    child = ns(ctx, "iso/a") + "/b"
    if admits(child):
        names["a/b"] = child
    pairs = [(a, b) for a, b in NEAR_MISSES if a in names and b in names]
    sections = {label: sectioned(ctx, "learning", what) for label, what in SECTIONED_SIBLINGS}
    if all(admits(n) for n in sections.values()):
        names.update(sections)
        pairs.extend(SECTIONED_NEAR_MISSES)
    own = {label: f"own-{i}" for i, label in enumerate(names)}
    held = {
        label: [
            Row(namespace, "k", f"needle under the shared key in {label}"),
            Row(namespace, own[label], f"needle kept only in {label}"),
        ]
        for label, namespace in names.items()
    }
    for rows in held.values():
        put_rows(provider, ctx, rows)

    for label, namespace in names.items():
        want = [entry_ref(ctx, namespace, r.key) for r in held[label]]
        listed = provider.list(namespace, None, None)
        call = f"list({namespace!r}, None, None)"
        ctx.require_ids(call, refs(ctx, listed), want, f"exactly the two entries of {label!r}")
        hits = provider.recall("needle", 10, OwnedRecallOpts(namespace=namespace), None)
        call = f"recall('needle', 10, namespace={namespace!r})"
        ctx.require_ids(call, refs(ctx, hits), want, f"exactly the two entries of {label!r}")
        entry = provider.get(namespace, "k")
        call = f"get({namespace!r}, 'k')"
        ctx.require(entry is not None, call, f"the entry of {label!r}", "None")
        ctx.require_same(call, held[label][0].fields(), read_back(entry), "the entry")
    for label, other in pairs:
        namespace, key = names[label], own[other]
        got = provider.get(namespace, key)
        call = f"get({namespace!r}, {key!r})"
        ctx.require(got is None, call, f"None ({key!r} lives in {other!r} only)", got)
    joined = _require_joined_addresses_apart(provider, ctx)
    require_counts(provider, ctx, {**{n: 2 for n in names.values()}, **joined})

    never = ns(ctx, "iso/never-written")
    listed = provider.list(never, None, None)
    ctx.require(listed == [], f"list({never!r}, None, None)", "[] (nothing stored there)", listed)
    got = provider.get(never, "k")
    ctx.require(got is None, f"get({never!r}, 'k')", "None", got)

    first = names["a"]
    forgot = provider.forget(first, "k")
    ctx.require(forgot is True, f"forget({first!r}, 'k')", "True (it was stored)", forgot)
    for label, namespace in names.items():
        got = provider.get(namespace, "k")
        call = f"get({namespace!r}, 'k') after forget({first!r}, 'k')"
        if namespace == first:
            ctx.require(got is None, call, "None", got)
        else:
            ctx.require(got is not None, call, f"the entry of {label!r}, still there", "None")
    counts = {**{n: 2 for n in names.values()}, **joined}
    counts[first] = 1
    require_counts(provider, ctx, counts)


def _require_joined_addresses_apart(provider: Any, ctx: CheckContext) -> dict[str, int]:
    """Store `(a + s + "j", "k")` and `(a, "j" + s + "k")` for each joiner `s` the
    driver's constraints admit; each reads and lists back as its own entry. The count
    each namespace written must have."""
    constraints = ctx.settings.constraints
    rows: list[Row] = []
    for i, joiner in enumerate(JOINERS):
        base = ns(ctx, f"iso/joined-{i}")
        pair = [
            Row(f"{base}{joiner}j", "k", f"needle joined by {joiner!r}, key k"),
            Row(base, f"j{joiner}k", f"needle joined by {joiner!r}, key j{joiner}k"),
        ]
        if all(constraints.admits_namespace(r.namespace) for r in pair) and all(
            constraints.admits_key(r.key) for r in pair
        ):
            rows.extend(pair)
    put_rows(provider, ctx, rows)
    for row in rows:
        call = f"get({row.namespace!r}, {row.key!r})"
        entry = provider.get(row.namespace, row.key)
        ctx.require(entry is not None, call, "the entry", "None")
        ctx.require_same(call, row.fields(), read_back(entry), "the entry")
        listed = provider.list(row.namespace, None, None)
        want = [entry_ref(ctx, row.namespace, row.key)]
        ctx.require_ids(
            f"list({row.namespace!r}, None, None)", refs(ctx, listed), want, "exactly its entry"
        )
    return {row.namespace: 1 for row in rows}
