"""The pytest nodes and session hooks of a run with a driver (loaded only when one is given)."""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any, cast

import pytest

from conformance.checks.catalogue import Check
from conformance.checks.outcome import CheckResult
from conformance.fuzz.runner import FuzzTarget
from conformance.report import CheckEntry, to_markdown
from conformance.time_limit import set_abandon_handler
from plugins.abandon import Abandonment, report_entry
from plugins.run import KitRun, build_report, entry_from_properties
from plugins.secrecy import guard_terminal, redact_report

PROPERTY = "tinymemory"


def kit_run(config: pytest.Config) -> KitRun:
    """The run stored on `config` by the plugin."""
    from plugins.pytest_plugin import KIT

    return config.stash[KIT]


class DriverSuite(pytest.Collector):
    """The conformance checks of one driver, as a node that `-k` and node ids can name."""

    def collect(self) -> list[pytest.Item]:
        return []


class CheckItem(pytest.Item):
    """One catalogued check run against the driver."""

    def __init__(self, *, check: Check, fetch_mode: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.fetch_mode = fetch_mode
        self.add_marker("tinymemory")

    def runtest(self) -> None:
        run = kit_run(self.config)
        result: CheckResult = run.run_check(self.check, self.fetch_mode)
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


def add_items(session: pytest.Session, run: KitRun, items: list[pytest.Item]) -> None:
    """Append one item per check of the run, under a node named after the driver."""
    name = f"tinymemory/{run.driver.name}"
    suite = DriverSuite.from_parent(session, name=name, nodeid=name)
    added: list[pytest.Item] = []
    for chk in run.checks():
        for mode in run.fetch_modes(chk):
            item_name = chk.id if mode is None else f"{chk.id}[{mode}]"
            added.append(CheckItem.from_parent(suite, name=item_name, check=chk, fetch_mode=mode))
    if run.settings.fuzz:
        for target in run.fuzz_targets():
            added.append(FuzzItem.from_parent(suite, name=target.id, target=target))
    items.extend(added)
    # Reported as collected, so "collected N items" counts the checks.
    session.ihook.pytest_collectreport(
        report=pytest.CollectReport(suite.nodeid, "passed", None, list(added))
    )


class FuzzItem(pytest.Item):
    """One fuzz target (a differential state machine) run against the driver."""

    def __init__(self, *, target: FuzzTarget, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target
        self.add_marker("tinymemory")

    def runtest(self) -> None:
        run = kit_run(self.config)
        entry = run.run_fuzz_target(self.target)
        self.user_properties.append((PROPERTY, entry.model_dump()))
        if entry.outcome == "failed":
            raise CheckFailed(entry.reason)
        if entry.outcome in ("skipped", "inconclusive"):
            pytest.skip(entry.reason)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CheckFailed):
            return f"{self.target.id} ({self.target.clause})\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.target.id}: {self.target.title}"


class RunHooks:
    """Session hooks of a run with a driver, registered only when `--driver` is given."""

    def __init__(self, run: KitRun, config: pytest.Config) -> None:
        self.run = run
        self.config = config
        self.abandonment = Abandonment(run, config)
        self._previous_handler = set_abandon_handler(self.abandonment)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.abandonment.session = session
        # Capture is off at this point: the guard keeps a copy of the terminal itself.
        self.abandonment.terminal = guard_terminal(self.config, self.run.redactor)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        # What the abandon handler reports, should a call of this item hang.
        kit_item = isinstance(item, CheckItem | FuzzItem)
        self.abandonment.item = item if kit_item else None
        self.abandonment.started = time.perf_counter()

    def pytest_runtest_logfinish(self) -> None:
        self.abandonment.item = None

    def pytest_report_teststatus(self, report: pytest.TestReport) -> Any:
        if getattr(report, "tinymemory_abandoned", False):
            return "", "", ""
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
        # What the driver printed, and any raw traceback, reach the terminal, JUnit XML
        # and the xdist controller only through this report.
        redact_report(report, self.run.redactor)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # On the xdist controller this sees every worker's reports, so the report merges them.
        # Entries outside any check (a hung shutdown) may come from every worker: once.
        entry = entry_from_properties(report.user_properties)
        if (
            entry is not None
            and report.when == "call"
            and not any(e.id == entry.id for e in self.run.collected)
        ):
            self.run.collected.append(entry)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        # xdist: a worker ended in the middle of a check. When the kit abandoned it, the
        # worker reported the check inconclusive first; otherwise the check failed.
        name = crashitem.rpartition("::")[2]
        if any(e.id == name for e in self.run.collected):
            # Already reported, inconclusive: the crash itself is not counted again.
            report.outcome = "skipped"
            report.longrepr = (crashitem, None, "INCONCLUSIVE: the kit ended the worker (above)")
            report.tinymemory_abandoned = True
            return
        check_id = name.partition("[")[0]
        chk = next((c for c in self.run.checks() if c.id == check_id), None)
        self.run.collected.append(
            CheckEntry(
                id=name,
                profile=chk.profile if chk is not None else "provider",
                outcome="failed",
                reason=f"conformance check `{check_id}` failed: the worker process running "
                f"it ended without a verdict (the driver crashed it: see its output)",
                clause=chk.clause if chk is not None else "",
            )
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # First, so JUnit XML sees it: the driver is shut down before the verdict is
        # reached, as a shutdown that hangs is part of it. An xdist worker reports that
        # to the controller like a check.
        known = {e.id for e in self.run.collected}
        for entry in self.run.close():
            if entry.id not in known:
                report_entry(self.config, self.run, entry)
        if hasattr(self.config, "workerinput"):
            return
        if any(e.outcome == "inconclusive" for e in self.run.collected) and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        path = self.run.settings.report
        if path is not None:
            report = build_report(self.run)
            redactor = self.run.redactor
            path.parent.mkdir(parents=True, exist_ok=True)
            data = redactor.value(report.model_dump(mode="json"))
            path.write_text(json.dumps(data, indent=2) + "\n")
            path.with_suffix(".md").write_text(redactor.text(to_markdown(report)))

    def pytest_unconfigure(self) -> None:
        self.run.close()
        set_abandon_handler(self._previous_handler)
        if self.abandonment.terminal is not None:
            self.abandonment.terminal.forget_terminal()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        for line in self.run.summary_lines():
            terminalreporter.write_line(line)
