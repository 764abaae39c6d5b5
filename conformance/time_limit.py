"""The per-call time limit: a driver call that overruns is interrupted, on whatever thread
it runs, and a call that cannot be interrupted ends the process with a verdict.

Every limited call runs on the calling thread (a driver bound to the thread that made it,
an `sqlite3` connection say, works from any thread). One watchdog thread per process
watches the calls under way. When a call is due it raises `CallExpired` inside it: on the
main thread through `SIGALRM` (sent to that thread alone, so a blocking system call is
interrupted), elsewhere, or when a driver has replaced the kit's `SIGALRM` handler, as an
asynchronous exception (`PyThreadState_SetAsyncExc`, delivered at the thread's next
Python instruction). It repeats this while the call goes on. A call still running a grace
period after its limit (it swallows every interrupt in a bare `except:` loop, ignores
`SIGALRM` or blocks in native code) is abandoned: the abandon handler is called from the
watchdog thread. The pytest plugin's handler goes on without the call (or writes the
report and ends the process); the default one says which call hung and ends the process
with status `ABANDONED_EXIT`.

`run_within` is the one entry point: it raises `TimeLimitExceeded` when the call ran past
its limit, whatever the driver did with the interrupt.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Final

from conformance import clock

__all__ = [
    "ABANDONED_EXIT",
    "CallExpired",
    "HungCall",
    "TimeLimitExceeded",
    "abandon_handler",
    "grace_period",
    "run_within",
    "set_abandon_handler",
]

ABANDONED_EXIT: Final = 1
"""The exit status of a process ended because a driver call could not be interrupted."""

NUDGE_INTERVAL: Final = 0.1
"""Seconds between two interrupts of a call past its limit."""


class CallExpired(BaseException):
    """Raised inside a driver call past its limit.

    A `BaseException`, so a driver's own `except Exception` does not swallow it.
    """


class TimeLimitExceeded(Exception):
    """A driver call ran past its time limit (or could not start, its event loop being
    blocked by an earlier one); `reason` says which and how long.

    `call` names the call that hung (`store()`) when it is not the one that raised (a
    call refused by a loop an earlier call blocks); `loop_blocked` says the driver's event
    loop did not come back, so every later async call fails too.
    """

    def __init__(self, reason: str, *, call: str | None = None, loop_blocked: bool = False) -> None:
        self.reason = reason
        self.call = call
        self.loop_blocked = loop_blocked
        super().__init__(reason)


@dataclass(frozen=True)
class HungCall:
    """A call that neither returned nor could be interrupted within its grace period."""

    label: str
    """The call, as the kit names it (`namespaces()`)."""
    check_id: str
    limit: float
    grace: float
    thread: str
    """The name of the thread the call is stuck on."""
    main: bool = True
    """Whether that is the main thread (elsewhere only Python code can be interrupted)."""

    @property
    def reason(self) -> str:
        """Why the run is abandoned, for a report."""
        if not self.main:
            why = (
                f"it swallows the interrupt, or blocks in native code such as time.sleep or "
                f"a socket read, which on thread `{self.thread}`, not the main thread, the "
                f"kit cannot interrupt: give run_provider_suite the driver's class (a "
                f"factory) instead of an instance, and it gives such a call up and goes on, "
                f"or run the suite on the main thread, where SIGALRM interrupts it"
            )
        else:
            why = "it swallows the interrupt, ignores SIGALRM or blocks in native code"
        return (
            f"the call ran past the {self.limit:g} s limit and had not returned "
            f"{self.grace:g} s later: the driver does not let the kit interrupt it ({why}), "
            f"so the run was abandoned"
        )


AbandonHandler = Callable[[HungCall], None]


def grace_period(limit: float) -> float:
    """How long a call past `limit` is interrupted before it is abandoned: the limit
    again, at least 1 s and at most 10 s."""
    return min(max(limit, 1.0), 10.0)


def _default_abandon(hung: HungCall) -> None:
    sys.stderr.write(
        f"\ntinymemory-conformance: {hung.check_id}: {hung.label}: {hung.reason}; "
        f"ending the process (status {ABANDONED_EXIT})\n"
    )
    sys.stderr.flush()
    os._exit(ABANDONED_EXIT)


_handler: AbandonHandler = _default_abandon


def set_abandon_handler(handler: AbandonHandler | None) -> AbandonHandler:
    """Install what is done with a call that cannot be interrupted (`None`: the default,
    which ends the process); returns the handler it replaces. The handler runs on the
    watchdog thread while the call is still stuck; if it returns, the call is left to
    finish on its own."""
    global _handler
    previous = _handler
    _handler = handler or _default_abandon
    return previous


@contextlib.contextmanager
def abandon_handler(handler: AbandonHandler) -> Iterator[None]:
    """`handler` handles abandoned calls for the duration of the block."""
    previous = set_abandon_handler(handler)
    try:
        yield
    finally:
        set_abandon_handler(previous)


# -- interrupting a thread ------------------------------------------------------------


def _async_exc_raiser() -> Callable[[int, object], int]:
    # CPython's API to raise an exception in another thread (absent elsewhere, PyPy).
    # It is never called to clear one: with a NULL exception CPython 3.11 leaves its
    # "asynchronous exception pending" flag set for ever, which stalls the interpreter.
    import ctypes

    address = ctypes.cast(ctypes.pythonapi.PyThreadState_SetAsyncExc, ctypes.c_void_p).value
    if address is None:
        raise AttributeError("PyThreadState_SetAsyncExc")
    return ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(address)


try:
    _RAISE_IN = _async_exc_raiser()
    _HAS_ASYNC = True
except (ImportError, AttributeError):  # pragma: no cover - CPython always has it
    _HAS_ASYNC = False

_HAS_ALARM: Final = hasattr(signal, "SIGALRM") and hasattr(signal, "pthread_kill")


class _Watch:
    """One limited call under way."""

    __slots__ = (
        "check_id",
        "deadline",
        "expired",
        "give_up",
        "grace",
        "label",
        "limit",
        "main",
        "next_nudge",
        "settled",
        "thread_id",
        "thread_name",
    )

    def __init__(self, label: str, check_id: str, limit: float, grace: float) -> None:
        current = threading.current_thread()
        self.label = label
        self.check_id = check_id
        self.limit = limit
        self.grace = grace
        self.thread_id = threading.get_ident()
        self.thread_name = current.name
        self.main = current is threading.main_thread()
        self.deadline = clock.monotonic() + limit
        self.give_up = self.deadline + grace
        self.next_nudge = self.deadline
        self.expired = False
        self.settled = False


class _Watchdog:
    """The thread that interrupts calls past their limit and abandons stuck ones."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._watches: dict[int, _Watch] = {}
        self._ids = itertools.count()
        self._wake_at = math.inf
        self._thread: threading.Thread | None = None
        self._pid = 0

    def add(self, watch: _Watch) -> int:
        with self._lock:
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                # Started on first use, and again in a forked child, which has no threads.
                self._pid = os.getpid()
                self._thread = threading.Thread(
                    target=self._run, name="tinymemory-watchdog", daemon=True
                )
                self._thread.start()
            key = next(self._ids)
            self._watches[key] = watch
            if watch.deadline < self._wake_at:
                self._wake.notify()
            return key

    def remove(self, key: int) -> None:
        """Forget a watch (its call is over and the watch settled)."""
        with self._lock:
            self._watches.pop(key, None)

    def main_thread_expired(self) -> bool:
        """Whether a call on the main thread is past its limit and not yet over."""
        return any(w.main and w.expired and not w.settled for w in list(self._watches.values()))

    def _run(self) -> None:
        while True:
            with self._lock:
                now = clock.monotonic()
                stuck: list[_Watch] = []
                wake = math.inf
                for key, watch in list(self._watches.items()):
                    if watch.settled:
                        continue
                    if watch.expired and now >= watch.give_up:
                        stuck.append(watch)
                        del self._watches[key]
                        continue
                    if now >= watch.next_nudge:
                        watch.expired = True
                        watch.next_nudge = now + NUDGE_INTERVAL
                        _interrupt(watch)
                    wake = min(wake, watch.next_nudge, watch.give_up if watch.expired else wake)
                self._wake_at = wake
                if not stuck:
                    self._wake.wait(None if wake == math.inf else max(wake - now, 0.001))
                    continue
            for watch in stuck:
                hung = HungCall(
                    label=watch.label,
                    check_id=watch.check_id,
                    limit=watch.limit,
                    grace=watch.grace,
                    thread=watch.thread_name,
                    main=watch.main,
                )
                try:
                    _handler(hung)
                except BaseException:
                    # A handler that fails must not end the watchdog: the process ends.
                    _default_abandon(hung)


