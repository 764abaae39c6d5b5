"""The pytest nodes and session hooks of a run with a driver (loaded only when one is given)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any, cast

import pytest
from _pytest._code.code import ReprExceptionInfo

from conformance.checks.catalogue import Check
from conformance.checks.outcome import not_applicable
from conformance.checks.typical_calls import typical_calls
from conformance.fuzz_targets import FuzzTarget
from conformance.interrupts import InterruptWatch
from conformance.report import (
    CheckEntry,
    OutcomeName,
    Report,
    hung_calls,
    is_not_offered,
    not_offered,
    not_offered_line,
    not_offered_reason,
    verdict_lines,
)
from conformance.time_limit import HungCall, set_abandon_handler
from plugins.abandon import Abandonment, report_entry
from plugins.concurrent_items import ItemPool, concurrency_of
from plugins.driver_output import OutputLog, log_path, trimmed
from plugins.failure_repr import failure_repr
from plugins.ledger import Ledger
from plugins.replay import explain_line
from plugins.report_file import html_path, write_report
from plugins.run import KitRun
from plugins.secrecy import guard_terminal, redact_report
from plugins.terminal_progress import showing_progress
from plugins.xdist_support import FACTS_KEY, Role, item_id_of

PROPERTY = "tinymemory"
POOL = pytest.StashKey[ItemPool]()
"""The pool running this process's checks several at once, when one is asked for."""
SUITE = "tinymemory"
"""The name of the node holding the checks: `-k` matches it, so it never holds the
driver's name (a driver called `replay-store` must not select every check on `-k replay`)."""


def kit_run(config: pytest.Config) -> KitRun:
    """The run stored on `config` by the plugin."""
    from plugins.pytest_plugin import KIT

    return config.stash[KIT]


def suite_nodeid(run: KitRun) -> str:
    """`tinymemory/<driver>`: the node id every check item sits under."""
    return f"{SUITE}/{run.driver.name}"


class DriverSuite(pytest.Collector):
    """The conformance checks of one driver, as a node that node ids can name."""

    def collect(self) -> list[pytest.Item]:
        return []


class CheckFailed(Exception):
    """A check's failure, shown without the kit's own traceback."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(text)
        self.text = text
        self.reason = reason

    def shown(self, nodeid: str) -> ReprExceptionInfo:
        """The whole text in the failures section, the reason alone on the summary line."""
        return failure_repr(self.text, self.reason, nodeid)


def _failure_text(header: str, reason: str, replay: str, check_id: str) -> str:
    return f"{header}\n{reason}\n\nreplay: {replay}\n{explain_line(check_id)}"


def trace_text(config: pytest.Config, entry: CheckEntry, full: str | None) -> str:
    """Where the driver raised the exception a failure came from, as `--tb` asks: its own
    frames (`auto`, `long`, `native`), the innermost one (`short`), none (`line`, `no`);
    with `--full-trace`, every frame, the kit's included (`full`)."""
    if entry.trace is None:
        return ""
    style = config.getoption("tbstyle", "auto")
    if style in ("line", "no"):
        return ""
    trace = entry.trace
    if config.getoption("fulltrace", False) and full is not None:
        trace = full
    elif style == "short":
        lines = trace.rstrip("\n").splitlines()
        last = max(i for i, line in enumerate(lines) if line.startswith('  File "'))
        trace = "\n".join([lines[0], *lines[last:]])
    return f"\n\nwhere the driver raised it:\n{trace.rstrip()}"


class CheckItem(pytest.Item):
    """One catalogued check run against the driver."""

    def __init__(self, *, check: Check, fetch_mode: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.fetch_mode = fetch_mode
        self.add_marker("tinymemory")

    def runtest(self) -> None:
        run = kit_run(self.config)
        pool = self.config.stash.get(POOL, None)
        with showing_progress(self.config):
            if pool is not None:
                entry, replay = pool.result(self)
            else:
                entry, replay = run.run_check(self.check, self.fetch_mode)
        _record(self, entry)
        if entry.outcome == "failed":
            header = f"{entry.id} ({self.check.clause})"
            text = _failure_text(header, entry.reason, replay, self.check.id)
            full = run.full_traces.get(entry.id)
            raise CheckFailed(text + trace_text(self.config, entry, full), entry.reason)
        _end_without_failing(entry)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CheckFailed):
            return excinfo.value.shown(self.nodeid)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.check.id}: {self.check.title}"


