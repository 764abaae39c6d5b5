"""Run an async driver through a synchronous face, so every check is written once."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from conformance import clock
from conformance.driver import is_async
from conformance.time_limit import CallExpired, TimeLimitExceeded

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    # One daemon loop per process: async drivers often bind clients to the loop that
    # created them, so every call of a driver must land on the same loop.
    import asyncio  # on first use: a sync-only run never pays for it

    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="tinymemory-async", daemon=True).start()
            _loop = loop
        return _loop


class LoopBlocked(TimeLimitExceeded):
    """An async call could not start: the event loop is still blocked by an earlier call
    that ran past its time limit."""


_WAIT_SLICE = 0.05
"""Seconds the caller waits on an async call between two chances to be interrupted."""

LOOP_ANSWER = 0.25
"""Seconds a cancelled call's event loop has to come back before the call is said to
block it: an idle loop answers in microseconds, a loaded machine's in milliseconds."""

HOLDS_THE_LOOP = (
    "the driver's event loop did not come back when the call was cancelled: a coroutine "
    "blocks the loop's thread (time.sleep or blocking I/O instead of an await)"
)

_blocked_by: tuple[threading.Event, str] | None = None
"""When a call ran past its limit and the loop has not answered since: a probe the loop
sets once it runs again, and the call that overran."""


def _loop_answers() -> None:
    # A loop still blocked by a call that ran past its limit would make every later call
    # wait out the limit too: they end at once instead, naming the call that blocks it.
    global _blocked_by
    blocked = _blocked_by
    if blocked is None:
        return
    probe, culprit = blocked
    if probe.wait(_WAIT_SLICE):
        _blocked_by = None
        return
    raise LoopBlocked(
        f"the driver's event loop is still blocked by {culprit}, which ran past its time "
        f"limit: the loop's thread has not come back since (a coroutine blocks it with "
        f"time.sleep or blocking I/O instead of an await)",
        call=culprit,
        loop_blocked=True,
    )


def _comes_back(probe: threading.Event) -> bool:
    """Whether the loop runs `probe` within `LOOP_ANSWER` s. The time limit keeps
    interrupting the caller meanwhile: those interrupts are the ones already handled."""
    deadline = clock.monotonic() + LOOP_ANSWER
    while True:
        left = deadline - clock.monotonic()
        if left <= 0:
            return probe.is_set()
        try:
            if probe.wait(left):
                return True
        except CallExpired:
            continue


class _Carried(Exception):
    """A `SystemExit` or `KeyboardInterrupt` a driver's coroutine raised, carried out of the
    event loop to the calling thread: asyncio lets those two end the loop itself, which
    would leave every later call of the run waiting on a loop that no longer runs."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


async def _carrying(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return await coro
    except (KeyboardInterrupt, SystemExit) as exc:
        raise _Carried(exc) from None


def run_coroutine(coro: Coroutine[Any, Any, T], label: str = "an async call") -> T:
    """Run `coro` on the kit's background loop and wait for its result.

    The wait wakes every few milliseconds, so the calling thread can be interrupted by
    the time limit on any thread; an interrupted call is cancelled on the loop. A
    `SystemExit` or `KeyboardInterrupt` the coroutine raises is raised here, not in the loop.
    """
    import asyncio

    global _blocked_by
    loop = _background_loop()
    try:
        _loop_answers()
    except LoopBlocked:
        coro.close()
        raise
    future = asyncio.run_coroutine_threadsafe(_carrying(coro), loop)
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    try:
        while not done.wait(_WAIT_SLICE):
            pass
    except BaseException as exc:
        if not future.done():
            future.cancel()
            probe = threading.Event()
            loop.call_soon_threadsafe(probe.set)
            _blocked_by = (probe, label)
            if isinstance(exc, CallExpired) and not _comes_back(probe):
                # Said here, where it is known: the call did not merely take long.
                raise TimeLimitExceeded(HOLDS_THE_LOOP, call=label, loop_blocked=True) from None
        raise
    try:
        return future.result()
    except _Carried as carried:
        # Raised where the driver was called: an outcome of the check that called.
        raise carried.error from None


class SyncFace:
    """A synchronous proxy over an async engine, provider or family object."""

    def __init__(self, target: object) -> None:
        self._target = target

    @property
    def target(self) -> object:
        """The wrapped async object."""
        return self._target

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if inspect.iscoroutinefunction(attr):
            return _blocking(attr)
        if name.startswith("as_") and callable(attr):
            return _wrapping_accessor(attr)
        return attr

    def __repr__(self) -> str:
        return f"SyncFace({self._target!r})"


def _blocking(method: Callable[..., Coroutine[Any, Any, T]]) -> Callable[..., T]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> T:
        return run_coroutine(method(*args, **kwargs), f"{method.__name__}()")

    return call


def _wrapping_accessor(accessor: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(accessor)
    def call(*args: Any, **kwargs: Any) -> Any:
        family = accessor(*args, **kwargs)
        return None if family is None else as_sync(family)

    return call


def as_sync(obj: Any) -> Any:
    """`obj` itself when synchronous, else a `SyncFace` over it."""
    if isinstance(obj, SyncFace) or not _has_coroutine_methods(obj):
        return obj
    return SyncFace(obj)


def _has_coroutine_methods(obj: object) -> bool:
    if is_async(obj):
        return True
    return any(
        inspect.iscoroutinefunction(getattr(type(obj), name, None))
        for name in dir(type(obj))
        if not name.startswith("_")
    )
