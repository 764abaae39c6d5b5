"""Giving up a run whose driver call cannot be interrupted.

The time limit interrupts a call past `--driver-timeout`; a driver that swallows every
interrupt, ignores `SIGALRM` or blocks in native code is still stuck a grace period later.
Then, on the watchdog thread, the hung check is reported inconclusive (on the terminal,
in JUnit XML, to the xdist controller), the session is finished (the report written) and
the process ends with a non-zero status. The stuck driver is never called again.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any, cast

import pytest

from conformance import clock
from conformance.checks.outcome import Inconclusive
from conformance.report import CheckEntry
from conformance.time_limit import ABANDONED_EXIT, HungCall
from plugins.secrecy import RedactingStream

if TYPE_CHECKING:
    from plugins.run import KitRun

__all__ = ["HARD_STOP", "Abandonment", "report_entry"]

HARD_STOP = 30.0
"""Seconds the report may take to write before the process ends without it."""

PROPERTY = "tinymemory"


class Abandonment:
    """The abandon handler of one pytest process's run."""

    def __init__(self, run: KitRun, config: pytest.Config) -> None:
        self.run = run
        self.config = config
        self.session: pytest.Session | None = None
        self.item: pytest.Item | None = None
        """The check item running now, if any."""
        self.started = 0.0
        self.terminal: RedactingStream | None = None

    def __call__(self, hung: HungCall) -> None:
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
        for stream in (sys.stdout, sys.stderr, self.terminal):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
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

    def _report(self, item: pytest.Item, hung: HungCall) -> pytest.TestReport:
        entry = self.entry(item.name, hung)
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

    def entry(self, name: str, hung: HungCall) -> CheckEntry:
        """The report entry of the check named `name` (an item's name) that hung."""
        check_id = name.partition("[")[0]
        chk = next((c for c in self.run.checks() if c.id == check_id), None)
        target = next((t for t in self.run.fuzz_targets() if t.id == check_id), None)
        named = "engine" if check_id.startswith(("engine.", "fuzz.engine.")) else "provider"
        profile: Any = chk.profile if chk else target.profile if target else named
        return CheckEntry(
            id=name,
            profile=profile,
            outcome="inconclusive",
            reason=str(Inconclusive(check_id, hung.label, hung.reason)),
            duration=round(clock.perf_counter() - self.started, 6),
            calls=1,
            clause=chk.clause if chk else target.clause if target else "",
            optional=bool(chk and chk.needs),
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
