"""Drivers whose process dies under the kit: `os._exit` or a segfault on their 20th
`store`. Each is otherwise the reference provider."""

from __future__ import annotations

import ctypes
import os

from conformance.provider import MemoryCategory, MemoryTaint
from reference_driver.provider import ReferenceProvider

FATAL_STORE = 20
"""The `store` call (counted per process) that kills the process."""


class _DiesOnAStore(ReferenceProvider):
    stores = 0
    """`store` calls made in this process, by every instance."""

    def die(self) -> None:
        raise NotImplementedError

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        _DiesOnAStore.stores += 1
        if _DiesOnAStore.stores == FATAL_STORE:
            self.die()
        super().store(namespace, key, content, category, session_id, taint)


class ExitsOnAStore(_DiesOnAStore):
    """Ends its process with `os._exit(3)` on the 20th `store`."""

    def die(self) -> None:
        os._exit(3)


class SegfaultsOnAStore(_DiesOnAStore):
    """Dereferences a null pointer on the 20th `store`."""

    def die(self) -> None:
        ctypes.string_at(0)
