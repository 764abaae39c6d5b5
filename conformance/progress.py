"""Progress of long work while it runs (a fuzz run, a slow check), for a terminal only.

Work reports to the listener installed with `listening` (the pytest plugin installs one
that writes to the terminal); with none installed, reporting costs one lookup. Progress
never enters a report.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Final, Protocol

__all__ = ["INTERVAL", "Listener", "Progress", "installed", "listening"]


class Progress(Protocol):
    """One progress event: a line for the terminal, and whether the work has ended."""

    @property
    def final(self) -> bool: ...

    def line(self) -> str: ...


Listener = Callable[[Progress], None]
"""Receives each progress event that passes the throttle."""

INTERVAL: Final = 1.0
"""Fewest seconds between two progress events of one piece of work: more often than this
a terminal only flickers."""

_listener: contextvars.ContextVar[tuple[Listener, float] | None] = contextvars.ContextVar(
    "tinymemory_progress", default=None
)


@contextlib.contextmanager
def listening(listener: Listener | None, interval: float = INTERVAL) -> Iterator[None]:
    """Send the progress of work started inside the block to `listener`, at most once per
    `interval` seconds a piece of work (never more often than once a second)."""
    token = _listener.set(None if listener is None else (listener, max(interval, INTERVAL)))
    try:
        yield
    finally:
        _listener.reset(token)


def installed() -> tuple[Listener, float] | None:
    """The listener installed here and its interval, if any."""
    return _listener.get()
