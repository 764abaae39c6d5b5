"""The run's length, said early: once the first checks show a pace at which the whole run
would take more than `LONG_RUN` seconds, one terminal line says how long (never in a
report). A fast driver's run, `-q` and an xdist worker say nothing."""

from __future__ import annotations

from typing import Any, Final

import pytest

from conformance import clock
from plugins.xdist_support import item_id_of

__all__ = ["FIRST_CHECKS", "LONG_RUN", "RunPace", "pace_line"]

LONG_RUN: Final = 30.0
"""Seconds a run must be projected to take before its length is said."""

FIRST_CHECKS: Final = 3
"""Checks that end before the pace is trusted (fewer when they already took `EARLY` s)."""

EARLY: Final = 10.0


def pace_line(total: int, seconds: float) -> str:
    """`tinymemory: 32 checks, about 48 s at the pace so far`."""
    minutes = f" ({seconds / 60:.0f} min)" if seconds >= 120 else ""
    plural = "s" * (total != 1)
    return f"tinymemory: {total} check{plural}, about {seconds:.0f} s{minutes} at the pace so far"


def _is_check(item_id: str | None) -> bool:
    # Fuzz targets run for a budget of their own: the pace of checks does not tell theirs.
    return item_id is not None and not item_id.startswith("fuzz.")


class RunPace:
    """Counts the checks of the run as they end and says, once, how long the run will take
    when that is long."""

    def __init__(self, config: pytest.Config, suite: str) -> None:
        self.config = config
        self.suite = suite
        self.total = 0
        self.done = 0
        self.started: float | None = None
        self.said = False

    def _check(self, nodeid: str) -> bool:
        return _is_check(item_id_of(nodeid, self.suite))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = sum(1 for item in session.items if self._check(item.nodeid))

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        if self.started is None and self._check(nodeid):
            self.started = clock.perf_counter()

    @pytest.hookimpl(tryfirst=True)  # before the check's letter, so on a line of its own
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" or self.started is None or not self._check(report.nodeid):
            return
        self.done += 1
        if self.said or self.done >= self.total:
            return
        elapsed = clock.perf_counter() - self.started
        if self.done < FIRST_CHECKS and elapsed < EARLY:
            return
        projected = elapsed / self.done * self.total
        if projected < LONG_RUN:
            return
        self.said = True
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or self.config.get_verbosity() < 0:
            return
        reporter.ensure_newline()
        reporter.write_line(pace_line(self.total, projected))


class ControllerPace(RunPace):
    """The xdist controller's: it collects nothing, so it counts the checks a worker
    collected."""

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.total:
            self.total = sum(1 for nodeid in ids if self._check(nodeid))
