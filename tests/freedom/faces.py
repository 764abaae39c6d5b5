"""`async def` faces over the freedom drivers, counting the calls that went through them."""

from __future__ import annotations

import builtins

from conformance.engine import StoreItem, StoreReceipt
from conformance.provider import MemoryCategory, MemoryEntry, MemoryTaint
from tests.async_wrappers import AsyncEngineOver, AsyncOver
from tests.freedom.free_engine import FreeEngine
from tests.freedom.free_provider import FreeProvider


class AsyncFreeEngine(AsyncEngineOver):
    """A `FreeEngine` behind `async def` methods."""

    def __init__(self, inner: FreeEngine) -> None:
        super().__init__(inner)
        self.used = inner.used

    async def store(self, item: StoreItem) -> StoreReceipt:
        self.used["async"] += 1
        return await super().store(item)


class AsyncFreeProvider(AsyncOver):
    """A `FreeProvider` behind `async def` methods."""

    def __init__(self, inner: FreeProvider) -> None:
        super().__init__(inner)
        self.used = inner.used

    async def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self.used["async"] += 1
        await super().store(namespace, key, content, category, session_id, taint)

    async def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        self.used["async"] += 1
        return await super().list(namespace, category, session_id)
