"""Keeping the driver's credentials out of everything pytest shows or writes.

The kit's own messages are redacted where the driver's words enter them. What pytest
adds around them is redacted here: the output a driver printed (captured into every
report, shown on failure and written into JUnit XML), raw tracebacks (with `-l`, their
locals), and, as a last net, every line the terminal shows (warnings, live logs,
internal errors).
"""

from __future__ import annotations

import contextlib
import os
from typing import IO, Any

import pytest
from _pytest._code.code import ReprFileLocation

from conformance.redaction import Redactor
from plugins.failure_repr import failure_repr

__all__ = ["RedactingStream", "guard_terminal", "redact_report"]


class RedactingStream:
    """A text stream that writes to `target` with every credential value redacted."""

    def __init__(self, target: IO[str], redactor: Redactor) -> None:
        self.target = target
        self._redactor = redactor
        self._terminal_fd: int | None = None
        with contextlib.suppress(AttributeError, OSError, ValueError):
            # The terminal's own descriptor, copied while capture is off: see `uncaptured`.
            self._terminal_fd = os.dup(target.fileno())

    def write(self, text: str) -> int:
        self.target.write(self._redactor.text(text))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def uncaptured(self) -> bool:
        """Write from now on to the terminal itself, even while pytest's capture holds the
        standard descriptors (what a stuck driver prints then stays captured). False when
        the terminal had no descriptor of its own to copy."""
        if self._terminal_fd is None:
            return False
        self.target.flush()
        self.target = os.fdopen(self._terminal_fd, "w", encoding="utf-8", errors="replace")
        self._terminal_fd = None
        return True

    def forget_terminal(self) -> None:
        """Close the copy of the terminal's descriptor (at the end of the session)."""
        if self._terminal_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._terminal_fd)
            self._terminal_fd = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


def guard_terminal(config: pytest.Config, redactor: Redactor) -> RedactingStream | None:
    """Route the terminal reporter's output through a `RedactingStream` (`None` when
    there is no terminal reporter). Call it while capture is off (at session start)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    writer = getattr(reporter, "_tw", None)
    file = getattr(writer, "_file", None)
    if file is None:
        return None
    if isinstance(file, RedactingStream):
        return file
    guarded = RedactingStream(file, redactor)
    # pytest offers no public hook on the terminal writer's stream.
    writer._file = guarded  # type: ignore[union-attr]
    return guarded


def redact_report(report: pytest.TestReport | pytest.CollectReport, redactor: Redactor) -> None:
    """Redact what a report carries beyond the kit's own message: captured output,
    a traceback's text, user properties."""
    if not redactor:
        return
    report.sections = [(title, redactor.text(text)) for title, text in report.sections]
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        path, line, message = longrepr
        report.longrepr = (path, line, redactor.text(str(message)))
    elif longrepr is not None:
        text = str(longrepr)
        shown = redactor.text(text)
        if shown != text:
            # The traceback is replaced by its redacted text (colours are lost, the
            # secret too); a summary line stays one, redacted as well.
            crash = getattr(longrepr, "reprcrash", None)
            if isinstance(crash, ReprFileLocation):
                summary = redactor.text(crash.message)
                report.longrepr = failure_repr(shown, summary, crash.path)
            else:
                report.longrepr = shown
    if isinstance(report, pytest.TestReport):
        report.user_properties = [
            (name, redactor.value(value)) for name, value in report.user_properties
        ]
