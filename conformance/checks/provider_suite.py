"""The provider suite: importing it registers every provider check in the catalogue."""

from conformance.checks.provider_core import (
    assert_awkward_content_round_trips,
    assert_capability_audit,
    assert_forget_is_idempotent,
    assert_list_filters_narrow,
    assert_provider_health,
    assert_provider_retention_probe,
    assert_store_get_round_trip,
    assert_taint_is_preserved,
    assert_upsert_replaces_rather_than_duplicates,
)
from conformance.checks.provider_declared import assert_declared_constraints_refuse
from conformance.checks.provider_documents import (
    assert_document_ids,
    assert_documents_at_volume,
    assert_documents_round_trip,
)
from conformance.checks.provider_isolation import assert_namespaces_are_isolated
from conformance.checks.provider_portability import (
    assert_export_covers_every_record,
    assert_export_cursor_terminates,
    assert_export_import_round_trip,
)
from conformance.checks.provider_races import assert_racing_writes
from conformance.checks.provider_ranking import (
    assert_recall_honours_min_score,
    assert_recall_ranks_best_first,
)
from conformance.checks.provider_recall import (
    assert_namespace_none_semantics,
    assert_recall_filters_narrow,
    assert_recall_respects_limit_and_namespace,
    assert_recall_respects_source_scope,
    assert_recall_takes_any_query,
)
from conformance.checks.provider_sections import (
    assert_namespaces_preserve_their_section,
    assert_section_writes_are_enumerable,
)
from conformance.checks.provider_support import provider_retains_writes
from conformance.checks.provider_timestamps import assert_timestamps_are_well_formed
from conformance.checks.provider_valid_input import assert_accepts_valid_input
from conformance.checks.provider_volume import assert_listing_holds_at_volume

__all__ = [
    "assert_accepts_valid_input",
    "assert_awkward_content_round_trips",
    "assert_capability_audit",
    "assert_declared_constraints_refuse",
    "assert_document_ids",
    "assert_documents_at_volume",
    "assert_documents_round_trip",
    "assert_export_covers_every_record",
    "assert_export_cursor_terminates",
    "assert_export_import_round_trip",
    "assert_forget_is_idempotent",
    "assert_list_filters_narrow",
    "assert_listing_holds_at_volume",
    "assert_namespace_none_semantics",
    "assert_namespaces_are_isolated",
    "assert_namespaces_preserve_their_section",
    "assert_provider_health",
    "assert_provider_retention_probe",
    "assert_racing_writes",
    "assert_recall_filters_narrow",
    "assert_recall_honours_min_score",
    "assert_recall_ranks_best_first",
    "assert_recall_respects_limit_and_namespace",
    "assert_recall_respects_source_scope",
    "assert_recall_takes_any_query",
    "assert_section_writes_are_enumerable",
    "assert_store_get_round_trip",
    "assert_taint_is_preserved",
    "assert_timestamps_are_well_formed",
    "assert_upsert_replaces_rather_than_duplicates",
    "provider_retains_writes",
]
