"""Provider check that the times a driver returns are RFC 3339 with an offset, and stable."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.provider_support import (
    LIST_OWNERS,
    RECALL_OWNER,
    Row,
    keys_of,
    named_keys,
    ns,
    put_rows,
    require_relied_on,
)
from conformance.checks.registry import check
from conformance.checks.timestamps import rfc3339_instant
from conformance.provider import OwnedRecallOpts, Timestamp

RFC3339 = "an RFC 3339 date-time with an offset (Z or ±hh:mm)"


@check(
    "provider.timestamps_are_well_formed",
    title="Entry and namespace times are RFC 3339 with an offset, and one entry has one time",
    clause=(
        "kit-choices.md#provider-timestamps, "
        "items-and-fingerprints.md#timestamps, provider-families.md#entry"
    ),
    storage=True,
)
def assert_timestamps_are_well_formed(provider: Any, ctx: CheckContext) -> None:
    """Every `MemoryEntry.timestamp` from get, list and recall, and every
    `NamespaceSummary.last_updated` that is set, parses as RFC 3339 with an offset (any
    offset); the same entry carries the same instant whichever call returned it.
    """
    namespace = ns(ctx, "times")
    rows = [Row(namespace, key, f"timestamp probe {key}") for key in ("t1", "t2")]
    put_rows(provider, ctx, rows)
    keys = named_keys(ctx, [r.key for r in rows])
    instants: dict[str, Timestamp] = {}
    for key in keys:
        entry = provider.get(namespace, key)
        call = f"get({namespace!r}, {key!r})"
        ctx.require(entry is not None, call, "the stored entry", "None")
        instants[key] = _instant(ctx, call, entry.timestamp)

    listed = provider.list(namespace, None, None)
    call = f"list({namespace!r}, None, None)"
    require_relied_on(ctx, LIST_OWNERS, call, keys_of(ctx, listed), keys, "both entries")
    hits = provider.recall("timestamp", 10, OwnedRecallOpts(namespace=namespace), None)
    call = f"recall('timestamp', 10, namespace={namespace!r})"
    require_relied_on(ctx, RECALL_OWNER, call, keys_of(ctx, hits), keys, "both entries")
    for source, entries in (("list", listed), ("recall", hits)):
        for entry in entries:
            call = f"{source}(…) entry {entry.key}"
            moment = _instant(ctx, call, entry.timestamp)
            ctx.require(
                moment == instants[entry.key],
                call,
                f"the instant get returned ({instants[entry.key].rfc3339()})",
                f"{show(entry.timestamp)} ({moment.rfc3339()})",
            )
    for summary in provider.namespaces():
        if summary.namespace == namespace and summary.last_updated is not None:
            _instant(ctx, f"namespaces() summary of {namespace!r}", summary.last_updated)


def _instant(ctx: CheckContext, call: str, text: object) -> Timestamp:
    moment = rfc3339_instant(text)
    if moment is None:
        ctx.fail(call, RFC3339, show(text))
    return moment
