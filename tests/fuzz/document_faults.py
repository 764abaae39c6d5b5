"""Reference providers whose `documents` family has one fault each, of the kind real
adapters have, each showing only in a state the provider fuzzer must reach: more than ten
documents in a namespace, a key or id beside its string-prefix sibling, a put over a
document held, an id reused across keys.

Each is a plain class taking no arguments, so a regression file rebuilds it from its
`module:Class` spec.
"""

from __future__ import annotations

import builtins

from pydantic import JsonValue

from conformance.provider import (
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    StoredMemoryDocument,
)
from reference_driver.documents import ReferenceDocuments
from reference_driver.provider import ReferenceProvider


class _CappedListing(ReferenceDocuments):
    def list_documents(self, namespace: str | None) -> JsonValue:
        rows = self._rows(namespace)[:10]
        return {"count": len(rows), "documents": rows}

    def _rows(self, namespace: str | None) -> builtins.list[JsonValue]:
        listing = super().list_documents(namespace)
        assert isinstance(listing, dict) and isinstance(listing["documents"], list)
        return listing["documents"]


class DocumentListCappedAt10(ReferenceProvider):
    """The backend answers at most 10 rows per query: `list_documents` stops at 10."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _CappedListing()


class _PrefixGet(ReferenceDocuments):
    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        found = super().get_document(namespace, key)
        if found is not None:
            return found
        # A `LIKE key || '%'` lookup: `k1`, absent, finds `k10`.
        siblings = [d for d in self._sorted() if d.namespace == namespace]
        return next((d for d in siblings if d.key.startswith(key)), None)


class DocumentGetMatchesKeyPrefix(ReferenceProvider):
    """`get_document` matches the key as a string prefix when it is absent."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _PrefixGet()


class _KeepsTitle(ReferenceDocuments):
    def put_document(self, document: NamespaceDocumentInput) -> str:
        held = self.get_document(document.namespace, document.key)
        if held is not None:
            document = document.model_copy(update={"title": held.title})
        return super().put_document(document)


class UpsertKeepsOldTitle(ReferenceProvider):
    """A put over a document held replaces everything but its title."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _KeepsTitle()


class ReusedDocumentIdAccepted(ReferenceProvider):
    """A put naming another document's id is accepted instead of refused with `Invalid`."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _ReusesIds()


class _ReusesIds(ReferenceDocuments):
    def put_document(self, document: NamespaceDocumentInput) -> str:
        given = document.document_id
        if given is None:
            return super().put_document(document)
        # No uniqueness check: the id is written over whatever held it, so it names two
        # documents and a delete by it removes both.
        with self._lock:
            holders = [
                a
                for a, d in self._documents.items()
                if d.document_id == given and a != (document.namespace, document.key)
            ]
            saved = {a: self._documents.pop(a) for a in holders}
            saved_written = {a: self._written.pop(a) for a in holders}
        try:
            return super().put_document(document)
        finally:
            with self._lock:
                self._documents.update(saved)
                self._written.update(saved_written)


class _DeletesIdPrefix(ReferenceDocuments):
    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        answer = super().delete_document(namespace, document_id)
        for document in self._sorted():
            if document.namespace == namespace and document.document_id.startswith(document_id):
                super().delete_document(namespace, document.document_id)
        return answer


class DocumentDeleteMatchesIdPrefix(ReferenceProvider):
    """`delete_document` removes every document of the namespace whose id starts with
    the one given: deleting `d1` takes `d10` with it."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _DeletesIdPrefix()


class _QueriesPrefix(ReferenceDocuments):
    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        # One search over the namespace column with `LIKE ns || '%'`, ranked together.
        hits = [
            hit
            for other in sorted({d.namespace for d in self._sorted()})
            if other.startswith(namespace)
            for hit in ReferenceDocuments.query_documents(self, other, query, limit).hits
        ]
        hits.sort(key=lambda hit: -hit.score)
        found = super().query_documents(namespace, query, limit)
        return found.model_copy(update={"hits": hits[:limit]})


class DocumentQueryReachesNamespacePrefix(ReferenceProvider):
    """`query_documents(ns)` also searches every namespace `ns` is a string prefix of."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _QueriesPrefix()


DOCUMENT_FAULTS = (
    DocumentListCappedAt10,
    DocumentGetMatchesKeyPrefix,
    UpsertKeepsOldTitle,
    ReusedDocumentIdAccepted,
    DocumentDeleteMatchesIdPrefix,
    DocumentQueryReachesNamespacePrefix,
)
"""Documents faults the provider fuzzer must find at its default budget."""
