"""The provider protocols, their default bases, and `audit_provider` (A4, A8)."""

from __future__ import annotations

import asyncio
import builtins
import inspect

import pytest
from pydantic import JsonValue

from conformance.driver import detect_profile, is_async, missing_methods
from conformance.provider import (
    FAMILY_ACCESSORS,
    AsyncMemoryDocuments,
    AsyncMemoryProvider,
    AsyncProviderBase,
    Capabilities,
    Capability,
    CapabilityAudit,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryCore,
    MemoryDocuments,
    MemoryEntry,
    MemoryHealth,
    MemoryPortability,
    MemoryProvider,
    MemoryRecall,
    MemoryTaint,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
    StoredMemoryDocument,
    Unsupported,
    audit_provider,
)


class Documents(MemoryDocuments):
    """A documents family that holds nothing; enough to be reachable."""

    def put_document(self, document: NamespaceDocumentInput) -> str:
        return "doc"

    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        return None

    def list_documents(self, namespace: str | None) -> JsonValue:
        return {"count": 0, "documents": []}

    def list_namespaces(self) -> list[str]:
        return []

    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        return {"deleted": False, "namespace": namespace, "documentId": document_id}

    def clear_namespace(self, namespace: str) -> None:
        return None

    def query_documents(self, namespace: str, query: str, limit: int) -> NamespaceRetrievalContext:
        return NamespaceRetrievalContext(namespace=namespace, context_text="", hits=[])


class Provider(ProviderBase):
    """A mandatory-only provider over a dict, advertising what it is told to."""

    def __init__(
        self, advertised: Capabilities | None = None, documents: MemoryDocuments | None = None
    ) -> None:
        self._advertised = advertised if advertised is not None else Capabilities.mandatory()
        self._documents = documents
        self._rows: dict[tuple[str, str], MemoryEntry] = {}

    def driver_id(self) -> str:
        return "test"

    def capabilities(self) -> Capabilities:
        return self._advertised

    def health(self) -> MemoryHealth:
        return MemoryHealth.ready()

    def as_documents(self) -> MemoryDocuments | None:
        return self._documents

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._rows[namespace, key] = MemoryEntry(
            id=f"{namespace}::{key}",
            key=key,
            content=content,
            namespace=namespace,
            category=category,
            timestamp="1970-01-01T00:00:00Z",
            session_id=session_id,
            taint=taint,
        )

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return self._rows.get((namespace, key))

    def forget(self, namespace: str, key: str) -> bool:
        return self._rows.pop((namespace, key), None) is not None

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return [
            entry
            for entry in self._rows.values()
            if namespace in (None, entry.namespace)
            and category in (None, entry.category)
            and session_id in (None, entry.session_id)
        ]

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        names = sorted({namespace for namespace, _ in self._rows})
        return [
            NamespaceSummary(namespace=n, count=sum(1 for ns, _ in self._rows if ns == n))
            for n in names
        ]

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return []

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        return ExportPage(records=[])

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return ImportOutcome(imported=0, skipped=len(records), failed=0)


class AsyncProvider(AsyncProviderBase):
    """The async form of a mandatory-only provider that holds nothing."""

    def driver_id(self) -> str:
        return "async-test"

    def capabilities(self) -> Capabilities:
        return Capabilities.mandatory()

    async def health(self) -> MemoryHealth:
        return MemoryHealth.ready()

    async def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        return None

    async def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return None

    async def forget(self, namespace: str, key: str) -> bool:
        return False

    async def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return []

    async def namespaces(self) -> builtins.list[NamespaceSummary]:
        return []

    async def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return []

    async def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        return ExportPage(records=[])

    async def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return ImportOutcome(imported=0, skipped=len(records), failed=0)


# protocols and bases


def test_a_provider_base_subclass_is_every_mandatory_family() -> None:
    provider = Provider()
    for protocol in (MemoryProvider, MemoryCore, MemoryRecall, MemoryPortability):
        assert isinstance(provider, protocol)
    assert not isinstance(provider, MemoryDocuments)
    assert detect_profile(provider) == "provider"
    assert missing_methods(provider, "provider") == []
    assert not is_async(provider)


def test_the_async_base_keeps_identity_calls_synchronous() -> None:
    provider = AsyncProvider()
    assert isinstance(provider, AsyncMemoryProvider)
    assert is_async(provider)
    assert detect_profile(provider) == "provider"
    for name in ("driver_id", "capabilities", "provides", *FAMILY_ACCESSORS.values()):
        assert not inspect.iscoroutinefunction(getattr(provider, name)), name
    for name in ("health", "shutdown", "store", "get", "list", "recall", "import_records"):
        assert inspect.iscoroutinefunction(getattr(provider, name)), name
    assert asyncio.run(provider.health()) == MemoryHealth.ready()
    assert asyncio.run(provider.shutdown()) is None


