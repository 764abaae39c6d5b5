"""Page shapes a driver may choose: capped or short pages, empty pages that carry a cursor,
a full last page followed by an empty one.

Items are paged by key (keyset paging): a page resumes after the last key the previous
page returned, so a store or forget between pages neither repeats nor skips an item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

Key = list[Any]
"""A sort key of JSON values, compared element by element."""


@dataclass(frozen=True)
class PageShape:
    """How a driver cuts pages. The defaults cut full pages and end on the last one."""

    cap: int | None = None
    """The most items a page holds, whatever the limit (a server-side cap)."""
    short: bool = False
    """Pages hold at most half the limit (at least one item)."""
    empty_pages: bool = False
    """Every other page is empty but carries a cursor while items remain."""
    empty_first: bool = True
    """With `empty_pages`, the first page is one of the empty ones (else the second is)."""
    trailing_empty: bool = False
    """A full page carries a cursor even when nothing follows it; the next page is empty."""


@dataclass
class Page(Generic[T]):
    """One page: its items, where the next one starts, and which shapes it used."""

    items: list[T]
    after: Key | None
    more: bool
    shapes: set[str] = field(default_factory=set)
    """Of `short`, `empty`, `trailing`: the freedoms this page used."""


def cut(
    keyed: Sequence[tuple[Key, T]],
    after: Key | None,
    number: int,
    limit: int,
    shape: PageShape,
) -> Page[T]:
    """Page `number` (0 first) of `keyed` (sorted by key), resuming after the key `after`."""
    remaining = [pair for pair in keyed if after is None or pair[0] > after]
    if shape.empty_pages and (number % 2 == 0) == shape.empty_first and remaining:
        return Page([], after, True, {"empty"})
    size = limit
    if shape.cap is not None:
        size = min(size, shape.cap)
    if shape.short:
        size = min(size, max(1, limit // 2))
    taken = remaining[:size]
    page = Page([item for _, item in taken], taken[-1][0] if taken else after, False)
    if len(remaining) > size:
        page.more = True
        if len(taken) < limit:
            page.shapes.add("short")
    elif shape.trailing_empty and taken and len(taken) == size:
        page.more = True
        page.shapes.add("trailing")
    return page
