"""Validating a write into a `Draft`, and naming what a read looks for.

A write is refused with `Invalid` before anything is stored when its namespace fails
`Namespace.parse`, when its key is empty, or when a string cannot be stored as UTF-8.
A read never fails on its input: a name that could not have been written finds nothing.
Rows are identified by their logical namespace and their key, each kept as written but
for personal data (redacted); the physical address only places the Markdown file.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Final

from conformance.provider import (
    GLOBAL_NAMESPACE,
    Invalid,
    MemoryCategory,
    MemoryTaint,
    Namespace,
    NamespaceDocumentInput,
)

from .address import (
    REDACTION_PLACEHOLDER,
    canonical_identifier,
    logical_namespace,
    sanitize_namespace,
)

__all__ = [
    "CHAT_SOURCE",
    "CORE_PRIORITY",
    "Draft",
    "document_draft",
    "entry_draft",
    "read_key",
    "read_namespace",
]

CHAT_SOURCE: Final = "chat"
"""`source_type` of a row written through `MemoryCore.store`."""

CORE_PRIORITY: Final = "medium"
"""`priority` of a row written through `MemoryCore.store`."""


@dataclass(frozen=True, slots=True)
class Draft:
    """A validated write, addressed and canonicalised."""

    physical: str
    """The sanitised address: where the Markdown file goes, nothing more."""
    logical: str
    """The logical namespace: with `key`, the row's identity."""
    key: str
    title: str
    content: str
    source_type: str
    priority: str
    tags: tuple[str, ...]
    metadata_json: str
    category: str
    session_id: str | None
    taint: MemoryTaint
    document_id: str | None
    """An explicit id; `None` keeps the row's id, or derives one for a new row."""
    whole_document: bool
    """False for a core store, which keeps an existing row's title, source type, priority,
    tags and metadata."""


def _utf8(value: str, what: str) -> str:
    try:
        value.encode()
    except UnicodeEncodeError:
        raise Invalid(f"{what} is not valid UTF-8 text") from None
    return value


# Namespaces repeat from call to call, and their PII screening is the costliest step of a
# read; both functions are pure.
@functools.lru_cache(maxsize=1024)
def _writable_namespace(namespace: str) -> tuple[str, str]:
    # A redaction placeholder holds "[" and "]", which `Namespace.parse` refuses. A name
    # this store reported before schema version 3 (`user:[REDACTED_PII_SSN]`) must still
    # be writable, or an export of it could not be imported.
    Namespace.parse(REDACTION_PLACEHOLDER.sub("x", namespace))
    return sanitize_namespace(namespace), logical_namespace(namespace)


@functools.lru_cache(maxsize=1024)
def _logical(namespace: str) -> str:
    return logical_namespace(namespace)


def _writable_key(key: str) -> str:
    # Not trimmed, unlike the seed's document keys: ` k` and `k` are two keys, and a
    # trimmed key would merge them.
    stored = canonical_identifier(_utf8(key, "key"))
    if not stored:
        raise Invalid("key must not be empty")
    return stored


def entry_draft(
    namespace: str,
    key: str,
    content: str,
    category: MemoryCategory,
    session_id: str | None,
    taint: MemoryTaint,
) -> Draft:
    """A core `store`: titled by its key, source `chat`, priority `medium`."""
    physical, logical = _writable_namespace(namespace)
    stored_key = _writable_key(key)
    return Draft(
        physical=physical,
        logical=logical,
        key=stored_key,
        title=stored_key,
        content=_utf8(content, "content"),
        source_type=CHAT_SOURCE,
        priority=CORE_PRIORITY,
        tags=(),
        metadata_json="{}",
        category=str(category),
        session_id=None if session_id is None else _utf8(session_id, "session id"),
        taint=MemoryTaint(taint),
        document_id=None,
        whole_document=False,
    )


def document_draft(document: NamespaceDocumentInput) -> Draft:
    """A `put_document`; the category is stored in its canonical wire form."""
    physical, logical = _writable_namespace(document.namespace)
    document_id = document.document_id
    if document_id is not None and not document_id.strip():
        raise Invalid("document id must not be blank")
    try:
        metadata = json.dumps(document.metadata, ensure_ascii=False)
    except (TypeError, ValueError):
        raise Invalid("document metadata is not JSON") from None
    return Draft(
        physical=physical,
        logical=logical,
        key=_writable_key(document.key),
        title=_utf8(document.title, "title"),
        content=_utf8(document.content, "content"),
        source_type=_utf8(document.source_type, "source type"),
        priority=_utf8(document.priority, "priority"),
        tags=tuple(_utf8(tag, "tag") for tag in document.tags),
        metadata_json=_utf8(metadata, "metadata"),
        category=str(MemoryCategory.parse(document.category)),
        session_id=None
        if document.session_id is None
        else _utf8(document.session_id, "session id"),
        taint=document.taint,
        document_id=None if document_id is None else _utf8(document_id, "document id"),
        whole_document=True,
    )


def read_namespace(namespace: str | None) -> str:
    """The logical namespace a read of `namespace` looks in (`None` or blank: `global`).

    The transform the write path applies, so a read finds exactly what a write of the
    same name stored, and nothing stored under another name sharing its address.
    """
    if namespace is None or not namespace.strip():
        return GLOBAL_NAMESPACE
    return _logical(namespace)


def read_key(key: str) -> str | None:
    """The stored form of a key to look up; `None` when no stored key could match."""
    try:
        key.encode()
    except UnicodeEncodeError:
        return None
    return canonical_identifier(key) or None
