"""`MemoryProvider`: the bound driver of the provider profile, and its default base (A4).

A provider serves the three mandatory families itself and reaches each optional
family through an `as_<family>()` accessor that returns the family object or
`None`. `driver_id`, `capabilities`, `provides` and the accessors are synchronous
in both forms; in `AsyncMemoryProvider` everything else is `async def`.
Subclass `ProviderBase` / `AsyncProviderBase` for the contract's defaults.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Final, Protocol, runtime_checkable

from .capabilities import Capabilities, Capability
from .families import (
    AsyncMemoryCore,
    AsyncMemoryDocuments,
    AsyncMemoryPortability,
    AsyncMemoryRecall,
    MemoryCore,
    MemoryDocuments,
    MemoryPortability,
    MemoryRecall,
)
from .health import MemoryHealth

__all__ = [
    "FAMILY_ACCESSORS",
    "AsyncMemoryCore",
    "AsyncMemoryDocuments",
    "AsyncMemoryPortability",
    "AsyncMemoryProvider",
    "AsyncMemoryRecall",
    "AsyncProviderBase",
    "MemoryCore",
    "MemoryDocuments",
    "MemoryPortability",
    "MemoryProvider",
    "MemoryRecall",
    "ProviderBase",
]

FAMILY_ACCESSORS: Final = {
    capability: f"as_{capability.value}" for capability in Capability if not capability.is_mandatory
}
"""The accessor method that reaches each optional family."""


@runtime_checkable
class MemoryProvider(MemoryCore, MemoryRecall, MemoryPortability, Protocol):
    """A bound synchronous driver of the provider profile."""

    @abstractmethod
    def driver_id(self) -> str:
        """A stable name for the driver, without URL or token."""

    @abstractmethod
    def capabilities(self) -> Capabilities:
        """The families the driver advertises; asked once at bind and cached."""

    @abstractmethod
    def health(self) -> MemoryHealth:
        """Cheap health probe that must not hang."""

    def shutdown(self) -> None:
        """Release resources; idempotent."""

    def provides(self, capability: Capability) -> bool:
        """Whether `capability` is reachable: mandatory, or its accessor is not `None`."""

    def as_ingest(self) -> object | None:
        """The `ingest` family, or `None`."""

    def as_documents(self) -> MemoryDocuments | None:
        """The `documents` family, or `None`."""

    def as_tree(self) -> object | None:
        """The `tree` family, or `None`."""

    def as_entities(self) -> object | None:
        """The `entities` family, or `None`."""

    def as_graph(self) -> object | None:
        """The `graph` family, or `None`."""

    def as_diff(self) -> object | None:
        """The `diff` family, or `None`."""

    def as_goals(self) -> object | None:
        """The `goals` family, or `None`."""

    def as_tool_memory(self) -> object | None:
        """The `tool_memory` family, or `None`."""

    def as_sources(self) -> object | None:
        """The `sources` family, or `None`."""

    def as_maintenance(self) -> object | None:
        """The `maintenance` family, or `None`."""

    def as_people(self) -> object | None:
        """The `people` family, or `None`."""

    def as_chunks(self) -> object | None:
        """The `chunks` family, or `None`."""

    def as_retrieval(self) -> object | None:
        """The `retrieval` family, or `None`."""

    def as_profile(self) -> object | None:
        """The `profile` family, or `None`."""

    def as_episodic(self) -> object | None:
        """The `episodic` family, or `None`."""


@runtime_checkable
class AsyncMemoryProvider(AsyncMemoryCore, AsyncMemoryRecall, AsyncMemoryPortability, Protocol):
    """A bound driver of the provider profile with `async def` calls."""

    @abstractmethod
    def driver_id(self) -> str:
        """A stable name for the driver, without URL or token."""

    @abstractmethod
    def capabilities(self) -> Capabilities:
        """The families the driver advertises; asked once at bind and cached."""

    @abstractmethod
    async def health(self) -> MemoryHealth:
        """Cheap health probe that must not hang."""

    async def shutdown(self) -> None:
        """Release resources; idempotent."""

    def provides(self, capability: Capability) -> bool:
        """Whether `capability` is reachable: mandatory, or its accessor is not `None`."""

    def as_ingest(self) -> object | None:
        """The `ingest` family, or `None`."""

    def as_documents(self) -> AsyncMemoryDocuments | None:
        """The `documents` family, or `None`."""

    def as_tree(self) -> object | None:
        """The `tree` family, or `None`."""

    def as_entities(self) -> object | None:
        """The `entities` family, or `None`."""

    def as_graph(self) -> object | None:
        """The `graph` family, or `None`."""

    def as_diff(self) -> object | None:
        """The `diff` family, or `None`."""

    def as_goals(self) -> object | None:
        """The `goals` family, or `None`."""

    def as_tool_memory(self) -> object | None:
        """The `tool_memory` family, or `None`."""

    def as_sources(self) -> object | None:
        """The `sources` family, or `None`."""

    def as_maintenance(self) -> object | None:
        """The `maintenance` family, or `None`."""

    def as_people(self) -> object | None:
        """The `people` family, or `None`."""

    def as_chunks(self) -> object | None:
        """The `chunks` family, or `None`."""

    def as_retrieval(self) -> object | None:
        """The `retrieval` family, or `None`."""

    def as_profile(self) -> object | None:
        """The `profile` family, or `None`."""

    def as_episodic(self) -> object | None:
        """The `episodic` family, or `None`."""


class _NoOptionalFamilies:
    """Every optional accessor answers `None`; `provides` reads the accessors."""

    def provides(self, capability: Capability) -> bool:
        """Whether `capability` is reachable: mandatory, or its accessor is not `None`."""
        if capability.is_mandatory:
            return True
        return getattr(self, FAMILY_ACCESSORS[capability])() is not None

    def as_ingest(self) -> object | None:
        """`None`: not served."""
        return None

    def as_tree(self) -> object | None:
        """`None`: not served."""
        return None

    def as_entities(self) -> object | None:
        """`None`: not served."""
        return None

    def as_graph(self) -> object | None:
        """`None`: not served."""
        return None

    def as_diff(self) -> object | None:
        """`None`: not served."""
        return None

    def as_goals(self) -> object | None:
        """`None`: not served."""
        return None

    def as_tool_memory(self) -> object | None:
        """`None`: not served."""
        return None

    def as_sources(self) -> object | None:
        """`None`: not served."""
        return None

    def as_maintenance(self) -> object | None:
        """`None`: not served."""
        return None

    def as_people(self) -> object | None:
        """`None`: not served."""
        return None

    def as_chunks(self) -> object | None:
        """`None`: not served."""
        return None

    def as_retrieval(self) -> object | None:
        """`None`: not served."""
        return None

    def as_profile(self) -> object | None:
        """`None`: not served."""
        return None

    def as_episodic(self) -> object | None:
        """`None`: not served."""
        return None


class ProviderBase(_NoOptionalFamilies, MemoryProvider):
    """The contract's defaults for a synchronous provider.

    Subclasses implement `driver_id`, `capabilities`, `health` and the mandatory
    family methods, and override an `as_*` accessor for each optional family
    they serve; `provides` then follows.
    """

    def shutdown(self) -> None:
        """Nothing to release."""

    def as_documents(self) -> MemoryDocuments | None:
        """`None`: not served."""
        return None


class AsyncProviderBase(_NoOptionalFamilies, AsyncMemoryProvider):
    """The contract's defaults for an `async def` provider (see `ProviderBase`)."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def as_documents(self) -> AsyncMemoryDocuments | None:
        """`None`: not served."""
        return None
