"""Drivers for the plugin's own tests: slow, flaky, async and credential-bearing ones."""

from __future__ import annotations

import builtins
import threading
import time
from typing import Any

from conformance.provider import MemoryEntry, NamespaceSummary, Unavailable
from reference_driver.provider import ReferenceProvider


class SlowNamespaces(ReferenceProvider):
    """`namespaces()` takes far longer than any sensible time limit."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        time.sleep(30)
        return super().namespaces()


class Flaky(ReferenceProvider):
    """Every third `get` is rate-limited once before it answers."""

    def __init__(self) -> None:
        super().__init__()
        self._calls = 0
        self._flaky_lock = threading.Lock()

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        with self._flaky_lock:
            self._calls += 1
            fail = self._calls % 3 == 1
        if fail:
            raise Unavailable("rate limited (429), try again")
        return super().get(namespace, key)


class AsyncReference:
    """The reference provider behind `async def` methods, as an async vendor driver is."""

    def __init__(self) -> None:
        self._inner = ReferenceProvider()

    def driver_id(self) -> str:
        return "async-reference"

    def capabilities(self) -> Any:
        return self._inner.capabilities()

    def provides(self, capability: Any) -> bool:
        return self._inner.provides(capability)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("as_"):
            return getattr(self._inner, name)
        raise AttributeError(name)

    async def health(self) -> Any:
        return self._inner.health()

    async def shutdown(self) -> None:
        self._inner.shutdown()

    async def store(self, *args: Any) -> None:
        self._inner.store(*args)

    async def get(self, *args: Any) -> Any:
        return self._inner.get(*args)

    async def forget(self, *args: Any) -> bool:
        return self._inner.forget(*args)

    async def list(self, *args: Any) -> Any:
        return self._inner.list(*args)

    async def namespaces(self) -> Any:
        return self._inner.namespaces()

    async def recall(self, *args: Any) -> Any:
        return self._inner.recall(*args)

    async def export_page(self, *args: Any) -> Any:
        return self._inner.export_page(*args)

    async def import_records(self, *args: Any) -> Any:
        return self._inner.import_records(*args)


def with_key(options: dict[str, str]) -> ReferenceProvider:
    """A reference provider configured with an API key it never shows."""
    assert "api_key" in options
    return ReferenceProvider()
