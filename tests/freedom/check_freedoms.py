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
    "offset-cursors",
)
"""What every engine check that lists the run's items leaves open."""

HITS: Final = ("score-scale", "fetch-modes", "keyword-every-word", "similarity-floor")
"""What every engine check that fetches leaves open: scores, modes, which items are hits."""

RANKING: Final = ("recall-scores", "word-ranking")
"""What every provider check that recalls leaves open."""

DOCUMENTS: Final = (
    "document-ids",
    "document-stamps",
    "document-order",
    "documents-recall-unsupported",
    "kept-empty-namespaces",
)
"""What the documents checks leave open."""

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
    "engine.cursor_progress": (*LISTING, *HITS),
    "engine.ranking": (*LISTING, *HITS),
    "engine.list_filters": (*LISTING, "offset-timestamps"),
    "engine.fetch_filters": (*LISTING, *HITS, "offset-timestamps"),
    "engine.unsupported_modes": ("fetch-modes",),
    "engine.empty_forget": LISTING,
    "engine.forget_by_id": LISTING,
    "engine.forget_by_filter": LISTING,
    "engine.forget_filters": (*LISTING, "offset-timestamps"),
    "engine.replay": (*LISTING, "offset-timestamps"),
    "engine.racing_stores": LISTING,
    "engine.store_many": LISTING,
    "engine.namespaces": (*LISTING, *HITS, "server-explore"),
    "engine.explore": (*LISTING, "server-explore"),
    "engine.explore_filters": (*LISTING, "server-explore", "offset-timestamps"),
    "engine.get": (*LISTING, "offset-timestamps"),
    "engine.recall": (*LISTING, "recall-shape", "offset-timestamps"),
    "engine.recall_filters": (*LISTING, "recall-shape", "offset-timestamps"),
    "engine.timestamps": (*LISTING, "offset-timestamps", *HITS, "recall-shape"),
    "engine.accepts_valid_input": (*LISTING, "declared-constraints"),
    "engine.declared_constraints_refuse": (*LISTING, "declared-constraints"),
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
    "provider.health": ENTRIES,
    "provider.store_get_round_trip": ENTRIES,
    "provider.upsert_replaces_rather_than_duplicates": ENTRIES,
    "provider.racing_writes": ENTRIES,
    "provider.list_filters_narrow": (*ENTRIES, "kept-empty-namespaces"),
    "provider.taint_is_preserved": ENTRIES,
    "provider.awkward_content_round_trips": (
        *ENTRIES,
        "declared-constraints",
        "refuse-empty-content",
    ),
    "provider.declared_constraints_refuse": (*ENTRIES, "declared-constraints"),
    "provider.documents_round_trip": DOCUMENTS,
    "provider.documents_at_volume": DOCUMENTS,
    "provider.document_ids": DOCUMENTS,
    "provider.export_cursor_terminates": EXPORT,
    "provider.export_covers_every_record": (*EXPORT, "entry-ids"),
    "provider.export_import_round_trip": (*EXPORT, *ENTRIES),
    "provider.import_takes_records_written_elsewhere": ENTRIES,
    "provider.export_during_writes": (*EXPORT, *ENTRIES),
    "provider.recall_ranks_best_first": (*ENTRIES, *RANKING),
    "provider.recall_honours_min_score": (*ENTRIES, *RANKING),
    "provider.recall_respects_limit_and_namespace": (*ENTRIES, *RANKING),
    "provider.recall_takes_any_query": (*ENTRIES, *RANKING),
    "provider.recall_filters_narrow": (*ENTRIES, *RANKING),
    "provider.namespace_none_semantics": (*ENTRIES, *RANKING),
    "provider.recall_respects_source_scope": (
        *ENTRIES,
        *RANKING,
        "scope-denies-unattributed",
        "scope-returns-unattributed",
        "scope-refused",
    ),
    "provider.namespaces_preserve_their_section": (*ENTRIES, "kept-empty-namespaces"),
    "provider.section_writes_are_enumerable": (
        *ENTRIES,
        "kept-empty-namespaces",
        *RANKING,
        "redacted-names",
    ),
    "provider.timestamps_are_well_formed": (*ENTRIES, "kept-empty-namespaces"),
    "provider.accepts_valid_input": (
        *ENTRIES,
        "kept-empty-namespaces",
        "refuse-malformed-reads",
        "declared-constraints",
    ),
    "provider.listing_holds_at_volume": (*ENTRIES, "kept-empty-namespaces"),
}
"""Each catalogued check, and the freedoms beyond `EVERY_CHECK` it leaves to the driver."""

NOT_IN_THE_MATRIX: Final[dict[str, str]] = {}
"""Checks the matrix skips on every configuration, and why."""
