"""Drivers for the plugin's own tests: slow, flaky, async and credential-bearing ones."""

from __future__ import annotations

import builtins
import threading
import time

from conformance.provider import MemoryEntry, NamespaceSummary, Unavailable
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncOver


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


class AsyncReference(AsyncOver):
    """The reference provider behind `async def` methods, as an async vendor driver is."""

    def __init__(self) -> None:
        super().__init__(ReferenceProvider())


class AtPath(ReferenceProvider):
    """A provider whose constructor takes its options as keyword parameters, as a
    vendor's class often does (`AtPath(path, mode="rw")`)."""

    def __init__(self, path: str, mode: str = "rw") -> None:
        super().__init__()
        if not path or mode not in ("rw", "ro"):
            raise ValueError(f"bad options: path={path!r}, mode={mode!r}")
        self.path, self.mode = path, mode
