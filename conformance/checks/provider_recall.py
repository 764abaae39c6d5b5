"""Provider checks of recall: limit, namespace, the pinned `namespace: None`, source scope."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.outcome import DriverRaised
from conformance.checks.provider_support import ns, put
from conformance.provider import (
    GLOBAL_NAMESPACE,
    Invalid,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)


@check(
    "provider.recall_respects_limit_and_namespace",
    title="Recall answers exactly `limit` hits, all from the asked namespace",
    clause="contract-reference A4 (MemoryRecall.recall), A9 §11 (A@late: exactly 2)",
    storage=True,
)
def assert_recall_respects_limit_and_namespace(provider: Any, ctx: CheckContext) -> None:
    """Three needles in recall-a, one in recall-b: recall(limit 2, recall-a) gives 2, all in a."""
    a, b = ns(ctx, "recall-a"), ns(ctx, "recall-b")
    texts = (
        "needle filed in the archive room",
        "needle left beside the mooring rope",
        "needle found under the zinc roof",
    )
    for i, text in enumerate(texts):
        put(provider, ctx, a, f"k{i}", text)
    put(provider, ctx, b, "k0", "shared needle text")
    hits = provider.recall("needle", 2, OwnedRecallOpts(namespace=a), None)
    call = f"recall('needle', 2, namespace={a!r})"
    ctx.require(len(hits) == 2, call, "exactly 2 hits (3 entries match)", f"{len(hits)} hits")
    strays = [h.namespace for h in hits if h.namespace != a]
    ctx.require(not strays, call, f"every hit in {a!r}", f"hits from {strays}")


@check(
    "provider.namespace_none_semantics",
    title="list(None) sees every namespace; recall with no namespace sees `global` only",
    clause="decisions §4.1; contract-reference A1 (OwnedRecallOpts.namespace), A7 (divergence)",
    storage=True,
)
def assert_namespace_none_semantics(provider: Any, ctx: CheckContext) -> None:
    """Both halves of the pinned `namespace: None` contract, on entries only this check wrote.

    The recall half must write to `global` itself; it does so under a key carrying
    the run's marker, and forgets it when the check ends.
    """
    a, b = ns(ctx, "none-a"), ns(ctx, "none-b")
    marker = ctx.marker
    put(provider, ctx, a, "in-a", f"{marker} lives in a")
    put(provider, ctx, b, "in-b", f"{marker} lives in b")
    global_key = f"{ctx.root}/global-probe"
    put(provider, ctx, GLOBAL_NAMESPACE, global_key, f"{marker} lives in global")

    listed = {(e.namespace, e.key) for e in provider.list(None, None, None)}
    want = {(a, "in-a"), (b, "in-b"), (GLOBAL_NAMESPACE, global_key)}
    ctx.require(
        want <= listed,
        "list(None, None, None)",
        f"every namespace, including {sorted(want)}",
        f"missing {sorted(want - listed)}",
    )

    hits = provider.recall(marker, 10, OwnedRecallOpts(), None)
    ours = sorted((h.namespace, h.key) for h in hits if marker in h.content)
    call = f"recall({marker!r}, 10, OwnedRecallOpts())"
    ctx.require(
        ours == [(GLOBAL_NAMESPACE, global_key)],
        call,
        f"only the entry in {GLOBAL_NAMESPACE!r} (recall without a namespace searches global)",
        ours,
    )


@check(
    "provider.recall_respects_source_scope",
    title="An empty source scope denies everything (or is refused as Invalid)",
    clause="contract-reference A1 (SourceScope, fail-closed), A4 (recall scope), A9 §13",
    storage=True,
)
def assert_recall_respects_source_scope(provider: Any, ctx: CheckContext) -> None:
    """Recall finds the entry unscoped, and with `SourceScope([])` answers [] or `Invalid`."""
    namespace = ns(ctx, "scope")
    put(provider, ctx, namespace, "scoped", "source scoped needle", taint=MemoryTaint.EXTERNAL_SYNC)
    unscoped = provider.recall("needle", 8, OwnedRecallOpts(namespace=namespace), None)
    ctx.require(
        [h.key for h in unscoped] == ["scoped"],
        f"recall('needle', 8, namespace={namespace!r}, scope=None)",
        "the stored entry (precondition)",
        unscoped,
    )
    call = f"recall('needle', 8, namespace={namespace!r}, scope=SourceScope([]))"
    try:
        denied = provider.recall(
            "needle", 8, OwnedRecallOpts(namespace=namespace), SourceScope(allow=[])
        )
    except DriverRaised as raised:
        ctx.require(isinstance(raised.error, Invalid), call, "[] or Invalid", repr(raised.error))
        return
    ctx.require(denied == [], call, "[] (an empty allow list denies all)", denied)
