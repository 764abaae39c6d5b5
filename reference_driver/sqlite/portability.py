"""Export pages and import of the mandatory portability family.

The cursor is `"{namespace_index}:{offset}"`, indexing the namespace summaries, which
are ordered by name and therefore stable between pages. Each page reads the summaries
and its rows in one read transaction. An empty page is not a terminator: only a `None`
next cursor is. Messages are the mandatory composition's, word for word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from pydantic import JsonValue

from conformance.provider import (
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    NamespaceDocumentInput,
)

from .drafts import Draft, document_draft, entry_draft
from .store import SqliteStore

__all__ = ["export_page", "import_records", "parse_cursor"]

# What Rust's `usize::from_str` accepts: ASCII digits with an optional leading "+".
_INDEX: Final = re.compile(r"\+?[0-9]+")


def parse_cursor(cursor: str | None) -> tuple[int, int]:
    """`(namespace_index, offset)`; `None` is the start. `Invalid` for a foreign cursor."""
    if cursor is None:
        return 0, 0
    index, colon, offset = cursor.partition(":")
    if not colon or not _INDEX.fullmatch(index) or not _INDEX.fullmatch(offset):
        raise Invalid(f"export cursor not issued by this driver: {cursor}")
    return int(index), int(offset)


def export_page(store: SqliteStore, cursor: str | None, limit: int) -> ExportPage:
    """Up to `limit` records of one namespace, from `cursor`."""
    if limit <= 0:
        raise Invalid("export page limit must be greater than zero")
    index, offset = parse_cursor(cursor)
    with store.reader(snapshot=True) as reader:
        summaries = reader.summaries()
        if index >= len(summaries):
            # A start-of-export against an empty store lands here legitimately; any other
            # out-of-range index came from a cursor this driver did not issue.
            if cursor is not None and summaries:
                raise Invalid(
                    f"export cursor names namespace #{index}, but this driver holds "
                    f"{len(summaries)}"
                )
            return ExportPage(records=[], next_cursor=None)
        summary = summaries[index]
        if offset > summary.count:
            raise Invalid(f"export cursor offset {offset} is past the end of namespace #{index}")
        rows = reader.rows(summary.namespace, offset=offset, limit=limit)
    end = offset + len(rows)
    if end < summary.count:
        next_cursor: str | None = f"{index}:{end}"
    elif index + 1 < len(summaries):
        next_cursor = f"{index + 1}:0"
    else:
        next_cursor = None
    return ExportPage(records=[row.export_record() for row in rows], next_cursor=next_cursor)


def _read_record(record: ExportRecord) -> Draft:
    """The write a record asks for; `Invalid` with a reason that holds no content."""
    if record.kind != ENTRY_KIND:
        raise Invalid(
            f"record {record.id}: unsupported kind '{record.kind}' "
            f"(this driver exports '{ENTRY_KIND}')"
        )
    payload = record.payload if isinstance(record.payload, dict) else {}

    def string(name: str) -> str:
        value = payload.get(name)
        if not isinstance(value, str):
            raise Invalid(f"record {record.id}: payload is missing a string '{name}'")
        return value

    key, content, raw_category = string("key"), string("content"), string("category")
    try:
        category = MemoryCategory.parse(raw_category)
    except Invalid:
        raise Invalid(f"record {record.id}: category is not a known category") from None
    session = payload.get("session_id")
    session_id = session if isinstance(session, str) else None
    namespace = record.namespace if record.namespace is not None else GLOBAL_NAMESPACE
    try:
        if _has_document_fields(payload):
            return document_draft(
                NamespaceDocumentInput(
                    namespace=namespace,
                    key=key,
                    title=str(payload["title"]),
                    content=content,
                    source_type=str(payload["source_type"]),
                    priority=str(payload["priority"]),
                    tags=[str(tag) for tag in _list(payload["tags"])],
                    metadata=payload.get("metadata"),
                    category=str(category),
                    session_id=session_id,
                    # This driver's own export: the id is the document's, keep it.
                    document_id=record.id or None,
                    taint=record.taint,
                )
            )
        return entry_draft(namespace, key, content, category, session_id, record.taint)
    except Invalid as error:
        raise Invalid(f"record {record.id}: {error.message}") from None


def _has_document_fields(payload: dict[str, JsonValue]) -> bool:
    # This driver's own export carries them; a record from elsewhere is a core entry.
    return all(
        isinstance(payload.get(name), str) for name in ("title", "source_type", "priority")
    ) and isinstance(payload.get("tags"), list)


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def import_records(write: Callable[[Draft], object], records: list[ExportRecord]) -> ImportOutcome:
    """Write each record with its own taint; a malformed record fails alone.

    A storage failure aborts the batch (it is raised): continuing would report a partial
    restore as a successful one. Records written before it stay written.
    """
    imported = failed = 0
    errors: list[str] = []
    for record in records:
        try:
            draft = _read_record(record)
            try:
                write(draft)
            except Invalid as error:  # this record's fault (a taken document id), not the batch's
                raise Invalid(f"record {record.id}: {error.message}") from None
        except Invalid as error:
            failed += 1
            errors.append(error.message)
            continue
        imported += 1
    return ImportOutcome(imported=imported, skipped=0, failed=failed, errors=errors)
