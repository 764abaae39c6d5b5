"""What `get`, `list` and `recall` return, and what `namespaces` reports (A1)."""

from __future__ import annotations

from pydantic import NonNegativeInt

from conformance.timestamps import Timestamp

from ._wire import WireModel
from .category import MemoryCategory
from .taint import MemoryTaint


class MemoryEntry(WireModel):
    """One stored memory, keyed by `(namespace, key)`.

    Every key is written on output; `session_id` and `score` as `null` when unset.
    A missing `taint` reads as internal, an unknown one as external_sync.
    """

    id: str
    """Driver-assigned id (the reference driver uses `"{namespace}::{key}"`)."""
    key: str
    content: str
    namespace: str | None = None
    category: MemoryCategory
    timestamp: Timestamp
    """Time of the last write (RFC 3339 on the wire, exact to the nanosecond)."""
    session_id: str | None = None
    score: float | None = None
    """Relevance of a recall hit, typically 0..1; `None` outside recall."""
    taint: MemoryTaint = MemoryTaint.INTERNAL


class NamespaceSummary(WireModel):
    """One namespace a driver holds, with its entry count."""

    namespace: str
    count: NonNegativeInt
    last_updated: Timestamp | None = None
    """Time of the namespace's latest write, when the driver tracks it (RFC 3339 on the
    wire)."""
