"""Near-miss alphabets: the small pools the fuzz machines draw names, paths and times from.

Stores break where two values almost agree: a reach or folder matched as a plain string
prefix admits `agent:ab` beside `agent:a` and `/a/bc` beside `/a/b`; a window bound taken
as inclusive admits the item observed exactly at `observed_before`; a key prefix match
forgets `k10` with `k1`. Drawing from pools built of such siblings makes those states
common, where free text would almost never produce them. Every pool stays within what
the contract allows; a driver's declared constraints narrow them (`narrowing`).
"""

from __future__ import annotations

from typing import Final

from conformance.engine import Namespace, Segment, SegmentKind, TurnRange
from conformance.timestamps import Timestamp

__all__ = [
    "BOUNDS",
    "DOCUMENT_IDS",
    "DOCUMENT_METADATA",
    "DOCUMENT_PRIORITIES",
    "DOCUMENT_SOURCE_TYPES",
    "DOCUMENT_SPECS",
    "DOCUMENT_TITLES",
    "ENGINE_NODES",
    "FILE_PATHS",
    "FILE_PATH_FILTERS",
    "FOLDERS",
    "FOLDER_FILTERS",
    "KEYS",
    "KEY_PREFIXES",
    "MOMENTS",
    "PROVIDER_SCOPES",
    "PROVIDER_SECTIONS",
    "PROVIDER_SPECS",
    "SEGMENT_IDS",
    "SOURCE_IDS",
    "TAGS",
    "TURNS",
    "VALUES",
    "node",
]

SEGMENT_IDS: Final = ("a", "ab", "a-b", "a_b", "b", "B")
"""Engine segment ids: `a` is a string prefix of `ab`, `a-b` and `a_b`; `b`/`B` differ by case."""


def node(*parts: str) -> Namespace:
    """The engine namespace of `kind:id` parts, e.g. `node("agent:a", "agent:b")`."""
    segments = []
    for part in parts:
        kind, _, ident = part.partition(":")
        segments.append(Segment(SegmentKind(kind), ident))
    return Namespace(segments)


ENGINE_NODES: Final = (
    Namespace(),
    node("agent:a"),
    node("agent:ab"),
    node("agent:a-b"),
    node("agent:a_b"),
    node("team:a"),
    node("agent:a", "agent:b"),
    node("agent:a", "agent:B"),
    node("agent:ab", "agent:b"),
    node("agent:a", "agent:b", "agent:a"),
    node("agent:a", "agent:b", "team:a", "agent:ab"),
    node("team:a", "agent:a"),
)
"""Nodes items live at: the root, prefix siblings under it, and a chain four deep whose
segments repeat ids of their ancestors."""

FOLDERS: Final = ("/a", "/ab", "/a-b", "/a/b", "/a/bc", "/a/b/c", "/a/b/c/d")
"""Item folders: `/a/b` is a string prefix of `/a/bc` but not its path ancestor."""

FOLDER_FILTERS: Final = (*FOLDERS, "/a/", "/a/b/")
"""Folder filters: the folders, and two with a trailing `/` (which the filter strips)."""

FILE_PATHS: Final = ("/a/b", "/a/b.rs", "/a/b/c.rs", "/a/bc/d.md", "/ab/c", "/a/b/c/d.txt")
"""Item file paths, string-prefix siblings of each other and of the folders."""

FILE_PATH_FILTERS: Final = ("/a", "/a/b", "/a/b/", "/a/bc", "/a/b/c.rs", "/ab")
"""File path filters (path prefixes, like folders)."""

VALUES: Final = ("x", "xy", "X", "x.y", "x-y")
"""Values of the exact-match fields (language, repo, url, thread, agent, tool call)."""

TAGS: Final = ("t", "t1", "t10", "T1")
"""Tags: prefixes and a case twin of each other."""

SOURCE_IDS: Final = ("s", "s1", "s10")
"""Source ids, prefixes of each other."""

