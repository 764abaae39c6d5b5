"""`SectionView` and `AsyncSectionView`: one section of a provider, addressed by scope.

Every method takes the scope (`"thread-8f21"`), never the full namespace, and
builds the namespace itself, so a scope that cannot form one is `Invalid` before
anything reaches the provider.
"""

from __future__ import annotations

import builtins

from conformance.provider import (
    AsyncMemoryProvider,
    MemoryCategory,
    MemoryEntry,
    MemoryProvider,
    MemorySection,
    MemoryTaint,
    Namespace,
)

from .ordering import by_address, scopes_in_section
from .rules import normalise, require_usable
from .values import SectionScope

# `list` is a method name below, so later annotations spell the type `builtins.list`.


class SectionView:
    """A borrowing handle onto one section of a synchronous provider.

    Holds the provider and the section, normalised at construction so
    `custom("conversation")` and `CONVERSATION` are one view, not two.
    """

    __slots__ = ("_provider", "_section")

    def __init__(self, provider: MemoryProvider, section: MemorySection) -> None:
        self._provider = provider
        self._section = normalise(section)

    @property
    def section(self) -> MemorySection:
        """The normalised section this view is bound to."""
        return self._section

    def namespace(self, scope: str) -> Namespace:
        """The namespace `scope` names in this section; `Invalid` if it cannot form one."""
        return Namespace.new(self._section, scope)

    def put(
        self,
        scope: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> Namespace:
        """`store` under `scope` (same parameter order); the namespace written."""
        namespace = self.namespace(scope)
        self._provider.store(namespace.as_str(), key, content, category, session_id, taint)
        return namespace

    def get(self, scope: str, key: str) -> MemoryEntry | None:
        """The entry at `(scope, key)`, or `None` when absent."""
        return self._provider.get(self.namespace(scope).as_str(), key)

    def forget(self, scope: str, key: str) -> bool:
        """Remove the entry at `(scope, key)`; whether it existed."""
        return self._provider.forget(self.namespace(scope).as_str(), key)

    def list(
        self,
        scope: str,
        category: MemoryCategory | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryEntry]:
        """The entries of one scope matching every given filter, in driver order."""
        return self._provider.list(self.namespace(scope).as_str(), category, session_id)

    def scopes(self) -> builtins.list[SectionScope]:
        """Every namespace of this section, by entries desc then namespace asc.

        One `namespaces` call. `Invalid`, with no call, when the section's prefix
        cannot form a namespace. `Backend` naming them when the driver reports names
        of this section that are not valid namespaces: they are never skipped.
        """
        require_usable(self._section)
        return scopes_in_section(self._section, self._provider.namespaces())

    def list_section(
        self, category: MemoryCategory | None = None, session_id: str | None = None
    ) -> builtins.list[MemoryEntry]:
        """Every entry of the section matching the filters, by (namespace, key).

        One `namespaces` call plus one `list` per scope, uncapped; fails as `scopes()`
        does.
        """
        return by_address(
            entry
            for scope in self.scopes()
            for entry in self._provider.list(scope.namespace.as_str(), category, session_id)
        )

    def __repr__(self) -> str:
        return f"SectionView(section={self._section!r}, driver_id={self._provider.driver_id()!r})"


class AsyncSectionView:
    """`SectionView` over an `async def` provider; the I/O methods are coroutines."""

    __slots__ = ("_provider", "_section")

    def __init__(self, provider: AsyncMemoryProvider, section: MemorySection) -> None:
        self._provider = provider
        self._section = normalise(section)

    @property
    def section(self) -> MemorySection:
        """The normalised section this view is bound to."""
        return self._section

    def namespace(self, scope: str) -> Namespace:
        """The namespace `scope` names in this section; `Invalid` if it cannot form one."""
        return Namespace.new(self._section, scope)

    async def put(
        self,
        scope: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> Namespace:
        """`store` under `scope` (same parameter order); the namespace written."""
        namespace = self.namespace(scope)
        await self._provider.store(namespace.as_str(), key, content, category, session_id, taint)
        return namespace

    async def get(self, scope: str, key: str) -> MemoryEntry | None:
        """The entry at `(scope, key)`, or `None` when absent."""
        return await self._provider.get(self.namespace(scope).as_str(), key)

    async def forget(self, scope: str, key: str) -> bool:
        """Remove the entry at `(scope, key)`; whether it existed."""
        return await self._provider.forget(self.namespace(scope).as_str(), key)

    async def list(
        self,
        scope: str,
        category: MemoryCategory | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryEntry]:
        """The entries of one scope matching every given filter, in driver order."""
        return await self._provider.list(self.namespace(scope).as_str(), category, session_id)

    async def scopes(self) -> builtins.list[SectionScope]:
        """Every namespace of this section, by entries desc then namespace asc.

        One `namespaces` call. `Invalid`, with no call, when the section's prefix
        cannot form a namespace. `Backend` naming them when the driver reports names
        of this section that are not valid namespaces: they are never skipped.
        """
        require_usable(self._section)
        return scopes_in_section(self._section, await self._provider.namespaces())

    async def list_section(
        self, category: MemoryCategory | None = None, session_id: str | None = None
    ) -> builtins.list[MemoryEntry]:
        """Every entry of the section matching the filters, by (namespace, key).

        One `namespaces` call plus one `list` per scope, uncapped; fails as `scopes()`
        does.
        """
        entries: builtins.list[MemoryEntry] = []
        for scope in await self.scopes():
            entries += await self._provider.list(scope.namespace.as_str(), category, session_id)
        return by_address(entries)

    def __repr__(self) -> str:
        return (
            f"AsyncSectionView(section={self._section!r}, driver_id={self._provider.driver_id()!r})"
        )
