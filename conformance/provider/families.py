"""The capability families a provider serves, as protocols (A4).

The three mandatory families (`MemoryCore`, `MemoryRecall`, `MemoryPortability`)
are served by the provider object itself; `MemoryDocuments` is the one optional
family modelled here, reached through `as_documents()`. Each family exists in a
synchronous form and an `async def` form (`Async...`). Every method raises a
`ProviderError` subclass on failure.
"""

from __future__ import annotations

import builtins
from abc import abstractmethod
from typing import Protocol, runtime_checkable

from pydantic import JsonValue

from .capabilities import Capability
from .category import MemoryCategory
from .documents import NamespaceDocumentInput, NamespaceRetrievalContext, StoredMemoryDocument
from .entry import MemoryEntry, NamespaceSummary
from .errors import Unsupported
from .portability import ExportPage, ExportRecord, ImportOutcome
from .recall import OwnedRecallOpts, SourceScope
from .taint import MemoryTaint

# `list` is a method name below, so annotations spell the type `builtins.list`.


@runtime_checkable
class MemoryCore(Protocol):
    """Keyed entries: store, get, forget, list, and enumerate namespaces (mandatory)."""

    @abstractmethod
    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """Upsert on `(namespace, key)`: a re-store replaces, never duplicates."""

    @abstractmethod
    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        """The entry, or `None` when absent (never an error)."""

    @abstractmethod
    def forget(self, namespace: str, key: str) -> bool:
        """Remove the entry; whether it existed. Idempotent."""

    @abstractmethod
    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        """Entries matching every given filter; all `None` lists everything held."""

    @abstractmethod
    def namespaces(self) -> builtins.list[NamespaceSummary]:
        """Every namespace held, with its entry count."""


@runtime_checkable
class MemoryRecall(Protocol):
    """Ranked retrieval for a query (mandatory)."""

    @abstractmethod
    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> list[MemoryEntry]:
        """At most `limit` entries, most relevant first; `scope` applies inside the query."""


@runtime_checkable
class MemoryPortability(Protocol):
    """Export and import of the whole store (mandatory)."""

    @abstractmethod
    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        """One page from `cursor` (`None` to start); `Invalid` for a foreign cursor."""

    @abstractmethod
    def import_records(self, records: list[ExportRecord]) -> ImportOutcome:
        """Persist records with their own taint; per-record rejections go in the outcome."""


@runtime_checkable
class MemoryDocuments(Protocol):
    """Namespace documents (optional family `documents`)."""

    @abstractmethod
    def put_document(self, document: NamespaceDocumentInput) -> str:
        """Upsert by `(namespace, key)`; the document id."""

    @abstractmethod
    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        """The document, or `None` when absent."""

    @abstractmethod
    def list_documents(self, namespace: str | None) -> JsonValue:
        """`{"count": N, "documents": [...]}` (see `DocumentListing`)."""

    @abstractmethod
    def list_namespaces(self) -> list[str]:
        """Every namespace holding documents."""

    @abstractmethod
    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        """`{"deleted": bool, "namespace": …, "documentId": …}`; absence is not an error."""

    @abstractmethod
    def clear_namespace(self, namespace: str) -> None:
        """Remove every document of `namespace`."""

    @abstractmethod
    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        """Documents of `namespace` ranked against `query`."""

    def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        """Recent context of `namespace`; by default `Unsupported(documents)`."""
        raise Unsupported.of(Capability.DOCUMENTS)


@runtime_checkable
class AsyncMemoryCore(Protocol):
    """`MemoryCore` with `async def` methods."""

    @abstractmethod
    async def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """Upsert on `(namespace, key)`: a re-store replaces, never duplicates."""

    @abstractmethod
    async def get(self, namespace: str, key: str) -> MemoryEntry | None:
        """The entry, or `None` when absent (never an error)."""

    @abstractmethod
    async def forget(self, namespace: str, key: str) -> bool:
        """Remove the entry; whether it existed. Idempotent."""

    @abstractmethod
    async def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        """Entries matching every given filter; all `None` lists everything held."""

    @abstractmethod
    async def namespaces(self) -> builtins.list[NamespaceSummary]:
        """Every namespace held, with its entry count."""


@runtime_checkable
class AsyncMemoryRecall(Protocol):
    """`MemoryRecall` with `async def` methods."""

    @abstractmethod
    async def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> list[MemoryEntry]:
        """At most `limit` entries, most relevant first; `scope` applies inside the query."""


@runtime_checkable
class AsyncMemoryPortability(Protocol):
    """`MemoryPortability` with `async def` methods."""

    @abstractmethod
    async def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        """One page from `cursor` (`None` to start); `Invalid` for a foreign cursor."""

    @abstractmethod
    async def import_records(self, records: list[ExportRecord]) -> ImportOutcome:
        """Persist records with their own taint; per-record rejections go in the outcome."""


@runtime_checkable
class AsyncMemoryDocuments(Protocol):
    """`MemoryDocuments` with `async def` methods."""

    @abstractmethod
    async def put_document(self, document: NamespaceDocumentInput) -> str:
        """Upsert by `(namespace, key)`; the document id."""

    @abstractmethod
    async def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        """The document, or `None` when absent."""

    @abstractmethod
    async def list_documents(self, namespace: str | None) -> JsonValue:
        """`{"count": N, "documents": [...]}` (see `DocumentListing`)."""

    @abstractmethod
    async def list_namespaces(self) -> list[str]:
        """Every namespace holding documents."""

    @abstractmethod
    async def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        """`{"deleted": bool, "namespace": …, "documentId": …}`; absence is not an error."""

    @abstractmethod
    async def clear_namespace(self, namespace: str) -> None:
        """Remove every document of `namespace`."""

    @abstractmethod
    async def query_documents(
        self, namespace: str, query: str, limit: int
    ) -> NamespaceRetrievalContext:
        """Documents of `namespace` ranked against `query`."""

    async def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        """Recent context of `namespace`; by default `Unsupported(documents)`."""
        raise Unsupported.of(Capability.DOCUMENTS)