TURNS: Final = (TurnRange(first=0, last=0), TurnRange(first=0, last=1), TurnRange(first=1, last=3))
"""Turn ranges: overlapping, never equal."""

BOUNDS: Final = (
    Timestamp.parse("2001-01-01T00:00:00Z"),
    Timestamp.parse("2010-06-01T12:00:00Z"),
    Timestamp.parse("2020-12-31T23:59:59Z"),
    Timestamp.parse("2024-02-29T12:00:00.000000500Z"),
)
"""Window bounds filters are drawn from. The last falls between microseconds: a store
keeping times to the microsecond (a `datetime`, a SQL timestamp) cannot tell it from the
instants a nanosecond either side."""

_SECOND: Final = 1_000_000_000
_NUDGES: Final = (-_SECOND, -1_000_000, 0, 1_000_000, _SECOND)
_FINE_NUDGES: Final = (-1, 0, 1)

MOMENTS: Final = tuple(
    Timestamp(bound.nanos + nudge)
    for bound in BOUNDS
    for nudge in (_FINE_NUDGES if bound.nanos % 1_000 else _NUDGES)
)
"""Observation times: on each bound, and a second and a millisecond either side of it, or
a nanosecond either side of the bound between microseconds (`observed_after` is
inclusive, `observed_before` exclusive)."""

PROVIDER_SCOPES: Final = (
    "a",
    "ab",
    "a-b",
    "a.b",
    "a_b",
    "a@b",
    "a+b",
    "A",
    "a:b",
    "a/b",
    "a/bc",
    "ab/c",
    "a/b/c",
    "a/b.c/d",
    "a//b",
    "a/./b",
)
"""Provider scope paths under the run root: prefix siblings, one of each character class
the contract allows (`. _ @ + :` and upper case), an empty and a `.` segment (valid: only
`..` is not), and paths three and four deep."""

PROVIDER_SECTIONS: Final = ("learning", "conversation", "x_y")
"""Section prefixes of sectioned namespaces: two known ones and a custom one."""

PROVIDER_SPECS: Final = (
    *(f"~/{scope}" for scope in PROVIDER_SCOPES),
    *(f"{section}:~/{scope}" for section in PROVIDER_SECTIONS for scope in ("a", "ab", "a/b")),
)
"""Namespace specs (`~` stands for the run root): unsectioned and sectioned twins."""

KEYS: Final = ("k", "k1", "k10", "K1", "k.1", "k-1", "k_1")
"""Entry keys: prefixes, a case twin, and each separator the default key alphabet allows."""

KEY_PREFIXES: Final = ("k", "k1", "e")
"""Prefixes of bulk keys (`k0`, `k1`, ... `k10`): a bulk under `k` and one under `k1`
write the same keys, so bulks overwrite each other's rows."""

DOCUMENT_TITLES: Final = ("Plan", "plan", "PLAN", "Plan 1", "Plan 10", "")
"""Document titles: case twins, a string prefix of two others, and the empty title."""

DOCUMENT_SOURCE_TYPES: Final = ("chat", "Chat", "gmail", "conformance")
"""Document source types, one a case twin of another."""

DOCUMENT_PRIORITIES: Final = ("high", "medium", "low", "normal")
"""Document priorities."""

DOCUMENT_METADATA: Final = ("{}", '{"a": 1}', '{"a": "x", "b": [1, 2]}', '{"A": 1}')
"""Document metadata as JSON text (parsed when used, so no value is shared): an empty
object, and objects differing in a key's case or a value's type."""

DOCUMENT_IDS: Final = ("d", "d1", "d10", "D1")
"""Explicit document ids (the run marker and the namespace's spec put before each):
string prefixes of each other and a case twin."""

DOCUMENT_SPECS: Final = (
    "~/a",
    "~/ab",
    "~/a/b",
    "~/a-b",
    "~/A",
    "document:~/a",
    "document:~/ab",
    "learning:~/a",
)
"""Document namespace specs (`~` stands for the run's documents root): few, so that
string-prefix siblings, a case twin and sectioned twins hold documents side by side."""
