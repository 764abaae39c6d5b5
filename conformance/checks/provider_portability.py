"""Provider checks of portability: export cursors end, every record is exported once at any
page size, and an export imports back intact."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.fan_out import each
from conformance.checks.outcome import DriverRaised, Inconclusive
from conformance.checks.provider_support import (
    CORE,
    EXPORT_OWNERS,
    FORGET_OWNER,
    LIST_OWNERS,
    Row,
    entry_ref,
    forget_held,
    forget_when_done,
    is_ours,
    ns,
    put_rows,
    read_back,
    refs,
    require_relied_on,
    sectioned,
    where,
)
from conformance.checks.registry import check
from conformance.checks.still import still_store
from conformance.provider import ENTRY_KIND, ExportRecord, Invalid, MemoryCategory, MemoryTaint
from conformance.readings import PagedRead, between_pages_victim

BAD_CURSOR = "!not-a-cursor!"
# Exporting pages through the whole store; past this many pages the check gives up
# without a verdict rather than run for ever against a large live store.
MAX_PAGES = 2000
MAX_EMPTY_RUN = 100
SMALL_PAGES = (1, 2, 3)
"""Page sizes that put a page boundary between every pair of records."""
MAX_SMALL_PAGE_RUN = 500
"""Pages one small-page export may take; a larger store is exported in larger pages."""
BULK = 125
"""Entries exported in pages of `WIDE_PAGE` and imported in one batch: past the 50 and
100 records a store's page or batch call commonly stops at."""
WIDE_PAGE = 200
"""An export limit above 100: a page capped at 100 is short of it, yet not the end."""

INTERNAL, EXTERNAL = MemoryTaint.INTERNAL, MemoryTaint.EXTERNAL_SYNC


def record_ref(ctx: CheckContext, record: Any) -> str:
    """`entry_ref` of the entry an export record stands for (its payload key, else its id)."""
    payload = record.payload if isinstance(record.payload, dict) else {}
    key = payload.get("key")
    return entry_ref(ctx, record.namespace, key if isinstance(key, str) else f"<id {record.id}>")


def export_all(provider: Any, ctx: CheckContext, limit: int) -> list[Any]:
    """Every record, paging until `next_cursor` is None, while no other check writes
    (`still_store`: the export holds every entry of the store).

    Fails on a repeated cursor, a record exported twice, or a long run of empty pages
    that never ends: each is an export that does not make progress.
    """
    with still_store():
        return _export_pages(provider, ctx, limit)


def _export_pages(provider: Any, ctx: CheckContext, limit: int) -> list[Any]:
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
    clause="cursors.md#export-paging, cursors.md#cursor-end, cursors.md#cursor-unknown",
    whole_store=True,
)
def assert_export_cursor_terminates(provider: Any, ctx: CheckContext) -> None:
    """An empty first page ends the export; paging ends; a foreign cursor is `Invalid`, and
    so is a `limit` of 0 or below (an empty page for it reads as an empty store)."""
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
    for limit in (0, -1):
        ctx.refused(
            f"export_page(None, {limit})",
            partial(provider.export_page, None, limit),
            Invalid,
            "Invalid (a limit of 0 or below: cursors.md#export-paging)",
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


def _bulk_rows(ctx: CheckContext) -> list[Row]:
    """`BULK` entries in one namespace (`x000`..), taint, category and session mixed."""
    bulk = ns(ctx, "export/bulk")
    return [
        Row(
            bulk,
            f"x{i:03d}",
            f"bulk exported {i}",
            MemoryCategory.DAILY if i % 3 else MemoryCategory.CORE,
            f"s-{i % 4}" if i % 2 else None,
            EXTERNAL if i % 2 else INTERNAL,
        )
        for i in range(BULK)
    ]


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
    whole_store=True,
)
def assert_export_covers_every_record(provider: Any, ctx: CheckContext) -> None:
    """Eight entries in three namespaces, exported in pages of 64, then of 1, 2 and 3
    records; then with 125 more, exported in pages of 200: every entry under the root
    comes back exactly once, with its taint.

    Catches a cursor that skips or repeats a record between pages, and an export that
    caps a page at 50 or 100 records and takes the short page for the last. Against a
    store holding many other records, the small pages grow so that one export takes at
    most 500 pages.
    """
    rows = _exported_rows(ctx)
    put_rows(provider, ctx, rows, in_any_order=True)
    records = export_all(provider, ctx, 64)
    _require_every_record_once(ctx, "export_page(…, 64) through every page", records, rows)
    grown = math.ceil(len(records) / MAX_SMALL_PAGE_RUN)
    for size in dict.fromkeys(max(size, grown) for size in SMALL_PAGES):
        call = f"export_page(…, {size}) through every page"
        _require_every_record_once(ctx, call, export_all(provider, ctx, size), rows)
    bulk = _bulk_rows(ctx)
    put_rows(provider, ctx, bulk, in_any_order=True)
    call = f"export_page(…, {WIDE_PAGE}) through every page"
    records = export_all(provider, ctx, WIDE_PAGE)
    _require_every_record_once(ctx, call, records, [*rows, *bulk])


