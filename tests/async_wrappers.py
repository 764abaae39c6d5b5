"""Async faces over synchronous drivers, for tests that need an `async def` driver."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from pydantic import JsonValue

from conformance.engine import (
    EngineDescriptor,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListPage,
    ListRequest,
    MemoryEngine,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)
from conformance.provider import (
    AsyncMemoryDocuments,
    AsyncProviderBase,
    Capabilities,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    MemoryCategory,
    MemoryDocuments,
    MemoryEntry,
    MemoryHealth,
    MemoryProvider,
    MemoryTaint,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
    StoredMemoryDocument,
)
from reference_driver.engine import ReferenceEngine


class AsyncEngineOver:
    """A synchronous engine (the reference by default) behind `async def` methods, as an
    async vendor engine is; `descriptor` stays synchronous."""

    def __init__(self, inner: MemoryEngine | None = None) -> None:
        self.inner: MemoryEngine = inner if inner is not None else ReferenceEngine()

    def descriptor(self) -> EngineDescriptor:
        return self.inner.descriptor()

    async def health(self) -> EngineHealth:
        return self.inner.health()

    async def store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.store(item)

    async def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        return self.inner.store_many(items)

    async def fetch(self, req: FetchRequest) -> FetchPage:
        return self.inner.fetch(req)

    async def recall(self, req: RecallRequest) -> RecallAnswer:
        return self.inner.recall(req)

    async def list(self, req: ListRequest) -> ListPage:
        return self.inner.list(req)

    async def forget(self, target: ForgetTarget) -> ForgetReport:
        return self.inner.forget(target)

    async def explore(self, req: ExploreRequest) -> ExplorePage:
        return self.inner.explore(req)

    async def get(self, req: GetRequest) -> builtins.list[Hit]:
        return self.inner.get(req)


class AsyncDocumentsOver(AsyncMemoryDocuments):
    """An `async def` documents family answering through a synchronous one."""

    def __init__(self, inner: MemoryDocuments) -> None:
        self.inner = inner

    async def put_document(self, document: NamespaceDocumentInput) -> str:
        return self.inner.put_document(document)

    async def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        return self.inner.get_document(namespace, key)

    async def list_documents(self, namespace: str | None) -> JsonValue:
        return self.inner.list_documents(namespace)

    async def list_namespaces(self) -> builtins.list[str]:
        return self.inner.list_namespaces()

    async def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        return self.inner.delete_document(namespace, document_id)

    async def clear_namespace(self, namespace: str) -> None:
        self.inner.clear_namespace(namespace)

    async def query_documents(
        self, namespace: str, query: str, limit: int
    ) -> NamespaceRetrievalContext:
        return self.inner.query_documents(namespace, query, limit)

    async def recall_documents(self, namespace: str, limit: int) -> NamespaceRetrievalContext:
        return self.inner.recall_documents(namespace, limit)


class AsyncOver(AsyncProviderBase):
    """An `async def` provider answering through a synchronous one."""

    def __init__(self, inner: MemoryProvider) -> None:
        self.inner = inner

    def driver_id(self) -> str:
        return self.inner.driver_id()

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    async def health(self) -> MemoryHealth:
        return self.inner.health()

    def as_documents(self) -> AsyncMemoryDocuments | None:
        documents = self.inner.as_documents()
        return None if documents is None else AsyncDocumentsOver(documents)

    async def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self.inner.store(namespace, key, content, category, session_id, taint)

    async def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return self.inner.get(namespace, key)

    async def forget(self, namespace: str, key: str) -> bool:
        return self.inner.forget(namespace, key)

    async def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return self.inner.list(namespace, category, session_id)

    async def namespaces(self) -> builtins.list[NamespaceSummary]:
        return self.inner.namespaces()

    async def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return self.inner.recall(query, limit, opts, scope)

    async def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        return self.inner.export_page(cursor, limit)

    async def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return self.inner.import_records(records)
