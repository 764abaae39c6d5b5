"""One call at a time inside a freedom driver, whichever threads call it.

The freedom drivers keep maps of their own beside the reference's (ids, cursors, rates,
orders); the kit calls a driver from several threads at once (`--conformance-concurrency`,
the racing checks), and a driver that says it is thread-safe must be. Each public method
of a class decorated here runs under the instance's one reentrant lock, so the matrix
holds the checks, not the test doubles, to what several threads at once may see.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["serialized"]

C = TypeVar("C", bound=type)

_LOCK = "_serial_lock"


def _lock_of(obj: object) -> threading.RLock:
    lock = obj.__dict__.get(_LOCK)
    if lock is None:
        lock = obj.__dict__.setdefault(_LOCK, threading.RLock())
    return lock  # type: ignore[no-any-return]


def _serial(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: object, *args: Any, **kwargs: Any) -> Any:
        with _lock_of(self):
            return method(self, *args, **kwargs)

    return call


def serialized(cls: C) -> C:
    """`cls` with each public method of its own run under the instance's lock."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and callable(value) and not isinstance(value, type):
            setattr(cls, name, _serial(value))
    return cls
