"""What is done with a driver call that cannot be interrupted.

The time limit interrupts a call past `--driver-timeout`; a driver that swallows every
interrupt, ignores `SIGALRM` or blocks in native code is still stuck a grace period later.
Then, on the watchdog thread, the hung check is reported inconclusive (on the terminal,
in JUnit XML, to the xdist controller). Where the kit can go on (a check was running, in
the process that reports), the stuck call is left behind on its thread: the driver is
built again, as it was at the start, and the checks after the hung one run on a thread
of their own against that fresh instance; the process ends when they have. Elsewhere
(an xdist worker, a hang outside any check, too many hangs) the session is finished (the
report written) and the process ends with a non-zero status. The stuck driver is never
called again.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any, Final, cast

import pytest
from _pytest.runner import call_and_report

from conformance import clock
from conformance.checks.context import short_label
from conformance.checks.outcome import Inconclusive
from conformance.driver import DriverError
from conformance.interrupts import InterruptWatch
from conformance.report import CheckEntry, Hang
from conformance.time_limit import ABANDONED_EXIT, HungCall
from plugins.secrecy import RedactingStream

if TYPE_CHECKING:
    from plugins.ledger import Ledger
    from plugins.run import KitRun

__all__ = ["HARD_STOP", "MAX_REBUILDS", "Abandonment", "report_entry"]

HARD_STOP = 30.0
"""Seconds the report may take to write before the process ends without it."""

MAX_REBUILDS: Final = 8
"""Calls a run leaves behind (each on a thread that may go on spending the CPU) before it
gives up on the driver instead of building it again."""


def left_behind_reason(hung: HungCall) -> str:
    """Why a check is inconclusive when the run went on without its call."""
    return (
        f"the call ran past the {hung.limit:g} s limit and had not returned {hung.grace:g} "
        f"s later: the driver does not let the kit interrupt it (it swallows the "
        f"interrupt, ignores SIGALRM or blocks in native code), so the kit left the call "
        f"behind and ran the checks after it on a fresh instance of the driver"
    )


def rebuilt_line(item_id: str, hung: HungCall) -> str:
    """Why the driver was built again part-way through the run, for the report."""
    return (
        f"built again after {item_id}: {hung.label} ran past the {hung.limit:g} s limit "
        f"and could not be interrupted; the checks after it ran on the fresh instance"
    )


PROPERTY = "tinymemory"


class Abandonment:
    """The abandon handler of one pytest process's run."""

    def __init__(
        self,
        run: KitRun,
        config: pytest.Config,
        ledger: Ledger | None = None,
        watch: InterruptWatch | None = None,
    ) -> None:
        """`ledger`: the run's, in the process that reports (where the run may go on)."""
        self.run = run
        self.config = config
        self.ledger = ledger
        self.watch = watch
        self.session: pytest.Session | None = None
        self.item: pytest.Item | None = None
        """The check item running now, if any."""
        self.started = 0.0
        self.terminal: RedactingStream | None = None
        self.left_behind: set[str] = set()
        """Node ids of the checks whose call was left behind, still running."""
        self._lock = threading.Lock()
        self._returned: str | None = None
        """The node id of the check whose run came back (it is being reported)."""

    def begin(self, item: pytest.Item | None) -> None:
        """`item` (a check item, or None for any other) starts running."""
        self.item = item
        self._returned = None
        self.started = clock.perf_counter()

    def __call__(self, hung: HungCall) -> None:
        item = self.item
        if item is not None and self._can_go_on(item):
            with self._lock:
                if self._returned == item.nodeid:
                    # Its call came back as it was given up: pytest's loop goes on.
                    return
                self.left_behind.add(item.nodeid)
            self._go_on(item, hung)
            return
        self._end(hung)

    # -- going on without the stuck call -------------------------------------------------

    def _can_go_on(self, item: pytest.Item) -> bool:
        session = self.session
        return (
            self.ledger is not None
            and session is not None
            and len(self.left_behind) < MAX_REBUILDS
            and item in session.items
        )

    def _go_on(self, item: pytest.Item, hung: HungCall) -> None:
        """Report `item` inconclusive and run the checks after it on a new thread (the
        watchdog thread must go back to watching), against a fresh instance."""
        assert self.ledger is not None
        self.ledger.rebuilt.append(rebuilt_line(item.name, hung))
        self._to_terminal()
        self.item = None
        item.ihook.pytest_runtest_logreport(
            report=self._report(item, hung, left_behind_reason(hung))
        )
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        thread = threading.Thread(
            target=self._run_rest,
            args=(item,),
            name=f"tinymemory-checks-{len(self.left_behind)}",
            daemon=True,
        )
        thread.start()

    def _run_rest(self, stuck: pytest.Item) -> None:
        # pytest's own loop is stuck in the driver's call on another thread: this thread
        # takes over, runs the checks after `stuck`, ends the session and the process.
        session = self.session
        assert session is not None and self.ledger is not None
        try:
            rest = session.items[session.items.index(stuck) + 1 :]
            call_and_report(stuck, "teardown", log=True, nextitem=rest[0] if rest else None)
            try:
                self.run.rebuild()
            except DriverError as exc:
                self.ledger.stopped = (
                    f"the driver could not be built again after {stuck.name}: {exc}"
                )
                rest = []
            status = self._run_items(session, rest)
            if status == pytest.ExitCode.OK and session.testsfailed:
                status = pytest.ExitCode.TESTS_FAILED
            session.exitstatus = status
            self.config.hook.pytest_sessionfinish(session=session, exitstatus=status)
            self._flush()
            os._exit(int(session.exitstatus))
        except BaseException:
            traceback.print_exc()
            self._flush()
            os._exit(pytest.ExitCode.INTERNAL_ERROR)

    def _run_items(self, session: pytest.Session, items: list[pytest.Item]) -> pytest.ExitCode:
        """Run `items` as pytest's loop would; the exit status it would give."""
        assert self.ledger is not None
        for i, item in enumerate(items):
            if self.watch is not None and self.watch.signalled:
                # Ctrl-C reached the stuck thread, which may swallow it: seen here.
                self.ledger.interrupted = True
                return pytest.ExitCode.INTERRUPTED
            nextitem = items[i + 1] if i + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail:  # -x, --maxfail: pytest's loop raises `Failed`
                self.ledger.stopped = str(session.shouldfail)
                return pytest.ExitCode.TESTS_FAILED
            if session.shouldstop:
                self.ledger.stopped = str(session.shouldstop)
                return pytest.ExitCode.INTERRUPTED
        return pytest.ExitCode.OK

    def ended(self, item: pytest.Item) -> None:
        """`item`'s run came back. If its call was left behind, the thread is kept from
        going on with pytest's loop, for ever: another thread runs the session now."""
        with self._lock:
            left = item.nodeid in self.left_behind
            if not left:
                self._returned = item.nodeid
        if not left:
            return
        while True:
            try:
                time.sleep(3600)
            except BaseException:
                continue  # a Ctrl-C here is seen by the thread running the checks

    # -- ending the run ------------------------------------------------------------------

    def _flush(self) -> None:
        for stream in (sys.stdout, sys.stderr, self.terminal):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass

    def _end(self, hung: HungCall) -> None:
        stop = threading.Timer(HARD_STOP, os._exit, (ABANDONED_EXIT,))
        stop.daemon = True
        stop.start()
        self.run.abandoned = hung
        self._to_terminal()
        item = self.item
        if item is not None:
            item.ihook.pytest_runtest_logreport(report=self._report(item, hung))
        else:
            # Outside any check (reading the driver's declarations, shutting it down).
            report_entry(self.config, self.run, self.entry(hung.check_id or "run", hung))
        if not hasattr(self.config, "workerinput") and self.session is not None:
            # The session ends here, as it would have: JUnit XML, the report, the summary.
            self.session.exitstatus = pytest.ExitCode.TESTS_FAILED
            self.config.hook.pytest_sessionfinish(
                session=self.session, exitstatus=pytest.ExitCode.TESTS_FAILED
            )
        self._flush()
        os._exit(ABANDONED_EXIT)

    def _to_terminal(self) -> None:
        # pytest's capture holds the standard descriptors while a check runs; the
        # terminal is written through its own copy, so the stuck driver's output stays
        # captured (it may print a credential) rather than reaching the screen.
        if self.terminal is not None and self.terminal.uncaptured():
            return
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=True)

    def _captured(self) -> list[tuple[str, str]]:
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if capture is None:
            return []
        try:
            out, err = capture.read_global_capture()
        except Exception:  # capture already stopped: nothing to show
            return []
        redactor = self.run.redactor
        return [
            (f"Captured {name} call", redactor.text(text))
            for name, text in (("stdout", out), ("stderr", err))
            if text
        ]

    def _report(
        self, item: pytest.Item, hung: HungCall, reason: str | None = None
    ) -> pytest.TestReport:
        entry = self.entry(item.name, hung, reason)
        return pytest.TestReport(
            nodeid=item.nodeid,
            location=item.location,
            keywords={},
            outcome="skipped",
            longrepr=cast(Any, (item.nodeid, None, f"INCONCLUSIVE: {entry.reason}")),
            when="call",
            sections=self._captured(),
            duration=clock.perf_counter() - self.started,
            user_properties=[(PROPERTY, entry.model_dump())],
        )

    def entry(self, name: str, hung: HungCall, reason: str | None = None) -> CheckEntry:
        """The report entry of the check named `name` (an item's name) that hung;
        `reason`: why it is inconclusive, if not that the run was abandoned."""
        check_id = name.partition("[")[0]
        chk = next((c for c in self.run.checks() if c.id == check_id), None)
        target = next((t for t in self.run.fuzz_targets() if t.id == check_id), None)
        named = "engine" if check_id.startswith(("engine.", "fuzz.engine.")) else "provider"
        profile: Any = chk.profile if chk else target.profile if target else named
        return CheckEntry(
            id=name,
            profile=profile,
            outcome="inconclusive",
            reason=str(Inconclusive(check_id, hung.label, reason or hung.reason)),
            duration=round(clock.perf_counter() - self.started, 6),
            calls=1,
            clause=chk.clause if chk else target.clause if target else "",
            optional=bool(chk and chk.needs),
            hang=Hang(call=short_label(hung.label)),
        )


def report_entry(config: pytest.Config, run: KitRun, entry: CheckEntry) -> None:
    """Report `entry`, which belongs to no collected item, as if a check had ended with
    it: on the terminal, in JUnit XML, in the report, and from an xdist worker to the
    controller."""
    nodeid = f"tinymemory/{run.driver.name}::{entry.id}"
    message = f"{entry.outcome.upper()}: {entry.reason}"
    report = pytest.TestReport(
        nodeid=nodeid,
        location=(nodeid, None, entry.id),
        keywords={},
        outcome="failed" if entry.outcome == "failed" else "skipped",
        longrepr=message if entry.outcome == "failed" else cast(Any, (nodeid, None, message)),
        when="call",
        user_properties=[(PROPERTY, entry.model_dump())],
    )
    config.hook.pytest_runtest_logreport(report=report)
