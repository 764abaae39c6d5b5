"""Provider checks of the core family: capabilities, isolation, round trips, upsert, taint."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.outcome import DriverRaised
from conformance.checks.provider_support import CORE, ns, provider_retains_writes, put
from conformance.provider import (
    MANDATORY,
    Invalid,
    MemoryCategory,
    MemoryTaint,
    audit_provider,
)


@check(
    "provider.capability_audit",
    title="Capabilities are honest and include the mandatory three",
    clause="contract-reference A2 (Capabilities.validate), A8 (audit_provider)",
)
def assert_capability_audit(provider: Any, ctx: CheckContext) -> None:
    """Advertised families equal reachable ones, and core, recall, portability are advertised."""
    audit = audit_provider(provider)
    ctx.require(audit is None, "audit_provider(...)", "no capability mismatch", str(audit))
    caps = provider.capabilities()
    missing = [c.value for c in MANDATORY if c not in caps]
    ctx.require(not missing, "capabilities()", "the mandatory families", f"missing {missing}")


@check(
    "provider.forget_is_idempotent",
    title="Forgetting twice answers False the second time",
    clause="contract-reference A4 (MemoryCore.forget), A9 §2",
)
def assert_forget_is_idempotent(provider: Any, ctx: CheckContext) -> None:
    """A second forget of the same key is `False`, never an error; a forgotten key reads None."""
    namespace = ns(ctx, "forget")
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
    title="The retention probe answers without error",
    clause="contract-reference A9 §6 (retains_writes); decisions §4.8",
)
def assert_provider_retention_probe(provider: Any, ctx: CheckContext) -> None:
    """Store one entry and read it back without error (a driver that keeps nothing passes)."""
    provider_retains_writes(provider, ctx)


@check(
    "provider.namespaces_are_isolated",
    title="An entry is visible in its namespace and in no other",
    clause="contract-reference A4 (list, get), A9 §3",
    storage=True,
)
def assert_namespaces_are_isolated(provider: Any, ctx: CheckContext) -> None:
    """An entry stored in `iso-a` lists and reads there, and neither lists nor reads in `iso-b`."""
    a, b = ns(ctx, "iso-a"), ns(ctx, "iso-b")
    put(provider, ctx, a, "k", "isolated")
    in_a = provider.list(a, None, None)
    ctx.require([e.key for e in in_a] == ["k"], f"list({a!r})", "exactly key 'k'", in_a)
    in_b = provider.list(b, None, None)
    ctx.require(in_b == [], f"list({b!r})", "[] (nothing was stored there)", in_b)
    got = provider.get(b, "k")
    ctx.require(got is None, f"get({b!r}, 'k')", "None", got)


@check(
    "provider.store_get_round_trip",
    title="What is stored reads back field for field",
    clause="contract-reference A4 (store, get), A9 §7",
    storage=True,
)
def assert_store_get_round_trip(provider: Any, ctx: CheckContext) -> None:
    """get returns key, content, namespace, category and session as stored; missing is None."""
    namespace = ns(ctx, "round-trip")
    put(provider, ctx, namespace, "k1", "the quick brown fox", CORE, "session-1")
    entry = provider.get(namespace, "k1")
    call = f"get({namespace!r}, 'k1')"
    ctx.require(entry is not None, call, "the stored entry", "None")
    expected = ("k1", "the quick brown fox", namespace, CORE, "session-1")
    got = (entry.key, entry.content, entry.namespace, entry.category, entry.session_id)
    ctx.require(
        got == expected,
        call,
        f"(key, content, namespace, category, session) = {expected}",
        repr(got),
    )
    missing = provider.get(namespace, "never-stored")
    ctx.require(missing is None, f"get({namespace!r}, 'never-stored')", "None", missing)


@check(
    "provider.upsert_replaces_rather_than_duplicates",
    title="Storing an existing key replaces it",
    clause="contract-reference A4 (store is an upsert on (namespace, key)), A9 §8",
    storage=True,
)
def assert_upsert_replaces_rather_than_duplicates(provider: Any, ctx: CheckContext) -> None:
    """Two stores under one key leave one row, holding the second content."""
    namespace = ns(ctx, "upsert")
    put(provider, ctx, namespace, "same-key", "first")
    provider.store(namespace, "same-key", "second", CORE, None, MemoryTaint.INTERNAL)
    rows = provider.list(namespace, None, None)
    ctx.require(
        [(e.key, e.content) for e in rows] == [("same-key", "second")],
        f"list({namespace!r})",
        "exactly one row, content 'second'",
        rows,
    )


@check(
    "provider.list_filters_narrow",
    title="Each list filter narrows, and namespaces() counts",
    clause="contract-reference A4 (list, namespaces), A9 §9 (A@late: a missing summary fails)",
    storage=True,
)
def assert_list_filters_narrow(provider: Any, ctx: CheckContext) -> None:
    """Category and session filters each select exactly their row; the summary counts 2."""
    namespace = ns(ctx, "filters")
    put(provider, ctx, namespace, "core-a", "x", CORE, "s1")
    put(provider, ctx, namespace, "daily-b", "y", MemoryCategory.DAILY, "s2")
    both = sorted(e.key for e in provider.list(namespace, None, None))
    ctx.require(both == ["core-a", "daily-b"], f"list({namespace!r})", "both rows", both)
    by_cat = [e.key for e in provider.list(namespace, CORE, None)]
    ctx.require(by_cat == ["core-a"], f"list({namespace!r}, core)", "['core-a']", by_cat)
    by_session = [e.key for e in provider.list(namespace, None, "s2")]
    ctx.require(
        by_session == ["daily-b"], f"list({namespace!r}, None, 's2')", "['daily-b']", by_session
    )
    summaries = [s for s in provider.namespaces() if s.namespace == namespace]
    ctx.require(
        [s.count for s in summaries] == [2],
        "namespaces()",
        f"one summary for {namespace!r} with count 2",
        summaries,
    )


@check(
    "provider.taint_is_preserved",
    title="Taint reads back exactly as written",
    clause="contract-reference A1 (MemoryTaint: never assigned, upgraded or re-stamped), A9 §10",
    storage=True,
)
def assert_taint_is_preserved(provider: Any, ctx: CheckContext) -> None:
    """Internal and external_sync entries read back with their own taint, by get and by list."""
    namespace = ns(ctx, "taint")
    for key, taint in (("internal", MemoryTaint.INTERNAL), ("external", MemoryTaint.EXTERNAL_SYNC)):
        put(provider, ctx, namespace, key, f"{key} content", taint=taint)
    for key, taint in (("internal", MemoryTaint.INTERNAL), ("external", MemoryTaint.EXTERNAL_SYNC)):
        entry = provider.get(namespace, key)
        call = f"get({namespace!r}, {key!r})"
        ctx.require(entry is not None, call, "the stored entry", "None")
        ctx.require(entry.taint == taint, call, f"taint {taint.value}", entry.taint)
    listed = {e.key: e.taint for e in provider.list(namespace, None, None)}
    want = {"internal": MemoryTaint.INTERNAL, "external": MemoryTaint.EXTERNAL_SYNC}
    ctx.require(listed == want, f"list({namespace!r})", str(want), listed)


AWKWARD = {
    "unicode": "héllo — 👋 まいど",
    "empty": "",
    "large": "x" * 65536,
    "newlines": "a\nb\r\nc\0d",
}


@check(
    "provider.awkward_content_round_trips",
    title="Unicode, empty, large and control-character content reads back byte for byte",
    clause="contract-reference A9 §15 (refusal only as Invalid; unicode must be accepted)",
    storage=True,
)
def assert_awkward_content_round_trips(provider: Any, ctx: CheckContext) -> None:
    """Each awkward value is refused only with `Invalid`, and an accepted one reads back intact."""
    namespace = ns(ctx, "awkward")
    for key, content in AWKWARD.items():
        call = f"store({namespace!r}, {key!r}, <{len(content)} chars>)"
        try:
            put(provider, ctx, namespace, key, content)
        except DriverRaised as raised:
            error = raised.error
            ctx.require(key != "unicode", call, "unicode content to be accepted", repr(error))
            ctx.require(isinstance(error, Invalid), call, "acceptance or Invalid", repr(error))
            continue
        entry = provider.get(namespace, key)
        got = None if entry is None else entry.content
        ctx.require(
            got == content,
            f"get({namespace!r}, {key!r})",
            f"the {len(content)} stored characters unchanged",
            got,
        )
