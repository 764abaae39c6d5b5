"""Waits on a lock that the kit's time limit can interrupt, on any thread.

Off the main thread the time limit interrupts a call with an exception raised at its next
Python instruction, which a blocking `Lock.acquire()` never reaches; so a wait is made in
short slices. A lock that is free is taken at once, without a slice.
"""

from __future__ import annotations

import threading
from typing import Final

WAIT_SLICE: Final = 0.05
"""Seconds one wait on a lock lasts before the waiting thread may be interrupted."""


def acquire(lock: threading.Lock, timeout: float | None = None) -> bool:
    """Take `lock`, waiting up to `timeout` seconds (`None`: as long as it takes) in
    interruptible slices; whether it was taken."""
    if lock.acquire(blocking=False):
        return True
    if timeout is None:
        while not lock.acquire(timeout=WAIT_SLICE):
            pass
        return True
    left = timeout
    while left > 0:
        if lock.acquire(timeout=min(WAIT_SLICE, left)):
            return True
        left -= WAIT_SLICE
    return False


class held:
    """`lock` held for the block, taken by an interruptible wait."""

    __slots__ = ("_lock",)

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            acquire(self._lock)

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
