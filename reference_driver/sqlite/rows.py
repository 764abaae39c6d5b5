"""A stored row of `memory_docs`, and the contract values made from it."""

from __future__ import annotations

import functools
import json
import math
import sqlite3
from typing import Any, Final, NamedTuple

from pydantic import JsonValue

from conformance.provider import (
    ENTRY_KIND,
    ExportRecord,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryItemKind,
    MemoryTaint,
    NamespaceMemoryHit,
    RetrievalScoreBreakdown,
    StoredMemoryDocument,
    Timestamp,
)

__all__ = ["ROW_COLUMNS", "Row", "timestamp"]

ROW_COLUMNS: Final = (
    "id, document_id, namespace, logical_namespace, key, title, content, source_type, "
    "priority, tags, metadata, category, session_id, taint, created_at, updated_at, "
    "markdown_rel_path"
)
"""The columns `Row.from_sql` reads, in its order."""


def timestamp(unix_seconds: float) -> Timestamp:
    """The instant of a stored Unix time (a REAL column), to the microsecond.

    A double near today's time resolves about half a microsecond, so digits past the
    microsecond would be noise the store never recorded.
    """
    whole = math.floor(unix_seconds)
    micros = round((unix_seconds - whole) * 1_000_000)
    return Timestamp((whole * 1_000_000 + micros) * 1_000)


class Row(NamedTuple):
    """One row of `memory_docs`: a core entry and a document at once.

    A tuple in `ROW_COLUMNS` order, so a fetched row becomes one without per-field work;
    the JSON columns and the taint are read on use (listing 10k entries pays for neither).
    """

    rowid: int
    document_id: str
    physical: str
    """The sanitised address (`memory_docs.namespace`): the directory of the row's file."""
    logical: str
    """`logical_namespace`: with `key`, the row's identity (since schema version 4 never
    `NULL`; a row from before version 2 took its address)."""
    key: str
    title: str
    content: str
    source_type: str
    priority: str
    tags_json: str
    metadata_json: str
    category: str
    session_id: str | None
    taint_text: str
    created_at: float
    updated_at: float
    markdown_rel_path: str

    @classmethod
    def from_sql(cls, row: sqlite3.Row | tuple[Any, ...]) -> Row:
        """Read a row selected with `ROW_COLUMNS` (column affinities fix the types)."""
        return cls._make(row)

    @property
    def taint(self) -> MemoryTaint:
        """The stored taint, decoded fail-closed (anything but `internal` is external)."""
        return MemoryTaint.decode(self.taint_text)

    @property
    def tags(self) -> tuple[str, ...]:
        """The document's tags (a malformed column reads as none)."""
        value = _json(self.tags_json)
        if not isinstance(value, list):
            return ()
        return tuple(tag for tag in value if isinstance(tag, str))

    @property
    def metadata(self) -> JsonValue:
        """The document's metadata (a malformed column reads as `null`)."""
        return _json(self.metadata_json)

    @property
    def namespace(self) -> str:
        """The name reported for this row: its logical namespace."""
        return self.logical

    @property
    def memory_category(self) -> MemoryCategory:
        """The category as a `MemoryCategory`; an unreadable one is custom, verbatim."""
        return _category(self.category)

    def entry(self, score: float | None = None) -> MemoryEntry:
        """The core entry; `score` only for a recall hit."""
        return MemoryEntry(
            id=self.document_id,
            key=self.key,
            content=self.content,
            namespace=self.namespace,
            category=self.memory_category,
            timestamp=timestamp(self.updated_at),
            session_id=self.session_id,
            score=score,
            taint=self.taint,
        )

    def document(self) -> StoredMemoryDocument:
        """The document as `get_document` returns it."""
        return StoredMemoryDocument(
            document_id=self.document_id,
            namespace=self.namespace,
            key=self.key,
            title=self.title,
            content=self.content,
            source_type=self.source_type,
            priority=self.priority,
            tags=list(self.tags),
            metadata=self.metadata,
            category=self.category,
            session_id=self.session_id,
            created_at=self.created_at,
            updated_at=self.updated_at,
            markdown_rel_path=self.markdown_rel_path,
            taint=self.taint,
        )

    def listing(self) -> dict[str, JsonValue]:
        """One row of the `list_documents` envelope (camelCase keys)."""
        return {
            "documentId": self.document_id,
            "namespace": self.namespace,
            "key": self.key,
            "title": self.title,
            "sourceType": self.source_type,
            "priority": self.priority,
            "category": self.category,
            "sessionId": self.session_id,
            "tags": list[JsonValue](self.tags),
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "markdownRelPath": self.markdown_rel_path,
            "taint": self.taint.value,
        }

    def hit(self, score: float, breakdown: RetrievalScoreBreakdown) -> NamespaceMemoryHit:
        """A documents-family retrieval hit."""
        return NamespaceMemoryHit(
            id=self.document_id,
            kind=MemoryItemKind.DOCUMENT,
            namespace=self.namespace,
            key=self.key,
            title=self.title,
            content=self.content,
            category=self.category,
            source_type=self.source_type,
            updated_at=self.updated_at,
            score=score,
            score_breakdown=breakdown,
            document_id=self.document_id,
            taint=self.taint,
        )

    def export_record(self) -> ExportRecord:
        """The export record: the mandatory payload plus the document fields.

        `key`, `content`, `category`, `session_id` and `timestamp` are what every
        mandatory-composed driver reads; the document fields let this driver restore a
        document whole and are ignored by drivers that do not know them.
        """
        return ExportRecord(
            kind=ENTRY_KIND,
            id=self.document_id,
            namespace=self.namespace,
            taint=self.taint,
            payload={
                "key": self.key,
                "content": self.content,
                "category": str(self.memory_category),
                "session_id": self.session_id,
                "timestamp": timestamp(self.updated_at).rfc3339(),
                "title": self.title,
                "source_type": self.source_type,
                "priority": self.priority,
                "tags": list[JsonValue](self.tags),
                "metadata": self.metadata,
            },
        )


@functools.lru_cache(maxsize=256)
def _category(text: str) -> MemoryCategory:
    # A store holds few distinct categories; `MemoryCategory` is immutable, so shareable.
    try:
        return MemoryCategory.parse(text)
    except Invalid:
        return MemoryCategory.custom(text)


def _json(raw: str) -> JsonValue:
    # A column edited by hand must not make the row unreadable.
    try:
        value: JsonValue = json.loads(raw)
    except ValueError:
        return None
    return value
