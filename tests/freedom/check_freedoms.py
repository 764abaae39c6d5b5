"""For each check and fuzz target: the freedoms it leaves to the driver.

A check "leaves a freedom open" when it reads what the freedom changes (ids, order,
pages, cursors, scores, timestamps...) and must accept every reading the contract
allows. The freedom matrix runs every check on drivers using each of them, so each
entry here is proven by the configurations that use the freedom (`test_docs.py`
holds this map to the catalogue, the freedoms and the matrix).
"""

from __future__ import annotations

from typing import Final

EVERY_CHECK: Final = ("async", "transient-unavailable", "plain-options")
"""Freedoms every check of either profile leaves open: faces, retries, option names."""

LISTING: Final = (
    "opaque-ids",
    "list-order",
    "short-pages",
    "empty-pages",
    "trailing-empty-page",
    "cursor-format",
    "single-use-cursors",
    "bound-cursors",
)
"""What every engine check that lists the run's items leaves open."""

EXPORT: Final = (
    "export-page-size",
    "export-empty-pages",
    "export-trailing-empty-page",
    "export-cursor-format",
    "single-use-cursors",
)
"""What every provider check that pages through an export leaves open."""

ENTRIES: Final = ("entry-ids", "offset-timestamps", "list-order")
"""What every provider check that reads entries back leaves open."""

CHECK_FREEDOMS: Final[dict[str, tuple[str, ...]]] = {
    "engine.no_credential_in_errors": (
        "credential-option",
        "degraded-health",
        "fetch-modes",
        "cursor-format",
    ),
    "engine.health": ("degraded-health",),
    "engine.retention_probe": LISTING,
    "engine.round_trip": (*LISTING, "offset-timestamps"),
    "engine.list_paging": LISTING,
    "engine.writes_between_pages": LISTING,
    "engine.cursor_progress": (*LISTING, "score-scale", "fetch-modes"),
    "engine.ranking": (*LISTING, "score-scale", "fetch-modes"),
    "engine.list_filters": (*LISTING, "offset-timestamps"),
    "engine.fetch_filters": (*LISTING, "score-scale", "fetch-modes", "offset-timestamps"),
    "engine.unsupported_modes": ("fetch-modes",),
    "engine.empty_forget": LISTING,
    "engine.forget_by_id": LISTING,
    "engine.forget_by_filter": LISTING,
    "engine.forget_filters": (*LISTING, "offset-timestamps"),
    "engine.replay": (*LISTING, "offset-timestamps"),
    "engine.store_many": LISTING,
    "engine.namespaces": (*LISTING, "score-scale", "fetch-modes", "server-explore"),
    "engine.explore": (*LISTING, "server-explore"),
    "engine.explore_filters": (*LISTING, "server-explore", "offset-timestamps"),
    "engine.get": (*LISTING, "offset-timestamps"),
    "engine.recall": (*LISTING, "recall-shape", "offset-timestamps"),
    "engine.recall_filters": (*LISTING, "recall-shape", "offset-timestamps"),
    "engine.timestamps": (
        *LISTING,
        "offset-timestamps",
        "score-scale",
        "fetch-modes",
        "recall-shape",
    ),
    "engine.accepts_valid_input": LISTING,
    "engine.declared_constraints_refuse": LISTING,
    "engine.validation": (*LISTING, "fetch-modes", "server-explore"),
    "provider.no_credential_in_errors": (
        "credential-option",
        "degraded-health",
        "export-cursor-format",
        "refuse-malformed-reads",
    ),
    "provider.capability_audit": (),
    "provider.forget_is_idempotent": ENTRIES,
    "provider.retention_probe": ENTRIES,
    "provider.namespaces_are_isolated": ENTRIES,
    "provider.store_get_round_trip": ENTRIES,
    "provider.upsert_replaces_rather_than_duplicates": ENTRIES,
    "provider.list_filters_narrow": (*ENTRIES, "kept-empty-namespaces"),
    "provider.taint_is_preserved": ENTRIES,
    "provider.awkward_content_round_trips": ENTRIES,
    "provider.declared_constraints_refuse": ENTRIES,
    "provider.documents_round_trip": (),
    "provider.documents_at_volume": (),
    "provider.export_cursor_terminates": EXPORT,
    "provider.export_covers_every_record": (*EXPORT, "entry-ids"),
    "provider.export_import_round_trip": (*EXPORT, *ENTRIES),
    "provider.import_takes_records_written_elsewhere": ENTRIES,
    "provider.recall_ranks_best_first": (*ENTRIES, "recall-scores"),
    "provider.recall_honours_min_score": (*ENTRIES, "recall-scores"),
    "provider.recall_respects_limit_and_namespace": (*ENTRIES, "recall-scores"),
    "provider.recall_filters_narrow": (*ENTRIES, "recall-scores"),
    "provider.namespace_none_semantics": (*ENTRIES, "recall-scores"),
    "provider.recall_respects_source_scope": (
        *ENTRIES,
        "recall-scores",
        "scope-denies-unattributed",
        "scope-returns-unattributed",
    ),
    "provider.namespaces_preserve_their_section": (*ENTRIES, "kept-empty-namespaces"),
    "provider.section_writes_are_enumerable": (
        *ENTRIES,
        "kept-empty-namespaces",
        "recall-scores",
    ),
    "provider.timestamps_are_well_formed": (*ENTRIES, "kept-empty-namespaces"),
    "provider.accepts_valid_input": (*ENTRIES, "kept-empty-namespaces", "refuse-malformed-reads"),
    "provider.listing_holds_at_volume": (*ENTRIES, "kept-empty-namespaces"),
}
"""Each catalogued check, and the freedoms beyond `EVERY_CHECK` it leaves to the driver."""

NOT_IN_THE_MATRIX: Final = {
    "provider.documents_round_trip": "no configuration offers the optional `documents` "
    "family; the `sqlite` driver's tests run it",
    "provider.documents_at_volume": "no configuration offers the optional `documents` "
    "family; the `sqlite` driver's tests run it",
}
"""Checks the matrix skips on every configuration, and why."""