class FuzzItem(pytest.Item):
    """One fuzz target (a differential state machine) run against the driver."""

    def __init__(self, *, target: FuzzTarget, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target
        self.add_marker("tinymemory")

    def runtest(self) -> None:
        run = kit_run(self.config)
        pool = self.config.stash.get(POOL, None)
        with showing_progress(self.config):
            if pool is not None:
                entry, replay = pool.result(self)
            else:
                entry, replay = run.run_fuzz_target(self.target)
        _record(self, entry)
        if entry.outcome == "failed":
            header = f"{self.target.id} ({self.target.clause})"
            text = _failure_text(header, entry.reason, replay, self.target.id)
            full = run.full_traces.get(entry.id)
            raise CheckFailed(text + trace_text(self.config, entry, full), entry.reason)
        _end_without_failing(entry)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CheckFailed):
            return excinfo.value.shown(self.nodeid)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.target.id}: {self.target.title}"


def _record(item: pytest.Item, entry: CheckEntry) -> None:
    # User properties travel with the report to the xdist controller.
    item.user_properties.append((PROPERTY, entry.model_dump(mode="json")))


def _end_without_failing(entry: CheckEntry) -> None:
    if entry.outcome == "waived":
        pytest.xfail(entry.reason)
    if entry.outcome == "skipped":
        pytest.skip(entry.reason)
    if entry.outcome == "inconclusive":
        pytest.skip(f"INCONCLUSIVE: {entry.reason}")


def entry_from_properties(properties: Any) -> CheckEntry | None:
    """The report entry a check item recorded in its user properties, if any."""
    for name, value in properties:
        if name == PROPERTY and isinstance(value, dict):
            return CheckEntry.model_validate(value)
    return None


def add_items(session: pytest.Session, run: KitRun, items: list[pytest.Item]) -> None:
    """Append one item per check of the run, under a node named after the driver; on a
    process where the driver could not be built, a collection error instead."""
    nodeid = suite_nodeid(run)
    suite = DriverSuite.from_parent(session, name=SUITE, nodeid=nodeid)
    if run.facts.build_error is not None:
        message = f"the driver could not be built on {run.worker}: {run.facts.build_error}"
        session.ihook.pytest_collectreport(
            report=pytest.CollectReport(nodeid, "failed", message, [])
        )
        return
    run.read_facts()
    added: list[pytest.Item] = []
    for chk in run.checks():
        for mode in run.fetch_modes(chk):
            item_name = chk.id if mode is None else f"{chk.id}[{mode}]"
            added.append(CheckItem.from_parent(suite, name=item_name, check=chk, fetch_mode=mode))
    if run.settings.fuzz:
        for target in run.fuzz_targets():
            added.append(FuzzItem.from_parent(suite, name=target.id, target=target))
    if run.worker != "main":
        # xdist hands the items out in this order, a few at a time to whichever worker is
        # free: the longest checks first, so that no worker is left running one long check
        # while the others have finished; the whole-store readers last, as the gate orders
        # them; and the fuzz targets after all, one to each worker then free (first, one
        # would hold its worker's loop from the start, and a worker runs at once only the
        # items it has been sent). Every worker sorts alike, as xdist requires.
        added.sort(key=_handed_out_first, reverse=True)
    items.extend(added)
    # Reported as collected, so "collected N items" counts the checks.
    session.ihook.pytest_collectreport(
        report=pytest.CollectReport(nodeid, "passed", None, list(added))
    )


def _handed_out_first(item: pytest.Item) -> tuple[bool, int]:
    """What xdist should hand out first: a check that does not read the whole store, then
    the most driver calls it typically makes; a fuzz target last."""
    if isinstance(item, CheckItem):
        return not item.check.whole_store, typical_calls(item.check.id)
    return False, -1


