"""Provider checks of the core family: capabilities, round trips, upsert, filters, taint,
and content that must come back exactly."""

from __future__ import annotations

import unicodedata
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.outcome import DriverRaised
from conformance.checks.provider_support import (
    CORE,
    FILTERED_ROWS,
    FILTERS,
    Row,
    kept_or_refused,
    keys_of,
    named_keys,
    ns,
    provider_retains_writes,
    put,
    put_rows,
    read_back,
)
from conformance.checks.registry import check
from conformance.constraints import named_refusal
from conformance.provider import (
    MANDATORY,
    Invalid,
    MemoryCategory,
    MemoryTaint,
    audit_provider,
)

DAILY = MemoryCategory.DAILY
INTERNAL, EXTERNAL = MemoryTaint.INTERNAL, MemoryTaint.EXTERNAL_SYNC


@check(
    "provider.capability_audit",
    title="Capabilities are honest and include the mandatory three",
    clause="provider-families.md#capabilities",
)
def assert_capability_audit(provider: Any, ctx: CheckContext) -> None:
    """Advertised families equal reachable ones, and core, recall, portability are advertised."""
    audit = audit_provider(provider)
    ctx.require(audit is None, "audit_provider(...)", "no capability mismatch", str(audit))
    caps = provider.capabilities()
    missing = [c.value for c in MANDATORY if c not in caps]
    ctx.require(not missing, "capabilities()", "the mandatory families", f"missing {missing}")


@check(
    "provider.health",
    title="The provider reports itself usable, before and after it holds an entry",
    clause="provider-families.md#provider-health",
)
def assert_provider_health(provider: Any, ctx: CheckContext) -> None:
    """`health()` answers ready or degraded (never down, never an error), again once an
    entry is held, and a reason never carries the entry's content."""
    health = provider.health()
    ctx.require(health.is_usable(), "health()", "ready or degraded (a provider serving)", health)
    namespace = ns(ctx, "health")
    content = f"health probe content {ctx.marker}"
    put(provider, ctx, namespace, "k", content)
    again = provider.health()
    call = "health() with an entry held"
    ctx.require(again.is_usable(), call, "ready or degraded (a provider serving)", again)
    ctx.require(
        content not in (again.reason or ""),
        call,
        "a reason without memory content (provider-families.md#provider-health)",
        again,
    )


@check(
    "provider.forget_is_idempotent",
    title="Forgetting twice answers False the second time",
    clause="provider-families.md#core-forget",
)
def assert_forget_is_idempotent(provider: Any, ctx: CheckContext) -> None:
    """A second forget of the same key is `False`, never an error; a forgotten key reads None.
    A key never stored answers `False`: `k` beside the held `k0`, its case twin `K`, and
    the empty key (which a store may refuse with `Invalid` instead)."""
    namespace = ns(ctx, "forget")
    put(provider, ctx, namespace, "k0", "v")
    for absent in ("k", "K", ""):
        call = f"forget({namespace!r}, {absent!r}) (never stored)"
        try:
            with ctx.answer_or_refusal():
                never = provider.forget(namespace, absent)
        except DriverRaised as raised:
            if absent or not isinstance(raised.error, Invalid):
                raise
        else:
            ctx.require(never is False, call, "False", never)
    put(provider, ctx, namespace, "k", "v")
    first = provider.forget(namespace, "k")
    second = provider.forget(namespace, "k")
    ctx.require(second is False, f"forget({namespace!r}, 'k') (second)", "False", second)
    if first is True:
        after = provider.get(namespace, "k")
        ctx.require(after is None, f"get({namespace!r}, 'k')", "None after forget", after)
    else:
        ctx.require(first is False, f"forget({namespace!r}, 'k') (first)", "a bool", first)


@check(
    "provider.retention_probe",
    title="The retention probe answers, and what comes back is what was stored",
    clause="kit-choices.md#retention-probe, provider-families.md#core-round-trip",
)
def assert_provider_retention_probe(provider: Any, ctx: CheckContext) -> None:
    """Store one entry and read it back by `get` and `list` without error.

    A driver that gives back nothing passes (it retains nothing, and its storage checks
    are skipped); one that gives back anything different fails, with the difference.
    """
    provider_retains_writes(provider, ctx)


