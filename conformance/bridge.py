"""Run an async driver through a synchronous face, so every check is written once."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from conformance.driver import is_async

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


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` on the kit's background loop and wait for its result."""
    import asyncio

    return asyncio.run_coroutine_threadsafe(coro, _background_loop()).result()


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


def _blocking(method: Callable[..., Coroutine[Any, Any, T]]) -> Callable[..., T]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return run_coroutine(_carrying(method(*args, **kwargs)))
        except _Carried as carried:
            # Raised where the driver was called: an outcome of the check that called.
            raise carried.error from None

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
