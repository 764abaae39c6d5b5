"""Provider checks of portability: export cursors end, and an export imports back intact."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.outcome import Inconclusive
from conformance.checks.provider_support import ns, put
from conformance.provider import Invalid, MemoryTaint

BAD_CURSOR = "!not-a-cursor!"
# Exporting pages through the whole store; past this many pages the check gives up
# without a verdict rather than run for ever against a large live store.
MAX_PAGES = 2000
MAX_EMPTY_RUN = 100


def export_all(provider: Any, ctx: CheckContext, limit: int) -> list[Any]:
    """Every record, paging until `next_cursor` is None.

    Fails on a repeated cursor, a record exported twice, or a long run of empty pages
    that never ends: each is an export that does not make progress.
    """
    records: list[Any] = []
    seen_cursors: set[str] = set()
    seen_records: set[tuple[str, str, str | None]] = set()
    empty_run = 0
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        call = f"export_page({cursor!r}, {limit})"
        page = provider.export_page(cursor, limit)
        for record in page.records:
            identity = (record.kind, record.id, record.namespace)
            ctx.require(
                identity not in seen_records, call, "each record exported once", f"{identity} again"
            )
            seen_records.add(identity)
        records.extend(page.records)
        if page.next_cursor is None:
            return records
        empty_run = 0 if page.records else empty_run + 1
        ctx.require(
            empty_run < MAX_EMPTY_RUN,
            call,
            "an export that ends",
            f"{MAX_EMPTY_RUN} empty pages in a row, each with a new cursor",
        )
        ctx.require(
            page.next_cursor not in seen_cursors,
            call,
            "a cursor never issued before",
            f"the repeated cursor {page.next_cursor!r}",
        )
        seen_cursors.add(page.next_cursor)
        cursor = page.next_cursor
    raise Inconclusive(
        ctx.check_id,
        f"export_page({cursor!r}, {limit})",
        f"the export did not end within {MAX_PAGES} pages",
    )


@check(
    "provider.export_cursor_terminates",
    title="Export paging ends, and a cursor the driver never issued is Invalid",
    clause="contract-reference A4 (MemoryPortability.export_page), A9 §4 (A@late: Invalid)",
)
def assert_export_cursor_terminates(provider: Any, ctx: CheckContext) -> None:
    """An empty first page ends the export; paging ends; a foreign cursor is `Invalid`."""
    first = provider.export_page(None, 8)
    if not first.records:
        ctx.require(
            first.next_cursor is None,
            "export_page(None, 8)",
            "next_cursor None on an empty first page",
            first.next_cursor,
        )
    export_all(provider, ctx, 64)
    ctx.refused(
        f"export_page({BAD_CURSOR!r}, 8)",
        lambda: provider.export_page(BAD_CURSOR, 8),
        Invalid,
        "Invalid (a cursor the driver did not issue)",
    )


@check(
    "provider.export_import_round_trip",
    title="An exported entry, forgotten, imports back with its taint",
    clause="contract-reference A4 (export_page, import_records), A9 §14 (A@late form)",
    storage=True,
)
def assert_export_import_round_trip(provider: Any, ctx: CheckContext) -> None:
    """Export finds the entry with its taint; after forget, import restores it exactly."""
    namespace = ns(ctx, "portability")
    put(provider, ctx, namespace, "p1", "portable", taint=MemoryTaint.EXTERNAL_SYNC)
    exported = [r for r in export_all(provider, ctx, 32) if r.namespace == namespace]
    ctx.require(
        any(r.taint == MemoryTaint.EXTERNAL_SYNC for r in exported),
        "export_page(..., 32)",
        f"an external_sync record in {namespace!r}",
        exported,
    )
    forgot = provider.forget(namespace, "p1")
    ctx.require(forgot is True, f"forget({namespace!r}, 'p1')", "True", forgot)
    gone = provider.get(namespace, "p1")
    ctx.require(gone is None, f"get({namespace!r}, 'p1')", "None after forget", gone)
    outcome = provider.import_records(exported)
    call = f"import_records(<{len(exported)} records>)"
    ctx.require(
        outcome.failed == 0,
        call,
        "failed == 0",
        f"failed {outcome.failed}, errors {outcome.errors}",
    )
    ctx.require(
        outcome.imported == len(exported), call, f"imported == {len(exported)}", outcome.imported
    )
    back = provider.get(namespace, "p1")
    ctx.require(back is not None, f"get({namespace!r}, 'p1')", "the imported entry", "None")
    ctx.require(
        (back.content, back.taint) == ("portable", MemoryTaint.EXTERNAL_SYNC),
        f"get({namespace!r}, 'p1')",
        "content 'portable', taint external_sync",
        (back.content, back.taint),
    )