@check(
    "provider.store_get_round_trip",
    title="What is stored reads back field for field",
    clause="provider-families.md#core-round-trip, provider-families.md#entry",
    storage=True,
)
def assert_store_get_round_trip(provider: Any, ctx: CheckContext) -> None:
    """get returns key, content, namespace, category and session as stored; missing is None."""
    row = Row(ns(ctx, "round-trip"), "k1", "the quick brown fox", CORE, "session-1")
    put_rows(provider, ctx, [row])
    call = f"get({row.namespace!r}, 'k1')"
    entry = provider.get(row.namespace, row.key)
    ctx.require(entry is not None, call, "the stored entry", "None")
    ctx.require_same(call, row.fields(), read_back(entry), "the entry")
    missing = provider.get(row.namespace, "never-stored")
    ctx.require(missing is None, f"get({row.namespace!r}, 'never-stored')", "None", missing)


@check(
    "provider.upsert_replaces_rather_than_duplicates",
    title="Storing an existing key replaces it",
    clause="provider-families.md#core-store, provider-families.md#core-list",
    storage=True,
)
def assert_upsert_replaces_rather_than_duplicates(provider: Any, ctx: CheckContext) -> None:
    """Two stores under one key leave one row, holding everything of the second; a
    second store without a session clears the first one's (a store that merges the new
    fields into the old row, as a metadata upsert may, keeps it)."""
    namespace = ns(ctx, "upsert")
    replaced = (
        Row(namespace, "same-key", "first", CORE, "session-1", INTERNAL),
        Row(namespace, "same-key", "second", DAILY, "session-2", EXTERNAL),
    )
    cleared = (
        Row(namespace, "cleared-key", "first", DAILY, "session-1", EXTERNAL),
        Row(namespace, "cleared-key", "second", CORE, None, INTERNAL),
    )
    put_rows(provider, ctx, [replaced[0], cleared[0], replaced[1], cleared[1]])
    rows = provider.list(namespace, None, None)
    call = f"list({namespace!r}, None, None)"
    keys = named_keys(ctx, ["same-key", "cleared-key"])
    ctx.require_ids(call, keys_of(ctx, rows), keys, "exactly one row a key")
    listed = {row.key: row for row in rows}
    for _, second in (replaced, cleared):
        ctx.require_same(call, second.fields(), read_back(listed[second.key]), "the second store")
        entry = provider.get(namespace, second.key)
        get_call = f"get({namespace!r}, {second.key!r})"
        ctx.require(entry is not None, get_call, "the entry", "None")
        ctx.require_same(get_call, second.fields(), read_back(entry), "the second store")


@check(
    "provider.list_filters_narrow",
    title="Each list filter selects exactly its rows, and namespaces() counts",
    clause="provider-families.md#core-list, provider-families.md#core-namespaces",
    storage=True,
)
def assert_list_filters_narrow(provider: Any, ctx: CheckContext) -> None:
    """Category and session filters, alone and together, select exactly their rows.

    Every filter value has decoys differing only in case (`Alpha`, `SESS-1`) or as a
    string-prefix sibling (`alphabet`, `alph`, `sess-10`, `sess-`); the summary counts
    every row.
    """
    namespace = ns(ctx, "filters")
    rows = [Row(namespace, key, f"row {key}", cat, session) for key, cat, session in FILTERED_ROWS]
    put_rows(provider, ctx, rows)
    everything = named_keys(ctx, [r.key for r in rows])
    call = f"list({namespace!r}, None, None)"
    ctx.require_ids(
        call, keys_of(ctx, provider.list(namespace, None, None)), everything, "every row"
    )
    for category, session in FILTERS:
        want = named_keys(ctx, (r.key for r in rows if r.selected_by(category, session)))
        got = provider.list(namespace, category, session)
        call = f"list({namespace!r}, {category!r}, {session!r})"
        ctx.require_ids(call, keys_of(ctx, got), want, "exactly the rows the filters select")
    summaries = [s for s in provider.namespaces() if s.namespace == namespace]
    ctx.require(
        [s.count for s in summaries] == [len(rows)],
        "namespaces()",
        f"one summary for {namespace!r} with count {len(rows)}",
        summaries,
    )


