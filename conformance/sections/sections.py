"""`Sections` and `AsyncSections`: the entry point to the Section API (A10)."""

from __future__ import annotations

from conformance.provider import AsyncMemoryProvider, MemoryProvider, MemorySection

from .recall import AsyncSectionRecall, SectionRecall
from .view import AsyncSectionView, SectionView


class Sections:
    """A provider viewed one section at a time; a borrowing handle holding only it.

    Works on any `MemoryProvider` through the mandatory families alone.
    """

    __slots__ = ("_provider",)

    def __init__(self, provider: MemoryProvider) -> None:
        self._provider = provider

    def conversations(self) -> SectionView:
        """The `conversation:` section."""
        return SectionView(self._provider, MemorySection.CONVERSATION)

    def learnings(self) -> SectionView:
        """The `learning:` section."""
        return SectionView(self._provider, MemorySection.LEARNING)

    def documents(self) -> SectionView:
        """The `document:` section, written through `store` like the others."""
        return SectionView(self._provider, MemorySection.DOCUMENT)

    def section(self, section: MemorySection) -> SectionView:
        """Any section, custom ones included; normalised by the view."""
        return SectionView(self._provider, section)

    def recall(self) -> SectionRecall:
        """Recall within one scope or across a section."""
        return SectionRecall(self._provider)

    def __repr__(self) -> str:
        return f"Sections(driver_id={self._provider.driver_id()!r})"


class AsyncSections:
    """`Sections` over an `async def` provider."""

    __slots__ = ("_provider",)

    def __init__(self, provider: AsyncMemoryProvider) -> None:
        self._provider = provider

    def conversations(self) -> AsyncSectionView:
        """The `conversation:` section."""
        return AsyncSectionView(self._provider, MemorySection.CONVERSATION)

    def learnings(self) -> AsyncSectionView:
        """The `learning:` section."""
        return AsyncSectionView(self._provider, MemorySection.LEARNING)

    def documents(self) -> AsyncSectionView:
        """The `document:` section, written through `store` like the others."""
        return AsyncSectionView(self._provider, MemorySection.DOCUMENT)

    def section(self, section: MemorySection) -> AsyncSectionView:
        """Any section, custom ones included; normalised by the view."""
        return AsyncSectionView(self._provider, section)

    def recall(self) -> AsyncSectionRecall:
        """Recall within one scope or across a section."""
        return AsyncSectionRecall(self._provider)

    def __repr__(self) -> str:
        return f"AsyncSections(driver_id={self._provider.driver_id()!r})"