def _interrupt(watch: _Watch) -> None:
    # SIGALRM reaches a main thread blocked in a system call; the kit's handler raises
    # there. A driver may have replaced the handler (or be on another thread): then the
    # exception is set on the thread, to be raised at its next Python instruction.
    # `settled` is read right before each send, with no Python call in between, so the
    # GIL cannot pass to the calling thread while it is closing the watch (see run_within).
    global _alarm_sent
    if watch.main and _HAS_ALARM and signal.getsignal(signal.SIGALRM) is _on_alarm:
        if watch.settled:
            return
        _alarm_sent = True
        try:
            signal.pthread_kill(watch.thread_id, signal.SIGALRM)
            return
        except (OSError, ValueError):
            _alarm_sent = False
    if _HAS_ASYNC:
        if watch.settled:
            return
        _RAISE_IN(watch.thread_id, CallExpired)


_watchdog = _Watchdog()
_foreign_handlers: list[Any] = []
"""The `SIGALRM` handlers the kit's replaced, innermost last (restored in order)."""
_alarm_sent = False
"""Whether the kit sent a `SIGALRM` its handler has not yet seen."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    global _alarm_sent
    if _alarm_sent:
        # The kit's own alarm: raised only while a call is still past its limit (one
        # that has since returned ignores it).
        _alarm_sent = False
        if not _watchdog.main_thread_expired():
            return
        if not _in_collection(frame):
            raise CallExpired
        return
    # Not the kit's alarm (pytest-timeout's, say): pass it on.
    previous = _foreign_handlers[-1] if _foreign_handlers else None
    if callable(previous):
        previous(signum, frame)


def _in_collection(frame: FrameType | None) -> bool:
    """Whether the alarm came while the garbage collector ran Python code on this thread: a
    callback (hypothesis times the collector with one), a finalizer or a weakref callback.
    Python drops an exception raised there, so the interrupt waits for the watchdog's
    next nudge, `NUDGE_INTERVAL` later, rather than be lost."""
    if _collecting == threading.get_ident():
        return True
    # A callback that runs before the kit's own on a collection's start, or after it on
    # its stop, is told by its frame.
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    callbacks.discard(None)
    while callbacks and frame is not None:
        if frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


_collecting: int | None = None
"""The thread whose garbage collection is under way, while the kit's handler is in place."""


