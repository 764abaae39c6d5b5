"""`tinymemory-conformance report matrix`: rows, columns and cells from several reports, the
Markdown and the HTML page, and a bad report refused in one line."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.matrix import ABSENT, NOT_OFFERED, build_matrix
from conformance.matrix_html import to_html
from conformance.matrix_markdown import to_markdown
from conformance.report import (
    CheckEntry,
    DriverInfo,
    ProfileInfo,
    Report,
    not_offered_reason,
    summarise,
)
from plugins.cli import main

XHTML = "{http://www.w3.org/1999/xhtml}"


def entry(check_id: str, outcome: str = "passed", reason: str = "") -> CheckEntry:
    profile = "engine" if ".engine." in f".{check_id}" else "provider"
    return CheckEntry.model_validate(
        {"id": check_id, "profile": profile, "outcome": outcome, "reason": reason}
    )


def report(name: str, *checks: CheckEntry, version: str | None = None, **levels: str) -> Report:
    return Report(
        kit_version="0.0.test",
        created_at="2026-01-01T00:00:00+00:00",
        driver=DriverInfo(
            name=name, distribution="acme-store" if version else None, version=version
        ),
        profiles={p: ProfileInfo.model_validate({"level": level}) for p, level in levels.items()},
        checks=list(checks),
        summary=summarise(checks),
    )


def not_offered(name: str, check_id: str) -> CheckEntry:
    return entry(check_id, "skipped", not_offered_reason(name, check_id.split(".")[0]))


ENGINE = report(
    "engine-only",
    entry("engine.health"),
    entry("engine.ranking[vector]", "failed", "ranked <b> below `<a>` | badly"),
    entry("engine.ranking[keyword]"),
    entry("fuzz.engine.differential"),
    not_offered("engine-only", "provider.health"),
    engine="none",
)
PROVIDER = report(
    "provider-only",
    entry("provider.health", "inconclusive", "health() ran past the 0.5 s limit"),
    entry("provider.my_own_check", "skipped", "no credential option given to the driver"),
    not_offered("provider-only", "engine.health"),
    not_offered("provider-only", "engine.ranking"),
    provider="core",
)


def test_rows_are_the_union_in_catalogue_order_and_cells_say_not_offered_or_absent() -> None:
    matrix = build_matrix([PROVIDER, ENGINE])
    ids = [row.check_id for row in matrix.rows]
    # Catalogue order (engine.health before engine.ranking, engine before provider), the
    # parametrised ids in place of the plain one a non-offering driver skipped, fuzz
    # targets after the catalogue, unknown ids last.
    assert ids == [
        "engine.health",
        "engine.ranking[keyword]",
        "engine.ranking[vector]",
        "provider.health",
        "fuzz.engine.differential",
        "provider.my_own_check",
    ]
    cells = {row.check_id: [c.outcome for c in row.cells] for row in matrix.rows}
    assert cells["engine.ranking[vector]"] == [NOT_OFFERED, "failed"]
    assert cells["provider.health"] == ["inconclusive", NOT_OFFERED]
    assert cells["provider.my_own_check"] == ["skipped", NOT_OFFERED]
    assert cells["fuzz.engine.differential"] == [NOT_OFFERED, "passed"]
    assert [c.level("engine") for c in matrix.columns] == [NOT_OFFERED, "none"]
    assert [c.level("provider") for c in matrix.columns] == ["core", NOT_OFFERED]
    lone = build_matrix([report("x", entry("engine.health"), engine="core"), PROVIDER])
    lone_cells = {row.check_id: [c.outcome for c in row.cells] for row in lone.rows}
    assert lone_cells["provider.health"] == [ABSENT, "inconclusive"]
    assert lone_cells["engine.ranking"] == [ABSENT, NOT_OFFERED]


def test_a_partial_run_says_its_level_in_brief() -> None:
    partial = ProfileInfo(level="none", checks_run=3, checks_total=32)
    r = report("acme", entry("provider.health"))
    r.profiles["provider"] = partial
    (column,) = build_matrix([r]).columns
    assert column.level("provider") == "none (ran 3 of 32 checks)"


def test_two_reports_of_one_driver_name_get_their_own_columns() -> None:
    one, two = report("acme", version="1.0"), report("acme", version="2.0")
    assert [c.label for c in build_matrix([one, two]).columns] == ["acme 1.0", "acme 2.0"]
    same = build_matrix([one, one, report("b")], ["a/r.json", "b/r.json", "c.json"])
    assert [c.label for c in same.columns] == ["acme (a/r.json)", "acme (b/r.json)", "b"]
    twins = build_matrix([report("acme"), report("acme")], ["r.json", "r.json"])
    assert [c.label for c in twins.columns] == ["acme (r.json) #1", "acme (r.json) #2"]


def test_the_markdown_gives_levels_first_and_each_reason_once_as_a_footnote() -> None:
    third = report(
        "third", entry("provider.health", "skipped", "no credential option given to the driver")
    )
    page = to_markdown(build_matrix([PROVIDER, ENGINE, third]))
    levels, checks = page.split("## Checks")
    assert levels.startswith("## Levels\n\n| | `provider-only` | `engine-only` | `third` |")
    assert "| verdict | inconclusive | fail | pass |" in levels
    assert "| engine | not offered | none | absent |" in levels
    assert "| `engine.ranking[vector]` | not offered | **failed** [^1] | — |" in checks
    assert "| `provider.health` | *inconclusive* [^2] | not offered | skipped [^3] |" in checks
    assert "| `provider.my_own_check` | skipped [^3] | not offered | — |" in checks
    # `<` escaped outside code spans (GitHub would drop `<b>` as a tag), pipes escaped.
    assert "[^1]: ranked &lt;b&gt; below `<a>` \\| badly\n" in checks
    assert checks.count("[^3]:") == 1


def test_the_html_page_is_well_formed_with_the_reason_on_hover_and_in_details() -> None:
    page = to_html(build_matrix([PROVIDER, ENGINE]))
    root = ET.fromstring(page)
    rows = {r.get("id"): r for r in root.iter(f"{XHTML}tr") if r.get("id", "").startswith("row-")}
    failed = rows["row-engine.ranking[vector]"]
    assert failed.get("data-outcome") == "failed" and failed.get("data-profile") == "engine"
    cell = next(td for td in failed if td.get("class") == "o-failed")
    assert cell.get("title") == "ranked <b> below `<a>` | badly"
    assert "".join(cell.itertext()) == "failedranked <b> below `<a>` | badly"
    assert [e.tag for e in cell] == [f"{XHTML}details"]
    # A row of passes and `not offered` is hidden with the passes.
    assert rows["row-engine.health"].get("data-outcome") == "passed"
    assert [e.tag for e in root.iter(f"{XHTML}script")] == [f"{XHTML}script"]


def _write(path: Path, r: Report) -> str:
    path.write_text(r.model_dump_json(by_alias=True))
    return str(path)


def test_the_command_writes_markdown_and_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _write(tmp_path / "a.json", PROVIDER), _write(tmp_path / "b.json", ENGINE)
    assert main(["report", "matrix", a, b]) == 0
    assert capsys.readouterr().out == to_markdown(build_matrix([PROVIDER, ENGINE]))
    md, html = tmp_path / "m.md", tmp_path / "m.html"
    assert main(["report", "matrix", a, b, "--markdown", str(md), "--html", str(html)]) == 0
    assert capsys.readouterr().out == ""
    assert md.read_text() == to_markdown(build_matrix([PROVIDER, ENGINE]))
    assert html.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("# notes\n", "{path} is not JSON (Expecting value: line 1 column 1 (char 0))"),
        ('{"a": 1}', "{path} is JSON but not a conformance report (3 problems; the first at "),
        (None, "cannot read {path}: No such file or directory"),
    ],
)
def test_a_file_that_is_not_a_report_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, said: str
) -> None:
    good = _write(tmp_path / "good.json", ENGINE)
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    out = tmp_path / "m.html"
    assert main(["report", "matrix", good, str(bad), "--html", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(f"tinymemory-conformance report matrix: {said.format(path=bad)}")
    assert not out.exists()
