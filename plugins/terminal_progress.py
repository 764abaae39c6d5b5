"""Showing how far a fuzz target or a long check has got on the terminal while it runs
(never in a report).

On a terminal the line is rewritten in place about once a second; in a log (no
terminal) a line is added every ten seconds, so a CI log shows the run is alive without
drowning in it. `-q` silences it; so does a run without a terminal reporter (an xdist
worker, whose output nobody reads).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Final

import pytest

from conformance.progress import INTERVAL, Progress, listening

__all__ = ["LOG_INTERVAL", "showing_progress"]

LOG_INTERVAL: Final = 10.0
"""Seconds between two progress lines when the output is not a terminal."""


class _TerminalProgress:
    def __init__(self, config: pytest.Config, reporter: Any) -> None:
        self.capture = config.pluginmanager.get_plugin("capturemanager")
        self.reporter = reporter
        self.tty = bool(getattr(reporter, "isatty", False))
        self.pending = False
        """A line rewritten in place awaits its newline."""

    def __call__(self, progress: Progress) -> None:
        disabled = (
            self.capture.global_and_fixture_disabled()
            if self.capture is not None
            else contextlib.nullcontext()
        )
        with disabled:
            line = progress.line()
            if self.tty:
                if not self.pending:
                    self.reporter.ensure_newline()
                self.reporter.rewrite(line, erase=True)
                self.pending = not progress.final
                if progress.final:
                    self.reporter.write("\n")
            else:
                self.reporter.ensure_newline()
                self.reporter.write_line(line)
            self.reporter.flush()

    def close(self) -> None:
        # A phase cut short (an interrupt) leaves the cursor after its last line.
        if self.pending:
            self.reporter.write("\n")
            self.pending = False


@contextlib.contextmanager
def showing_progress(config: pytest.Config) -> Iterator[None]:
    """Show the progress of the fuzz runs and long checks inside the block on the
    terminal, unless `-q`."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    worker = hasattr(config, "workerinput")
    if reporter is None or worker or config.get_verbosity() < 0:
        yield
        return
    shown = _TerminalProgress(config, reporter)
    interval = INTERVAL if shown.tty else LOG_INTERVAL
    try:
        with listening(shown, interval):
            yield
    finally:
        shown.close()