@check(
    "provider.export_import_round_trip",
    title="Exported entries, forgotten, import back exactly in one batch, taint included",
    clause=(
        "provider-families.md#portability-export, "
        "provider-families.md#portability-import, provider-families.md#taint"
    ),
    storage=True,
)
def assert_export_import_round_trip(provider: Any, ctx: CheckContext) -> None:
    """133 entries (eight in three namespaces, 125 in a fourth) are exported, forgotten
    (each forget True, then nothing listed), and imported in one batch: `failed == 0`,
    `imported` counts them all, and each lists back with its content, category, session
    and taint.

    Catches an import that takes only its store's first batch of records (50, 100).
    """
    rows = [*_exported_rows(ctx), *_bulk_rows(ctx)]
    put_rows(provider, ctx, rows, in_any_order=True)
    call = f"export_page(…, {WIDE_PAGE}) through every page"
    with ctx.precondition(EXPORT_OWNERS, "exporting until next_cursor is None"):
        records = export_all(provider, ctx, WIDE_PAGE)
    ours = [r for r in records if is_ours(ctx, r.namespace)]
    want = [entry_ref(ctx, row.namespace, row.key) for row in rows]
    got = [record_ref(ctx, r) for r in ours]
    require_relied_on(ctx, EXPORT_OWNERS, call, got, want, "every entry exported once")
    namespaces = list(dict.fromkeys(row.namespace for row in rows))
    with ctx.precondition(FORGET_OWNER, "forgetting the exported entries"):
        each(partial(forget_held, provider, ctx), rows)
        for namespace in namespaces:
            left = provider.list(namespace, None, None)
            call = f"list({namespace!r}, None, None) after forgetting its entries"
            ctx.require(left == [], call, "[]", ctx.named(refs(ctx, left)))
    outcome = provider.import_records(ours)
    call = f"import_records(<{len(ours)} records>)"
    ctx.require(
        outcome.failed == 0,
        call,
        "failed == 0",
        f"failed {outcome.failed}, errors {outcome.errors}",
    )
    ctx.require(outcome.imported == len(ours), call, f"imported == {len(ours)}", outcome.imported)
    for namespace in namespaces:
        _require_imported(provider, ctx, call, [row for row in rows if row.namespace == namespace])


def _require_imported(provider: Any, ctx: CheckContext, call: str, rows: list[Row]) -> None:
    """After `call` (the import), the namespace of `rows` lists exactly them, each as
    exported. An entry `get` finds but the listing misses is the listing's fault
    (`provider.list_filters_narrow` or `provider.listing_holds_at_volume` reports it)."""
    namespace = rows[0].namespace
    listing = f"list({namespace!r}, None, None) after the import"
    listed = provider.list(namespace, None, None)
    by_key = {entry.key: entry for entry in listed}
    absent = [row for row in rows if row.key not in by_key]
    if absent:
        wanted = [entry_ref(ctx, namespace, row.key) for row in rows]
        found = ctx.named([entry_ref(ctx, namespace, r.key) for r in rows if r.key in by_key])
        missing = ctx.named([entry_ref(ctx, namespace, row.key) for row in absent])
        if provider.get(namespace, absent[0].key) is not None:
            with ctx.precondition(LIST_OWNERS, f"listing {len(rows)} imported entries"):
                ctx.require_ids(listing, refs(ctx, listed), wanted, "every imported entry")
        ctx.fail(
            call,
            f"all {len(rows)} entries of {where(ctx, namespace)} imported",
            f"{len(rows) - len(absent)} of {len(rows)} held afterwards ({found}); "
            f"missing {missing}",
        )
    for row in rows:
        entry = by_key[row.key]
        ctx.require_same(listing, row.fields(), read_back(entry), f"the exported entry {row.key}")


