"""Spare a conformance run the import of hypothesis it does not use.

hypothesis's own pytest plugin, loaded wherever hypothesis is installed, imports all of
hypothesis when the session ends (0.07 s in each process: the main one, or the xdist
controller and every worker) to list the observability files its tests wrote. A session
that never imported hypothesis ran no hypothesis test and wrote none: the plugin is let go
before the terminal summary, and a run without `--fuzz` ends that much sooner.
"""

from __future__ import annotations

import sys

import pytest

__all__ = ["SparesHypothesisSummary"]

HYPOTHESIS_PLUGIN = "hypothesispytest"
"""The name hypothesis's pytest plugin is registered under (its entry point's)."""


class SparesHypothesisSummary:
    """Registered for a run with a driver."""

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if "hypothesis" in sys.modules:
            return
        manager = session.config.pluginmanager
        plugin = manager.get_plugin(HYPOTHESIS_PLUGIN)
        if plugin is not None:
            manager.unregister(plugin)
