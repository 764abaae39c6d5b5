"""The engine suite: importing it registers every engine check in the catalogue, in the
order the runner runs them."""

from conformance.checks.engine_core import (
    assert_engine_retention_probe,
    assert_health,
    assert_round_trip,
)
from conformance.checks.engine_cursors import assert_cursor_progress, assert_list_paging
from conformance.checks.engine_declared import assert_engine_declared_constraints_refuse
from conformance.checks.engine_explore import assert_explore
from conformance.checks.engine_fetch import assert_ranking, assert_unsupported_modes
from conformance.checks.engine_filters import (
    assert_explore_filters,
    assert_fetch_filters,
    assert_list_filters,
    assert_recall_filters,
)
from conformance.checks.engine_forget import (
    assert_empty_forget,
    assert_forget_by_filter,
    assert_forget_by_id,
    assert_forget_filters,
)
from conformance.checks.engine_identity import assert_fingerprint_replay, assert_store_many
from conformance.checks.engine_namespaces import assert_namespaces
from conformance.checks.engine_races import assert_racing_stores
from conformance.checks.engine_reads import assert_get, assert_recall
from conformance.checks.engine_support import engine_retains_writes
from conformance.checks.engine_timestamps import assert_timestamps
from conformance.checks.engine_valid_input import assert_engine_accepts_valid_input
from conformance.checks.engine_validation import assert_validation

__all__ = [
    "assert_cursor_progress",
    "assert_empty_forget",
    "assert_engine_accepts_valid_input",
    "assert_engine_declared_constraints_refuse",
    "assert_engine_retention_probe",
    "assert_explore",
    "assert_explore_filters",
    "assert_fetch_filters",
    "assert_fingerprint_replay",
    "assert_forget_by_filter",
    "assert_forget_by_id",
    "assert_forget_filters",
    "assert_get",
    "assert_health",
    "assert_list_filters",
    "assert_list_paging",
    "assert_namespaces",
    "assert_racing_stores",
    "assert_ranking",
    "assert_recall",
    "assert_recall_filters",
    "assert_round_trip",
    "assert_store_many",
    "assert_timestamps",
    "assert_unsupported_modes",
    "assert_validation",
    "engine_retains_writes",
]
