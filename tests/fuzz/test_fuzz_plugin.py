"""The fuzz items through the pytest plugin: the run's time limit, honest call counts, and
regression files without secrets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conformance.fuzz import option_variable
from conformance.report import Report

SECRET = "tm-fuzz-secret-4f2a9c"


def entries(path: Path) -> dict[str, object]:
    report = Report.model_validate(json.loads(path.read_text()))
    return {entry.id: entry for entry in report.checks}


def test_a_hang_makes_the_fuzz_target_inconclusive_not_failed(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=tests.fuzz.unusual_drivers:HangsAfterAWhile",
        "--profile=provider",
        "--fuzz",
        "--fuzz-examples=5",
        "--fuzz-seed=3",
        "--driver-timeout=0.5",
        "-k",
        "fuzz",
        "--conformance-report=r.json",
    )
    assert result.ret != 0
    entry = entries(pytester.path / "r.json")["fuzz.provider.differential"]
    assert entry.outcome == "inconclusive"  # type: ignore[attr-defined]
    assert "ran past the 0.5 s limit" in entry.reason  # type: ignore[attr-defined]
    assert entry.calls > 0  # type: ignore[attr-defined]


def test_a_failed_fuzz_entry_counts_its_driver_calls(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        "--driver=tests.fuzz.provider_faults:ForgetsKeyPrefix",
        "--fuzz",
        "--fuzz-seed=2",
        "-k",
        "fuzz",
        "--conformance-report=r.json",
    )
    entry = entries(pytester.path / "r.json")["fuzz.provider.differential"]
    assert entry.outcome == "failed"  # type: ignore[attr-defined]
    # Driver calls (search, replays and shrinking), not steps, and not 0 for a failure.
    assert entry.calls > 100  # type: ignore[attr-defined]


def test_a_regression_file_never_holds_a_secret(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(option_variable("api_key"), raising=False)
    pytester.runpytest(
        "--driver=tests.fuzz.provider_faults:leaks_its_key",
        f"--driver-option=api_key={SECRET}",
        "--fuzz",
        "--fuzz-seed=3",
        "--fuzz-repro-dir=repro",
        "-k",
        "fuzz",
        "--conformance-report=r.json",
    )
    entry = entries(pytester.path / "r.json")["fuzz.provider.differential"]
    assert entry.outcome == "failed"  # type: ignore[attr-defined]
    (written,) = sorted((pytester.path / "repro").glob("test_*.py"))
    source = written.read_text(encoding="utf-8")
    assert SECRET not in source
    assert "driver_option('api_key')" in source
    assert "[REDACTED]" in source  # the driver's error quoted the key; the file does not
    for path in pytester.path.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path

    unset = pytester.runpytest_subprocess(str(written), "-q", "-rs", "-p", "no:cacheprovider")
    unset.assert_outcomes(skipped=1)
    unset.stdout.fnmatch_lines([f"*set {option_variable('api_key')} to the driver option*"])

    monkeypatch.setenv(option_variable("api_key"), SECRET)
    replayed = pytester.runpytest_subprocess(str(written), "-q", "-p", "no:cacheprovider")
    replayed.assert_outcomes(failed=1)
    assert os.environ[option_variable("api_key")] == SECRET
