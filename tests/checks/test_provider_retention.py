"""The provider retention probe cannot be fooled: "retains nothing" only when nothing comes back."""

from __future__ import annotations

import json

import pytest

from conformance.checks.catalogue import checks_for
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import RETAINS_NOTHING, ConformanceFailure
from conformance.checks.provider_support import PROBE_CONTENT, provider_retains_writes
from conformance.checks.runner import run_provider_suite
from conformance.report import Report
from null_driver.provider import NullProvider
from reference_driver.provider import ReferenceProvider
from tests.checks.broken_providers import ChangesContentOnTheWayBack, GetFindsNothing

FAST = RunSettings(timeout=10.0, retries=0)
STORAGE = {c.id for c in checks_for("provider") if c.storage}


def test_the_probe_finds_the_reference_retains_and_the_null_driver_does_not() -> None:
    assert provider_retains_writes(ReferenceProvider()) is True
    assert provider_retains_writes(NullProvider()) is False


def test_changed_content_fails_the_probe_with_the_difference() -> None:
    with pytest.raises(ConformanceFailure) as failure:
        provider_retains_writes(ChangesContentOnTheWayBack(), CheckContext("x", FAST))
    message = str(failure.value)
    assert f"content: wanted {PROBE_CONTENT!r}, got {PROBE_CONTENT.lower()!r}" in message


def test_an_entry_that_lists_but_does_not_get_fails_the_probe() -> None:
    with pytest.raises(ConformanceFailure, match="the probe entry, which list returns; got None"):
        provider_retains_writes(GetFindsNothing(), CheckContext("x", FAST))


@pytest.mark.parametrize("broken", [ChangesContentOnTheWayBack, GetFindsNothing])
def test_a_driver_that_keeps_something_is_never_excused_from_storage_checks(
    broken: type[ReferenceProvider],
) -> None:
    results = run_provider_suite(broken(), FAST)
    assert results["provider.retention_probe"].outcome == "failed"
    excused = {k for k, r in results.items() if r.reason == RETAINS_NOTHING}
    assert excused == set()
    assert {k for k in STORAGE if results[k].outcome == "passed"}  # the storage checks ran


def test_through_the_plugin_a_content_changing_driver_is_not_shape_only(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        "--driver=tests.checks.broken_providers:ChangesContentOnTheWayBack",
        "--profile=provider",
        "--conformance-report=r.json",
        "-q",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = Report.model_validate(json.loads((pytester.path / "r.json").read_text()))
    probe = next(c for c in report.checks if c.id == "provider.retention_probe")
    assert probe.outcome == "failed"
    assert "content: wanted 'Retention probe" in probe.reason
    assert report.profiles["provider"].level == "none"
    assert report.profiles["provider"].retains is not False
    assert not [c.id for c in report.checks if c.reason == RETAINS_NOTHING]
