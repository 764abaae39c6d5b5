"""The HTML pages in a real browser: Debian's headless Chromium loads the page of a failing
run and a compatibility matrix, and the test reads the DOM after the page's script ran
(the verdict, a failing check's message, a fragment filter hiding the passes) and keeps a
screenshot of each in the artifacts folder (`$TINYMEMORY_ARTIFACTS`, or `.ci/artifacts/`).

Skipped without `chromium` on PATH, unless `TINYMEMORY_REQUIRE_BROWSER=1` (CI)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from plugins.cli import main
from tests.browser.chromium import Element, artifacts, chromium, load, parse
from tests.plugins.html_drivers import MARKUP

FAILING = "tests.plugins.html_drivers:HealthSaysMarkup"
CHECKS = "provider.health or provider.capability_audit or provider.store_get_round_trip"


def _run(pytester: pytest.Pytester, driver: str, report: str) -> Path:
    pytester.runpytest(f"--driver={driver}", "-k", CHECKS, f"--conformance-report={report}")
    path = pytester.path / report
    assert path.is_file()
    return path


def _by_id(root: Element, element_id: str) -> Element:
    (found,) = [e for e in root.iter() if e.attrs.get("id") == element_id]
    return found


def _outcome_items(root: Element) -> list[Element]:
    return [e for e in root.iter() if "data-outcome" in e.attrs]


def test_the_page_of_a_failing_run(pytester: pytest.Pytester) -> None:
    browser = chromium()
    page = _run(pytester, FAILING, "r.json").with_suffix(".html")
    ET.fromstring(page.read_text(encoding="utf-8"))  # well-formed: every element closed
    shot = artifacts() / "failing-run.png"
    root = parse(load(browser, f"{page.as_uri()}#hide=passed", shot))
    # The driver's `<script>` was shown, not run: the title is the page's own.
    (title,) = [e for e in root.iter() if e.tag == "title"]
    assert title.text() == "TinyMemory conformance: HealthSaysMarkup: fail"
    assert _by_id(root, "verdict").text().strip() == "Verdict: fail"
    failure = _by_id(root, "check-provider.health")
    assert not failure.hidden and MARKUP in failure.text()
    assert not [e for e in root.iter() if e.attrs.get("id") == "bold"]
    passes = [e for e in _outcome_items(root) if e.attrs["data-outcome"] == "passed"]
    assert len(passes) == 2 and all(e.hidden for e in passes)
    assert _by_id(root, "other-checks").hidden  # nothing left in it to show
    (status,) = [e for e in root.iter() if e.tag == "output"]
    assert status.text() == "showing 1 of 3"
    ticked = {e.attrs["value"]: "checked" in e.attrs for e in root.iter() if e.tag == "input"}
    assert ticked == {"failed": True, "passed": False, "provider": True}
    assert shot.stat().st_size > 10_000


def test_the_compatibility_matrix(pytester: pytest.Pytester) -> None:
    browser = chromium()
    reports = [
        str(_run(pytester, driver, f"{name}.json"))
        for driver, name in ((FAILING, "failing"), ("reference", "reference"), ("null", "null"))
    ]
    page = pytester.path / "matrix.html"
    assert main(["report", "matrix", *reports, "--html", str(page)]) == 0
    ET.fromstring(page.read_text(encoding="utf-8"))
    shot = artifacts() / "matrix.png"
    everything = parse(load(browser, page.as_uri(), shot, size="1280,900"))
    rows = [e for e in _outcome_items(everything) if e.tag == "tr"]
    assert len(rows) == 3 and not any(e.hidden for e in rows)
    verdicts = [e.text() for e in _by_id(everything, "verdicts").iter() if e.tag == "td"]
    assert verdicts == ["fail", "pass", "pass"]
    filtered = parse(load(browser, f"{page.as_uri()}#outcome=failed&profile=provider"))
    shown = [e.attrs["id"] for e in _outcome_items(filtered) if not e.hidden]
    assert shown == ["row-provider.health"]
    (summary,) = [e for e in _by_id(filtered, "row-provider.health").iter() if e.tag == "summary"]
    assert summary.text() == "failed"
    assert shot.stat().st_size > 10_000
