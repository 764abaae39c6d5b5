"""`FreeDocuments`: a correct `documents` family over the reference's, using the freedoms
the contract leaves to it (kit-choices.md#document-ids, contract-reference A4).

The reference documents family keeps the documents and decides what a query matches;
this wrapper answers with its own ids (a new one at every update), times and paths,
hit order and scores, keeps emptied namespaces listed, and may refuse
`recall_documents` as `Unsupported` (the contract's default). `used` counts each
freedom every time it changed an answer.
"""

from __future__ import annotations

import builtins
import hashlib
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from conformance.provider import (
    Capability,
    Invalid,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    StoredMemoryDocument,
    Unsupported,
)
from reference_driver.documents import ReferenceDocuments
from tests.freedom.serial import serialized


@dataclass(frozen=True)
class DocumentFreedoms:
    """The freedoms a documents family uses; the defaults answer as the reference does."""

    new_ids: bool = False
    """A UUID of its own for each put without an id, an update included (the reference
    keeps `{namespace}::{key}` across updates)."""
    stamped: bool = False
    """Real `created_at` and `updated_at` times and a Markdown path of its own (the
    reference answers 0.0 and "")."""
    hits_newest_first: bool = False
    """`query_documents` answers its hits newest first, scored by recency on a scale of
    its own (matching and ranking are the driver's)."""
    recall: bool = True
    """False: `recall_documents` is `Unsupported(documents)`, the contract's default."""
    keep_empty_namespaces: bool = False
    """`list_namespaces()` keeps a namespace whose documents were all deleted."""


@serialized
class FreeDocuments:
    """The reference's documents under this family's own presentation."""

    def __init__(self, freedoms: DocumentFreedoms, used: Counter[str]) -> None:
        self.freedoms = freedoms
        self.used = used
        self.ref = ReferenceDocuments()
        self._written: dict[tuple[str, str], int] = {}
        self._writes = 0
        self._created: dict[tuple[str, str], float] = {}
        self._spaces: set[str] = set()

    def put_document(self, document: NamespaceDocumentInput) -> str:
        """The reference's upsert, under an id of this family's when none is given."""
        sent = document
        if document.document_id is None and self.freedoms.new_ids:
            self.used["document-ids"] += 1
            sent = document.model_copy(update={"document_id": str(uuid.uuid4())})
        elif document.document_id is not None and not document.document_id.strip():
            raise Invalid("document id must not be blank")
        document_id = self.ref.put_document(sent)
        address = (document.namespace, document.key)
        self._writes += 1
        self._written[address] = self._writes
        self._created.setdefault(address, time.time())
        self._spaces.add(document.namespace)
        return document_id

    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        """The reference's document, with this family's times and path."""
        held = self.ref.get_document(namespace, key)
        return None if held is None else self._stamp(held)

    def list_documents(self, namespace: str | None) -> JsonValue:
        """The reference's envelope, rows newest first, with this family's times."""
        listing: Any = self.ref.list_documents(namespace)
        rows = builtins.list(listing["documents"])
        if self.freedoms.stamped:
            if rows:
                self.used["document-stamps"] += 1
            for row in rows:
                address = (row["namespace"], row["key"])
                row["createdAt"], row["updatedAt"] = self._times(address)
                row["markdownRelPath"] = self._path(*address)
        rows.sort(key=lambda row: -self._written.get((row["namespace"], row["key"]), 0))
        if len(rows) > 1:
            self.used["document-order"] += 1
        return {"count": len(rows), "documents": rows}

    def list_namespaces(self) -> builtins.list[str]:
        """The reference's namespaces, and emptied ones when kept."""
        held = set(self.ref.list_namespaces())
        if self.freedoms.keep_empty_namespaces:
            if self._spaces - held:
                self.used["kept-empty-namespaces"] += 1
            held |= self._spaces
        return sorted(held)

    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        """The reference's delete."""
        gone = [
            address
            for address in self._written
            if address[0] == namespace
            and (held := self.ref.get_document(*address)) is not None
            and held.document_id == document_id
        ]
        outcome = self.ref.delete_document(namespace, document_id)
        for address in gone:
            self._written.pop(address, None)
            self._created.pop(address, None)
        return outcome

    def clear_namespace(self, namespace: str) -> None:
        """The reference's clear."""
        self.ref.clear_namespace(namespace)
        for address in [a for a in self._written if a[0] == namespace]:
            del self._written[address]
            self._created.pop(address, None)

    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        """The reference's matches, newest first when so chosen, cut to `limit`."""
        if not self.freedoms.hits_newest_first:
            return self._stamped(self.ref.query_documents(namespace, query, limit))
        found = self.ref.query_documents(namespace, query, limit if limit <= 0 else 1_000_000)
        hits = sorted(found.hits, key=lambda hit: -self._written[(hit.namespace, hit.key)])
        if len(hits) > 1:
            self.used["document-order"] += 1
        ranked = [
            hit.model_copy(update={"score": 100.0 * (len(hits) - rank)})
            for rank, hit in enumerate(hits)
        ][:limit]
        return self._stamped(found.model_copy(update={"hits": ranked}))

    def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        """The reference's recent documents, or `Unsupported` (the contract's default)."""
        if not self.freedoms.recall:
            self.used["documents-recall-unsupported"] += 1
            raise Unsupported.of(Capability.DOCUMENTS)
        return self._stamped(self.ref.recall_documents(namespace, limit))

    # -- presentation -------------------------------------------------------------------

    def _times(self, address: tuple[str, str]) -> tuple[float, float]:
        created = self._created.get(address, 0.0)
        return created, created + self._written.get(address, 0) / 1000

    def _path(self, namespace: str, key: str) -> str:
        digest = hashlib.sha256(f"{namespace}\n{key}".encode()).hexdigest()[:12]
        return f"documents/{digest}.md"

    def _stamp(self, document: StoredMemoryDocument) -> StoredMemoryDocument:
        if not self.freedoms.stamped:
            return document
        self.used["document-stamps"] += 1
        created, updated = self._times((document.namespace, document.key))
        return document.model_copy(
            update={
                "created_at": created,
                "updated_at": updated,
                "markdown_rel_path": self._path(document.namespace, document.key),
            }
        )

    def _stamped(self, found: NamespaceRetrievalContext) -> NamespaceRetrievalContext:
        if not self.freedoms.stamped:
            return found
        hits = [
            hit.model_copy(update={"updated_at": self._times((hit.namespace, hit.key))[1]})
            for hit in found.hits
        ]
        return found.model_copy(update={"hits": hits})
