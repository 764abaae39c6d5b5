"""The provider suite against the on-disk store, and the documents check proven by faults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

from conformance.checks.catalogue import checks_for
from conformance.checks.context import RunSettings
from conformance.checks.runner import run_provider_suite
from conformance.provider import MemoryDocuments, StoredMemoryDocument
from reference_driver.sqlite import SqliteDocuments, SqliteProvider

FAST = RunSettings(timeout=30.0, retries=0)


@pytest.mark.parametrize("use_fts", [True, False], ids=["fts5", "scan"])
def test_sqlite_passes_every_provider_check(tmp_path: Path, use_fts: bool) -> None:
    provider = SqliteProvider(tmp_path / "ws", use_fts=use_fts)
    try:
        results = run_provider_suite(provider, FAST)
    finally:
        provider.shutdown()
    assert set(results) == {c.id for c in checks_for("provider")}
    not_passed = {k: r.reason for k, r in results.items() if r.outcome != "passed"}
    assert not_passed == {
        "provider.no_credential_in_errors": "no credential option given to the driver"
    }


class _Faulty(SqliteDocuments):
    """Documents whose delete always claims to have deleted something."""

    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        answer = super().delete_document(namespace, document_id)
        assert isinstance(answer, dict)
        return {**answer, "deleted": True}


class _LosesTaint(SqliteDocuments):
    """Documents that read back as internal whatever was put."""

    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        got = super().get_document(namespace, key)
        return None if got is None else got.model_copy(update={"taint": "internal"})


class _ClearKeepsDocuments(SqliteDocuments):
    """`clear_namespace` that does nothing."""

    def clear_namespace(self, namespace: str) -> None:
        return None


class BrokenDocumentsProvider(SqliteProvider):
    """The sqlite store with one fault in its documents family."""

    fault: type[SqliteDocuments] = _Faulty

    def as_documents(self) -> MemoryDocuments | None:
        return self.fault(self._live)


@pytest.mark.parametrize(
    "fault", [_Faulty, _LosesTaint, _ClearKeepsDocuments], ids=lambda f: f.__name__
)
def test_a_faulty_documents_family_fails_documents_round_trip(
    tmp_path: Path, fault: type[SqliteDocuments]
) -> None:
    provider: Any = BrokenDocumentsProvider(tmp_path / "ws")
    provider.fault = fault
    try:
        results = run_provider_suite(provider, FAST, only=["provider.documents_round_trip"])
    finally:
        provider.shutdown()
    result = results["provider.documents_round_trip"]
    assert result.outcome == "failed", result
    assert "conformance check `provider.documents_round_trip` failed" in result.reason