@check(
    "provider.taint_is_preserved",
    title="Taint reads back exactly as written",
    clause="provider-families.md#taint",
    storage=True,
)
def assert_taint_is_preserved(provider: Any, ctx: CheckContext) -> None:
    """Internal and external_sync entries read back with their own taint, by get and by list."""
    namespace = ns(ctx, "taint")
    want = {"internal": INTERNAL, "external": EXTERNAL}
    for key, taint in want.items():
        put(provider, ctx, namespace, key, f"{key} content", taint=taint)
    for key, taint in want.items():
        entry = provider.get(namespace, key)
        call = f"get({namespace!r}, {key!r})"
        ctx.require(entry is not None, call, "the stored entry", "None")
        ctx.require_same(call, {"taint": taint}, {"taint": entry.taint}, "the entry")
    listed = {e.key: e.taint for e in provider.list(namespace, None, None)}
    ctx.require_same(f"list({namespace!r}, None, None)", want, listed, "the taint of each key")


LONE_SURROGATE = "half \ud800 a pair"
"""Content a Python str holds and UTF-8 cannot: kept exactly, or refused with `Invalid`."""

AWKWARD = {
    "unicode": "héllo — 👋 まいど",
    "empty": "",
    "large": "x" * 65536,
    "newlines": "a\nb\r\nc\0d",
    "controls": "".join(chr(c) for c in range(1, 32)) + "\x7f\x85\u2028",
    "padded": "  leading and trailing space  ",
    "decomposed": unicodedata.normalize("NFD", "café Ångström") + " ﬁ ①",
}


@check(
    "provider.awkward_content_round_trips",
    title="Unicode, empty, large, padded and control-character content reads back exactly",
    clause=(
        "provider-families.md#content-round-trip, kit-choices.md#declared-constraints, "
        "kit-choices.md#named-refusals, kit-choices.md#edges-of-a-domain"
    ),
    storage=True,
)
def assert_awkward_content_round_trips(provider: Any, ctx: CheckContext) -> None:
    """Each awkward content is stored and reads back unchanged by get and list.

    Nothing is trimmed, normalised (NFC/NFKC), re-encoded or cut. A refusal fails,
    unless the driver declared it (`Constraints.empty_content`, `max_content_length`,
    `control_characters`, `non_ascii`; declared values are not sent) or the contract
    names it: empty content may be refused with `Invalid` undeclared, and is then not
    held; the report lists the refusal beside the level. Content holding a lone
    surrogate (no Unicode text) is kept exactly or refused with `Invalid`, never altered.
    """
    namespace = ns(ctx, "awkward")
    admits = ctx.settings.constraints.admits_content
    sent = {key: content for key, content in AWKWARD.items() if admits(content)}
    for key, content in list(sent.items()):
        named = named_refusal(content)
        if named is None:
            put(provider, ctx, namespace, key, content)
            continue
        ctx.defer(f"forget({namespace!r}, {key!r})", partial(provider.forget, namespace, key))
        call = f"store({namespace!r}, {key!r}, {content!r}, ...)"
        _, error = ctx.attempt(
            call, provider.store, namespace, key, content, CORE, None, MemoryTaint.INTERNAL
        )
        if error is None:
            continue
        ctx.require(
            isinstance(error, Invalid),
            call,
            f"the {named} stored, or refused with Invalid (the contract names that refusal)",
            f"{type(error).__name__}: {error}",
        )
        ctx.note_named_refusal(named)
        del sent[key]
        entry = provider.get(namespace, key)
        ctx.require(
            entry is None, f"get({namespace!r}, {key!r})", "None (the store was refused)", entry
        )
    for key, content in sent.items():
        entry = provider.get(namespace, key)
        call = f"get({namespace!r}, {key!r})"
        ctx.require(entry is not None, call, f"the stored entry ({show(content, 80)})", "None")
        ctx.require_same(call, {"content": content}, {"content": entry.content}, "the entry")
    listed = provider.list(namespace, None, None)
    call = f"list({namespace!r}, None, None)"
    ctx.require_ids(call, keys_of(ctx, listed), named_keys(ctx, sent), "every awkward entry")
    ctx.require_same(call, sent, {e.key: e.content for e in listed}, "the content of each key")
    # A Python str can hold a lone surrogate, the contract's strings cannot:
    # kit-choices.md#edges-of-a-domain.
    if admits(LONE_SURROGATE):
        kept_or_refused(
            provider, ctx, ns(ctx, "not-unicode"), "half", LONE_SURROGATE, "a lone surrogate"
        )
