"""Provider check that the times a driver returns are RFC 3339 with an offset, and stable."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.provider_support import (
    EXPORT_OWNERS,
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


EXPORT_PAGE = 64
MAX_EXPORT_PAGES = 2000
"""Pages read looking for the check's own records; past it the export check speaks."""


@check(
    "provider.timestamps_are_well_formed",
    title="Entry, namespace and export times are RFC 3339 with an offset, and one entry has "
    "one time",
    clause=(
        "kit-choices.md#provider-timestamps, "
        "items-and-fingerprints.md#timestamps, provider-families.md#entry, "
        "provider-families.md#portability-export"
    ),
    storage=True,
)
def assert_timestamps_are_well_formed(provider: Any, ctx: CheckContext) -> None:
    """Every `MemoryEntry.timestamp` from get, list and recall, every
    `NamespaceSummary.last_updated` that is set, and the payload `timestamp` of the
    entries' export records (where the payload has one) parses as RFC 3339 with an
    offset (any offset); the same entry carries the same instant whichever of get, list
    and recall returned it.

    Catches a time without a zone (`2024-05-01T12:00:00`), which names no instant.
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
    for record in _exported(provider, ctx, namespace, set(keys)):
        payload = record.payload
        # One generation of the contract exports no timestamp: absent is no fault.
        if isinstance(payload, dict) and "timestamp" in payload:
            call = f"export_page(…) record of {payload.get('key')!r}, payload timestamp"
            _instant(ctx, call, payload["timestamp"])


def _exported(provider: Any, ctx: CheckContext, namespace: str, keys: set[str]) -> list[Any]:
    """The export records of `keys` in `namespace`, paging only until all are seen; an
    export that fails or misses them is the export check's to report."""
    found: list[Any] = []
    cursor: str | None = None
    with ctx.precondition(EXPORT_OWNERS, "an export of the entries"):
        for _ in range(MAX_EXPORT_PAGES):
            page = provider.export_page(cursor, EXPORT_PAGE)
            for record in page.records:
                payload = record.payload if isinstance(record.payload, dict) else {}
                if record.namespace == namespace and payload.get("key") in keys:
                    found.append(record)
            if len(found) >= len(keys) or page.next_cursor in (None, cursor):
                break
            cursor = page.next_cursor
    return found


def _instant(ctx: CheckContext, call: str, text: object) -> Timestamp:
    moment = rfc3339_instant(text)
    if moment is None:
        ctx.fail(call, RFC3339, show(text))
    return moment
