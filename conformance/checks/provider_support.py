"""What provider checks share: namespaces under the check's root, tracked writes, the probe."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.provider import MemoryCategory, MemoryTaint

CORE = MemoryCategory.CORE


def ns(ctx: CheckContext, what: str) -> str:
    """A namespace of this check's own, under its run-unique root."""
    return f"{ctx.root}/{what}"


def put(
    provider: Any,
    ctx: CheckContext,
    namespace: str,
    key: str,
    content: str,
    category: MemoryCategory = CORE,
    session_id: str | None = None,
    taint: MemoryTaint = MemoryTaint.INTERNAL,
) -> None:
    """Store one entry and arrange for it to be forgotten when the check ends."""
    ctx.defer(f"forget({namespace!r}, {key!r})", lambda: provider.forget(namespace, key))
    provider.store(namespace, key, content, category, session_id, taint)


def mine(entries: list[Any], namespace: str) -> list[Any]:
    """The entries of `entries` that live in `namespace` (reads are filtered by the root)."""
    return [e for e in entries if e.namespace == namespace]


def provider_retains_writes(provider: Any, ctx: CheckContext | None = None) -> bool:
    """The retention probe (A9 §6): store one entry, read it back. Errors propagate.

    Deliberately not a flag the driver sets: a driver that means to retain and
    silently does not must be caught by the storage checks, not excused from them.
    """
    context = ctx if ctx is not None else CheckContext("provider.retention_probe")
    bound = context.bind(provider)
    namespace = ns(context, "probe")
    try:
        put(bound, context, namespace, "probe", "probe")
        entry = bound.get(namespace, "probe")
    finally:
        failure = context.run_cleanups()
    if failure is not None:
        raise failure
    return entry is not None and entry.content == "probe"
