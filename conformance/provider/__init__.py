"""The provider profile of the TinyMemory contract (`MemoryProvider`, contract 2.2).

Entries keyed by `(namespace, key)` that a store upserts; namespaces are
`<section>:<scope>` strings; three mandatory families (core, recall, portability)
and fifteen optional ones, advertised as capabilities and audited at bind.
"""

from conformance.timestamps import Timestamp

from .audit import CapabilityAudit, audit_provider
from .capabilities import MANDATORY, Capabilities, Capability
from .category import MemoryCategory
from .constants import (
    CONTRACT_VERSION,
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    INBOUND_SCAN_LIMIT,
    MAX_NAMESPACE_LEN,
    NULL_DRIVER_ID,
    REFERENCE_DRIVER_ID,
    SCOPE_UNAPPLIED,
    ContractVersion,
    is_compatible,
)
from .documents import (
    DocumentDeletion,
    DocumentListing,
    DocumentRow,
    GraphRelationRecord,
    MemoryItemKind,
    NamespaceDocumentInput,
    NamespaceMemoryHit,
    NamespaceQueryResult,
    NamespaceRetrievalContext,
    RetrievalScoreBreakdown,
    StoredMemoryDocument,
)
from .entry import MemoryEntry, NamespaceSummary
from .errors import (
    WIRE_PREFIX,
    Backend,
    BudgetExceeded,
    Invalid,
    IoFailure,
    NotFound,
    Other,
    PathEscape,
    ProviderError,
    SerdeFailure,
    Timeout,
    Unauthorized,
    Unavailable,
    Unreachable,
    Unsupported,
    from_wire,
    to_wire,
)
from .families import (
    AsyncMemoryCore,
    AsyncMemoryDocuments,
    AsyncMemoryPortability,
    AsyncMemoryRecall,
    MemoryCore,
    MemoryDocuments,
    MemoryPortability,
    MemoryRecall,
)
from .health import HealthStatus, MemoryHealth
from .namespace import Namespace
from .portability import ExportPage, ExportRecord, ImportOutcome, entry_record
from .protocol import (
    FAMILY_ACCESSORS,
    AsyncMemoryProvider,
    AsyncProviderBase,
    MemoryProvider,
    ProviderBase,
)
from .recall import OwnedRecallOpts, SourceScope
from .section import MemorySection
from .taint import MemoryTaint

__all__ = [
    "CONTRACT_VERSION",
    "ENTRY_KIND",
    "FAMILY_ACCESSORS",
    "GLOBAL_NAMESPACE",
    "INBOUND_SCAN_LIMIT",
    "MANDATORY",
    "MAX_NAMESPACE_LEN",
    "NULL_DRIVER_ID",
    "REFERENCE_DRIVER_ID",
    "SCOPE_UNAPPLIED",
    "WIRE_PREFIX",
    "AsyncMemoryCore",
    "AsyncMemoryDocuments",
    "AsyncMemoryPortability",
    "AsyncMemoryProvider",
    "AsyncMemoryRecall",
    "AsyncProviderBase",
    "Backend",
    "BudgetExceeded",
    "Capabilities",
    "Capability",
    "CapabilityAudit",
    "ContractVersion",
    "DocumentDeletion",
    "DocumentListing",
    "DocumentRow",
    "ExportPage",
    "ExportRecord",
    "GraphRelationRecord",
    "HealthStatus",
    "ImportOutcome",
    "Invalid",
    "IoFailure",
    "MemoryCategory",
    "MemoryCore",
    "MemoryDocuments",
    "MemoryEntry",
    "MemoryHealth",
    "MemoryItemKind",
    "MemoryPortability",
    "MemoryProvider",
    "MemoryRecall",
    "MemorySection",
    "MemoryTaint",
    "Namespace",
    "NamespaceDocumentInput",
    "NamespaceMemoryHit",
    "NamespaceQueryResult",
    "NamespaceRetrievalContext",
    "NamespaceSummary",
    "NotFound",
    "Other",
    "OwnedRecallOpts",
    "PathEscape",
    "ProviderBase",
    "ProviderError",
    "RetrievalScoreBreakdown",
    "SerdeFailure",
    "SourceScope",
    "StoredMemoryDocument",
    "Timeout",
    "Timestamp",
    "Unauthorized",
    "Unavailable",
    "Unreachable",
    "Unsupported",
    "audit_provider",
    "entry_record",
    "from_wire",
    "is_compatible",
    "to_wire",
]