IMPORTED = 260
"""Records the kit writes for an import: past a batch size of 100 or 256."""


def _written_elsewhere(ctx: CheckContext, row: Row, n: int) -> ExportRecord:
    """The record another store's export holds for `row`: kind `entry`, the payload the
    contract pins (key, content, category, session, timestamp)."""
    return ExportRecord(
        kind=ENTRY_KIND,
        id=f"{ctx.marker}-elsewhere-{n}",
        namespace=row.namespace,
        taint=row.taint,
        payload={
            "key": row.key,
            "content": row.content,
            "category": str(row.category),
            "session_id": row.session_id,
            "timestamp": "2025-05-06T07:08:09Z",
        },
    )


@check(
    "provider.import_takes_records_written_elsewhere",
    title="Records another store exported import exactly; unwritable ones fail, with reasons",
    clause="provider-families.md#portability-export, provider-families.md#portability-import",
    storage=True,
)
def assert_import_takes_records_written_elsewhere(provider: Any, ctx: CheckContext) -> None:
    """260 records the kit writes itself in the contract's export shape (kind `entry`,
    payload `key`, `content`, `category`, `session_id`, `timestamp`; taint, category and
    session mixed) are imported in one batch with three records no store can write (a
    payload without a key, one that is not an object, a record of a kind no family
    exports), one without a category and one without content: `imported` counts the 260,
    `failed` the bad ones, with reasons (the unknown kind may be skipped instead, the one
    without a category written with one of the driver's choosing, the one without content
    written with empty content, as the later generation defaults it, or failed, as the
    earlier one does), and the 260 list back with their content, category, session and
    own taint.

    Catches an import that reads only its own export's payload, one that stops at the
    first bad record or fails the whole batch for it, one that counts a dropped record as
    imported, and one that takes only its store's first batch (100, 256).
    """
    namespace = ns(ctx, "import/elsewhere")
    rows = [
        Row(
            namespace,
            f"w{i:03d}",
            f"written elsewhere {i}",
            (MemoryCategory.CORE, MemoryCategory.DAILY, MemoryCategory.custom("kept"))[i % 3],
            f"s-{i % 5}" if i % 2 else None,
            EXTERNAL if i % 4 == 1 else INTERNAL,
        )
        for i in range(IMPORTED)
    ]
    # Whatever lands is forgotten at the end, refused or not.
    ctx.defer(
        "forget the imported entries",
        lambda: [
            provider.forget(namespace, key)
            for key in [*(r.key for r in rows), "no-category", "no-content"]
        ],
    )
    good = [_written_elsewhere(ctx, row, n) for n, row in enumerate(rows)]
    bad = [
        ExportRecord(
            kind=ENTRY_KIND,
            id=f"{ctx.marker}-keyless",
            namespace=namespace,
            payload={"content": "a record without a key"},
        ),
        ExportRecord(
            kind=ENTRY_KIND, id=f"{ctx.marker}-not-an-object", namespace=namespace, payload="x"
        ),
        # Without the category the contract's payload holds: written (with one the
        # driver chooses) or failed, never the batch refused for it.
        ExportRecord(
            kind=ENTRY_KIND,
            id=f"{ctx.marker}-no-category",
            namespace=namespace,
            payload={"key": "no-category", "content": "a record without a category"},
        ),
        # Without content: written with "" (contract-reference A@late) or failed (A@HEAD).
        ExportRecord(
            kind=ENTRY_KIND,
            id=f"{ctx.marker}-no-content",
            namespace=namespace,
            payload={"key": "no-content", "category": "core"},
        ),
        ExportRecord(
            kind=f"{ctx.marker}-kind",
            id=f"{ctx.marker}-unknown-kind",
            namespace=namespace,
            payload={"key": "never-written", "content": "of a kind no family exports"},
        ),
    ]
    batch = [*good[:1], bad[0], *good[1:150], bad[1], *good[150:], *bad[2:]]
    call = f"import_records(<{len(good)} records written elsewhere, {len(bad)} unwritable>)"
    outcome = provider.import_records(batch)
    # The two without a key cannot be written; a kind it does not know a driver may
    # skip (a newer store's family) or fail; those without a category or content it may write.
    counted = outcome.imported + outcome.skipped + outcome.failed
    ctx.require(
        2 <= outcome.failed <= 5 and counted == len(batch) and outcome.imported <= len(good) + 2,
        call,
        f"the {len(good)} imported (or skipped as held), the 2 without a key failed, the one "
        "of an unknown kind failed or skipped, those without a category or content imported "
        "or failed",
        f"imported {outcome.imported}, skipped {outcome.skipped}, failed {outcome.failed}",
    )
    ctx.require(
        len(outcome.errors) >= 1 and all(str(error).strip() for error in outcome.errors),
        call,
        "a reason for the failures",
        show(outcome.errors),
    )
    _require_imported(provider, ctx, call, rows)
    stray = provider.get(namespace, "never-written")
    ctx.require(stray is None, f"get({namespace!r}, 'never-written')", "None", stray)
    empty = provider.get(namespace, "no-content")
    ctx.require(
        empty is None or empty.content == "",
        f"get({namespace!r}, 'no-content')",
        "None (failed) or empty content (a record without content imports as '')",
        empty,
    )


