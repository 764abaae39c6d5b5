"""What the driver writes on stdout and stderr: kept whole in the run's log, shown trimmed.

pytest captures a check's output and shows it under a failure; the kit trims what it
shows (the first and the last lines) and appends it whole to the log beside the report
(`PATH.log` for `--conformance-report=PATH.json`), as each check ends. What the driver
writes while it is imported and built, before any check, is captured here too: a line
says how much and where it is kept, rather than the terminal taking all of it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

HEAD_LINES: Final = 10
"""Lines shown from the start of a long output."""

TAIL_LINES: Final = 20
"""Lines shown from its end (where a failure's cause usually is)."""

LINE_WIDTH: Final = 400
"""Characters of one line shown."""


def log_path(report: Path) -> Path:
    """Where the whole output goes for the report at `report`: beside it, `.log`."""
    return report.with_suffix(".log")


def _line(line: str) -> str:
    return line if len(line) <= LINE_WIDTH else f"{line[:LINE_WIDTH]}… ({len(line)} characters)"


def trimmed(text: str, log: Path | None) -> str:
    """`text`, its first and last lines only when it is long, each line cut to a width,
    with a line saying how much was left out and where the whole is (`log`)."""
    lines = text.splitlines()
    if len(lines) <= HEAD_LINES + TAIL_LINES and all(len(x) <= LINE_WIDTH for x in lines):
        return text
    where = (
        f"the whole output is in {log}"
        if log is not None
        else "--conformance-report=PATH.json keeps the whole output in PATH.log"
    )
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        note = f"[lines cut to {LINE_WIDTH} characters: {where}]"
        return "\n".join([*map(_line, lines), note]) + "\n"
    left = len(lines) - HEAD_LINES - TAIL_LINES
    note = f"[… {left} lines ({len(text)} characters in all) trimmed: {where} …]"
    head, tail = map(_line, lines[:HEAD_LINES]), map(_line, lines[-TAIL_LINES:])
    return "\n".join([*head, note, *tail]) + "\n"


class OutputLog:
    """The run's log of the driver's output, appended as checks end (`None` path: no log)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def start(self) -> None:
        """Empty the log of an earlier run (a missing folder is left to the report to say)."""
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.write_text("", encoding="utf-8")

    def append(self, title: str, text: str) -> None:
        """Add `text` under a `==== title ====` line; a log that cannot be written is
        skipped (the report says what matters)."""
        if self.path is None or not text:
            return
        with contextlib.suppress(OSError), self.path.open("a", encoding="utf-8") as log:
            log.write(f"==== {title} ====\n{text}")
            if not text.endswith("\n"):
                log.write("\n")


@dataclass
class Captured:
    """What was written on the standard descriptors while a block ran."""

    out: str = ""
    err: str = ""


@contextlib.contextmanager
def captured_descriptors() -> Iterator[Captured]:
    """Capture file descriptors 1 and 2 (and Python's own buffered streams) for a block:
    what a driver, or native code it calls, writes there."""
    captured = Captured()
    streams = (sys.stdout, sys.stderr)
    for stream in streams:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        saved = [os.dup(1), os.dup(2)]
        try:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            yield captured
        finally:
            for stream in streams:
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    stream.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            for file, name in ((out, "out"), (err, "err")):
                file.seek(0)
                setattr(captured, name, file.read().decode("utf-8", "replace"))
