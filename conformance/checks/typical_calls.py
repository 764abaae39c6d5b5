"""How many driver calls each check makes against the reference driver (one fetch mode of a
per-mode check): the order in which checks start when several run at once, the costliest
first (`gate`). Only the order depends on it; a check missing here costs `UNKNOWN`.

The kit's tests of the reference suites fail when an entry has drifted past half or
twice its value (`tests/checks/typical.py`), and print the entries to write instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["FUZZ_TARGET_CALLS", "TYPICAL_CALLS", "UNKNOWN", "typical_calls"]

FUZZ_TARGET_CALLS: Final = 100_000
"""What a fuzz target is taken to cost: more than any check (thousands of calls at the
default budget), so it starts first."""

UNKNOWN: Final = 20
"""The calls assumed of a check the table does not name."""

TYPICAL_CALLS: Final[Mapping[str, int]] = {
    "engine.accepts_valid_input": 22,
    "engine.cursor_progress": 62,
    "engine.declared_constraints_refuse": 11,
    "engine.empty_forget": 16,
    "engine.explore": 71,
    "engine.explore_filters": 126,
    "engine.fetch_filters": 125,
    "engine.forget_by_filter": 55,
    "engine.forget_by_id": 24,
    "engine.forget_filters": 357,
    "engine.get": 8,
    "engine.health": 1,
    "engine.list_filters": 176,
    "engine.list_paging": 61,
    "engine.namespaces": 93,
    "engine.no_credential_in_errors": 0,
    "engine.racing_stores": 63,
    "engine.ranking": 14,
    "engine.recall": 19,
    "engine.recall_filters": 125,
    "engine.replay": 120,
    "engine.retention_probe": 4,
    "engine.round_trip": 8,
    "engine.store_many": 10,
    "engine.timestamps": 14,
    "engine.unsupported_modes": 1,
    "engine.validation": 29,
    "engine.writes_between_pages": 35,
    "provider.accepts_valid_input": 74,
    "provider.awkward_content_round_trips": 28,
    "provider.capability_audit": 20,
    "provider.declared_constraints_refuse": 25,
    "provider.document_ids": 32,
    "provider.documents_at_volume": 156,
    "provider.documents_round_trip": 15,
    "provider.export_covers_every_record": 285,
    "provider.export_cursor_terminates": 5,
    "provider.export_during_writes": 232,
    "provider.export_import_round_trip": 411,
    "provider.forget_is_idempotent": 10,
    "provider.health": 4,
    "provider.import_takes_records_written_elsewhere": 266,
    "provider.list_filters_narrow": 34,
    "provider.listing_holds_at_volume": 517,
    "provider.namespace_none_semantics": 8,
    "provider.namespaces_are_isolated": 101,
    "provider.namespaces_preserve_their_section": 3,
    "provider.no_credential_in_errors": 0,
    "provider.racing_writes": 71,
    "provider.recall_filters_narrow": 281,
    "provider.recall_honours_min_score": 11,
    "provider.recall_ranks_best_first": 11,
    "provider.recall_respects_limit_and_namespace": 498,
    "provider.recall_respects_source_scope": 4,
    "provider.recall_takes_any_query": 38,
    "provider.retention_probe": 4,
    "provider.section_writes_are_enumerable": 27,
    "provider.store_get_round_trip": 4,
    "provider.taint_is_preserved": 7,
    "provider.timestamps_are_well_formed": 10,
    "provider.upsert_replaces_rather_than_duplicates": 11,
}


def typical_calls(check_id: str) -> int:
    """The calls `check_id` (a mode in brackets allowed) is expected to make."""
    return TYPICAL_CALLS.get(check_id.partition("[")[0], UNKNOWN)
