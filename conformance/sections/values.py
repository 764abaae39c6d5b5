"""The values the Section API returns: `SectionScope` and `SectionHits` (A10)."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.provider import MemoryEntry, Namespace, Timestamp


@dataclass(frozen=True, slots=True)
class SectionScope:
    """One namespace of a section, as `scopes()` reports it."""

    namespace: Namespace
    """The parsed namespace, section prefix included."""
    entries: int
    """How many entries the driver says it holds."""
    last_updated: Timestamp | None = None
    """Time of its latest write, when the driver tracks one."""

    def scope(self) -> str:
        """The part after the section prefix: what every `SectionView` method takes."""
        return self.namespace.scope()


@dataclass(frozen=True, slots=True)
class SectionHits:
    """What a section recall found, and how much of the section it searched."""

    hits: list[MemoryEntry]
    """The hits, most relevant first."""
    namespaces_searched: int
    """How many namespaces were recalled."""
    truncated: bool
    """Whether `MAX_SECTION_NAMESPACES` skipped a namespace; never that hits hit `limit`."""
