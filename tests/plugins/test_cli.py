"""The `tinymemory-conformance` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.checks.catalogue import all_checks
from plugins.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_checks_markdown_is_the_published_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks", "--markdown"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "checks.md").read_text()


def test_every_check_names_its_clause_and_a_docstring() -> None:
    for chk in all_checks():
        assert chk.clause.strip(), chk.id
        assert chk.doc, f"{chk.id} has no docstring saying what it holds the driver to"
        assert chk.title.strip(), chk.id


def test_check_ids_are_unique_and_stable_in_form() -> None:
    ids = [c.id for c in all_checks()]
    assert len(ids) == len(set(ids))
    for check_id in ids:
        profile, _, name = check_id.partition(".")
        assert profile in ("engine", "provider") and name.replace("_", "").isalpha(), check_id


def test_drivers_lists_the_bundled_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["drivers"]) == 0
    out = capsys.readouterr().out
    for name in ("reference", "null", "sqlite"):
        assert any(line.startswith(name) for line in out.splitlines()), out
    assert "engine, provider" in out


def test_run_exits_with_the_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "r.json"
    assert (
        main(
            ["run", "--driver", "reference", "--profile", "provider", "--report", str(report), "-q"]
        )
        == 0
    )
    assert json.loads(report.read_text())["summary"]["verdict"] == "pass"
    failing = main(
        [
            "run",
            "--driver",
            "tests.checks.broken_providers:RestampsTaint",
            "--profile",
            "provider",
            "-q",
        ]
    )
    assert failing == 1


def _report(path: Path, outcomes: dict[str, str]) -> Path:
    path.write_text(
        json.dumps(
            {
                "schema": "tinymemory-conformance/report",
                "schema_version": 1,
                "kit_version": "0.1.0",
                "created_at": "2026-11-29T00:00:00+00:00",
                "driver": {"name": "acme", "version": "1"},
                "checks": [
                    {"id": k, "profile": "provider", "outcome": v} for k, v in outcomes.items()
                ],
            }
        )
    )
    return path


def test_report_diff_names_regressions_and_fixes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _report(
        tmp_path / "old.json",
        {"provider.a": "passed", "provider.b": "failed", "provider.c": "passed"},
    )
    new = _report(
        tmp_path / "new.json",
        {"provider.a": "failed", "provider.b": "passed", "provider.d": "passed"},
    )
    assert main(["report", "diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "regressions: 2\n  provider.a: passed -> failed\n  provider.c: passed -> absent" in out
    assert "fixes: 1\n  provider.b: failed -> passed" in out
    assert "new checks: provider.d" in out and "checks no longer run: provider.c" in out
    assert main(["report", "diff", str(new), str(new)]) == 0


def test_report_diff_counts_a_lost_check_as_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _report(tmp_path / "old.json", {"provider.a": "passed", "provider.b": "failed"})
    lost = _report(tmp_path / "new.json", {"provider.a": "passed"})
    assert main(["report", "diff", str(old), str(lost)]) == 1
    assert "regressions: 1\n  provider.b: failed -> absent" in capsys.readouterr().out
    not_run = _report(tmp_path / "n.json", {"provider.a": "not run", "provider.b": "failed"})
    assert main(["report", "diff", str(old), str(not_run)]) == 1
    assert "provider.a: passed -> not run" in capsys.readouterr().out


def test_report_schema_is_the_published_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "schema"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "report.schema.json").read_text()
