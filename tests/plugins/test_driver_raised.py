"""A failure that comes from the driver's own exception shows where it was raised: the
driver's frames (the kit's trimmed, credentials redacted) in the terminal under `--tb`,
in the JSON report and in the Markdown, with the call in full."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.report import Report

SECRET = "tm-trace-key-93e1a7"
CHECK = "provider.list_filters_narrow"

DRIVER = """
from reference_driver.provider import ReferenceProvider


def kind_of(row):
    return row.category()  # the bug: a category is no function


class ListCallsTheCategory(ReferenceProvider):
    def __init__(self, options):
        super().__init__()
        self.key = options["api_key"]

    def list(self, namespace, category, session_id):
        rows = super().list(namespace, category, session_id)
        try:
            return [r for r in rows if kind_of(r)]
        except TypeError as exc:
            raise TypeError(f"{exc} (store https://{self.key}@db.example)") from exc
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(faulty=DRIVER)
    pytester.syspathinsert()
    return pytester.runpytest(
        "--driver=faulty:ListCallsTheCategory",
        f"--driver-option=api_key={SECRET}",
        "--profile=provider",
        "-k",
        CHECK,
        "--conformance-report=r.json",
        *args,
    )


def frames(text: str) -> list[str]:
    """The `File "...", line N, in name` lines of a traceback, by file name and function."""
    found = []
    for line in text.splitlines():
        if line.lstrip().startswith('File "'):
            path, function = line.split('"')[1], line.rsplit(" in ", 1)[1]
            found.append(f"{Path(path).name}:{function}")
    return found


def test_the_terminal_shows_the_drivers_own_frames(pytester: pytest.Pytester) -> None:
    result = run(pytester)
    out = result.stdout.str()
    assert SECRET not in out + result.stderr.str()
    trace = out.split("where the driver raised it:\n", 1)[1]
    # Both exceptions of the chain, from the driver's first frame to where it raised.
    assert frames(trace) == [
        "faulty.py:list",
        "faulty.py:<listcomp>",
        "faulty.py:kind_of",
        "faulty.py:list",
    ]
    result.stdout.fnmatch_lines(
        [
            "*return row.category()  # the bug*",
            "TypeError: 'MemoryCategory' object is not callable",
            "*direct cause of the following exception*",
            "TypeError: 'MemoryCategory' object is not callable (store https://?REDACTED?@db.*",
        ]
    )
    # The call in full: the namespace is not cut short.
    result.stdout.fnmatch_lines(["*failed at list('<root>/filters', None, None): expected*"])


def test_tb_short_shows_where_it_raised_and_full_trace_the_kits_frames(
    pytester: pytest.Pytester,
) -> None:
    short = run(pytester, "--tb=short").stdout.str()
    trace = short.split("where the driver raised it:\n", 1)[1]
    assert frames(trace) == ["faulty.py:list"]
    assert "(store https://[REDACTED]@db.example)" in trace
    full = run(pytester, "--full-trace").stdout.str()
    trace = full.split("where the driver raised it:\n", 1)[1]
    assert "context.py:call" in frames(trace)
    assert "faulty.py:kind_of" in frames(trace)
    assert SECRET not in full
    assert "where the driver raised it" not in run(pytester, "--tb=line").stdout.str()


@pytest.mark.parametrize("ci", ["", "1"], ids=["terminal", "on CI"])
def test_the_summary_line_holds_the_reason_alone(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    # On CI pytest prints a summary line untrimmed: the trace must not come twice.
    monkeypatch.setenv("CI", ci)
    out = run(pytester, "-rf").stdout.str()
    summary = out.split("short test summary info", 1)[1]
    assert f"FAILED tinymemory/ListCallsTheCategory::{CHECK} - conf" in summary
    assert "Traceback" not in summary and "replay:" not in summary
    assert out.count("where the driver raised it:") == 1
    assert SECRET not in out


def test_the_reports_carry_the_trace_and_the_call_in_full(pytester: pytest.Pytester) -> None:
    run(pytester)
    raw = (pytester.path / "r.json").read_text()
    markdown = (pytester.path / "r.md").read_text()
    assert SECRET not in raw + markdown
    entry = next(c for c in Report.model_validate(json.loads(raw)).checks if c.id == CHECK)
    assert entry.outcome == "failed"
    assert entry.trace is not None
    assert frames(entry.trace)[0] == "faulty.py:list"
    assert not any(name.startswith(("context.py", "time_limit.py")) for name in frames(entry.trace))
    assert "…" not in entry.reason
    assert "failed at list('<root>/filters', None, None)" in entry.reason
    section = markdown.split("### Where the driver raised", 1)[1]
    assert f"`{CHECK}` failed: conformance check `{CHECK}` failed at list('<root>/filters'" in (
        section
    )
    assert "```text\nTraceback (most recent call last):" in section
    assert 'faulty.py", line' in section and "return row.category()" in section


FUZZED = """
from reference_driver.provider import ReferenceProvider


class ThirdListRaises(ReferenceProvider):
    def __init__(self):
        super().__init__()
        self.lists = 0

    def list(self, namespace, category, session_id):
        self.lists += 1
        if self.lists == 3:
            return self.page_of(namespace)
        return super().list(namespace, category, session_id)

    def page_of(self, namespace):
        return namespace.rows  # the bug: a namespace (a str, or None) has no rows
"""


def test_a_fuzz_failure_from_the_drivers_exception_shows_where(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(fuzzed=FUZZED)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--driver=fuzzed:ThirdListRaises",
        "--profile=provider",
        "--fuzz",
        "--fuzz-examples=5",
        "--fuzz-seed=1",
        "--fuzz-repro-dir=repro",
        "-k",
        "fuzz",
        "--conformance-report=r.json",
    )
    trace = result.stdout.str().split("where the driver raised it:\n", 1)[1]
    assert frames(trace)[-2:] == ["fuzzed.py:list", "fuzzed.py:page_of"]
    entry = Report.model_validate_json((pytester.path / "r.json").read_text()).checks[0]
    assert entry.id == "fuzz.provider.differential"
    assert entry.trace is not None
    assert entry.trace.endswith(" object has no attribute 'rows'\n")
