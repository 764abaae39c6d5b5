"""Requests to engine operations; each ``validate`` raises the contract's ``InvalidRequest``."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import ConfigDict, Discriminator, Field, Tag

from .blank import is_blank
from .errors import InvalidRequest
from .facets import Facet
from .filters import MetaFilter
from .limits import DEFAULT_SCAN_LIMIT, MAX_BUCKETS, MAX_GET_IDS, MAX_SCAN_LIMIT
from .namespace import Reach
from .wire import Omittable, WireModel

Size = Annotated[int, Field(ge=0)]


def _non_blank(what: str, value: str) -> None:
    if is_blank(value):
        raise InvalidRequest(f"{what} must not be empty")


def _positive(what: str, value: int) -> None:
    if value == 0:
        raise InvalidRequest(f"{what} must be positive")


class FetchMode(StrEnum):
    """How ``fetch`` ranks: lexical, embedding, or the engine's blend."""

    KEYWORD = "keyword"
    VECTOR = "vector"
    HYBRID = "hybrid"


class RecallRequest(WireModel):
    """A question, answered from at most ``limit`` items the filter admits."""

    question: str
    filter: MetaFilter = Field(default_factory=MetaFilter)
    limit: Size
    instructions: Omittable[str] = None

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for a blank question or a zero limit."""
        _non_blank("recall question", self.question)
        _positive("recall limit", self.limit)


class FetchRequest(WireModel):
    """A raw retrieval in one mode. The mode is checked against the engine's descriptor
    (``EngineDescriptor.ensure_mode``), not here."""

    query: str
    mode: FetchMode
    filter: MetaFilter = Field(default_factory=MetaFilter)
    limit: Size
    cursor: Omittable[str] = None

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for a blank query or a zero limit."""
        _non_blank("fetch query", self.query)
        _positive("fetch limit", self.limit)


class ListRequest(WireModel):
    """A query-free page of the items the filter admits."""

    filter: MetaFilter = Field(default_factory=MetaFilter)
    limit: Size
    cursor: Omittable[str] = None

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for a zero limit."""
        _positive("list limit", self.limit)


class ForgetIds(WireModel):
    """Forget these items wherever they live (``{"ids": [...]}``); ids are not scoped."""

    model_config = ConfigDict(extra="forbid")

    ids: list[str]

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` when no id is named."""
        if not self.ids:
            raise InvalidRequest("forget needs at least one id")


class ForgetFilter(WireModel):
    """Forget every item the filter admits (``{"filter": {...}}``); it must not be empty."""

    model_config = ConfigDict(extra="forbid")

    filter: MetaFilter

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for an empty filter, which would mean everything."""
        if self.filter.is_empty():
            raise InvalidRequest("forget refuses an empty filter, which would mean everything")


def _forget_variant(value: Any) -> str | None:
    if isinstance(value, ForgetIds):
        return "ids"
    if isinstance(value, ForgetFilter):
        return "filter"
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in ("ids", "filter") else None
    return None


ForgetTarget = Annotated[
    Annotated[ForgetIds, Tag("ids")] | Annotated[ForgetFilter, Tag("filter")],
    Discriminator(
        _forget_variant,
        custom_error_type="forget_target",
        custom_error_message='a forget target is {"ids": [...]} or {"filter": {...}}',
    ),
]
"""What ``forget`` removes, externally tagged: ``ForgetIds`` or ``ForgetFilter``."""


class ExploreRequest(WireModel):
    """Group the items the filter admits by one facet, returning at most ``limit`` buckets;
    a listing-based engine reads at most ``scan_limit`` items."""

    facet: Facet
    filter: MetaFilter = Field(default_factory=MetaFilter)
    limit: Size
    scan_limit: Size = DEFAULT_SCAN_LIMIT

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for a limit outside 1..=500 or a scan_limit outside
        1..=50000."""
        if not 1 <= self.limit <= MAX_BUCKETS:
            raise InvalidRequest(f"explore limit must be between 1 and {MAX_BUCKETS}")
        if not 1 <= self.scan_limit <= MAX_SCAN_LIMIT:
            raise InvalidRequest(f"explore scan_limit must be between 1 and {MAX_SCAN_LIMIT}")


class GetRequest(WireModel):
    """Read items whole by id, confined to ``reach`` when set."""

    ids: list[str]
    reach: Omittable[Reach] = None

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for no ids, more than 200, or a blank one."""
        if not 1 <= len(self.ids) <= MAX_GET_IDS:
            raise InvalidRequest(f"get takes between 1 and {MAX_GET_IDS} ids")
        if any(is_blank(item_id) for item_id in self.ids):
            raise InvalidRequest("an id must not be blank")
