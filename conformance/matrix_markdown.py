"""The compatibility matrix as Markdown, readable on GitHub: the levels of each driver
first, then one table row per check, the reasons as footnotes (one per distinct
reason, so a reason many checks share is written once)."""

from __future__ import annotations

import re
from typing import Final

from conformance.matrix import ABSENT, NOT_OFFERED, Cell, Matrix

REASON_WIDTH: Final = 300
"""Characters of a reason a footnote keeps (the JSON report holds it whole)."""

_CODE_SPAN: Final = re.compile(r"(`+)(.+?)\1", re.DOTALL)


def _text(text: str) -> str:
    """`text` for GitHub Markdown: `<` outside code spans escaped (GitHub would read
    `<marker>` as a tag and drop it), pipes escaped, one line."""
    text = " ".join(text.split())
    out: list[str] = []
    at = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_plain(text[at : match.start()]))
        out.append(match.group(0))
        at = match.end()
    out.append(_plain(text[at:]))
    return "".join(out).replace("|", "\\|")


def _plain(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_WIDTH else text[: REASON_WIDTH - 1] + "…"


def _shown(cell: Cell) -> str:
    if cell.outcome == "failed":
        return f"**{cell.text}**"
    if cell.outcome == "inconclusive":
        return f"*{cell.text}*"
    if cell.outcome == ABSENT:
        return "—"
    return cell.text


def _with_reason(cell: Cell) -> bool:
    # A pass needs no why (a fuzz target's pass says its statistics, which the report
    # keeps); `not offered` is said once, in the levels.
    return bool(cell.reason) and cell.outcome not in ("passed", NOT_OFFERED, ABSENT)


def to_markdown(matrix: Matrix, heading: str = "##") -> str:
    """The matrix under `heading`-level section titles (`## Levels`, `## Checks`)."""
    header = "| | " + " | ".join(f"`{c.label}`" for c in matrix.columns) + " |"
    rule = "| --- " * (len(matrix.columns) + 1) + "|"
    lines = [f"{heading} Levels", "", header, rule]
    lines.append(
        "| driver | "
        + " | ".join(
            _text(" ".join(p for p in (c.report.driver.distribution, c.report.driver.version) if p))
            or "—"
            for c in matrix.columns
        )
        + " |"
    )
    lines.append(
        "| verdict | " + " | ".join(c.report.summary.verdict for c in matrix.columns) + " |"
    )
    for profile in matrix.profiles:
        lines.append(
            f"| {profile} | " + " | ".join(_text(c.level(profile)) for c in matrix.columns) + " |"
        )
    notes: dict[str, int] = {}
    lines += ["", f"{heading} Checks", "", header.replace("| |", "| check |", 1), rule]
    for row in matrix.rows:
        cells = []
        for cell in row.cells:
            shown = _shown(cell)
            if _with_reason(cell):
                number = notes.setdefault(_cut(cell.reason), len(notes) + 1)
                shown += f" [^{number}]"
            cells.append(shown)
        lines.append(f"| `{row.check_id}` | " + " | ".join(cells) + " |")
    if notes:
        lines.append("")
        lines += [f"[^{number}]: {_text(reason)}" for reason, number in notes.items()]
    return "\n".join(lines) + "\n"
