"""The HTML page of one run (`r.html` beside `r.json`): what it shows, in which order, that
a driver's text stays text, that no credential reaches it, and that it is well-formed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.checks.outcome import ConformanceFailure
from conformance.fuzz import FuzzFailure, FuzzReport
from conformance.redaction import REDACTED, Redactor
from conformance.report import (
    CheckEntry,
    DriverInfo,
    Hang,
    ProfileInfo,
    Report,
    RunError,
    not_offered_reason,
    summarise,
)
from conformance.report_html import reason_parts, to_html
from plugins.report_file import write_report
from tests.plugins.html_drivers import MARKUP

XHTML = "{http://www.w3.org/1999/xhtml}"


def parsed(page: str) -> ET.Element:
    """The page as XML: it fails the test unless every element is closed and every
    entity is one of XML's own."""
    return ET.fromstring(page)


def by_id(root: ET.Element, element_id: str) -> ET.Element:
    found = [e for e in root.iter() if e.get("id") == element_id]
    assert len(found) == 1, element_id
    return found[0]


def text_of(element: ET.Element) -> str:
    return "".join(element.itertext())


def test_a_run_writes_its_page_beside_the_json_and_names_it(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=tests.plugins.html_drivers:HealthSaysMarkup",
        "-k",
        "provider.health or provider.capability_audit",
        "--conformance-report=r.json",
    )
    result.stdout.fnmatch_lines(["  report: r.json (JSON), r.md (Markdown), r.html (HTML)"])
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    root = parsed(page)
    # Without JavaScript everything is shown: only the script ever hides an element.
    assert not [e for e in root.iter() if "hidden" in e.attrib or "style" in e.attrib]
    assert text_of(by_id(root, "verdict")).strip() == "Verdict: fail"
    # Failures first, then the rest; the verdict before all.
    assert (
        page.index('id="verdict"')
        < page.index("Failures (1)")
        < page.index('id="check-provider.health"')
        < page.index("Other checks (1)")
        < page.index('id="check-provider.capability_audit"')
    )
    failure = by_id(root, "check-provider.health")
    assert failure.get("data-outcome") == "failed" and failure.get("data-profile") == "provider"
    shown = text_of(failure)
    # The driver's markup is shown as the text it is: no element of it reached the page.
    assert MARKUP in shown
    assert [e.tag for e in root.iter(f"{XHTML}script")] == [f"{XHTML}script"]
    assert not [e for e in root.iter() if e.get("id") == "bold"]
    assert "<script>document" not in page
    report = json.loads((pytester.path / "r.json").read_text())
    (entry,) = [c for c in report["checks"] if c["id"] == "provider.health"]
    assert f"replay{entry['replay']}" in shown
    assert "explaintinymemory-conformance explain provider.health" in shown
    passed = by_id(root, "check-provider.capability_audit")
    assert passed.get("data-outcome") == "passed"


def _fuzz_failure_reason() -> str:
    failure = ConformanceFailure("fuzz.provider.differential", "forget('g', 'k')", "x", "y")
    report = FuzzReport(
        "fuzz.provider.differential",
        seed=2,
        derandomized=False,
        examples=1,
        steps_per_example=3,
        program=["with fuzz.program() as m:", "    m.store('g', 'k', '<b>')", "    m.verify()"],
        repro_path=Path("regressions/test_fuzz_1.py"),
    )
    return str(FuzzFailure(failure, report))


def _report(*checks: CheckEntry) -> Report:
    return Report(
        kit_version="0.0.test",
        created_at="2026-01-01T00:00:00+00:00",
        seed=7,
        driver=DriverInfo(name="acme"),
        profiles={"provider": ProfileInfo(level="none")},
        checks=list(checks),
        summary=summarise(checks),
    )


