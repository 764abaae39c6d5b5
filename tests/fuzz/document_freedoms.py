"""Correct providers whose `documents` family uses a freedom the contract leaves: each must
pass the provider fuzzer."""

from __future__ import annotations

import builtins
import itertools

from pydantic import JsonValue

from conformance.provider import (
    Capability,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    Unsupported,
)
from reference_driver.documents import ReferenceDocuments
from reference_driver.provider import ReferenceProvider


class _FreshIds(ReferenceDocuments):
    def __init__(self) -> None:
        super().__init__()
        self._ids = itertools.count()

    def put_document(self, document: NamespaceDocumentInput) -> str:
        if document.document_id is not None:
            return super().put_document(document)
        # A new opaque id at every put, update or not.
        fresh = f"doc-{next(self._ids):06d}"
        return super().put_document(document.model_copy(update={"document_id": fresh}))


class FreshDocumentIds(ReferenceProvider):
    """Generates a new opaque id at every put without one, an update included."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _FreshIds()


class _OtherRanking(ReferenceDocuments):
    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        # Every match, worst first, scored below zero, then cut: another ranking.
        found = super().query_documents(namespace, query, 1_000_000)
        hits = [hit.model_copy(update={"score": -hit.score}) for hit in reversed(found.hits)][
            :limit
        ]
        return found.model_copy(update={"hits": hits})

    def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        raise Unsupported.of(Capability.DOCUMENTS)


class DocumentsRankedOtherwise(ReferenceProvider):
    """Ranks query hits worst first with negative scores, and has no `recall_documents`."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _OtherRanking()


class _KeepsNamespaces(ReferenceDocuments):
    def __init__(self) -> None:
        super().__init__()
        self._ever: set[str] = set()

    def put_document(self, document: NamespaceDocumentInput) -> str:
        answer = super().put_document(document)
        self._ever.add(document.namespace)
        return answer

    def list_namespaces(self) -> builtins.list[str]:
        return sorted(self._ever)

    def list_documents(self, namespace: str | None) -> JsonValue:
        # Rows newest key first, and extra keys of the driver's own in each row.
        listing = super().list_documents(namespace)
        assert isinstance(listing, dict) and isinstance(listing["documents"], list)
        rows: builtins.list[JsonValue] = []
        for row in reversed(listing["documents"]):
            assert isinstance(row, dict)
            rows.append({**row, "vendorRank": 1})
        return {"count": len(rows), "documents": rows, "cursor": None}


class EmptiedNamespacesStayListed(ReferenceProvider):
    """Keeps listing a namespace once emptied, lists rows in reverse with extra keys."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _KeepsNamespaces()


DOCUMENT_FREEDOMS = (FreshDocumentIds, DocumentsRankedOtherwise, EmptiedNamespacesStayListed)
"""Providers whose documents take a freedom of the contract; each must pass."""
