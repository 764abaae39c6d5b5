"""Export pages and import outcomes of the mandatory portability family (A1, A4)."""

from __future__ import annotations

from pydantic import Field, JsonValue, NonNegativeInt

from ._wire import WireModel
from .constants import ENTRY_KIND
from .entry import MemoryEntry
from .taint import MemoryTaint


class ExportRecord(WireModel):
    """One record of an export, in the exporting driver's own shape.

    `kind` is driver-defined (`"entry"` for core entries) so that kinds this
    package does not know still round-trip. The taint travels with the record and
    an importing driver must keep it.
    """

    kind: str
    id: str
    namespace: str | None = None
    taint: MemoryTaint = MemoryTaint.INTERNAL
    payload: JsonValue


class ExportPage(WireModel):
    """One page of an export; only `next_cursor is None` ends the export."""

    records: list[ExportRecord]
    next_cursor: str | None = None


class ImportOutcome(WireModel):
    """What an import accepted, skipped and rejected, with reasons for rejections."""

    imported: NonNegativeInt
    skipped: NonNegativeInt
    failed: NonNegativeInt
    errors: list[str] = Field(default_factory=list)

    def is_consistent(self) -> bool:
        """False for the driver bug of rejecting records without saying why."""
        return self.failed == 0 or bool(self.errors)


def entry_record(entry: MemoryEntry) -> ExportRecord:
    """The export record of one core entry, as the mandatory composition writes it.

    `kind` is `"entry"`; the payload carries `key`, `content`, `category` (its wire
    string), `session_id` and `timestamp`, which is what every mandatory importer reads.
    """
    return ExportRecord(
        kind=ENTRY_KIND,
        id=entry.id,
        namespace=entry.namespace,
        taint=entry.taint,
        payload={
            "key": entry.key,
            "content": entry.content,
            "category": str(entry.category),
            "session_id": entry.session_id,
            "timestamp": entry.timestamp.rfc3339(),
        },
    )
