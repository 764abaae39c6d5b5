"""Lines from a pipe, with the wait for each one kept short: poll briefly, then sleep.

A call over the protocol is two waits, the kit's for the answer and the driver's for the
next call. Waking a process asleep on a pipe costs tens of microseconds on a virtual
machine, more than the work of a short call on either side. So a reader first polls for
up to `SPIN` seconds, yielding its core to any other runnable task, and only then sleeps.
It polls only while the lines come quickly: after a wait longer than `SPIN` it sleeps at
once, until a wait is short again; a slow peer costs one poll, not one per call.
"""

from __future__ import annotations

import os
import select
from typing import Final

from conformance import clock

SPIN: Final = 250e-6
"""Seconds a reader polls for its next line before it sleeps."""

READ_SIZE: Final = 1 << 16
"""Bytes read from the pipe at once."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform (macOS)
        return os.cpu_count() or 1


def default_spin() -> float:
    """`SPIN`, or 0 on a single core: there polling would keep the peer from running."""
    return SPIN if _cores() > 1 else 0.0


class LineReader:
    """The lines of file descriptor `fd`, read into a buffer of its own (so that `poll`
    tells the truth about what is waiting)."""

    def __init__(self, fd: int, spin: float | None = None) -> None:
        self.fd = fd
        self.spin = default_spin() if spin is None else spin
        self._polling = self.spin > 0
        self._pending = bytearray()
        self._scanned = 0
        """How much of `_pending` is known to hold no newline (a long line is scanned once)."""
        self.in_hand = False
        """Whether bytes have left the pipe or the buffer and the consumer has not yet
        handed them on (it clears this when it has): an exception raised meanwhile (the
        time limit's) may have lost them."""
        # `poll`, not `select`: a descriptor numbered past 1023 is fine.
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def take_line(self) -> bytes | None:
        """The next whole line already read, newline included; `None` if there is none."""
        end = self._pending.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(self._pending)
            return None
        line = bytes(self._pending[: end + 1])
        self.in_hand = True
        del self._pending[: end + 1]
        self._scanned = 0
        return line

    def take_rest(self) -> bytes:
        """Whatever is buffered (a last line without its newline), emptying the buffer."""
        rest = bytes(self._pending)
        self.in_hand = True
        self._pending.clear()
        self._scanned = 0
        return rest

    def ready(self) -> bool:
        """Whether some input is waiting: read already, or in the pipe."""
        return bool(self._pending) or bool(self._poll.poll(0))

    @property
    def polling(self) -> bool:
        """Whether the next wait polls before it sleeps."""
        return self._polling

    @property
    def has_partial(self) -> bool:
        """Whether part of a line has been read."""
        return bool(self._pending)

    def fill(self, timeout: float | None = None) -> bool | None:
        """Wait up to `timeout` seconds (`None`: as long as it takes) for data and read it:
        `True` if some was read, `False` at end of input, `None` if the time ran out.

        A signal handler that raises (the kit's time limit) interrupts the wait."""
        if not self._wait(timeout):
            return None
        held, self.in_hand = self.in_hand, True
        chunk = os.read(self.fd, READ_SIZE)
        self._pending += chunk
        self.in_hand = held
        return bool(chunk)

    def readline(self) -> bytes:
        """The next line, newline included; at end of input the rest (maybe `b""`)."""
        while True:
            line = self.take_line()
            if line is not None:
                return line
            if not self.fill():
                return self.take_rest()

    def _wait(self, timeout: float | None) -> bool:
        started = clock.perf_counter()
        if self._polling:
            until = started + min(self.spin, timeout if timeout is not None else self.spin)
            while True:
                if self._poll.poll(0):
                    return True
                if clock.perf_counter() >= until:
                    break
                os.sched_yield()
        left = None if timeout is None else max(0.0, started + timeout - clock.perf_counter())
        ready = bool(self._poll.poll(None if left is None else left * 1000))
        # Poll next time only if this line came within the polling window.
        self._polling = self.spin > 0 and clock.perf_counter() - started <= self.spin
        return ready
