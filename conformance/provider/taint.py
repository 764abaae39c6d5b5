"""`MemoryTaint`: where a memory's content came from, decoded fail-closed (A1)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema


class MemoryTaint(StrEnum):
    """Provenance of a memory: written by the user's side, or synced from outside.

    Decoding never fails on a string: exactly `"internal"` is `INTERNAL`, anything
    else (empty, wrong case, garbage) is `EXTERNAL_SYNC`, so content of unknown
    provenance is treated as untrusted. A missing field means `INTERNAL`.
    """

    INTERNAL = "internal"
    EXTERNAL_SYNC = "external_sync"

    @classmethod
    def decode(cls, raw: str) -> MemoryTaint:
        """The taint a stored or wire string stands for; never raises."""
        # Module constants, not `cls.INTERNAL`: this runs for every entry read.
        return _INTERNAL if raw == "internal" else _EXTERNAL_SYNC

    @classmethod
    def _missing_(cls, value: object) -> MemoryTaint | None:
        # `MemoryTaint("garbage")` must fail closed too, not raise.
        return cls.decode(value) if isinstance(value, str) else None

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from_str = core_schema.no_info_after_validator_function(
            cls.decode, core_schema.str_schema()
        )
        return core_schema.json_or_python_schema(
            json_schema=from_str,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_str]),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda taint: taint.value, when_used="json"
            ),
        )


_INTERNAL: Final = MemoryTaint.INTERNAL
_EXTERNAL_SYNC: Final = MemoryTaint.EXTERNAL_SYNC
