"""The conformance suites: every check a public `assert_<name>(driver, ctx=None)` function.

`run_engine_suite` / `run_provider_suite` run a whole profile without pytest and return
one `CheckResult` per check id; `CATALOGUE` lists every check with its spec clause.

The names load on first use: a process that imports one module of the package (a
pytest-xdist controller, say, which runs no check) does not import every suite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.checks.catalogue import CATALOGUE, Check, all_checks, checks_for, run_one
    from conformance.checks.context import CheckContext, RunSettings
    from conformance.checks.credentials import (
        assert_engine_no_credential_in_errors,
        assert_provider_no_credential_in_errors,
    )
    from conformance.checks.engine_suite import (
        assert_cursor_progress,
        assert_empty_forget,
        assert_engine_accepts_valid_input,
        assert_engine_retention_probe,
        assert_explore,
        assert_fetch_filters,
        assert_fingerprint_replay,
        assert_forget_by_filter,
        assert_forget_by_id,
        assert_get,
        assert_health,
        assert_list_filters,
        assert_list_paging,
        assert_namespaces,
        assert_ranking,
        assert_recall,
        assert_round_trip,
        assert_store_many,
        assert_timestamps,
        assert_unsupported_modes,
        assert_validation,
        engine_retains_writes,
    )
    from conformance.checks.outcome import (
        RETAINS_NOTHING,
        CheckResult,
        CheckSkipped,
        ConformanceFailure,
        DriverRaised,
        Inconclusive,
        Outcome,
    )
    from conformance.checks.provider_suite import (
        assert_accepts_valid_input,
        assert_awkward_content_round_trips,
        assert_capability_audit,
        assert_documents_round_trip,
        assert_export_covers_every_record,
        assert_export_cursor_terminates,
        assert_export_import_round_trip,
        assert_forget_is_idempotent,
        assert_list_filters_narrow,
        assert_listing_holds_at_volume,
        assert_namespace_none_semantics,
        assert_namespaces_are_isolated,
        assert_namespaces_preserve_their_section,
        assert_provider_retention_probe,
        assert_recall_filters_narrow,
        assert_recall_honours_min_score,
        assert_recall_ranks_best_first,
        assert_recall_respects_limit_and_namespace,
        assert_recall_respects_source_scope,
        assert_section_writes_are_enumerable,
        assert_store_get_round_trip,
        assert_taint_is_preserved,
        assert_timestamps_are_well_formed,
        assert_upsert_replaces_rather_than_duplicates,
        provider_retains_writes,
    )
    from conformance.checks.runner import run_engine_suite, run_provider_suite, run_suite

__all__ = [
    "CATALOGUE",
    "RETAINS_NOTHING",
    "Check",
    "CheckContext",
    "CheckResult",
    "CheckSkipped",
    "ConformanceFailure",
    "DriverRaised",
    "Inconclusive",
    "Outcome",
    "RunSettings",
    "all_checks",
    "assert_accepts_valid_input",
    "assert_awkward_content_round_trips",
    "assert_capability_audit",
    "assert_cursor_progress",
    "assert_documents_round_trip",
    "assert_empty_forget",
    "assert_engine_accepts_valid_input",
    "assert_engine_no_credential_in_errors",
    "assert_engine_retention_probe",
    "assert_explore",
    "assert_export_covers_every_record",
    "assert_export_cursor_terminates",
    "assert_export_import_round_trip",
    "assert_fetch_filters",
    "assert_fingerprint_replay",
    "assert_forget_by_filter",
    "assert_forget_by_id",
    "assert_forget_is_idempotent",
    "assert_get",
    "assert_health",
    "assert_list_filters",
    "assert_list_filters_narrow",
    "assert_list_paging",
    "assert_listing_holds_at_volume",
    "assert_namespace_none_semantics",
    "assert_namespaces",
    "assert_namespaces_are_isolated",
    "assert_namespaces_preserve_their_section",
    "assert_provider_no_credential_in_errors",
    "assert_provider_retention_probe",
    "assert_ranking",
    "assert_recall",
    "assert_recall_filters_narrow",
    "assert_recall_honours_min_score",
    "assert_recall_ranks_best_first",
    "assert_recall_respects_limit_and_namespace",
    "assert_recall_respects_source_scope",
    "assert_round_trip",
    "assert_section_writes_are_enumerable",
    "assert_store_get_round_trip",
    "assert_store_many",
    "assert_taint_is_preserved",
    "assert_timestamps",
    "assert_timestamps_are_well_formed",
    "assert_unsupported_modes",
    "assert_upsert_replaces_rather_than_duplicates",
    "assert_validation",
    "checks_for",
    "engine_retains_writes",
    "provider_retains_writes",
    "run_engine_suite",
    "run_one",
    "run_provider_suite",
    "run_suite",
]

_HOMES = (
    "catalogue",
    "context",
    "credentials",
    "engine_suite",
    "outcome",
    "provider_suite",
    "runner",
)
"""The modules the names above come from, in the order they are looked for."""


def __getattr__(name: str) -> Any:
    if name in __all__:
        for home in _HOMES:
            module = importlib.import_module(f"{__name__}.{home}")
            if hasattr(module, name):
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