def _track_collection(phase: str, info: dict[str, int]) -> None:
    global _collecting
    _collecting = threading.get_ident() if phase == "start" else None


class _AlarmHandler:
    """The kit's `SIGALRM` handler, installed for one call on the main thread (unless an
    enclosing call installed it) and put back exactly once."""

    __slots__ = ("installed",)

    def __init__(self) -> None:
        self.installed = False
        if not _HAS_ALARM or threading.current_thread() is not threading.main_thread():
            return
        current = signal.getsignal(signal.SIGALRM)
        if current is _on_alarm:
            return
        _foreign_handlers.append(current)
        self.installed = True
        gc.callbacks.append(_track_collection)
        signal.signal(signal.SIGALRM, _on_alarm)

    def restore(self) -> None:
        if self.installed:
            self.installed = False
            previous = _foreign_handlers.pop()
            signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)
            with contextlib.suppress(ValueError):
                gc.callbacks.remove(_track_collection)


def run_within(
    limit: float | None,
    fn: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    label: str = "the call",
    check_id: str = "",
    grace: float | None = None,
) -> Any:
    """`fn(*args, **kwargs)` on this thread, interrupted past `limit` seconds (`None`: no
    limit) and abandoned `grace` seconds later (default `grace_period(limit)`).

    Raises `TimeLimitExceeded` when the call ran past its limit, even if the driver caught
    the interrupt and returned or raised something of its own.
    """
    kw = kwargs or {}
    if limit is None:
        return fn(*args, **kw)
    watch = _Watch(label, check_id, limit, grace_period(limit) if grace is None else grace)
    handler = _AlarmHandler()
    key = _watchdog.add(watch)
    # Once `settled` is set, nothing more is sent to the call. It is set before any other
    # call is made (a call is where a pending interrupt is raised); one sent before it is
    # raised by `_drain` and dropped there.
    try:
        result = fn(*args, **kw)
    except BaseException as exc:
        watch.settled = True
        try:  # noqa: SIM105 - `contextlib.suppress` would run Python code before the try
            _drain()
        except CallExpired:
            pass
        _close(key, handler)
        if watch.expired:
            # Whatever the driver made of the interrupt, the call ran past its limit; the
            # kit's own word on it (the bridge's: a blocked event loop) is kept.
            past = f"the call ran past the {limit:g} s limit"
            if isinstance(exc, TimeLimitExceeded):
                raise TimeLimitExceeded(
                    f"{past}; {exc.reason}", call=exc.call, loop_blocked=exc.loop_blocked
                ) from None
            raise TimeLimitExceeded(past) from None
        raise
    watch.settled = True
    try:  # noqa: SIM105 - as above
        _drain()
    except CallExpired:
        pass
    _close(key, handler)
    if watch.expired:
        raise TimeLimitExceeded(f"the call ran past the {limit:g} s limit")
    return result


def _drain() -> None:
    """Nothing: entering it raises an interrupt still pending on this thread."""


def _close(key: int, handler: _AlarmHandler) -> None:
    _watchdog.remove(key)
    handler.restore()
