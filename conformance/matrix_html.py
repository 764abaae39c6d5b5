"""The compatibility matrix as one self-contained HTML page: levels at the top, then one
row per check, each cell its outcome with the reason on hover (`title`) and, where the
outcome is neither a pass nor a skip, in an expandable `<details>` too. The filter bar hides rows by
outcome (a row stays while any of its cells has a shown outcome; `not offered` and
`absent` count only in a row of nothing else) and by profile."""

from __future__ import annotations

from typing import Final

import conformance
from conformance.html_page import FILTERS, data_attrs, esc, page, token
from conformance.matrix import ABSENT, NOT_OFFERED, Cell, Matrix

TITLE_WIDTH: Final = 1000
"""Characters of a reason the hover text keeps; the `<details>` holds it whole."""


def _title(reason: str) -> str:
    return reason if len(reason) <= TITLE_WIDTH else reason[: TITLE_WIDTH - 1] + "…"


def _cell(cell: Cell) -> str:
    css = f"o-{token(cell.outcome)}"
    if not cell.reason:
        return f'<td class="{css}">{esc(cell.text)}</td>'
    title = f' title="{esc(_title(cell.reason))}"'
    if cell.outcome in ("passed", "skipped", NOT_OFFERED, ABSENT):
        return f'<td class="{css}"{title}>{esc(cell.text)}</td>'
    return (
        f'<td class="{css}"{title}><details><summary>{esc(cell.text)}</summary>'
        f"<pre>{esc(cell.reason)}</pre></details></td>"
    )


def _levels(matrix: Matrix) -> list[str]:
    head = "".join(f"<th>{esc(c.label)}</th>" for c in matrix.columns)
    lines = [
        '<section id="levels">',
        "<h2>Levels</h2>",
        '<table class="levels">',
        f"<thead><tr><th></th>{head}</tr></thead>",
        "<tbody>",
    ]
    origins = "".join(
        "<td>"
        + esc(" ".join(p for p in (c.report.driver.distribution, c.report.driver.version) if p))
        + "</td>"
        for c in matrix.columns
    )
    lines.append(f"<tr><th>driver</th>{origins}</tr>")
    verdicts = "".join(
        f'<td class="vd-{esc(c.report.summary.verdict)}">{esc(c.report.summary.verdict)}</td>'
        for c in matrix.columns
    )
    lines.append(f'<tr id="verdicts"><th>verdict</th>{verdicts}</tr>')
    for profile in matrix.profiles:
        levels = "".join(f"<td>{esc(c.level(profile))}</td>" for c in matrix.columns)
        lines.append(f'<tr data-level="{esc(profile)}"><th>{esc(profile)}</th>{levels}</tr>')
    lines += ["</tbody>", "</table>", "</section>"]
    return lines


def _checks(matrix: Matrix) -> list[str]:
    head = "".join(
        f'<th title="{esc(c.report.driver.distribution or "")}">{esc(c.label)}</th>'
        for c in matrix.columns
    )
    lines = [
        '<section id="checks" data-group="checks">',
        f"<h2>Checks ({len(matrix.rows)})</h2>",
        '<table class="matrix" id="matrix">',
        f'<thead><tr><th class="check-id">check</th>{head}</tr></thead>',
        "<tbody>",
    ]
    for row in matrix.rows:
        # `not offered` and `absent` say nothing of the check: a row whose every other
        # cell passed is hidden with the passes (`#hide=passed`).
        outcomes = [c.outcome for c in row.cells if c.outcome not in (NOT_OFFERED, ABSENT)]
        outcomes = outcomes or [c.outcome for c in row.cells]
        cells = "".join(_cell(cell) for cell in row.cells)
        lines.append(
            f'<tr id="{esc(f"row-{row.check_id}")}"{data_attrs(outcomes, row.profile)}>'
            f'<td class="check-id"><code>{esc(row.check_id)}</code></td>{cells}</tr>'
        )
    lines += ["</tbody>", "</table>", "</section>"]
    return lines


def to_html(matrix: Matrix, title: str = "TinyMemory compatibility matrix") -> str:
    """The matrix's page: self-contained, readable without JavaScript."""
    version = conformance.__version__
    drivers = ", ".join(c.label for c in matrix.columns)
    body = [
        "<header>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="muted">{len(matrix.columns)} reports: {esc(drivers)}. Hover over a cell '
        f"for its reason; open a cell that did not pass for the whole of it.</p>",
        "</header>",
        *_levels(matrix),
        FILTERS,
        *_checks(matrix),
        f"<footer>Written by tinymemory-conformance {esc(version)} "
        f"(tinymemory-conformance report matrix).</footer>",
    ]
    return page(title, body, f"tinymemory-conformance {version}")
