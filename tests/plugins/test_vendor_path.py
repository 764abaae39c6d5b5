"""Issue 23: what a vendor reads on the way from a red run to the fix (reports, waivers,
settings, options), each case a cheap run of one or two checks."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.driver import DriverError
from conformance.report import Report
from plugins.cli import SIGPIPE_STATUS, main, parser
from plugins.registry import resolve_driver

ROOT = Path(__file__).resolve().parents[2]
BROKEN = "tests.checks.broken_providers"
TAINT = "provider.taint_is_preserved"


def report_of(path: Path) -> Report:
    return Report.model_validate(json.loads(path.read_text()))


# -- item 5: the Markdown report and the terminal put failures first -------------------


def test_markdown_opens_with_the_verdict_then_each_failure_in_full(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        f"--driver={BROKEN}:RestampsTaint",
        "-rs",
        "-k",
        f"{TAINT} or engine or provider.list_filters_narrow",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    md = (pytester.path / "r.md").read_text()
    report = report_of(pytester.path / "r.json")
    failure = next(c for c in report.checks if c.id == TAINT)
    # The reason in full (it runs past the old 160-character cut), its replay and explain.
    assert len(failure.reason) > 160
    assert failure.replay is not None and f"-k {TAINT}" in failure.replay
    verdict, failures, levels, rest = (
        md.index("**Verdict: fail**"),
        md.index("### Failures (1)"),
        md.index("### Levels"),
        md.index("### Other checks"),
    )
    assert verdict < failures < levels < rest
    assert failure.reason in md
    assert f"- replay: `{failure.replay}`" in md
    assert f"- explain: `tinymemory-conformance explain {TAINT}`" in md
    # A profile the driver does not offer is one line, here and in the terminal.
    assert "- engine profile: not offered by the driver (" in md
    assert "`engine." not in md
    out = result.stdout.str()
    assert out.count("does not offer the engine profile") == 1
    result.stdout.fnmatch_lines(
        [
            "  engine profile: not offered by the driver (*checks skipped)",
            "SKIPPED [[]*] tinymemory/RestampsTaint: driver `RestampsTaint` does not offer the "
            "engine profile",
        ]
    )


def test_markdown_lists_inconclusive_checks_after_failures_with_their_replay(
    pytester: pytest.Pytester,
) -> None:
    pytester.runpytest(
        "--driver=tests.plugins.plugin_drivers:SlowNamespaces",
        "--profile=provider",
        "--driver-timeout=0.2",
        "-k",
        "provider.list_filters_narrow",
        "--conformance-report=r.json",
    )
    md = (pytester.path / "r.md").read_text()
    report = report_of(pytester.path / "r.json")
    unsure = [c for c in report.checks if c.outcome == "inconclusive"]
    assert unsure, report.checks
    assert "### Inconclusive (" in md
    assert md.index("**Verdict: inconclusive**") < md.index("### Inconclusive (")
    assert f"- replay: `{unsure[0].replay}`" in md


# -- item 8: where the report is, and why a -k run reaches no level ---------------------


def test_summary_names_every_report_file_and_why_a_k_run_has_no_level(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        "--driver=reference", "--profile=provider", "-k", TAINT, "--conformance-report=out/r.json"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "tinymemory conformance of `reference`: pass *",
            "  provider: level none (a level needs every check of the profile, and this run ran "
            "1 of *; the rest were deselected (-k, say); offered features: *)",
            "  report: out/r.json (JSON), out/r.md (Markdown), out/r.html (HTML)",
        ]
    )
    md = (pytester.path / "out/r.md").read_text()
    assert (
        "| provider | none (a level needs every check of the profile, and this run ran 1 of " in md
    )


def test_summary_says_how_to_get_a_report_when_none_was_asked(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest("--driver=reference", "--profile=provider", "-k", TAINT)
    result.stdout.fnmatch_lines(
        ["  no report written: --conformance-report=PATH.json (--report with *Markdown*"]
    )


# -- item 6: waiver-file mistakes say what to write -------------------------------------

WAIVER_BODY = 'reason = "known"\nissue = "https://example.test/1"\nexpires = {expires}\n'
FUTURE = dt.date.today() + dt.timedelta(days=30)


def waiver_error(pytester: pytest.Pytester, text: str) -> str:
    pytester.makefile(".toml", waivers=text)
    result = pytester.runpytest(
        "--driver=reference", "--profile=provider", "--waivers=waivers.toml"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_an_unquoted_dotted_waiver_id_says_to_quote_it(pytester: pytest.Pytester) -> None:
    line = waiver_error(pytester, f"[{TAINT}]\n" + WAIVER_BODY.format(expires=FUTURE.isoformat()))
    assert line.endswith(
        f"the table [{TAINT}] is read by TOML as `taint_is_preserved` inside a table "
        f'`provider`, as its id is not quoted; write ["{TAINT}"]'
    )
    assert "not a check id" not in line


def test_a_misspelt_waiver_key_is_named_with_the_closest_valid_one(
    pytester: pytest.Pytester,
) -> None:
    body = WAIVER_BODY.format(expires=FUTURE.isoformat()).replace("reason", "reson")
    line = waiver_error(pytester, f'["{TAINT}"]\n' + body)
    assert line.endswith(
        f"waiver `{TAINT}` has an unknown key `reson` (did you mean `reason`?); a waiver's "
        f"keys are reason, issue, expires"
    )


def test_a_misspelt_waiver_id_gets_the_closest_id(pytester: pytest.Pytester) -> None:
    body = WAIVER_BODY.format(expires=FUTURE.isoformat())
    line = waiver_error(pytester, '["provider.taint_is_preserverd"]\n' + body)
    assert f"which is not a check id nor a fuzz target (did you mean `{TAINT}`?)" in line


def test_an_expired_waiver_of_a_passing_check_says_what_to_do(pytester: pytest.Pytester) -> None:
    expired = (dt.date.today() - dt.timedelta(days=1)).isoformat()
    pytester.makefile(".toml", waivers=f'["{TAINT}"]\n' + WAIVER_BODY.format(expires=expired))
    result = pytester.runpytest(
        "--driver=reference", "--profile=provider", "--waivers=waivers.toml", "-k", TAINT
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"waiver for `{TAINT}` (*, expires {expired}) has expired, and the check passed: "
            "remove the waiver"
        ]
    )


# -- item 7: `run` reads [tool.tinymemory] like pytest, and misspellings get one line ---


def test_run_takes_the_driver_from_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tinymemory]\ndriver = "reference"\nprofile = "provider"\n'
    )
    assert main(["run", "--report", "r.json", "-q", "-k", TAINT]) == 0
    assert report_of(tmp_path / "r.json").driver.name == "reference"


def test_run_with_a_misspelt_option_names_the_closest_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--driver", "reference", "--driver-optoin", "path=x"]) == 4
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert err == [
        "ERROR: tinymemory-conformance run: unknown option `--driver-optoin` (did you mean "
        "`--driver-option`?); `tinymemory-conformance run --help` lists the kit's options, "
        "`pytest --help` pytest's"
    ]


def test_run_with_a_misspelt_table_key_names_the_closest_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tinymemory]\ndrvier = "reference"\n')
    assert main(["run"]) == 2
    assert capsys.readouterr().err == (
        f"tinymemory-conformance run: no --driver given, and [tool.tinymemory] in "
        f"{tmp_path / 'pyproject.toml'} has an unknown key `drvier` (did you mean `driver`?), "
        f"so it sets no driver\n"
    )


def test_pytest_with_a_misspelt_table_key_names_the_closest_one(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml('[tool.tinymemory]\ndriver = "reference"\nprofle = "provider"\n')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: tinymemory: *has an unknown key `profle` (did you mean `profile`?); its keys "
            "are *"
        ]
    )


# -- item 9: options bind to a constructor's keyword parameters --------------------------

AT_PATH = "tests.plugins.plugin_drivers:AtPath"


def test_driver_options_reach_a_constructors_named_parameters(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        f"--driver={AT_PATH}", "--driver-option", "path=/tmp/store", "-q", "-k", TAINT
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    driver = resolve_driver(AT_PATH, {"path": "/tmp/store", "mode": "ro"})
    built = driver.make("provider")
    assert (built.path, built.mode) == ("/tmp/store", "ro")


def test_an_option_no_parameter_takes_names_the_accepted_ones(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        f"--driver={AT_PATH}", "--driver-option", "path=/tmp/s", "--driver-option", "pth=x"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: tinymemory: cannot use driver `{AT_PATH}`: driver `AtPath` takes no option "
            "pth: the options it takes are the keyword parameters of AtPath(): mode, path"
        ]
    )


def test_a_required_parameter_without_its_option_is_named() -> None:
    with pytest.raises(DriverError, match=r"needs the option path: give --driver-option path="):
        resolve_driver(AT_PATH)


# -- item 12: a closed pipe, subcommand help, export times without an offset -------------


def test_a_reader_that_stops_early_gets_no_broken_pipe_message() -> None:
    # The reader is gone before the command writes: every write meets a closed pipe.
    child = subprocess.Popen(
        [sys.executable, "-m", "plugins.cli", "report", "schema"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == SIGPIPE_STATUS
    assert err == ""


def _subcommands(top: argparse.ArgumentParser, prefix: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[f"{prefix}{name}"] = sub
                found.update(_subcommands(sub, f"{prefix}{name} "))
    return found


def test_every_subcommand_help_page_has_a_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pages = _subcommands(parser())
    assert {"drivers", "checks", "explain", "run", "serve", "report", "report diff"} <= set(pages)
    assert {name for name, sub in pages.items() if not sub.description} == set()
    with pytest.raises(SystemExit):
        main(["report", "schema", "--help"])
    assert "Print the JSON schema of the report" in capsys.readouterr().out


def test_an_export_time_without_an_offset_fails_the_timestamp_check(
    pytester: pytest.Pytester,
) -> None:
    check = "provider.timestamps_are_well_formed"
    result = pytester.runpytest(f"--driver={BROKEN}:ExportTimeWithoutZone", "-k", check)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"conformance check `{check}` failed at export_page(…) record of *, payload "
            "timestamp: expected an RFC 3339 date-time with an offset (Z or ±hh:mm); got "
            "'2024-05-01T12:00:00'"
        ]
    )


def test_run_without_a_driver_anywhere_says_where_to_set_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tinymemory]\nprofile = "provider"\n')
    assert main(["run"]) == 2
    assert capsys.readouterr().err == (
        f"tinymemory-conformance run: no --driver given, and [tool.tinymemory] in "
        f"{tmp_path / 'pyproject.toml'} sets no driver: give --driver NAME, or set driver there\n"
    )
