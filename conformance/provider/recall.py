"""Recall filters (`OwnedRecallOpts`) and the source allow list (`SourceScope`) (A1)."""

from __future__ import annotations

from typing import Any

from pydantic import SerializerFunctionWrapHandler, model_serializer

from ._wire import WireModel
from .category import MemoryCategory


class OwnedRecallOpts(WireModel):
    """Filters of one `recall` call; `limit` is a separate argument.

    On the wire every field is optional (`{}` is the default) and unset fields are
    omitted, except `cross_session`, which is always written.
    """

    namespace: str | None = None
    """The exact namespace to search; `None` means `GLOBAL_NAMESPACE`."""
    category: MemoryCategory | None = None
    session_id: str | None = None
    min_score: float | None = None
    cross_session: bool = False
    """Also include conversational hits from other sessions of the workspace."""

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {key: value for key, value in data.items() if value is not None}


class SourceScope(WireModel):
    """The memory sources a recall may draw on; applied inside the driver's query.

    Fail-closed: an empty allow list denies every source-attributed item. No
    restriction at all is expressed by passing no scope (`None`).
    """

    allow: list[str]

    def allows_source_id(self, source_id: str) -> bool:
        """Whether `source_id` equals an allowed id or starts with `mem_src:<id>:`."""
        return any(
            source_id == allowed or source_id.startswith(f"mem_src:{allowed}:")
            for allowed in self.allow
        )
