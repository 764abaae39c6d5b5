"""A check's independent calls (the puts that fill a store, the forgets that empty it) made
several at once, on seats of the run that no longer check is waiting for.

A check that fills a store with hundreds of entries spends, against a store across a
network, hundreds of round trips one after the other; at the end of a run, when it is
one of the last checks still going, the seats of the checks that finished stand empty.
`each` lends them to it: run with `--conformance-concurrency`, each helper queues at the
gate as a check of as many calls as there are items (so the width asked is never
exceeded, and a longer check not yet started goes first) and, once seated, makes calls
beside the check's own thread. Serially, alone, or inside a still block, it calls in
order on the check's thread. Either way the failure it raises is the one a serial run
meets first: the items are taken in order, and none is started once one has failed.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

__all__ = ["Lender", "each", "lending"]

T = TypeVar("T")


class Lender(Protocol):
    """What lends a check helper threads: the pool running it."""

    def spread(self, fn: Callable[[T], object], items: Sequence[T], cost: int) -> bool:
        """Call `fn` on every item, several at once, raising the first failure in the
        items' order; False (nothing called) when the check may not spread its calls (one
        check at a time, a check run alone, one holding a still block). A helper waits
        in line as a check of `cost` calls."""


_lender: contextvars.ContextVar[Lender | None] = contextvars.ContextVar(
    "tinymemory_lender", default=None
)


def lending(lender: Lender | None) -> None:
    """Calls to `each` in this context from now on may borrow from `lender`."""
    _lender.set(lender)


def each(fn: Callable[[T], object], items: Sequence[T], *, cost: int | None = None) -> None:
    """`fn(item)` for every item, in order or several at once (see the module); the order
    of the calls must not matter to the check. `cost` is the driver calls all the items
    take together (default: one each), which ranks the helpers against checks waiting."""
    lender = _lender.get()
    calls = len(items) if cost is None else cost
    if lender is not None and len(items) > 1 and lender.spread(_unlent(fn), items, calls):
        return
    for item in items:
        fn(item)


def _unlent(fn: Callable[[T], object]) -> Callable[[T], object]:
    # An `each` inside a spread item runs in order: its helpers would queue behind, and
    # hold seats for, the spread that is waiting on them.
    def unlent(item: T) -> object:
        token = _lender.set(None)
        try:
            return fn(item)
        finally:
            _lender.reset(token)

    return unlent
