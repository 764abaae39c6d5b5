"""The pytest plugin: `pytest --driver=NAME` adds one test item per conformance check.

Without `--driver` (on the command line or in `[tool.tinymemory]`) it does nothing.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any, cast

import pytest

from conformance.checks.catalogue import Check, all_checks
from conformance.checks.outcome import CheckResult
from conformance.driver import DriverError, ProfileNotOffered
from conformance.report import redact_options, to_markdown
from plugins.run import KitRun, build_report, entry_from_properties
from plugins.settings import SettingsError, merge, parse_option_pairs, read_pyproject
from plugins.waivers import WaiverError, load_waivers

KIT = pytest.StashKey[KitRun]()
PROPERTY = "tinymemory"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tinymemory", "TinyMemory conformance")
    group.addoption(
        "--driver",
        help="driver to hold to the contract: an entry-point name of "
        "the group tinymemory.drivers, or package.module:attr",
    )
    group.addoption(
        "--driver-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option for the driver (repeatable)",
    )
    group.addoption(
        "--profile",
        choices=("engine", "provider", "all"),
        help="which profile's checks to run (default: all the driver offers)",
    )
    group.addoption(
        "--conformance-report",
        metavar="PATH",
        help="write the JSON report here, and a Markdown summary beside it",
    )
    group.addoption("--waivers", metavar="PATH", help="TOML file of waived check ids")
    group.addoption(
        "--driver-timeout",
        type=float,
        metavar="SECONDS",
        help="per-call time limit; a call past it makes its check inconclusive "
        "(default 60; 0 disables)",
    )
    group.addoption(
        "--driver-retries",
        type=int,
        metavar="N",
        help="retries of a transient (Unavailable) error, with backoff (default 3)",
    )
    group.addoption(
        "--fuzz",
        action="store_true",
        default=None,
        help="also run the property-based fuzzing items",
    )
    group.addoption("--fuzz-examples", type=int, metavar="N", help="fuzzing budget")


def _usage_error(what: str, exc: Exception, hint: str) -> pytest.UsageError:
    return pytest.UsageError(f"tinymemory: {what}: {exc}\n{hint}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tinymemory: a TinyMemory conformance check")
    try:
        cli = {
            "driver": config.getoption("driver"),
            "driver-options": parse_option_pairs(config.getoption("driver_option") or []),
            "profile": config.getoption("profile"),
            "conformance-report": config.getoption("conformance_report"),
            "waivers": config.getoption("waivers"),
            "driver-timeout": config.getoption("driver_timeout"),
            "driver-retries": config.getoption("driver_retries"),
            "fuzz": config.getoption("fuzz"),
            "fuzz-examples": config.getoption("fuzz_examples"),
        }
        table, folder = read_pyproject(Path(config.invocation_params.dir))
        settings = merge(table, cli, folder)
    except (SettingsError, ValueError) as exc:
        raise _usage_error("bad settings", exc, "Fix the option or [tool.tinymemory].") from exc
    if not settings.driver:
        return
    known = {c.id for c in all_checks()}
    try:
        waivers = load_waivers(settings.waivers, known) if settings.waivers else {}
    except WaiverError as exc:
        raise _usage_error("bad waivers", exc, "Fix the waiver file, then run again.") from exc
    try:
        run = KitRun.start(settings, waivers)
    except DriverError as exc:
        shown = redact_options(settings.driver_options)
        raise _usage_error(
            f"cannot use driver `{settings.driver}` (options {shown})",
            exc,
            "`tinymemory-conformance drivers` lists the installed drivers; a driver is "
            "announced by an entry point in the group tinymemory.drivers, or named as "
            "--driver=package.module:attr.",
        ) from exc
    config.stash[KIT] = run
    config.pluginmanager.register(RunHooks(run, config), "tinymemory-run")


class DriverSuite(pytest.Collector):
    """The conformance checks of one driver, as a node that `-k` and node ids can name."""

    def collect(self) -> list[pytest.Item]:
        return []


class CheckItem(pytest.Item):
    """One catalogued check run against the driver."""

    def __init__(self, *, check: Check, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.add_marker("tinymemory")

    def runtest(self) -> None:
        run = self.config.stash[KIT]
        result: CheckResult = run.run_check(self.check)
        self.user_properties.append((PROPERTY, run.entry_of(self.check, result).model_dump()))
        if result.outcome == "failed":
            raise CheckFailed(result.reason)
        if result.outcome == "waived":
            pytest.xfail(result.reason)
        if result.outcome in ("skipped", "inconclusive"):
            pytest.skip(
                result.reason if result.outcome == "skipped" else f"INCONCLUSIVE: {result.reason}"
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CheckFailed):
            return f"{self.check.id} ({self.check.clause})\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.check.id}: {self.check.title}"


class CheckFailed(Exception):
    """A check's failure, shown without the kit's own traceback."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    run = config.stash.get(KIT, None)
    if run is None:
        return
    name = f"tinymemory/{run.driver.name}"
    suite = DriverSuite.from_parent(session, name=name, nodeid=name)
    for chk in run.checks():
        items.append(CheckItem.from_parent(suite, name=chk.id, check=chk))


class RunHooks:
    """Session hooks of a run with a driver, registered only when `--driver` is given."""

    def __init__(self, run: KitRun, config: pytest.Config) -> None:
        self.run = run
        self.config = config

    def pytest_report_teststatus(self, report: pytest.TestReport) -> Any:
        entry = entry_from_properties(report.user_properties)
        if entry is None or report.when != "call":
            return None
        if entry.outcome == "inconclusive":
            return "inconclusive", "I", "INCONCLUSIVE"
        if entry.outcome == "waived":
            return "waived", "w", "WAIVED"
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        # Point a skip at the check, not at the line of the kit that raised it.
        if isinstance(item, CheckItem) and report.skipped and isinstance(report.longrepr, tuple):
            report.longrepr = cast(Any, (item.nodeid, None, report.longrepr[2]))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # On the xdist controller this sees every worker's reports, so the report merges them.
        entry = entry_from_properties(report.user_properties)
        if entry is not None and report.when == "call":
            self.run.collected.append(entry)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):
            return
        if any(e.outcome == "inconclusive" for e in self.run.collected) and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        path = self.run.settings.report
        if path is not None:
            report = build_report(self.run)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
            path.with_suffix(".md").write_text(to_markdown(report))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        for line in self.run.summary_lines():
            terminalreporter.write_line(line)


@pytest.fixture
def memory_driver(request: pytest.FixtureRequest) -> Any:
    """The `conformance.Driver` named by `--driver` (skips when none was given)."""
    run = request.config.stash.get(KIT, None)
    if run is None:
        pytest.skip("no --driver given")
    return run.driver


@pytest.fixture
def memory_engine(request: pytest.FixtureRequest) -> Any:
    """The run's engine, behind a synchronous face (skips when the driver offers none)."""
    run = request.config.stash.get(KIT, None)
    if run is None:
        pytest.skip("no --driver given")
    try:
        return run.profile_object("engine")
    except ProfileNotOffered as exc:
        pytest.skip(str(exc))


@pytest.fixture
def memory_provider(request: pytest.FixtureRequest) -> Any:
    """The run's provider, behind a synchronous face (skips when the driver offers none)."""
    run = request.config.stash.get(KIT, None)
    if run is None:
        pytest.skip("no --driver given")
    try:
        return run.profile_object("provider")
    except ProfileNotOffered as exc:
        pytest.skip(str(exc))
