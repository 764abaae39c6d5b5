"""Export pages and import outcomes of the mandatory portability family (A1, A4)."""

from __future__ import annotations

from pydantic import Field, JsonValue, NonNegativeInt

from ._wire import WireModel
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
