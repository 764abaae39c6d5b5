"""A process-wide setting that searches running at once share: made by the first to enter,
undone by the last to leave.

A search patches hypothesis and points its home at the kit's folder for as long as it
runs (`runner.pinned_generation`, `storage.kit_storage`). Two searches on two threads (fuzz
targets run beside each other with `--conformance-concurrency`) each saving and restoring
what the other had set would leave one running unpatched, and hypothesis patched after
both have ended.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

__all__ = ["Shared"]


class Shared:
    """`make()` entered once however many threads are inside `entered()` at a time."""

    def __init__(self, make: Callable[[], AbstractContextManager[object]]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._inside = 0
        self._held: contextlib.ExitStack | None = None

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        """The block runs with the setting made."""
        with self._lock:
            if self._inside == 0:
                held = contextlib.ExitStack()
                held.enter_context(self._make())
                self._held = held
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if self._inside == 0 and self._held is not None:
                    held, self._held = self._held, None
                    held.close()
