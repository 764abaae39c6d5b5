"""`NullProvider`: the provider that retains nothing and succeeds empty (A7).

A legitimate binding for a deliberately disabled memory subsystem, never a
fallback for a driver that failed to bind. The kit finds that it retains nothing
with its retention probe, not from any flag set here.
"""

from __future__ import annotations

import builtins

from conformance.provider import (
    NULL_DRIVER_ID,
    Capabilities,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
)

__all__ = ["NullProvider"]


class NullProvider(ProviderBase):
    """Serves the three mandatory families and keeps nothing; every call succeeds empty."""

    def driver_id(self) -> str:
        """`"null"`."""
        return NULL_DRIVER_ID

    def capabilities(self) -> Capabilities:
        """Exactly the mandatory families."""
        return Capabilities.mandatory()

    def health(self) -> MemoryHealth:
        """Always ready."""
        return MemoryHealth.ready()

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """Accept and discard."""

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        """`None`: nothing is kept."""
        return None

    def forget(self, namespace: str, key: str) -> bool:
        """`False`: nothing existed."""
        return False

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        """`[]`."""
        return []

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        """`[]`."""
        return []

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        """`[]`."""
        return []

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        """One empty, final page; `Invalid` for a limit below 1 and for any cursor, since
        none is ever issued."""
        if limit < 1:
            raise Invalid("export page limit must be greater than zero")
        if cursor is not None:
            raise Invalid("null provider does not issue export cursors")
        return ExportPage(records=[], next_cursor=None)

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        """Every record skipped: claiming any were imported would be a lie."""
        return ImportOutcome(imported=0, skipped=len(records), failed=0, errors=[])