BETWEEN_ROWS = 40
"""Entries of the export written to between its pages."""
BETWEEN_WRITES = 6
"""Pages before which one entry is stored and one forgotten."""


@check(
    "provider.export_during_writes",
    title="An export with writes between its pages ends, and misses or repeats entries only "
    "as the writes move them",
    clause="cursors.md#export-paging, cursors.md#writes-between-pages",
    storage=True,
    whole_store=True,
)
def assert_export_during_writes(provider: Any, ctx: CheckContext) -> None:
    """First, two exports of 21 entries, 7 records a page, are followed to their end while
    the store shrinks under their cursors, to exactly a cursor's place and past it.
    Then 40 entries are exported 7 records at a time while, before each of the next six pages,
    one new entry is stored and one held entry forgotten (the last one exported, as a
    reader working through a queue does; the first; the last; one in the middle): the
    export ends with no cursor repeated; every record of the namespace is an entry held
    at some moment of the read; an entry held throughout is missed at most once per
    entry forgotten while it ran, and exported twice at most once per entry stored while
    it ran (`conformance.readings.PagedRead`). Then, the store holding still, one export
    holds exactly what is held.

    Every reading of a cursor passes (a snapshot, a key to resume after, an offset).
    Catches an export cursor that starts over after a write, one that loses its place
    when the entry it names is forgotten, and one refused once the store shrank past it.
    """
    shrinking = ns(ctx, "export/shrinking")
    kept = [Row(shrinking, f"s{i:02d}", f"exported while shrinking {i}") for i in range(21)]
    for row in reversed(kept):
        forget_when_done(provider, ctx, shrinking, row.key)
    put_rows(provider, ctx, kept)
    # The writes between pages are this check's own: no other check's may join them.
    with still_store(writes=True):
        # The shrinking exports come first: on a store holding nothing else, the cursor they
        # stop at is then the furthest this driver has issued, where an offset kept as "the
        # furthest issued" is easiest to refuse by mistake.
        _export_while_shrinking(provider, ctx, shrinking, [row.key for row in kept])

        namespace = ns(ctx, "export/writes")
        rows = [
            Row(namespace, f"e{i:02d}", f"exported while written {i}") for i in range(BETWEEN_ROWS)
        ]
        written_keys = [f"w{n}" for n in range(1, BETWEEN_WRITES + 1)]
        for key in reversed([*(r.key for r in rows), *written_keys]):
            forget_when_done(provider, ctx, namespace, key)
        put_rows(provider, ctx, rows)
        order = [r.key for r in rows]
        read = PagedRead(before=set(order), entered=set(), left=set())
        answered: list[str] = []
        seen: set[str] = set()
        cursor: str | None = None
        written = 0
        call = "export_page(..., 7) with writes between pages"
        for page_number in range(1, MAX_PAGES + 1):
            if cursor is not None and written < BETWEEN_WRITES:
                written += 1
                fresh = f"w{written}"
                provider.store(
                    namespace, fresh, f"written between pages {written}", CORE, None, INTERNAL
                )
                read.entered.add(fresh)
                victim = between_pages_victim(order, answered, page_number)
                order.remove(victim)
                order.append(fresh)
                forgotten = provider.forget(namespace, victim)
                ctx.require(
                    forgotten is True,
                    f"forget({namespace!r}, {victim!r}) between pages",
                    "True",
                    forgotten,
                )
                read.left.add(victim)
            call = f"export_page({cursor!r}, 7) with writes between pages"
            page = provider.export_page(cursor, 7)
            answered += _entry_keys(page.records, namespace)
            if page.next_cursor is None:
                break
            cursor = _fresh_cursor(ctx, call, page.next_cursor, seen)
        else:
            raise Inconclusive(
                ctx.check_id, call, f"the export did not end within {MAX_PAGES} pages"
            )
        wrong = read.judge(answered)
        ctx.require(
            wrong is None,
            "export_page(..., 7) with writes between pages, every page",
            "what an export may answer while the store changes (docs/contract/cursors.md)",
            wrong,
        )
        held = sorted(
            record_ref(ctx, record)
            for record in export_all(provider, ctx, WIDE_PAGE)
            if record.kind == ENTRY_KIND and record.namespace == namespace
        )
        ctx.require_ids(
            "export_page(...) after the writes",
            held,
            sorted(entry_ref(ctx, namespace, key) for key in order),
            "exactly the entries held after the writes",
        )


