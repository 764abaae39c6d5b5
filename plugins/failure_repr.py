"""A check's failure as pytest shows it: the whole text in the failures section, and only
the reason on the summary line (which pytest prints untrimmed on CI)."""

from __future__ import annotations

from _pytest._code.code import (
    ReprEntryNative,
    ReprExceptionInfo,
    ReprFileLocation,
    ReprTraceback,
)


def failure_repr(text: str, summary: str, where: str) -> ReprExceptionInfo:
    """`text` verbatim in the failures section; `summary` after `FAILED <node>` (xdist
    carries both to the controller)."""
    body = text if text.endswith("\n") else text + "\n"
    return ReprExceptionInfo(
        reprtraceback=ReprTraceback([ReprEntryNative([body])], None, "native"),
        reprcrash=ReprFileLocation(where, 0, summary),
    )
