"""What a driver writes on stdout: kept whole in the log beside the report, shown trimmed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugins.chatty_drivers import LINE, MIB

ROOT = Path(__file__).resolve().parents[2]


def test_a_driver_writing_a_mebibyte_is_logged_whole_and_shown_trimmed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    result = pytester.runpytest_subprocess(
        "--driver=tests.plugins.chatty_drivers:Chatty",
        "--profile=provider",
        "-k",
        "provider.health",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    shown = result.stdout.str() + result.stderr.str()
    # Two mebibytes were written; a few kilobytes reach the terminal.
    assert len(shown) < 30_000
    lines = MIB // len(LINE) + 1
    result.stderr.fnmatch_lines(
        [
            f"tinymemory: driver `Chatty` wrote {lines} lines (* characters) on stdout while "
            f"it was loaded and built; kept whole in r.log"
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*Captured stdout call*",
            # `?` for the brackets, which fnmatch reads as a set.
            f"?… {lines - 30} lines (* characters in all) trimmed: the whole output is in r.log …?",
            "*",
            "the last line health wrote",
            "*report: r.json (JSON), r.md (Markdown), r.html (HTML), r.log (the driver's output)",
        ]
    )
    log = (pytester.path / "r.log").read_text()
    built, health = log.split("==== provider.health: captured stdout call ====\n")
    assert built.startswith("==== driver `Chatty`, while it was loaded and built: stdout ====\n")
    for part, last in ((built, "the constructor"), (health, "health")):
        assert part.count(LINE) == MIB // len(LINE)
        assert part.endswith(f"the last line {last} wrote\n")
