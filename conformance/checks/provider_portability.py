"""Provider checks of portability: export cursors end, every record is exported once at any
page size, and an export imports back intact."""

from __future__ import annotations

import math
from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.outcome import Inconclusive
from conformance.checks.provider_support import (
    EXPORT_OWNER,
    FORGET_OWNER,
    Row,
    entry_ref,
    is_ours,
    ns,
    put_rows,
    read_back,
    require_relied_on,
    sectioned,
)
from conformance.provider import Invalid, MemoryCategory, MemoryTaint

BAD_CURSOR = "!not-a-cursor!"
# Exporting pages through the whole store; past this many pages the check gives up
# without a verdict rather than run for ever against a large live store.
MAX_PAGES = 2000
MAX_EMPTY_RUN = 100
SMALL_PAGES = (1, 2, 3)
"""Page sizes that put a page boundary between every pair of records."""
MAX_SMALL_PAGE_RUN = 500
"""Pages one small-page export may take; a larger store is exported in larger pages."""

INTERNAL, EXTERNAL = MemoryTaint.INTERNAL, MemoryTaint.EXTERNAL_SYNC


def record_ref(ctx: CheckContext, record: Any) -> str:
    """`entry_ref` of the entry an export record stands for (its payload key, else its id)."""
    payload = record.payload if isinstance(record.payload, dict) else {}
    key = payload.get("key")
    return entry_ref(ctx, record.namespace, key if isinstance(key, str) else f"<id {record.id}>")


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
                identity not in seen_records,
                call,
                "each record exported once",
                f"{ctx.named([record_ref(ctx, record)])} (record id {record.id!r}) again",
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
    clause=("cursors.md#export-paging, cursors.md#cursor-end, cursors.md#cursor-unknown"),
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


def _exported_rows(ctx: CheckContext) -> list[Row]:
    """Eight entries over three namespaces (one sectioned, when admitted), with mixed
    taint, category and session."""
    a, b = ns(ctx, "export/a"), ns(ctx, "export/b")
    rows = [
        Row(a, "e1", "first exported", MemoryCategory.CORE, None, INTERNAL),
        Row(a, "e2", "second exported", MemoryCategory.DAILY, "s-1", EXTERNAL),
        Row(a, "e3", "third exported", MemoryCategory.custom("notes"), None, EXTERNAL),
        Row(b, "e4", "fourth exported", MemoryCategory.CORE, "s-2", INTERNAL),
        Row(b, "e5", "fifth exported", MemoryCategory.CONVERSATION, "s-2", EXTERNAL),
        Row(b, "e6", "sixth exported", MemoryCategory.CORE, None, INTERNAL),
    ]
    c = sectioned(ctx, "conversation", "export-c")
    if ctx.settings.constraints.admits_namespace(c):
        rows.append(Row(c, "e7", "seventh exported", MemoryCategory.CONVERSATION, "s-3", EXTERNAL))
        rows.append(Row(c, "e8", "eighth exported", MemoryCategory.CORE, None, INTERNAL))
    return rows


def _require_every_record_once(
    ctx: CheckContext, call: str, records: list[Any], rows: list[Row]
) -> list[Any]:
    """The records under the root are exactly one per row, each with the row's taint."""
    ours = [r for r in records if is_ours(ctx, r.namespace)]
    want = {entry_ref(ctx, row.namespace, row.key): row for row in rows}
    got = [record_ref(ctx, r) for r in ours]
    ctx.require_ids(call, got, list(want), "every entry under the root exactly once")
    for ref, record in zip(got, ours, strict=True):
        ctx.require_same(
            call,
            {"taint": want[ref].taint},
            {"taint": record.taint},
            f"the record of {ctx.named([ref])}",
        )
    return ours


@check(
    "provider.export_covers_every_record",
    title="Export at any page size gives every record once",
    clause=(
        "provider-families.md#portability-export, cursors.md#export-paging, "
        "cursors.md#cursor-progress"
    ),
    storage=True,
)
def assert_export_covers_every_record(provider: Any, ctx: CheckContext) -> None:
    """Eight entries in three namespaces, exported in pages of 64, then of 1, 2 and 3
    records: every entry under the root comes back exactly once, with its taint.

    Catches a cursor that skips or repeats a record between pages. Against a store
    holding many other records, the small pages grow so that one export takes at most
    500 pages.
    """
    rows = _exported_rows(ctx)
    put_rows(provider, ctx, rows)
    records = export_all(provider, ctx, 64)
    _require_every_record_once(ctx, "export_page(…, 64) through every page", records, rows)
    grown = math.ceil(len(records) / MAX_SMALL_PAGE_RUN)
    for size in dict.fromkeys(max(size, grown) for size in SMALL_PAGES):
        call = f"export_page(…, {size}) through every page"
        _require_every_record_once(ctx, call, export_all(provider, ctx, size), rows)


@check(
    "provider.export_import_round_trip",
    title="Exported entries, forgotten, import back exactly, taint included",
    clause=(
        "provider-families.md#portability-export, "
        "provider-families.md#portability-import, provider-families.md#taint"
    ),
    storage=True,
)
def assert_export_import_round_trip(provider: Any, ctx: CheckContext) -> None:
    """Eight entries are exported, forgotten (each forget True, then get None), and
    imported: `failed == 0`, `imported` counts them, and each reads back by get with
    its content, category, session and taint."""
    rows = _exported_rows(ctx)
    put_rows(provider, ctx, rows)
    call = "export_page(…, 3) through every page"
    with ctx.precondition(EXPORT_OWNER, "exporting until next_cursor is None"):
        records = export_all(provider, ctx, 3)
    ours = [r for r in records if is_ours(ctx, r.namespace)]
    want = [entry_ref(ctx, row.namespace, row.key) for row in rows]
    got = [record_ref(ctx, r) for r in ours]
    require_relied_on(ctx, EXPORT_OWNER, call, got, want, "every entry exported once")
    with ctx.precondition(FORGET_OWNER, "forgetting the exported entries"):
        for row in rows:
            forgot = provider.forget(row.namespace, row.key)
            ctx.require(forgot is True, f"forget({row.namespace!r}, {row.key!r})", "True", forgot)
            gone = provider.get(row.namespace, row.key)
            call = f"get({row.namespace!r}, {row.key!r})"
            ctx.require(gone is None, call, "None after forget", gone)
    outcome = provider.import_records(ours)
    call = f"import_records(<{len(ours)} records>)"
    ctx.require(
        outcome.failed == 0,
        call,
        "failed == 0",
        f"failed {outcome.failed}, errors {outcome.errors}",
    )
    ctx.require(outcome.imported == len(ours), call, f"imported == {len(ours)}", outcome.imported)
    for row in rows:
        entry = provider.get(row.namespace, row.key)
        call = f"get({row.namespace!r}, {row.key!r}) after import"
        ctx.require(entry is not None, call, "the imported entry", "None")
        ctx.require_same(call, row.fields(), read_back(entry), "the exported entry")