def _entry_keys(records: list[ExportRecord], namespace: str) -> list[str]:
    """The keys of the entry records of `namespace`, in order."""
    keys = [
        record.payload.get("key")
        for record in records
        if record.kind == ENTRY_KIND
        and record.namespace == namespace
        and isinstance(record.payload, dict)
    ]
    return [key for key in keys if isinstance(key, str)]


def _fresh_cursor(ctx: CheckContext, call: str, cursor: str, seen: set[str]) -> str:
    """`cursor`, noted as issued; fails when the read issued it before."""
    ctx.require(cursor not in seen, call, "a cursor never issued before", f"{cursor!r} again")
    seen.add(cursor)
    return cursor


def _export_while_shrinking(
    provider: Any, ctx: CheckContext, namespace: str, order: list[str]
) -> None:
    """Two exports, 7 records a page, over a store that shrinks under their cursors: the
    first, after two pages, loses every entry it has not reached (an offset cursor then
    sits exactly at the end of the store); the second, after one page, loses every entry
    left (its cursor now points past the end). Each cursor was issued, so each is
    followed: the export ends with a last page, never a refusal, and answers only
    entries held at some moment of it."""
    for pages_before, keep_answered in ((2, True), (1, False)):
        read = PagedRead(before=set(order), entered=set(), left=set())
        answered: list[str] = []
        seen: set[str] = set()
        cursor: str | None = None
        what = f"export_page(..., 7), the store shrinking after page {pages_before}"
        for page_number in range(1, MAX_PAGES + 1):
            if page_number == pages_before + 1:
                gone = [k for k in order if not (keep_answered and k in answered)]
                for key in gone:
                    provider.forget(namespace, key)
                    order.remove(key)
                read.left.update(gone)
            call = f"export_page({cursor!r}, 7), {what}"
            try:
                page = provider.export_page(cursor, 7)
            except DriverRaised as raised:
                if cursor is None:
                    raise
                ctx.fail(
                    call,
                    "a page: the cursor was issued by this export, and entries forgotten since "
                    "do not unmake it (cursors.md#writes-between-pages)",
                    f"{type(raised.error).__name__}: {raised.error}",
                )
            answered += _entry_keys(page.records, namespace)
            if page.next_cursor is None:
                break
            cursor = _fresh_cursor(ctx, call, page.next_cursor, seen)
        else:
            ended = f"the export did not end within {MAX_PAGES} pages"
            raise Inconclusive(ctx.check_id, what, ended)
        wrong = read.judge(answered)
        ctx.require(
            wrong is None,
            f"{what}, every page",
            "what an export may answer while the store changes (docs/contract/cursors.md)",
            wrong,
        )
