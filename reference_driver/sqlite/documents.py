"""`SqliteDocuments`: the optional `documents` family over the same rows as core entries.

A document and a core entry at one `(namespace, key)` are one row: a document's content
is the entry's content. Namespaces are matched by their logical name, as everywhere in
this driver: `document:handbook` is found by its `:` spelling, and `document_handbook`,
which shares its address, is another namespace.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable

from pydantic import JsonValue

from conformance.provider import (
    Invalid,
    MemoryDocuments,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    RetrievalScoreBreakdown,
    StoredMemoryDocument,
)

from .drafts import document_draft, read_key, read_namespace
from .recall import query_terms
from .rows import Row
from .store import SqliteStore

__all__ = ["SqliteDocuments"]


def _check_limit(limit: int) -> None:
    if limit < 0:
        raise Invalid("limit must not be negative")


def _context(
    namespace: str, query: str | None, hits: list[tuple[Row, float, float]]
) -> NamespaceRetrievalContext:
    """Hits as `(row, keyword score, freshness)`; the context text is title and content."""
    return NamespaceRetrievalContext(
        namespace=namespace,
        query=query,
        context_text="\n\n".join(f"## {row.title}\n\n{row.content}" for row, _, _ in hits),
        hits=[
            row.hit(
                keyword + freshness,
                RetrievalScoreBreakdown(
                    keyword_relevance=keyword,
                    vector_similarity=0.0,
                    graph_relevance=0.0,
                    episodic_relevance=0.0,
                    freshness=freshness,
                    final_score=keyword + freshness,
                ),
            )
            for row, keyword, freshness in hits
        ],
    )


class SqliteDocuments(MemoryDocuments):
    """Namespace documents of a `SqliteProvider` (reach it with `as_documents()`)."""

    def __init__(self, store: Callable[[], SqliteStore]) -> None:
        self._store = store

    def put_document(self, document: NamespaceDocumentInput) -> str:
        """Upsert by `(namespace, key)`; the document id (kept across updates)."""
        return self._store().upsert(document_draft(document)).document_id

    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        """The document, or `None`."""
        stored_key = read_key(key)
        if stored_key is None:
            return None
        with self._store().reader() as reader:
            row = reader.fetch(read_namespace(namespace), stored_key)
        return None if row is None else row.document()

    def list_documents(self, namespace: str | None) -> JsonValue:
        """`{"count": N, "documents": [...]}`, every namespace when `namespace` is `None`."""
        logical = None if namespace is None else read_namespace(namespace)
        with self._store().reader() as reader:
            rows = reader.rows(logical)
        documents: builtins.list[JsonValue] = [row.listing() for row in rows]
        return {"count": len(documents), "documents": documents}

    def list_namespaces(self) -> builtins.list[str]:
        """The reported name of every namespace holding documents."""
        with self._store().reader() as reader:
            return [summary.namespace for summary in reader.summaries()]

    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        """`{"deleted", "namespace", "documentId"}`; a missing document is `deleted: false`."""
        deleted = self._store().delete_document(read_namespace(namespace), document_id)
        return {"deleted": deleted, "namespace": namespace, "documentId": document_id}

    def clear_namespace(self, namespace: str) -> None:
        """Remove every document of the namespace (and none of another sharing its address)."""
        self._store().clear(read_namespace(namespace))

    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        """The namespace's documents ranked against `query` by title and content."""
        _check_limit(limit)
        terms = query_terms(query)
        if not terms or limit == 0:
            return _context(namespace, query, [])
        with self._store().reader() as reader:
            found = reader.search(
                read_namespace(namespace), terms, limit, columns="title_and_content"
            )
        return _context(namespace, query, [(row, score, 0.0) for row, score in found])

    def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        """The namespace's latest documents, newest first, scored by recency rank."""
        _check_limit(limit)
        with self._store().reader() as reader:
            rows = reader.recent(read_namespace(namespace), limit)
        return _context(
            namespace, None, [(row, 0.0, 1.0 / (1 + rank)) for rank, row in enumerate(rows)]
        )
