"""Value types of the optional `documents` family (A1 "Other value types", A4).

Categories are plain strings here (the `MemoryCategory` wire form), and times are
Unix seconds as floats, as the contract has them.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field, JsonValue, NonNegativeInt

from ._wire import WireModel
from .taint import MemoryTaint


class MemoryItemKind(StrEnum):
    """What kind of stored item a retrieval hit refers to."""

    DOCUMENT = "document"
    KV = "kv"
    EPISODIC = "episodic"
    EVENT = "event"


class NamespaceDocumentInput(WireModel):
    """A document to upsert by `(namespace, key)` through `put_document`."""

    namespace: str
    key: str
    title: str
    content: str
    source_type: str
    """Origin of the content, e.g. `chat`, `gmail`."""
    priority: str
    tags: list[str] = Field(default_factory=list)
    metadata: JsonValue = None
    category: str
    session_id: str | None = None
    document_id: str | None = None
    """An explicit id; the driver generates one when absent."""
    taint: MemoryTaint = MemoryTaint.INTERNAL


class StoredMemoryDocument(WireModel):
    """A document as the driver stored it, returned by `get_document`."""

    document_id: str
    namespace: str
    key: str
    title: str
    content: str
    source_type: str
    priority: str
    tags: list[str]
    metadata: JsonValue
    category: str
    session_id: str | None = None
    created_at: float
    updated_at: float
    markdown_rel_path: str
    """Path of the authoritative markdown file, relative to the vault root."""
    taint: MemoryTaint = MemoryTaint.INTERNAL


class NamespaceQueryResult(WireModel):
    """One ranked hit of a namespace text query."""

    key: str
    content: str
    score: float
    category: str
    taint: MemoryTaint = MemoryTaint.INTERNAL


class GraphRelationRecord(WireModel):
    """A graph edge `subject -predicate-> object` with its evidence."""

    namespace: str | None = None
    subject: str
    predicate: str
    object: str
    attrs: JsonValue
    updated_at: float
    evidence_count: NonNegativeInt
    order_index: int | None = None
    document_ids: list[str]
    chunk_ids: list[str]


class RetrievalScoreBreakdown(WireModel):
    """Each signal's contribution to a hit's score; `final_score` is what ranks."""

    keyword_relevance: float
    vector_similarity: float
    graph_relevance: float
    episodic_relevance: float
    freshness: float
    final_score: float


class NamespaceMemoryHit(WireModel):
    """One ranked retrieval hit, with its score explained."""

    id: str
    kind: MemoryItemKind
    namespace: str
    key: str
    title: str | None = None
    content: str
    category: str
    source_type: str | None = None
    updated_at: float
    score: float
    score_breakdown: RetrievalScoreBreakdown
    document_id: str | None = None
    chunk_id: str | None = None
    supporting_relations: list[GraphRelationRecord] = Field(default_factory=list)
    taint: MemoryTaint = MemoryTaint.INTERNAL


class NamespaceRetrievalContext(WireModel):
    """What `query_documents` and `recall_documents` return: context text plus hits."""

    namespace: str
    query: str | None = None
    context_text: str
    hits: list[NamespaceMemoryHit]


class DocumentRow(WireModel):
    """One row of the `list_documents` envelope; camelCase keys on the wire.

    Keys beyond the pinned ones are kept, so a driver's row round-trips whole.
    """

    model_config = ConfigDict(extra="allow", validate_by_name=True, serialize_by_alias=True)

    document_id: str = Field(alias="documentId")
    namespace: str
    key: str
    title: str
    source_type: str = Field(alias="sourceType")
    priority: str
    created_at: float = Field(alias="createdAt")
    updated_at: float = Field(alias="updatedAt")
    taint: MemoryTaint = MemoryTaint.INTERNAL


class DocumentListing(WireModel):
    """The `list_documents` envelope: `{"count": N, "documents": [...]}`."""

    model_config = ConfigDict(extra="allow")

    count: NonNegativeInt
    documents: list[DocumentRow]

    def is_consistent(self) -> bool:
        """Whether `count` equals the number of rows."""
        return self.count == len(self.documents)


class DocumentDeletion(WireModel):
    """The `delete_document` outcome; a missing document is `deleted: false`."""

    model_config = ConfigDict(extra="allow", validate_by_name=True, serialize_by_alias=True)

    deleted: bool
    namespace: str
    document_id: str = Field(alias="documentId")
