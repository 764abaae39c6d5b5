"""What the fuzz machines draw from: one configuration per profile, every field tunable.

A vendor whose store constrains values builds a narrower configuration, e.g.
``ProviderFuzzConfig(keys=provider_keys(alphabet="abc", max_size=8))``, and passes it
to ``run_fuzz(..., config=...)``. Defaults draw from small pools (a few namespaces,
tags and metadata values) so that filters, replays and upserts collide often.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

from hypothesis import strategies as st

from conformance.engine import MetaFilter, Reach, SegmentKind, StoreItem
from conformance.fuzz import strategies as fs
from conformance.provider import MemoryCategory

__all__ = ["ROOT_PLACEHOLDER", "EngineFuzzConfig", "ProviderFuzzConfig"]

ROOT_PLACEHOLDER: Final = "~"
"""Stands for the run's root in provider namespace specs (`learning:~/a` is written
`learning:<root>/a`); `~` is never valid in a namespace, so it cannot be meant literally."""

_VALUES: Final = st.sampled_from(["x", "y"])
_TAGS: Final = st.sampled_from(["t1", "t2", "t3"])
_MOMENTS: Final = st.sampled_from(
    [
        datetime(2001, 1, 1, tzinfo=UTC),
        datetime(2010, 6, 1, 12, tzinfo=UTC),
        datetime(2020, 12, 31, 23, 59, 59, tzinfo=UTC),
    ]
)
_NODES: Final = fs.engine_namespaces(
    kinds=(SegmentKind.AGENT, SegmentKind.TEAM), ids=st.sampled_from(["a", "b"]), max_depth=3
)
_TEXT: Final = fs.word_texts() | fs.non_blank_texts(max_size=12)


def _items() -> st.SearchStrategy[StoreItem]:
    meta = fs.metas(namespaces=_NODES, values=_VALUES, tags=_TAGS, moments=_MOMENTS)
    return fs.engine_items(text=_TEXT, meta=meta)


def _invalid_items() -> st.SearchStrategy[StoreItem]:
    return fs.invalid_engine_items(meta=fs.metas(namespaces=_NODES, values=_VALUES, tags=_TAGS))


def _reaches() -> st.SearchStrategy[Reach]:
    return fs.reaches(namespaces=_NODES)


def _filters() -> st.SearchStrategy[MetaFilter]:
    return fs.meta_filters(
        reaches=st.none() | _reaches(), values=_VALUES, tags=_TAGS, moments=_MOMENTS
    )


@dataclass(frozen=True)
class EngineFuzzConfig:
    """Strategies for the engine machine. Items and filters are drawn without a
    workspace: the machine sets `meta.workspace` / `filter.workspace` to its run root."""

    items: st.SearchStrategy[StoreItem] = field(default_factory=_items)
    """Valid items to store."""
    invalid_items: st.SearchStrategy[StoreItem] = field(default_factory=_invalid_items)
    """Items every engine must refuse (contract-reference B2)."""
    filters: st.SearchStrategy[MetaFilter] = field(default_factory=_filters)
    """Filters for list, fetch, recall, explore and forget."""
    reaches: st.SearchStrategy[Reach] = field(default_factory=_reaches)
    """Reaches for `get`."""
    queries: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.word_texts(max_words=2) | fs.non_blank_texts(max_size=10)
    )
    """Fetch queries and recall questions (never blank)."""
    page_sizes: st.SearchStrategy[int] = field(default_factory=lambda: st.integers(1, 3))
    """List page sizes: small, so every listing crosses pages."""
    limits: st.SearchStrategy[int] = field(default_factory=lambda: st.integers(1, 5))
    """Fetch and recall limits."""
    list_page: int = 2
    """The page size of the listing compared after every step."""
    max_batch: int = 4
    """Most items of one `store_many` the machine sends."""


def _namespaces() -> st.SearchStrategy[str]:
    return fs.provider_namespaces(prefix=ROOT_PLACEHOLDER, max_segments=1, max_segment_size=3)


@dataclass(frozen=True)
class ProviderFuzzConfig:
    """Strategies for the provider machine.

    Namespaces are specs in which `ROOT_PLACEHOLDER` stands for the run root; every
    spec must contain it, so every write stays under the root. Keys written to
    `global` get the run marker put in front of them.
    """

    namespaces: st.SearchStrategy[str] = field(default_factory=_namespaces)
    """Valid namespace specs, each containing `ROOT_PLACEHOLDER`."""
    invalid_namespaces: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.invalid_provider_namespaces(prefix=ROOT_PLACEHOLDER)
    )
    """Namespaces breaking contract-reference A6; a store may refuse them (only with
    `Invalid`, then storing nothing) or accept them."""
    keys: st.SearchStrategy[str] = field(default_factory=lambda: fs.provider_keys(max_size=6))
    """Entry keys."""
    contents: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.provider_contents(max_size=16)
    )
    """Entry contents."""
    categories: st.SearchStrategy[MemoryCategory] = field(default_factory=fs.categories)
    """Entry categories, and recall/list category filters."""
    session_ids: st.SearchStrategy[str | None] = field(default_factory=fs.session_ids)
    """Entry sessions, and list session filters."""
    queries: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.word_texts(max_words=1) | fs.texts(min_size=1, max_size=6)
    )
    """Recall queries besides the contents already written."""
    limits: st.SearchStrategy[int] = field(default_factory=lambda: st.integers(0, 5))
    """Recall limits."""
    use_global: bool = True
    """Also write to `global` (under marked keys) to hold recall without a namespace to
    searching `global` only (decisions §4.1)."""
    portability: bool = True
    """Run the export/import rules; each pages through the driver's whole export."""
    export_page: int = 16
    """The `limit` of each `export_page` call."""
