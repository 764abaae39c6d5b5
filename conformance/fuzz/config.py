"""What the fuzz machines draw from: one configuration per profile, every field tunable.

Defaults draw names, paths, tags and times from the near-miss pools
(`conformance.fuzz.pools`), grow the store in bulk (`conformance.fuzz.bulk`), and draw
page sizes both small (1 to 3, so every read crosses pages) and large. A driver's
declared `Constraints` narrow a configuration (`conformance.fuzz.narrowing`); a vendor
may also pass a configuration of its own, e.g.
``ProviderFuzzConfig(keys=provider_keys(alphabet="abc", max_size=8))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from hypothesis import strategies as st

from conformance.engine import MetaFilter, Namespace, Reach, SegmentKind, StoreItem, Timestamp
from conformance.engine.limits import DEFAULT_SCAN_LIMIT, MAX_BUCKETS, MAX_STORE_MANY
from conformance.fuzz import pools
from conformance.fuzz import strategies as fs
from conformance.provider import MemoryCategory

__all__ = [
    "DOCUMENTS_BRANCH",
    "ROOT_PLACEHOLDER",
    "EngineFuzzConfig",
    "ProviderFuzzConfig",
    "near_miss_keys",
    "near_miss_namespaces",
]

ROOT_PLACEHOLDER: Final = "~"
"""Stands for the run's root in provider namespace specs (`learning:~/a` is written
`learning:<root>/a`); `~` is never valid in a namespace, so it cannot be meant literally."""

DOCUMENTS_BRANCH: Final = "/docs"
"""Where documents are put: a document spec's `~` stands for the run root followed by
this (`~/a` is `<root>/docs/a`), so documents and core entries never share a namespace
(whether the two are one record is the driver's choice), and each side's reads leave
the other's namespaces out."""


def _values() -> st.SearchStrategy[str]:
    return st.sampled_from(pools.VALUES)


def _nodes() -> st.SearchStrategy[Namespace]:
    # Mostly the pool's prefix siblings and deep chains; sometimes any node of the same
    # ids, so the machines are not limited to the pool's shapes; now and then any node
    # the contract admits (every segment kind, 8 deep, ids of 128 characters).
    drawn = fs.engine_namespaces(
        kinds=(SegmentKind.AGENT, SegmentKind.TEAM),
        ids=st.sampled_from(pools.SEGMENT_IDS),
        max_depth=4,
    )
    return st.one_of(
        st.sampled_from(pools.ENGINE_NODES),
        st.sampled_from(pools.ENGINE_NODES),
        drawn,
        fs.engine_namespaces(),
    )


def _texts() -> st.SearchStrategy[str]:
    # Words (so queries hit), any Unicode, and one text in six long.
    return st.one_of(
        fs.word_texts(),
        fs.word_texts(),
        fs.non_blank_texts(max_size=12),
        fs.non_blank_texts(max_size=12),
        fs.long_texts(),
        fs.word_texts(min_words=2, max_words=8),
    )


def _moments() -> st.SearchStrategy[Timestamp]:
    # The pool's instants beside the window bounds, and any instant of the contract's
    # whole range (its edges most of all).
    return st.sampled_from(pools.MOMENTS) | fs.timestamps()


def _items(text: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[StoreItem]:
    meta = fs.metas(
        namespaces=_nodes(),
        values=_values(),
        tags=st.sampled_from(pools.TAGS),
        moments=_moments(),
        folders=st.sampled_from(pools.FOLDERS),
        file_paths=st.sampled_from(pools.FILE_PATHS),
        source_ids=st.sampled_from(pools.SOURCE_IDS),
        turns=st.sampled_from(pools.TURNS),
    )
    return fs.engine_items(text=_texts() if text is None else text, meta=meta)


def _invalid_items() -> st.SearchStrategy[StoreItem]:
    return fs.invalid_engine_items(
        meta=fs.metas(namespaces=_nodes(), values=_values(), tags=st.sampled_from(pools.TAGS))
    )


def _reaches() -> st.SearchStrategy[Reach]:
    return fs.reaches(namespaces=_nodes())


def _filters() -> st.SearchStrategy[MetaFilter]:
    return fs.meta_filters(
        reaches=st.none() | _reaches(),
        values=_values(),
        tags=st.sampled_from(pools.TAGS),
        moments=st.sampled_from(pools.BOUNDS) | fs.timestamps(),
        folders=st.sampled_from(pools.FOLDER_FILTERS),
        file_paths=st.sampled_from(pools.FILE_PATH_FILTERS),
        source_ids=st.sampled_from(pools.SOURCE_IDS),
        turns=st.sampled_from(pools.TURNS),
    )


def _page_sizes() -> st.SearchStrategy[int]:
    return st.integers(1, 3) | st.sampled_from([7, 50, 100, 1000])


def _sizes(*bands: tuple[int, int, int]) -> st.SearchStrategy[int]:
    """Sizes from `(weight, least, most)` bands, each band as likely as its weight; the
    first band is the simplest (what hypothesis draws first and in its small programs)."""
    chosen = [(least, most) for weight, least, most in bands for _ in range(weight)]
    return st.integers(0, len(chosen) - 1).flatmap(lambda at: st.integers(*chosen[at]))


@dataclass(frozen=True)
class EngineFuzzConfig:
    """Strategies for the engine machine. Items and filters are drawn without a
    workspace: the machine sets `meta.workspace` / `filter.workspace` to its run root."""

    items: st.SearchStrategy[StoreItem] = field(default_factory=_items)
    """Valid items stored one at a time (bulk items come from `conformance.fuzz.bulk`)."""
    invalid_items: st.SearchStrategy[StoreItem] = field(default_factory=_invalid_items)
    """Items every engine must refuse (contract-reference B2)."""
    filters: st.SearchStrategy[MetaFilter] = field(default_factory=_filters)
    """Filters for list, fetch, recall, explore and forget."""
    reaches: st.SearchStrategy[Reach] = field(default_factory=_reaches)
    """Reaches for `get`."""
    queries: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.word_texts(max_words=2) | fs.non_blank_texts(max_size=10)
    )
    """Fetch queries and recall questions when not taken from a held text (never blank)."""
    page_sizes: st.SearchStrategy[int] = field(default_factory=_page_sizes)
    """List and fetch page sizes: small (every read crosses pages) and large."""
    limits: st.SearchStrategy[int] = field(default_factory=lambda: st.integers(1, 5))
    """Recall limits."""
    explore_limits: st.SearchStrategy[int] = field(
        default_factory=lambda: st.integers(1, 3) | st.just(MAX_BUCKETS)
    )
    """Explore bucket limits: small ones cut tied buckets, so their order shows."""
    scan_limits: st.SearchStrategy[int] = field(
        default_factory=lambda: _sizes((2, DEFAULT_SCAN_LIMIT, DEFAULT_SCAN_LIMIT), (1, 1, 60))
    )
    """Explore scan limits: the default, or one small enough that a scan stops early."""
    bulk_sizes: st.SearchStrategy[int] = field(
        default_factory=lambda: _sizes((6, 2, 8), (3, 9, 25), (1, 26, MAX_STORE_MANY))
    )
    """Items of one bulk `store_many` (at most 100, the contract's maximum)."""
    initial_bulk: st.SearchStrategy[int] = field(
        default_factory=lambda: _sizes((7, 20, 30), (1, 80, MAX_STORE_MANY))
    )
    """Items of the bulk every program starts with."""
    nodes: Sequence[Namespace] = pools.ENGINE_NODES
    """Nodes bulk items live at."""
    max_items: int = 200
    """No bulk is stored while the store holds this many items (the cost of every read
    of a store grows with it)."""
    max_batch: int = 4
    """Most drawn items of one `store_many` (bulks aside)."""
    full_every: int = 8
    """Steps between two comparisons of the whole store (and once at the end); after
    every other step only what the step touched is compared."""
    full_page: int = 100
    """The page size of the whole-store comparison."""
    max_pages: int = 4
    """Most pages one list or fetch step reads: its page size is raised when the filter
    admits more than this many pages' worth."""
    scale_items: int = 2_500
    """Items the scale phase (`conformance.fuzz.scale`) loads after a search that passed;
    0 leaves it out."""


def near_miss_namespaces(
    specs: Sequence[str] = pools.PROVIDER_SPECS,
    scope_alphabet: str = "ab.-_",
    *,
    whole: bool = True,
) -> st.SearchStrategy[str]:
    """Namespace specs: the near-miss pool `specs`, or now and then one made of short
    segments of `scope_alphabet` (up to three deep) under the run root, or (`whole`) one
    of the contract's whole alphabet, empty and `.` segments, custom sections and
    lengths near the limit included."""
    made = fs.provider_namespaces(
        prefix=ROOT_PLACEHOLDER, max_segments=3, max_segment_size=3, scope_alphabet=scope_alphabet
    )
    options = [st.sampled_from(list(specs)), st.sampled_from(list(specs)), made]
    if whole:
        options.append(fs.whole_provider_namespaces(prefix=ROOT_PLACEHOLDER))
    return st.one_of(options)


def near_miss_keys(
    keys: Sequence[str] = pools.KEYS,
    alphabet: str = fs.DEFAULT_KEY_ALPHABET,
    max_size: int = 6,
    *,
    whole: bool = True,
) -> st.SearchStrategy[str]:
    """Entry keys: the near-miss pool `keys`, or one drawn from `alphabet`, or (`whole`)
    any non-blank Unicode key, long ones included (the contract takes them all)."""
    options = [
        st.sampled_from(list(keys)),
        st.sampled_from(list(keys)),
        fs.provider_keys(alphabet=alphabet, max_size=max_size),
    ]
    if whole:
        options += [fs.non_blank_texts(max_size=16), fs.long_texts(least=100, most=1_000)]
    return st.one_of(options)


@dataclass(frozen=True)
class ProviderFuzzConfig:
    """Strategies for the provider machine.

    Namespaces are specs in which `ROOT_PLACEHOLDER` stands for the run root; every
    spec must contain it, so every write stays under the root. Keys written to
    `global` get the run marker put in front of them.
    """

    namespaces: st.SearchStrategy[str] | None = None
    """Valid namespace specs, each containing `ROOT_PLACEHOLDER`; `None` for
    `near_miss_namespaces()`, narrowed by the driver's declared constraints."""
    invalid_namespaces: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.invalid_provider_namespaces(prefix=ROOT_PLACEHOLDER)
    )
    """Namespaces breaking contract-reference A6; a store may refuse them (only with
    `Invalid`, then storing nothing) or accept them."""
    keys: st.SearchStrategy[str] | None = None
    """Entry keys of single writes; `None` for `near_miss_keys()`, narrowed by the
    driver's declared constraints."""
    key_prefixes: st.SearchStrategy[str] = field(
        default_factory=lambda: st.sampled_from(pools.KEY_PREFIXES)
    )
    """Prefixes of bulk keys (`<prefix>0`, `<prefix>1`, ...)."""
    contents: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.provider_contents(max_size=16) | fs.long_texts()
    )
    """Entry contents of single writes."""
    categories: st.SearchStrategy[MemoryCategory] = field(default_factory=fs.categories)
    """Entry categories, and recall/list category filters."""
    session_ids: st.SearchStrategy[str | None] = field(default_factory=fs.session_ids)
    """Entry sessions, and list session filters."""
    queries: st.SearchStrategy[str] = field(
        default_factory=lambda: fs.word_texts(max_words=1) | fs.texts(min_size=1, max_size=6)
    )
    """Recall queries when not taken from a held content."""
    limits: st.SearchStrategy[int] = field(
        default_factory=lambda: st.integers(0, 5) | st.sampled_from([20, 100])
    )
    """Recall limits."""
    export_pages: st.SearchStrategy[int] = field(
        default_factory=lambda: st.integers(1, 3) | st.sampled_from([16, 64, 200])
    )
    """Export page sizes: small (the export crosses pages) and large."""
    bulk_sizes: st.SearchStrategy[int] = field(
        default_factory=lambda: _sizes((3, 2, 4), (1, 5, 10))
    )
    """Entries of one later bulk put into one namespace. Every entry costs a `store` and,
    at teardown, a `forget`, so later bulks stay small; the large stores come from
    `initial_bulk`."""
    initial_bulk: st.SearchStrategy[int] = field(
        default_factory=lambda: _sizes((12, 20, 26), (1, 100, 110))
    )
    """Entries of the bulk every program starts with: twenty odd, and one program in
    thirteen over a hundred."""
    max_rows: int = 120
    """No bulk is put while the store holds this many rows (each costs a `store` and a
    `forget`)."""
    use_global: bool = True
    """Also write to `global` (under marked keys) to hold recall without a namespace to
    searching `global` only (decisions §4.1)."""
    portability: bool = True
    """Run the export/import rules; each pages through the driver's whole export."""
    relatives: bool = True
    """Take relative steps: a key, namespace or content one character, case or normal form
    from one held. Off only where narrowed `keys` or `namespaces` must bound every value
    sent (a case twin of a lower-case key is upper-case)."""
    full_every: int = 10
    """Steps between two comparisons of every row (and once at the end); after every
    other step only the namespace the step touched is compared."""
    max_pages: int = 3
    """Most pages one export reads at the drawn page size: past it the page size is raised."""
    scale_rows: int = 2_000
    """Entries the scale phase (`conformance.fuzz.scale`) imports after a search that
    passed; 0 leaves it out."""
    forgets_per_export: int = 2
    """Most rows an export/import step forgets before importing them back."""
    documents: bool = True
    """Run the `documents` rules when the driver offers the family (and retains writes):
    upserts, gets, listings, queries, recalls, deletes and clears, compared with
    `ReferenceDocuments`. `False` leaves them out, and the programs are those of a
    driver without the family."""
    document_namespaces: st.SearchStrategy[str] | None = None
    """Document namespace specs, each containing `ROOT_PLACEHOLDER` (which stands for the
    run root and `DOCUMENTS_BRANCH` here); `None` for the pool `DOCUMENT_SPECS`, narrowed
    by the driver's declared constraints."""
    titles: st.SearchStrategy[str] = field(
        default_factory=lambda: st.sampled_from(pools.DOCUMENT_TITLES) | fs.word_texts(max_words=2)
    )
    """Document titles of single puts: case twins and prefixes of each other, or words."""
    initial_documents: st.SearchStrategy[int] = field(
        default_factory=lambda: _sizes((5, 11, 11), (2, 2, 4))
    )
    """Documents of the bulk every program of a driver offering `documents` starts with:
    eleven in most (a listing capped at ten shows), a few in the others (each costs a
    `put_document`)."""
