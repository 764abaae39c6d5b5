"""Export pages and import of the mandatory portability family.

Records come in `(logical namespace, key)` order, and a cursor names the last row a page
held (`after:` and that pair, base64url JSON): the next page starts past it. A position,
unlike an index, holds while the store changes between pages, so a row written, or
forgotten, meanwhile never shifts another row into a page twice or out of every page.
An empty page is not a terminator: only a `None` next cursor is.
"""

from __future__ import annotations

import base64
import binascii
import json
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

__all__ = ["export_page", "import_records", "issue_cursor", "parse_cursor"]

_PREFIX: Final = "after:"


def issue_cursor(namespace: str, key: str) -> str:
    """The cursor of the position just past the row `(namespace, key)`."""
    packed = json.dumps([namespace, key], ensure_ascii=False).encode()
    return _PREFIX + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def parse_cursor(cursor: str | None) -> tuple[str, str] | None:
    """The row a cursor resumes after; `None` is the start. `Invalid` for a foreign cursor."""
    if cursor is None:
        return None
    foreign = Invalid(f"export cursor not issued by this driver: {cursor}")
    if not cursor.startswith(_PREFIX):
        raise foreign
    body = cursor[len(_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        position = json.loads(raw.decode())
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise foreign from None
    if (
        not isinstance(position, list)
        or len(position) != 2
        or not all(isinstance(part, str) for part in position)
        or issue_cursor(position[0], position[1]) != cursor
    ):
        raise foreign
    return position[0], position[1]


def export_page(store: SqliteStore, cursor: str | None, limit: int) -> ExportPage:
    """Up to `limit` records past `cursor`, in `(namespace, key)` order."""
    if limit <= 0:
        raise Invalid("export page limit must be greater than zero")
    after = parse_cursor(cursor)
    with store.reader() as reader:
        # One row more than the page: whether another page follows.
        rows = reader.rows_after(after, limit + 1)
    page, more = rows[:limit], len(rows) > limit
    next_cursor = issue_cursor(page[-1].namespace, page[-1].key) if more else None
    return ExportPage(records=[row.export_record() for row in page], next_cursor=next_cursor)


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
