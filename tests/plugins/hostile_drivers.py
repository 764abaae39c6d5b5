"""Drivers that fight the kit: they swallow its interrupt, ignore `SIGALRM`, block their
event loop, edit what they are given, answer with the wrong types, print their key, or
work only on the thread that made them. Each is otherwise the reference driver."""

from __future__ import annotations

import asyncio
import builtins
import signal
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import Any

from conformance import Driver
from conformance.engine import EngineDescriptor, FetchPage, FetchRequest, StoreItem, StoreReceipt
from conformance.provider import (
    ExportPage,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
)
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncOver

HANG = 600.0
"""How long a hung call would last: far beyond any test's patience."""


class SwallowsTheAlarm(ReferenceProvider):
    """`namespaces()` retries for ever in a bare `except:`: every interrupt is swallowed."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        while True:
            try:
                time.sleep(HANG)
            except:  # noqa: E722 - swallowing everything is the fault under test
                continue


class IgnoresTheAlarm(ReferenceProvider):
    """`namespaces()` has `SIGALRM` ignored, then blocks in one long system call."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(HANG)
        return super().namespaces()


class BlocksItsLoopInShutdown(AsyncOver):
    """An async provider whose `shutdown` blocks the event loop (a synchronous sleep in a
    coroutine), so it never returns."""

    def __init__(self) -> None:
        super().__init__(ReferenceProvider())

    async def shutdown(self) -> None:
        time.sleep(HANG)


class ShutdownIgnoresTheAlarm(ReferenceProvider):
    """`shutdown` has `SIGALRM` ignored and blocks: it hangs after every check has run."""

    def shutdown(self) -> None:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(HANG)


class BlocksItsLoop(AsyncOver):
    """An async provider whose `namespaces` blocks the event loop for `seconds`."""

    seconds = HANG

    def __init__(self) -> None:
        super().__init__(ReferenceProvider())

    async def namespaces(self) -> builtins.list[NamespaceSummary]:
        time.sleep(self.seconds)
        return self.inner.namespaces()


class StoreSleeps(ReferenceProvider):
    """`store` blocks in one system call of `seconds` (SIGALRM interrupts it on the main
    thread; nothing does on another)."""

    seconds = HANG

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        time.sleep(self.seconds)


class StoreAwaitsForEver(AsyncOver):
    """An async provider whose `store` awaits for ever: the loop stays free, the call never
    ends."""

    def __init__(self) -> None:
        super().__init__(ReferenceProvider())

    async def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        await asyncio.sleep(HANG)


class StoreBlocksItsLoop(StoreAwaitsForEver):
    """An async provider whose `store` blocks the event loop's thread for `seconds` (a
    synchronous sleep in a coroutine): no async call can start meanwhile."""

    seconds = HANG

    async def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        time.sleep(self.seconds)


class LeaksItsKey(ReferenceProvider):
    """Prints its key to stdout and stderr on every `get`, puts it in the error for a
    foreign cursor and in a crash of `namespaces`, and restamps taint (so checks fail)."""

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__()
        self.key = options["api_key"]

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        print(f"GET with api key {self.key}")
        print(f"auth: Bearer {self.key}", file=sys.stderr)
        return super().get(namespace, key)

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        super().store(namespace, key, content, category, session_id, MemoryTaint.INTERNAL)

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        try:
            return super().export_page(cursor, limit)
        except Invalid as exc:
            raise Invalid(f"{exc.message} (signed with {self.key})") from exc

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        key = self.key  # noqa: F841 - a local for `-l` to show
        raise RuntimeError(f"the backend refused key {self.key}")


def leaks_its_key(options: dict[str, str]) -> Driver:
    """`LeaksItsKey` as a `Driver`, given the run's options."""
    return Driver(name="leaky", provider=lambda: LeaksItsKey(options), options=options)


def fails_to_build(options: dict[str, str]) -> Driver:
    """A driver whose provider cannot be built, and says so with the key it was given."""

    def build() -> Any:
        raise ConnectionError(f"401 for key {options['api_key']}")

    return Driver(name="unbuildable", provider=build, options=options)


class TagsTheCallersItem(ReferenceEngine):
    """`store` adds a tag to the caller's item (once) before storing it: a check that
    compares what it reads back against the request the driver edited sees no difference."""

    def store(self, item: StoreItem) -> StoreReceipt:
        if "seen-by-driver" not in item.meta.tags:
            item.meta.tags.append("seen-by-driver")
        return super().store(item)


class DescriptorAsDict(ReferenceEngine):
    """`descriptor` answers with the model's `dict` instead of the model."""

    def descriptor(self) -> EngineDescriptor:
        return super().descriptor().model_dump()  # type: ignore[return-value]


class FetchReturnsACoroutine(ReferenceEngine):
    """`fetch` returns a coroutine without being declared `async def`."""

    def fetch(self, req: FetchRequest) -> FetchPage:
        async def answer() -> FetchPage:
            return ReferenceEngine.fetch(self, req)

        return answer()  # type: ignore[return-value]


class NamespacesAsNone(ReferenceProvider):
    """`namespaces` answers `None`."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return None  # type: ignore[return-value]


class ThreadBound:
    """An engine or provider reached through an `sqlite3` connection, which refuses every
    thread but the one that made it (as many real clients do)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._conn = sqlite3.connect(":memory:")

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self._conn.execute("SELECT 1")  # ProgrammingError on any other thread
            return attr(*args, **kwargs)

        return call


class SlowCalls:
    """A provider taking `seconds` over every call, as a remote store far away does."""

    seconds = 0.5

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self.seconds)
            return attr(*args, **kwargs)

        return call


def slow_provider() -> Driver:
    """The reference provider behind `SlowCalls`."""
    return Driver(name="slow", provider=lambda: SlowCalls(ReferenceProvider()))


def thread_bound(make: Callable[[], Any]) -> ThreadBound:
    """A `ThreadBound` over a fresh driver from `make`."""
    return ThreadBound(make())


def reference_with_options(options: dict[str, str]) -> Driver:
    """The reference driver, taking (and ignoring) whatever options it is given."""
    return Driver(
        name="configurable", engine=ReferenceEngine, provider=ReferenceProvider, options=options
    )


class DescriptorHangs(ReferenceEngine):
    """`descriptor` has `SIGALRM` ignored and blocks: the kit asks it before any check."""

    def descriptor(self) -> EngineDescriptor:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(HANG)
        return super().descriptor()


class FreezesTime(ReferenceProvider):
    """Patches the `time` module's clocks to 0 when built, and takes 2 s (by the real
    clock) to answer `health`: the kit's durations and time limits must not notice."""

    def __init__(self) -> None:
        super().__init__()
        import time

        self._sleep = time.sleep
        frozen = lambda: 0.0  # noqa: E731
        time.time = time.perf_counter = time.monotonic = frozen  # type: ignore[assignment]

    def health(self) -> MemoryHealth:
        self._sleep(2)
        return super().health()
