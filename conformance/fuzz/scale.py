"""The scale phase: one program past the caps real stores and SQL engines have.

The search's programs hold tens to a few hundred items; stores break beyond that, where
an adapter forgot to page a backend that answers 1,000 rows at most, an `IN (...)` list
outgrows SQLite's 999 variables, or a search engine's result window (10,000) or top-k
cap (100, 1,000) cuts an answer short. After a search that passed, the fuzzer runs one
program more that bulk-loads the store into the low thousands (`store_many` of 100 for
an engine, `import_records` of 500 for a provider: the contract's own bulk writes), then
asks for everything at once: a single page of every item, fetches and recalls with
limits in the thousands, an export in one page, a forget that removes half the store,
and compares every answer with the oracle as any step does.

The program is made of the differential's own steps, so a failure is reported, shrunk
and written as a regression test like any other.
"""

from __future__ import annotations

import math
from typing import Any, Final

from conformance.engine import Facet, FetchMode, MetaFilter, SourceKind
from conformance.engine.limits import MAX_GET_IDS, MAX_STORE_MANY
from conformance.fuzz.engine_differential import EngineDifferential
from conformance.fuzz.provider_differential import ProviderDifferential

__all__ = ["IMPORT_BATCH", "engine_scale", "provider_scale"]

IMPORT_BATCH: Final = 500
"""Records of one bulk import: past the 100 or 256 a batch API often takes."""


def engine_scale(d: EngineDifferential, items: int, salt: int) -> None:
    """Bulk-load `items` items, then read, rank, count and forget at that scale."""
    for batch in range(math.ceil(items / MAX_STORE_MANY)):
        d.store_bulk(min(MAX_STORE_MANY, items - batch * MAX_STORE_MANY), salt + batch)
    everything = MetaFilter()
    d.list_items(everything, items * 2)
    d.list_items(everything, 999)
    for mode in FetchMode:
        d.fetch(mode, "alpha", everything, items * 2)
    d.recall("alpha bravo", everything, 1_000)
    d.explore(Facet.TAG, everything, 500)
    d.explore(Facet.NAMESPACE, everything, 500, 1_000)
    d.get(d.held_handles()[:MAX_GET_IDS], 0, None)
    # About half the store in one forget: documents and learnings from folders or agents.
    d.forget_filter(MetaFilter(sources=[SourceKind.FOLDER, SourceKind.AGENT, SourceKind.FILE]))
    d.list_items(everything, items * 2)


def provider_scale(d: ProviderDifferential, rows: int, salt: int) -> None:
    """Bulk-import `rows` entries into two namespaces, then list, recall, export and
    count them all at once."""
    first, second = "~/scale", "learning:~/scale"
    batches = math.ceil(rows / IMPORT_BATCH)
    for batch in range(batches):
        # Three quarters of the rows in one namespace, every content holding `scale`.
        spec = second if batch == batches - 1 and batches > 1 else first
        count = min(IMPORT_BATCH, rows - batch * IMPORT_BATCH)
        d.import_mixed(spec, f"s{batch}-", count, salt + batch, 0, "scale")
    d.list_entries(first, None, None)
    d.list_entries(None, None, None)
    d.recall(first, "scale", rows, None, None)
    d.recall(second, "charlie", 1_000, None, None)
    d.namespaces()
    d.export_import(first, rows * 2, [0, 1, 2])


def run_scale(d: Any, size: int, salt: int) -> None:
    """The scale program of `d`'s profile, at `size` items or entries."""
    if isinstance(d, EngineDifferential):
        engine_scale(d, size, salt)
    else:
        provider_scale(d, size, salt)