class RunHooks:
    """Session hooks of a run with a driver, registered only when one is asked for."""

    def __init__(
        self, run: KitRun, ledger: Ledger, config: pytest.Config, role: Role, watch: InterruptWatch
    ) -> None:
        self.run = run
        self.ledger = ledger
        self.config = config
        self.role = role
        self.watch = watch
        self.suite = suite_nodeid(run)
        self.final: Report | None = None
        """The report of the finished run, once it is made."""
        report = run.settings.report
        self.output_log = OutputLog(None if report is None else log_path(report))
        # Only the process that runs and reports the checks can go on past a stuck call.
        self.abandonment = Abandonment(run, config, ledger if role == "main" else None, watch)
        self._previous_handler = set_abandon_handler(self.abandonment)

    @property
    def reports(self) -> bool:
        """Whether this process writes the report (not an xdist worker)."""
        return self.role != "worker"

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        d = self.run.driver
        source = f" ({d.distribution} {d.version})" if d.distribution else ""
        profiles = ", ".join(p for p in self.run.settings.profiles() if p in d.profiles)
        lines = [
            f"tinymemory: driver `{d.name}`{source}, profiles {profiles}; seed "
            f"{self.ledger.seed} (replay with --conformance-seed {self.ledger.seed})"
        ]
        if self.run.settings.repeat > 1:
            lines.append(f"tinymemory: each check runs {self.run.settings.repeat} times")
        return lines

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.abandonment.session = session
        # Capture is off at this point: the guard keeps a copy of the terminal itself.
        self.abandonment.terminal = guard_terminal(self.config, self.run.redactor)
        concurrency = concurrency_of(self.run)
        if self.role == "controller" or concurrency is None:
            return
        if concurrency.used > 1:
            ledger = self.ledger if self.role == "main" else None
            self.config.stash[POOL] = ItemPool(self.run, session, ledger)
        else:
            self.run.facts.concurrency = concurrency.model_dump(mode="json")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        # What the abandon handler reports, should a call of this item hang.
        kit_item = isinstance(item, CheckItem | FuzzItem)
        self.abandonment.begin(item if kit_item else None)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        try:
            return (yield)
        finally:
            self.abandonment.ended(item)

    def pytest_runtest_logfinish(self) -> None:
        self.abandonment.item = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.role == "main":
            self.ledger.select(
                i for i in (item_id_of(item.nodeid, self.suite) for item in session.items) if i
            )
            self.write_progress()

    def pytest_report_teststatus(self, report: pytest.TestReport) -> Any:
        if getattr(report, "tinymemory_abandoned", False):
            return "", "", ""
        entry = entry_from_properties(getattr(report, "user_properties", ()))
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
        # Point a skip at the check, not at the line of the kit that raised it; a skip
        # for a profile the driver does not offer points at the suite, so `-rs` folds
        # those into one line.
        if (
            isinstance(item, CheckItem | FuzzItem)
            and report.skipped
            and isinstance(report.longrepr, tuple)
        ):
            entry = entry_from_properties(report.user_properties)
            offered = entry is None or entry.reason != not_offered_reason(
                self.run.driver.name, entry.profile
            )
            where = item.nodeid if offered else self.suite
            report.longrepr = cast(Any, (where, None, report.longrepr[2]))
        # What the driver printed, and any raw traceback, reach the terminal, JUnit XML
        # and the xdist controller only through this report.
        redact_report(report, self.run.redactor)
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # On the xdist controller this sees every worker's reports, so the report merges them.
        if not self.reports:
            return
        item_id = item_id_of(report.nodeid, self.suite)
        if item_id is None:
            return
        # First, so the terminal and JUnit XML see the driver's output trimmed.
        self._keep_output(item_id, report)
        entry = entry_from_properties(report.user_properties)
        if entry is not None and report.when == "call":
            self.ledger.record(entry)
        elif report.when not in ("setup", "call", "teardown") and report.failed:
            # xdist's report for the item a worker was running when it died.
            node = getattr(report, "node", None)
            worker = str(getattr(getattr(node, "gateway", None), "id", "?"))
            self.ledger.record_crash(item_id, worker, str(report.longrepr))
        elif report.when in ("setup", "call") and (report.failed or report.skipped):
            outcome: OutcomeName = "skipped" if report.skipped else "failed"
            self.ledger.record_unrecorded(item_id, outcome, _longrepr_text(report))
        else:
            return
        self.write_progress()

    def _keep_output(self, item_id: str, report: pytest.TestReport) -> None:
        """Append what the driver wrote in this phase of the check to the log, whole, and
        leave the report with it trimmed."""
        kept: list[tuple[str, str]] = []
        for name, content in report.sections:
            if name.startswith("Captured ") and name.endswith(f" {report.when}"):
                self.output_log.append(f"{item_id}: {name.lower()}", content)
            if name.startswith("Captured "):
                content = trimmed(content, self.output_log.path)
            kept.append((name, content))
        report.sections = kept

    def write_progress(self) -> None:
        """Rewrite the report with what has finished so far (the rest `not run`, the run
        `unfinished`), so a run killed half-way leaves what it learnt; the final report
        replaces it."""
        path = self.run.settings.report
        if path is None or self.final is not None:
            return
        # A report that cannot be written now is said once, when the final one fails too.
        with contextlib.suppress(OSError):
            report = self.ledger.report(finished=False)
            write_report(path, report, self.run.redactor, compact=True)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if self.watch.signalled:
            self.ledger.interrupted = True
        else:
            self.ledger.stopped = str(excinfo.value) or type(excinfo.value).__name__

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # First, so JUnit XML sees it: the driver is shut down before the verdict is
        # reached, as a shutdown that hangs is part of it. An xdist worker reports that
        # to the controller like a check.
        pool = self.config.stash.get(POOL, None)
        if pool is not None:
            self.run.facts.concurrency = pool.close().model_dump(mode="json")
        for entry in self.run.close():
            report_entry(self.config, self.run, entry)
        if self.role == "worker":
            workeroutput: dict[str, Any] = getattr(self.config, "workeroutput", {})
            workeroutput[FACTS_KEY] = self.run.facts.to_wire()
            return
        if self.config.getoption("collectonly", False):
            return  # nothing was meant to run, so there is no verdict to give
        if self.role == "main":
            self.ledger.facts.append(self.run.facts)
        stop = session.shouldstop or session.shouldfail
        if stop and not self.ledger.stopped:
            self.ledger.stopped = str(stop)
        hung = self.run.abandoned
        if hung is not None and not self.ledger.stopped:
            self.ledger.stopped = abandoned_line(hung)
        report = self.ledger.report()
        self.final = report
        if report.summary.verdict != "pass" and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        path = self.run.settings.report
        if path is not None:
            try:
                write_report(path, report, self.run.redactor)
            except OSError as exc:
                print(f"tinymemory: cannot write the report to {path}: {exc}", file=sys.stderr)
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self) -> None:
        try:
            self.run.close()
        finally:
            self.watch.stop()
            set_abandon_handler(self._previous_handler)
            if self.abandonment.terminal is not None:
                self.abandonment.terminal.forget_terminal()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        report = self.final
        if report is None or not self.reports:
            return
        for line in summary_lines(report, self.run.settings.report):
            terminalreporter.write_line(line)


