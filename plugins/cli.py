"""The `tinymemory-conformance` command: drivers, checks, explain, run and report."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import conformance
from conformance.redaction import redact_text
from plugins.settings import SETTINGS, FileTable, add_flags, read_pyproject, unknown_keys

if TYPE_CHECKING:
    from conformance.report import Report

# Each command imports what it uses when it runs: `serve` starts every process of a served
# or isolated driver (again after each crash), and needs neither pytest, the suites nor
# the report model.


def _drivers(_: argparse.Namespace) -> int:
    from conformance.driver import DriverError
    from plugins.registry import available_drivers, resolve_driver

    rows = [("name", "distribution", "version", "profiles")]
    for info in available_drivers():
        try:
            profiles = ", ".join(sorted(resolve_driver(info.name).profiles))
        except DriverError as exc:
            profiles = f"(cannot load: {exc})"
        rows.append((info.name, info.distribution or "?", info.version or "?", profiles))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
    return 0


def _checks(args: argparse.Namespace) -> int:
    from conformance.checks.catalogue import all_checks
    from conformance.rules import clause_markdown

    checks = [c for c in all_checks() if args.profile in (None, c.profile)]
    if args.markdown:
        print("| id | profile | title | clause | needs | storage |")
        print("| --- | --- | --- | --- | --- | --- |")
        for c in checks:
            print(
                f"| `{c.id}` | {c.profile} | {c.title} | {clause_markdown(c.clause)} | "
                f"{c.needs or ''} | "
                f"{'yes' if c.storage else ''} |"
            )
        return 0
    width = max(len(c.id) for c in checks)
    for c in checks:
        print(f"{c.id.ljust(width)}  {c.title}\n{'':{width}}  ({c.clause})")
    return 0


def _explain(args: argparse.Namespace) -> int:
    from plugins.explain import UnknownCheck, explain

    try:
        print(explain(args.check_id))
    except UnknownCheck as exc:
        print(f"tinymemory-conformance: {exc}", file=sys.stderr)
        return 2
    return 0


def _pytest_args(args: argparse.Namespace) -> list[str]:
    """The `run` command's settings as the plugin's flags."""
    argv: list[str] = []
    for setting in SETTINGS:
        value = getattr(args, setting.dest)
        if setting.flag:
            argv += [setting.option] if value else []
        elif setting.repeatable:
            for each in value:
                argv += [setting.option, each]
        elif value is not None:
            argv += [setting.option, str(value)]
    return argv


def _run(args: argparse.Namespace, extra: Sequence[str]) -> int:
    # `--ignore-glob=*` keeps pytest from collecting the current directory's own tests:
    # the run holds exactly the conformance items.
    # This command imported the kit before pytest could mark it for assertion rewriting;
    # the checks do not rely on rewritten asserts, so the warning says nothing useful.
    quiet = ["-W", "ignore::pytest.PytestAssertRewriteWarning"]
    if args.driver is not None and not args.driver.strip():
        print(
            "tinymemory-conformance run: the driver name is empty; give an entry-point name "
            "(see `tinymemory-conformance drivers`), package.module:attr, or exec:COMMAND",
            file=sys.stderr,
        )
        return 2
    if args.driver is None:
        # pytest reads the table itself; this only says, in one line, when it sets none.
        missing = _no_driver(read_pyproject(Path.cwd()))
        if missing is not None:
            print(f"tinymemory-conformance run: {missing}", file=sys.stderr)
            return 2
    import pytest

    from plugins.misspelt import MisspeltOptions

    argv = [*quiet, "--ignore-glob=*", "-p", "no:cacheprovider", "-rfEs", *_pytest_args(args)]
    return int(pytest.main([*argv, *extra], plugins=[MisspeltOptions()]))


def _no_driver(file: FileTable) -> str | None:
    """Why a `run` without `--driver` has no driver (None when the table sets one)."""
    if file.unreadable is not None:
        return f"no --driver given, and {file.unreadable}"
    if "driver" in file.table:
        return None
    if file.path is None:
        return (
            "no --driver given, and no pyproject.toml at or above this folder has a "
            "[tool.tinymemory] table: give --driver NAME, or set driver in that table"
        )
    unknown = unknown_keys(file)
    if unknown is not None:
        return f"no --driver given, and {unknown}, so it sets no driver"
    return (
        f"no --driver given, and [tool.tinymemory] in {file.path} sets no driver: give "
        f"--driver NAME, or set driver there"
    )


def _serve(args: argparse.Namespace) -> int:
    # Imported on use: the other commands never load the protocol.
    from conformance.protocol.server import serve_stdio
    from plugins.registry import resolve_driver
    from plugins.settings import parse_option_pairs

    return serve_stdio(args.driver, parse_option_pairs(args.driver_option), resolve_driver)


def _read_report(name: str) -> Report | str:
    """The report in file `name`, or why it cannot be read, naming the file."""
    from pydantic import ValidationError

    from conformance.report import Report

    path = Path(name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{path} is not JSON ({exc})"
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        return (
            f"{path} is JSON but not a conformance report ({exc.error_count()} problems; "
            f"the first at {where}: {first['msg']})"
        )


def _report_diff(args: argparse.Namespace) -> int:
    from conformance.report import Report, diff_reports

    old, new = _read_report(args.old), _read_report(args.new)
    for problem in (old, new):
        if isinstance(problem, str):
            print(f"tinymemory-conformance report diff: {problem}", file=sys.stderr)
            return 2
    assert isinstance(old, Report) and isinstance(new, Report)
    diff = diff_reports(old, new)
    print(
        f"{old.driver.name} {old.driver.version or ''} -> {new.driver.name} "
        f"{new.driver.version or ''} (kit {old.kit_version} -> {new.kit_version})"
    )
    for title, rows in (
        ("regressions", diff.regressions),
        ("fixes", diff.fixes),
        ("other changes", diff.other),
    ):
        print(f"{title}: {len(rows)}")
        for check_id, was, now in rows:
            print(f"  {check_id}: {was} -> {now}")
    for title, ids in (("new checks", diff.added), ("checks no longer run", diff.removed)):
        if ids:
            print(f"{title}: {', '.join(ids)}")
    if diff.verdict is not None:
        print(f"verdict: {diff.verdict[0]} -> {diff.verdict[1]}")
    return 1 if diff.regressions else 0


def _report_matrix(args: argparse.Namespace) -> int:
    # Imported on use: only this command loads the catalogue's order and the pages.
    from conformance.matrix import build_matrix
    from conformance.matrix_html import to_html
    from conformance.matrix_markdown import to_markdown

    reports: list[Report] = []
    for name in args.reports:
        read = _read_report(name)
        if isinstance(read, str):
            print(f"tinymemory-conformance report matrix: {read}", file=sys.stderr)
            return 2
        reports.append(read)
    matrix = build_matrix(reports, args.reports)
    markdown = to_markdown(matrix)
    if args.markdown is not None:
        Path(args.markdown).write_text(markdown, encoding="utf-8")
    if args.html is not None:
        Path(args.html).write_text(to_html(matrix), encoding="utf-8")
    if args.markdown is None and args.html is None:
        print(markdown, end="")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    top = argparse.ArgumentParser(
        prog="tinymemory-conformance",
        description="Hold a TinyMemory driver to the contract.",
    )
    top.add_argument(
        "--version", action="version", version=f"tinymemory-conformance {conformance.__version__}"
    )
    sub = top.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "drivers",
        help="list installed drivers: name, distribution, version, profiles",
        description="List the drivers installed in this environment (entry points of the "
        "group tinymemory.drivers): name, distribution, version and the profiles each offers.",
    )
    checks = sub.add_parser(
        "checks",
        help="list the catalogue of checks",
        description="List every check: its id, title and the rules of the contract it "
        "enforces. --markdown renders the table of docs/checks.md.",
    )
    checks.add_argument("--markdown", action="store_true", help="render a Markdown table")
    checks.add_argument("--profile", choices=("engine", "provider"))
    explained = sub.add_parser(
        "explain",
        help="one check or fuzz target in full: the rules it enforces, what it does, the "
        "faults it is proven against, how to run it alone",
        description="Explain one check or fuzz target in full: the rules it enforces (quoted "
        "from the contract), what it does, the broken drivers it is proven against, and the "
        "command that runs it alone.",
    )
    explained.add_argument("check_id", metavar="CHECK_ID")
    run = sub.add_parser(
        "run",
        help="run the suite against a driver (extra arguments go to "
        "pytest); exits non-zero unless the verdict is pass",
        description="Run the suite against a driver; arguments not listed here go to "
        "pytest (-k, -n 2, --junitxml, ...). Exits non-zero unless the verdict is pass.",
    )
    # The command's own, shorter name for the report.
    # `--driver` may come from `[tool.tinymemory]`, as it does for pytest.
    add_flags(run.add_argument, aliases={"conformance-report": ["--report"]})
    serve = sub.add_parser(
        "serve",
        help="expose a Python driver over the driver protocol on stdin/stdout "
        "(docs/protocol.md), for --driver 'exec:tinymemory-conformance serve --driver NAME'",
        description="Serve a Python driver over the driver protocol (docs/protocol.md) on "
        "stdin and stdout, one JSON message a line, until stdin closes. The kit runs it "
        "with --driver 'exec:tinymemory-conformance serve --driver NAME'.",
    )
    serve.add_argument("--driver", required=True, help="entry-point name or package.module:attr")
    serve.add_argument(
        "--driver-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option for the driver; the kit's options (in its hello) override these",
    )
    report = sub.add_parser(
        "report",
        help="work with JSON reports",
        description="Work with the JSON reports runs write (--conformance-report): compare "
        "two, set several side by side, or print their schema.",
    )
    report_sub = report.add_subparsers(dest="report_command", required=True)
    diff = report_sub.add_parser(
        "diff",
        help="regressions and fixes between two runs (exits 1 when something regressed)",
        description="Compare two JSON reports check by check: regressions (was passing, now "
        "not, or gone), fixes, other changes, and the verdicts. Exits 1 when something "
        "regressed.",
    )
    diff.add_argument("old", help="the earlier run's JSON report")
    diff.add_argument("new", help="the later run's JSON report")
    matrix = report_sub.add_parser(
        "matrix",
        help="a compatibility matrix of several runs, as Markdown and HTML",
        description="Build a compatibility matrix from JSON reports: one row per check, one "
        "column per driver, each cell its outcome and why, the levels per profile at the "
        "top. Prints the Markdown unless --markdown or --html says where to write.",
    )
    matrix.add_argument("reports", nargs="+", metavar="REPORT", help="a run's JSON report")
    matrix.add_argument("--markdown", metavar="OUT.md", help="write the Markdown table here")
    matrix.add_argument(
        "--html", metavar="OUT.html", help="write the matrix as a self-contained HTML page here"
    )
    report_sub.add_parser(
        "schema",
        help="print the report's JSON schema (docs/report.schema.json)",
        description="Print the JSON schema of the report (docs/report.schema.json) to stdout.",
    )
    return top


SIGPIPE_STATUS = 141
"""The status a shell gives a command its reader stopped (128 + SIGPIPE), as `yes | head`."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tinymemory-conformance`."""
    try:
        status = _main(argv)
        # Flushed here, so a reader that stopped early is met in this `try`, not by the
        # interpreter's last flush (which would print a traceback).
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # `report schema | head`: the reader has what it wanted; nothing more is said.
        _discard_stdout()
        return SIGPIPE_STATUS


def _discard_stdout() -> None:
    # What is still buffered goes nowhere, so closing stdout at exit cannot fail again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # stdout replaced by one without a file
        pass


def _main(argv: Sequence[str] | None) -> int:
    args, extra = parser().parse_known_args(argv)
    if args.command != "run" and extra:
        parser().error(f"unrecognised arguments: {' '.join(extra)}")
    try:
        if args.command == "drivers":
            return _drivers(args)
        if args.command == "checks":
            return _checks(args)
        if args.command == "explain":
            return _explain(args)
        if args.command == "run":
            return _run(args, extra)
        if args.command == "serve":
            return _serve(args)
        if args.report_command == "schema":
            from conformance.report import Report

            print(json.dumps(Report.model_json_schema(by_alias=True), indent=2))
            return 0
        if args.report_command == "matrix":
            return _report_matrix(args)
        return _report_diff(args)
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        print(f"tinymemory-conformance: {redact_text(str(exc), ())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
