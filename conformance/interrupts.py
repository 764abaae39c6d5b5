"""Tell the user's Ctrl-C from a `KeyboardInterrupt` that driver code raises.

Both arrive as `KeyboardInterrupt`. While a watch is on, SIGINT goes through a handler
that notes the signal before raising, so an interrupt nobody signalled is the driver's
(an outcome of the check that called) and one the user signalled still stops the run.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


class InterruptWatch:
    """Notes every SIGINT while started; `from_user` asks whether one was noted."""

    def __init__(self) -> None:
        self.signalled = False
        self._previous: object = None
        self._installed = False

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        self.signalled = True
        raise KeyboardInterrupt

    def start(self) -> None:
        """Route SIGINT through the watch (only from the main thread, and only when Python's
        own handler is in place: a handler someone else installed is left alone)."""
        if self._installed or threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return
        self._previous = signal.signal(signal.SIGINT, self._on_sigint)
        self._installed = True
        _active.append(self)

    def stop(self) -> None:
        """Put the previous SIGINT handler back."""
        if not self._installed:
            return
        if signal.getsignal(signal.SIGINT) == self._on_sigint:
            signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
        self._installed = False
        _active.remove(self)


_active: list[InterruptWatch] = []


def _signals_are_known() -> bool:
    # Watched, or SIGINT ignored: either way every unsignalled interrupt is code's own.
    return bool(_active) or signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def from_user(error: BaseException) -> bool:
    """Whether `error` is an interrupt the user asked for.

    Without a watch a `KeyboardInterrupt` may be the user's, so it counts as theirs.
    """
    if not isinstance(error, KeyboardInterrupt):
        return False
    return any(w.signalled for w in _active) or not _signals_are_known()
