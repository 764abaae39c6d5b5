"""`ReferenceDocuments`: the optional `documents` family of the reference provider (A4).

One dict keyed by `(namespace, key)` behind one lock, beside (not shared with) the core
entries: a document and a core entry at one address are two records here. The contract
leaves that open; the `sqlite` driver makes them one row. Everything it answers can be
checked by reading this file; it is the oracle the fuzzer compares other drivers'
documents with.
"""

from __future__ import annotations

import builtins
import itertools
import threading
from typing import Final

from pydantic import JsonValue

from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemoryDocuments,
    MemoryItemKind,
    NamespaceDocumentInput,
    NamespaceMemoryHit,
    NamespaceRetrievalContext,
    RetrievalScoreBreakdown,
    StoredMemoryDocument,
)

__all__ = ["DOCUMENT_TIME", "ReferenceDocuments"]

DOCUMENT_TIME: Final = 0.0
"""`created_at` and `updated_at` of every document (Unix seconds): no clock is kept."""


class ReferenceDocuments(MemoryDocuments):
    """Namespace documents held in memory; thread-safe.

    - `put_document` upserts on `(namespace, key)`, replacing every field; the taint is
      kept as given. The id is the one given, else the document's existing id, else
      `"{namespace}::{key}"`, or the first of `"{namespace}::{key}#2"`, `#3`, ... that
      no document has (a caller may have given that id to another key); an id given
      that already names another document is `Invalid`, as is a blank one or a category
      that does not parse.
    - `markdown_rel_path` is `""`: the reference writes no files.
    - `query_documents` matches the whole query as a case-insensitive substring of the
      title and content (`title + "\\n" + content`) and scores a hit
      `len(query) / len(that text)`, best first, ties by key.
    - `recall_documents` answers the latest written documents first, scored
      `1 / (1 + rank)`.
    - A negative `limit` is `Invalid`; `limit == 0` or a blank query finds nothing.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._documents: dict[tuple[str, str], StoredMemoryDocument] = {}
        self._written: dict[tuple[str, str], int] = {}
        """When each document was last put, as a write count: the order of recency."""
        self._writes = itertools.count()

    def put_document(self, document: NamespaceDocumentInput) -> str:
        """Upsert by `(namespace, key)`; the document id (kept across updates)."""
        category = str(MemoryCategory.parse(document.category))
        if document.document_id is not None and not document.document_id.strip():
            raise Invalid("document id must not be blank")
        address = (document.namespace, document.key)
        with self._lock:
            held = self._documents.get(address)
            document_id = document.document_id or (
                held.document_id if held is not None else self._fresh_id(*address)
            )
            for other_address, other in self._documents.items():
                if other.document_id == document_id and other_address != address:
                    raise Invalid(f"document id {document_id} already names another document")
            self._documents[address] = StoredMemoryDocument(
                document_id=document_id,
                namespace=document.namespace,
                key=document.key,
                title=document.title,
                content=document.content,
                source_type=document.source_type,
                priority=document.priority,
                tags=builtins.list(document.tags),
                metadata=document.metadata,
                category=category,
                session_id=document.session_id,
                created_at=DOCUMENT_TIME,
                updated_at=DOCUMENT_TIME,
                markdown_rel_path="",
                taint=document.taint,
            )
            self._written[address] = next(self._writes)
        return document_id

    def _fresh_id(self, namespace: str, key: str) -> str:
        """`namespace::key`, suffixed `#2`, `#3`, ... past the ids documents already have."""
        taken = {held.document_id for held in self._documents.values()}
        document_id, n = f"{namespace}::{key}", 1
        while document_id in taken:
            n += 1
            document_id = f"{namespace}::{key}#{n}"
        return document_id

    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        """The document, or `None` when absent."""
        with self._lock:
            return self._documents.get((namespace, key))

    def list_documents(self, namespace: str | None) -> JsonValue:
        """`{"count": N, "documents": [...]}` by `(namespace, key)`; `None`: every namespace."""
        rows: builtins.list[JsonValue] = [
            _row(document)
            for document in self._sorted()
            if namespace is None or document.namespace == namespace
        ]
        return {"count": len(rows), "documents": rows}

    def list_namespaces(self) -> builtins.list[str]:
        """Every namespace holding a document, sorted."""
        with self._lock:
            return sorted({namespace for namespace, _ in self._documents})

    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        """Remove the document of `namespace` with `document_id`; a missing one is
        `deleted: false`, not an error."""
        with self._lock:
            found = [
                address
                for address, document in self._documents.items()
                if address[0] == namespace and document.document_id == document_id
            ]
            for address in found:
                del self._documents[address]
                del self._written[address]
        return {"deleted": bool(found), "namespace": namespace, "documentId": document_id}

    def clear_namespace(self, namespace: str) -> None:
        """Remove every document of `namespace`."""
        with self._lock:
            for address in [a for a in self._documents if a[0] == namespace]:
                del self._documents[address]
                del self._written[address]

    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        """Documents of `namespace` whose title or content contains `query`, best first."""
        _check_limit(limit)
        needle = query.lower()
        scored: builtins.list[tuple[float, StoredMemoryDocument]] = []
        if needle.strip() and limit > 0:
            for document in self._sorted():
                haystack = f"{document.title}\n{document.content}".lower()
                if document.namespace == namespace and needle in haystack:
                    scored.append((len(needle) / len(haystack), document))
        # The documents arrive in key order and `sort` is stable, so ties keep it.
        scored.sort(key=lambda hit: -hit[0])
        return _context(namespace, query, scored[:limit], freshness=False)

    def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        """The latest `limit` documents of `namespace`, newest first, scored by rank."""
        _check_limit(limit)
        with self._lock:
            recent = sorted(
                (
                    (written, self._documents[address])
                    for address, written in self._written.items()
                    if address[0] == namespace
                ),
                key=lambda pair: -pair[0],
            )
        ranked = [(1.0 / (1 + rank), document) for rank, (_, document) in enumerate(recent)]
        return _context(namespace, None, ranked[:limit], freshness=True)

    def _sorted(self) -> builtins.list[StoredMemoryDocument]:
        # A snapshot taken under the lock; documents are immutable, so sharing them is safe.
        with self._lock:
            items = builtins.list(self._documents.items())
        return [document for _, document in sorted(items, key=lambda item: item[0])]


def _check_limit(limit: int) -> None:
    if limit < 0:
        raise Invalid("limit must not be negative")


def _row(document: StoredMemoryDocument) -> JsonValue:
    """One row of the `list_documents` envelope (camelCase keys)."""
    return {
        "documentId": document.document_id,
        "namespace": document.namespace,
        "key": document.key,
        "title": document.title,
        "sourceType": document.source_type,
        "priority": document.priority,
        "category": document.category,
        "sessionId": document.session_id,
        "tags": builtins.list[JsonValue](document.tags),
        "createdAt": document.created_at,
        "updatedAt": document.updated_at,
        "markdownRelPath": document.markdown_rel_path,
        "taint": document.taint.value,
    }


def _context(
    namespace: str,
    query: str | None,
    scored: builtins.list[tuple[float, StoredMemoryDocument]],
    *,
    freshness: bool,
) -> NamespaceRetrievalContext:
    """The hits with their scores, and the context text: each title and content."""
    return NamespaceRetrievalContext(
        namespace=namespace,
        query=query,
        context_text="\n\n".join(f"## {d.title}\n\n{d.content}" for _, d in scored),
        hits=[
            NamespaceMemoryHit(
                id=document.document_id,
                kind=MemoryItemKind.DOCUMENT,
                namespace=document.namespace,
                key=document.key,
                title=document.title,
                content=document.content,
                category=document.category,
                source_type=document.source_type,
                updated_at=document.updated_at,
                score=score,
                score_breakdown=RetrievalScoreBreakdown(
                    keyword_relevance=0.0 if freshness else score,
                    vector_similarity=0.0,
                    graph_relevance=0.0,
                    episodic_relevance=0.0,
                    freshness=score if freshness else 0.0,
                    final_score=score,
                ),
                document_id=document.document_id,
                taint=document.taint,
            )
            for score, document in scored
        ],
    )