def test_family_accessors_name_every_optional_family() -> None:
    assert len(FAMILY_ACCESSORS) == 15
    assert set(FAMILY_ACCESSORS) == {c for c in Capability if not c.is_mandatory}
    assert FAMILY_ACCESSORS[Capability.TOOL_MEMORY] == "as_tool_memory"
    for base in (ProviderBase, AsyncProviderBase, MemoryProvider, AsyncMemoryProvider):
        for accessor in FAMILY_ACCESSORS.values():
            assert callable(getattr(base, accessor)), (base, accessor)


def test_defaults_answer_none_and_provides_reads_them() -> None:
    for provider in (Provider(), AsyncProvider()):
        for accessor in FAMILY_ACCESSORS.values():
            assert getattr(provider, accessor)() is None
        assert [c for c in Capability if provider.provides(c)] == [
            Capability.CORE,
            Capability.RECALL,
            Capability.PORTABILITY,
        ]
    Provider().shutdown()


def test_provides_follows_a_served_family() -> None:
    provider = Provider(documents=Documents())
    assert provider.provides(Capability.DOCUMENTS)
    assert not provider.provides(Capability.GRAPH)


def test_a_base_subclass_must_implement_the_mandatory_methods() -> None:
    class Incomplete(ProviderBase):
        def driver_id(self) -> str:
            return "incomplete"

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()  # type: ignore[abstract]


def test_documents_recall_defaults_to_unsupported() -> None:
    with pytest.raises(Unsupported) as caught:
        Documents().recall_documents("document:x", 5)
    assert caught.value.capability == "documents"
    assert str(caught.value) == "unsupported capability: documents"


def test_async_documents_recall_defaults_to_unsupported() -> None:
    class AsyncDocuments(AsyncMemoryDocuments):
        async def put_document(self, document: NamespaceDocumentInput) -> str:
            return "doc"

        async def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
            return None

        async def list_documents(self, namespace: str | None) -> JsonValue:
            return None

        async def list_namespaces(self) -> list[str]:
            return []

        async def delete_document(self, namespace: str, document_id: str) -> JsonValue:
            return None

        async def clear_namespace(self, namespace: str) -> None:
            return None

        async def query_documents(
            self, namespace: str, query: str, limit: int
        ) -> NamespaceRetrievalContext:
            return NamespaceRetrievalContext(namespace=namespace, context_text="", hits=[])

    with pytest.raises(Unsupported, match=r"^unsupported capability: documents$"):
        asyncio.run(AsyncDocuments().recall_documents("document:x", 5))


def test_the_test_provider_upserts() -> None:
    provider = Provider()
    provider.store("n", "k", "first", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    provider.store("n", "k", "second", MemoryCategory.CORE, None, MemoryTaint.EXTERNAL_SYNC)
    assert [entry.content for entry in provider.list("n", None, None)] == ["second"]
    assert provider.namespaces() == [NamespaceSummary(namespace="n", count=1)]


# audit_provider


def test_audit_passes_when_advertised_equals_reachable() -> None:
    assert audit_provider(Provider()) is None
    assert audit_provider(AsyncProvider()) is None
    served = Capabilities.mandatory().with_(Capability.DOCUMENTS)
    assert audit_provider(Provider(served, Documents())) is None


@pytest.mark.parametrize(
    ("advertised", "documents", "absent", "hidden", "message"),
    [
        (
            Capabilities.mandatory().with_(Capability.DOCUMENTS),
            None,
            [Capability.DOCUMENTS],
            [],
            "memory driver capability mismatch; advertised but not implemented: documents",
        ),
        (
            Capabilities.mandatory(),
            Documents(),
            [],
            [Capability.DOCUMENTS],
            "memory driver capability mismatch; implemented but not advertised: documents",
        ),
        (
            Capabilities(["core", "recall", "portability", "retrieval", "graph"]),
            Documents(),
            [Capability.GRAPH, Capability.RETRIEVAL],
            [Capability.DOCUMENTS],
            "memory driver capability mismatch; advertised but not implemented: graph, "
            "retrieval; implemented but not advertised: documents",
        ),
        (
            # Mandatory families are always reachable, so an unadvertised one is hidden.
            Capabilities(["recall"]),
            None,
            [],
            [Capability.CORE, Capability.PORTABILITY],
            "memory driver capability mismatch; implemented but not advertised: core, portability",
        ),
    ],
)
def test_audit_reports_each_mismatch_in_declaration_order(
    advertised: Capabilities,
    documents: MemoryDocuments | None,
    absent: list[Capability],
    hidden: list[Capability],
    message: str,
) -> None:
    audit = audit_provider(Provider(advertised, documents))
    assert audit == CapabilityAudit(advertised_but_absent=absent, present_but_unadvertised=hidden)
    assert audit is not None
    assert str(audit) == message
    error = audit.to_error()
    assert type(error) is Invalid
    assert error.message == message


def test_audit_serialises_as_names() -> None:
    audit = CapabilityAudit(advertised_but_absent=[Capability.GRAPH], present_but_unadvertised=[])
    assert audit.model_dump_json() == (
        '{"advertised_but_absent":["graph"],"present_but_unadvertised":[]}'
    )
