"""The provider suite against the on-disk store, on both recall paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.checks.catalogue import checks_for
from conformance.checks.context import RunSettings
from conformance.checks.runner import run_provider_suite
from reference_driver.sqlite import SqliteProvider

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
