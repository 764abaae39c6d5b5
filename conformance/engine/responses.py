"""What engine operations answer: receipts, hits, pages, reports and answers."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from .facets import Facet
from .items import ItemKind
from .meta import MemoryMeta
from .wire import F32, Omittable, WireModel

Count = Annotated[int, Field(ge=0)]


class StoreReceipt(WireModel):
    """What a store answers: the item's id, and whether it was already held (a replay)."""

    id: str
    replayed: bool


class Hit(WireModel):
    """One stored item as a read returns it; ``text`` is the item's ``render_text``."""

    id: str
    kind: ItemKind
    text: str
    meta: MemoryMeta
    score: F32
    confidence: Omittable[F32] = None
    """A learning's confidence; unset for documents and conversations."""


class Citation(WireModel):
    """One item a recall answer drew on; its id resolves through ``list``."""

    id: str
    kind: ItemKind
    snippet: str
    meta: MemoryMeta
    score: Omittable[F32] = None


class RecallAnswer(WireModel):
    """A synthesised answer, its citations and, when reported, the model."""

    answer: str
    citations: list[Citation] = Field(default_factory=list)
    model: Omittable[str] = None


class FetchPage(WireModel):
    """One page of fetch hits, best first; ``next_cursor`` unset on the last page."""

    hits: list[Hit]
    next_cursor: Omittable[str] = None


class ListPage(WireModel):
    """One page of a listing (every score ``0.0``); ``next_cursor`` unset on the last page."""

    items: list[Hit]
    next_cursor: Omittable[str] = None


class ForgetReport(WireModel):
    """How many items a forget actually removed."""

    forgotten: Count


class Bucket(WireModel):
    """One value of a facet and how many items carry it (Rust ``FacetBucket``)."""

    value: str
    count: Count


class ExplorePage(WireModel):
    """Counts per facet value: buckets largest first (ties by value), at most ``limit``.

    ``total`` counts items read, ``missing`` those with no value, ``more_buckets`` the
    values cut, and ``truncated`` says the scan stopped at ``scan_limit``.
    """

    facet: Facet
    buckets: list[Bucket]
    total: Count
    missing: Count
    more_buckets: Count
    truncated: bool
