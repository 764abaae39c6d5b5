"""Writing the JSON report and its Markdown summary, each whole or not at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conformance.redaction import Redactor
from conformance.report import Report, to_markdown


def _replace(path: Path, text: str) -> None:
    # Written beside the target and renamed over it: a run killed while writing leaves
    # the previous file, never half of one.
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def write_report(
    path: Path, report: Report, redactor: Redactor | None = None, *, compact: bool = False
) -> None:
    """Write `report` as JSON to `path` and as Markdown beside it (`.md`), every
    credential of `redactor` redacted; `OSError` when either cannot be written.
    `compact`: JSON on one line, which takes a fraction of the time (the reports
    rewritten after every check are)."""
    shown = redactor or Redactor()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = shown.value(report.model_dump(mode="json"))
    _replace(path, json.dumps(data, indent=None if compact else 2) + "\n")
    _replace(path.with_suffix(".md"), shown.text(to_markdown(report)))
