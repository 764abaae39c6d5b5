"""Writing the JSON report, its Markdown summary and its HTML page, each whole or not at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conformance.redaction import Redactor
from conformance.report import Report, to_markdown
from conformance.report_html import to_html


def _replace(path: Path, text: str) -> None:
    # Written beside the target and renamed over it: a run killed while writing leaves
    # the previous file, never half of one.
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def html_path(path: Path) -> Path:
    """Where the HTML page of the report at `path` goes: beside it, with `.html`."""
    return path.with_suffix(".html")


def write_report(
    path: Path, report: Report, redactor: Redactor | None = None, *, compact: bool = False
) -> None:
    """Write `report` as JSON to `path`, as Markdown beside it (`.md`) and as an HTML
    page (`.html`), every credential of `redactor` redacted; `OSError` when any cannot
    be written. `compact`: JSON on one line, which takes a fraction of the time (the
    reports rewritten after every check are)."""
    shown = redactor or Redactor()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = shown.value(report.model_dump(mode="json"))
    _replace(path, json.dumps(data, indent=None if compact else 2) + "\n")
    _replace(path.with_suffix(".md"), shown.text(to_markdown(report)))
    # The page is made from the redacted report: a credential escaped into markup
    # (`&amp;` for `&`) would no longer be found by searching the page for it.
    page = to_html(Report.model_validate(data) if shown else report)
    _replace(html_path(path), shown.text(page))