def _longrepr_text(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return str(report.longreprtext or report.longrepr)


def abandoned_line(hung: HungCall) -> str:
    """Why a run was given up: the call that could not be interrupted."""
    after = "" if hung.check_id.endswith(".shutdown") else "; checks after it did not run"
    return (
        f"the run was abandoned at {hung.check_id}: {hung.label} ran past the "
        f"{hung.limit:g} s limit and could not be interrupted{after}"
    )


def summary_lines(report: Report, path: Path | None) -> list[str]:
    """What the terminal summary shows: the verdict and what kept the run from a full one,
    levels, inconclusive and flaky checks by name, the seed."""
    s = report.summary
    retries = sum(c.retries for c in report.checks)
    hangs = ", the driver hangs" if hung_calls(report) else ""
    lines = [
        f"tinymemory conformance of `{report.driver.name}`: {s.verdict}{hangs} "
        f"({s.passed} passed, {s.failed} failed, {s.skipped} skipped, {s.waived} "
        f"waived, {s.inconclusive} inconclusive, {s.not_run} not run; retries {retries}; "
        f"seed {report.seed})"
    ]
    lines += [f"  {line.lstrip('- ')}" for line in verdict_lines(report)[1:]]
    if report.concurrency is not None:
        lines.append(f"  {report.concurrency.sentence()}")
    rebuilt = report.driver.rebuilt
    if len(rebuilt) == 1:
        lines.append(f"  the driver was {rebuilt[0]}")
    elif rebuilt:
        # Each hung check is named below; one line says what the run did about them.
        lines.append(
            f"  the driver was built again {len(rebuilt)} times, each time after a call it "
            f"could not interrupt, left behind (the report lists them)"
        )
    for name, info in sorted(report.profiles.items()):
        features = ", ".join(info.features) or "none"
        partial = info.partial_note()
        if partial is None:
            lines.append(f"  {name}: level {info.shown_level()} (offered features: {features})")
        else:
            lines.append(f"  {name}: level {info.level} ({partial}; offered features: {features})")
    lines += [f"  {not_offered_line(p, n)}" for p, n in not_offered(report).items()]
    for entry in report.checks:
        if is_not_offered(report, entry):
            continue
        if entry.outcome == "inconclusive":
            lines.append(f"  inconclusive {entry.id}: {entry.reason}")
        elif entry.outcome == "waived" and entry.waived_by is not None:
            lines.append(
                f"  waived {entry.id}: by the waiver for {entry.waived_by}, whose fault left "
                f"it inconclusive"
            )
        elif entry.outcome == "skipped" and not_applicable(entry.reason):
            lines.append(f"  {entry.id}: {entry.reason}")
        elif entry.repeats is not None and entry.outcome in ("failed", "waived"):
            lines.append(f"  {entry.id}: {entry.shown_outcome()}")
        elif entry.id.startswith("fuzz.") and entry.outcome == "passed":
            # The seed is what reproduces a random run: always shown.
            lines.append(f"  {entry.id}: {entry.reason}")
    if path is not None:
        log = log_path(path)
        logged = f", {log} (the driver's output)" if log.is_file() and log.stat().st_size else ""
        lines.append(
            f"  report: {path} (JSON), {path.with_suffix('.md')} (Markdown), "
            f"{html_path(path)} (HTML){logged}"
        )
    else:
        lines.append(
            "  no report written: --conformance-report=PATH.json (--report with "
            "tinymemory-conformance run, or conformance-report in [tool.tinymemory]) writes "
            "a JSON report, and a Markdown summary and an HTML page beside it"
        )
    return lines