def test_a_fuzz_failure_shows_its_minimal_program_as_code() -> None:
    reason = _fuzz_failure_reason()
    message, program, after = reason_parts(reason)
    assert message.startswith("conformance check `fuzz.provider.differential` failed at forget")
    assert program == (
        "Minimal failing program (seed 2; fuzz is a FuzzSession)",
        "with fuzz.program() as m:\n    m.store('g', 'k', '<b>')\n    m.verify()",
    )
    assert after == "Reproduce with: pytest regressions/test_fuzz_1.py"
    entry = CheckEntry(
        id="fuzz.provider.differential",
        profile="provider",
        outcome="failed",
        reason=reason,
        replay="pytest --driver=acme --fuzz -k fuzz.provider.differential",
    )
    root = parsed(to_html(_report(entry)))
    (code,) = [e for e in root.iter(f"{XHTML}pre") if e.get("class") == "program"]
    assert code.text == program[1]


def test_the_page_holds_no_credential_even_one_markup_would_escape(tmp_path: Path) -> None:
    # `&` and `<` in the key: searched for in the finished page, its escaped form
    # (`&amp;`) would slip through; the page is made from the redacted report.
    secret = "tm-k&y<9f3a>2b7c"
    entry = CheckEntry(
        id="provider.health",
        profile="provider",
        outcome="failed",
        reason=f"the backend refused key {secret}",
        replay=f"pytest --driver=acme --driver-option api_key={secret}",
    )
    write_report(tmp_path / "r.json", _report(entry), Redactor([("api_key", secret)]))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert secret not in page and "tm-k&amp;y&lt;9f3a&gt;2b7c" not in page
    assert f"the backend refused key {REDACTED}" in text_of(parsed(page))


def test_unshowable_characters_are_written_as_escapes() -> None:
    entry = CheckEntry(
        id="provider.health", profile="provider", outcome="failed", reason="got 'a\x00b\x1b\ud800'"
    )
    root = parsed(to_html(_report(entry)))
    assert "got 'a\\x00b\\x1b\\ud800'" in text_of(by_id(root, "check-provider.health"))


def test_why_there_is_no_verdict_comes_first_then_failures_inconclusive_and_the_rest() -> None:
    checks = [
        CheckEntry(id="provider.health", profile="provider", outcome="passed"),
        CheckEntry(
            id="provider.recall_ranks_best_first",
            profile="provider",
            outcome="inconclusive",
            reason="recall() ran past the 0.5 s limit",
            replay="pytest --driver=acme -k provider.recall_ranks_best_first",
            hang=Hang(call="recall()"),
        ),
        CheckEntry(id="provider.store_get_round_trip", profile="provider", outcome="failed"),
        CheckEntry(
            id="engine.health",
            profile="engine",
            outcome="skipped",
            reason=not_offered_reason("acme", "engine"),
        ),
    ]
    report = _report(*checks).model_copy(
        update={
            "errors": [RunError(kind="interrupted", message="the user pressed Ctrl-C")],
            "summary": summarise(checks, [RunError(kind="interrupted", message="")]),
        }
    )
    page = to_html(report)
    root = parsed(page)
    verdict = by_id(root, "verdict")
    items = [text_of(li) for li in verdict.iter(f"{XHTML}li")]
    assert text_of(verdict).strip().startswith("Verdict: error, because:")
    assert items[0] == "interrupted: the user pressed Ctrl-C"
    assert items[1].startswith("the driver hangs: recall() ran past the time limit in 1 check")
    assert (
        page.index("Failures (1)")
        < page.index("Inconclusive (1)")
        < page.index("Other checks (1)")
        < page.index('id="check-provider.health"')
    )
    levels = text_of(by_id(root, "levels"))
    assert "providernone" in levels
    assert "engine profile: not offered by the driver (1 check skipped)" in levels
    assert 'id="check-engine.health"' not in page  # said once, in the levels
    inconclusive = by_id(root, "check-provider.recall_ranks_best_first")
    assert "replaypytest --driver=acme -k provider.recall_ranks_best_first" in text_of(inconclusive)
