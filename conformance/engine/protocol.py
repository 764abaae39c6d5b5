"""The engine profile's driver protocols, sync and async, and bases carrying the defaults.

An engine offers ten operations. Seven are its own (``descriptor``, ``health``,
``store``, ``fetch``, ``recall``, ``list``, ``forget``); ``store_many``, ``explore``
and ``get`` have contract defaults, which ``EngineBase`` and ``AsyncEngineBase``
provide. Every operation validates its request first.
"""

from __future__ import annotations

import builtins
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .defaults import (
    aexplore_by_listing,
    aget_by_listing,
    explore_by_listing,
    get_by_listing,
    validate_many,
)
from .descriptor import EngineDescriptor, EngineHealth
from .items import StoreItem
from .requests import (
    ExploreRequest,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    ListRequest,
    RecallRequest,
)
from .responses import (
    ExplorePage,
    FetchPage,
    ForgetReport,
    Hit,
    ListPage,
    RecallAnswer,
    StoreReceipt,
)


@runtime_checkable
class MemoryEngine(Protocol):
    """A synchronous memory engine over typed items (the Rust ``MemoryEngine``)."""

    def descriptor(self) -> EngineDescriptor:
        """What the engine is and which fetch modes it serves."""
        ...

    def health(self) -> EngineHealth:
        """Whether the engine serves; infallible and cheap."""
        ...

    def store(self, item: StoreItem) -> StoreReceipt:
        """Stores one item; an item with a held fingerprint is a replay."""
        ...

    def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        """Stores 1..=100 items in order; receipts in item order."""
        ...

    def fetch(self, req: FetchRequest) -> FetchPage:
        """Ranked raw retrieval in a declared mode."""
        ...

    def recall(self, req: RecallRequest) -> RecallAnswer:
        """A synthesised answer with citations that resolve through ``list``."""
        ...

    def list(self, req: ListRequest) -> ListPage:
        """A query-free page of admitted items, each with score 0.0."""
        ...

    def forget(self, target: ForgetTarget) -> ForgetReport:
        """Removes items by id (anywhere) or by a non-empty filter."""
        ...

    def explore(self, req: ExploreRequest) -> ExplorePage:
        """Counts of admitted items per value of one facet."""
        ...

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        """Whole items by id, in the order named; unknown ids left out."""
        ...


@runtime_checkable
class AsyncMemoryEngine(Protocol):
    """An asynchronous memory engine; ``descriptor`` stays synchronous."""

    def descriptor(self) -> EngineDescriptor:
        """What the engine is and which fetch modes it serves."""
        ...

    async def health(self) -> EngineHealth:
        """Whether the engine serves; infallible and cheap."""
        ...

    async def store(self, item: StoreItem) -> StoreReceipt:
        """Stores one item; an item with a held fingerprint is a replay."""
        ...

    async def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        """Stores 1..=100 items in order; receipts in item order."""
        ...

    async def fetch(self, req: FetchRequest) -> FetchPage:
        """Ranked raw retrieval in a declared mode."""
        ...

    async def recall(self, req: RecallRequest) -> RecallAnswer:
        """A synthesised answer with citations that resolve through ``list``."""
        ...

    async def list(self, req: ListRequest) -> ListPage:
        """A query-free page of admitted items, each with score 0.0."""
        ...

    async def forget(self, target: ForgetTarget) -> ForgetReport:
        """Removes items by id (anywhere) or by a non-empty filter."""
        ...

    async def explore(self, req: ExploreRequest) -> ExplorePage:
        """Counts of admitted items per value of one facet."""
        ...

    async def get(self, req: GetRequest) -> builtins.list[Hit]:
        """Whole items by id, in the order named; unknown ids left out."""
        ...


class EngineBase(ABC):
    """A synchronous engine that inherits the contract defaults for ``store_many``,
    ``explore`` and ``get``; subclasses implement the other seven operations."""

    @abstractmethod
    def descriptor(self) -> EngineDescriptor:
        """What the engine is and which fetch modes it serves."""

    @abstractmethod
    def health(self) -> EngineHealth:
        """Whether the engine serves; infallible and cheap."""

    @abstractmethod
    def store(self, item: StoreItem) -> StoreReceipt:
        """Stores one item; an item with a held fingerprint is a replay."""

    @abstractmethod
    def fetch(self, req: FetchRequest) -> FetchPage:
        """Ranked raw retrieval in a declared mode."""

    @abstractmethod
    def recall(self, req: RecallRequest) -> RecallAnswer:
        """A synthesised answer with citations that resolve through ``list``."""

    @abstractmethod
    def list(self, req: ListRequest) -> ListPage:
        """A query-free page of admitted items, each with score 0.0."""

    @abstractmethod
    def forget(self, target: ForgetTarget) -> ForgetReport:
        """Removes items by id (anywhere) or by a non-empty filter."""

    def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        """Validates the batch (``validate_many``), then stores one item at a time."""
        validate_many(items)
        return [self.store(item) for item in items]

    def explore(self, req: ExploreRequest) -> ExplorePage:
        """``explore_by_listing``."""
        return explore_by_listing(self, req)

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        """``get_by_listing``."""
        return get_by_listing(self, req)


class AsyncEngineBase(ABC):
    """An asynchronous engine that inherits the contract defaults for ``store_many``,
    ``explore`` and ``get``; subclasses implement the other seven operations."""

    @abstractmethod
    def descriptor(self) -> EngineDescriptor:
        """What the engine is and which fetch modes it serves."""

    @abstractmethod
    async def health(self) -> EngineHealth:
        """Whether the engine serves; infallible and cheap."""

    @abstractmethod
    async def store(self, item: StoreItem) -> StoreReceipt:
        """Stores one item; an item with a held fingerprint is a replay."""

    @abstractmethod
    async def fetch(self, req: FetchRequest) -> FetchPage:
        """Ranked raw retrieval in a declared mode."""

    @abstractmethod
    async def recall(self, req: RecallRequest) -> RecallAnswer:
        """A synthesised answer with citations that resolve through ``list``."""

    @abstractmethod
    async def list(self, req: ListRequest) -> ListPage:
        """A query-free page of admitted items, each with score 0.0."""

    @abstractmethod
    async def forget(self, target: ForgetTarget) -> ForgetReport:
        """Removes items by id (anywhere) or by a non-empty filter."""

    async def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        """Validates the batch (``validate_many``), then stores one item at a time."""
        validate_many(items)
        return [await self.store(item) for item in items]

    async def explore(self, req: ExploreRequest) -> ExplorePage:
        """``aexplore_by_listing``."""
        return await aexplore_by_listing(self, req)

    async def get(self, req: GetRequest) -> builtins.list[Hit]:
        """``aget_by_listing``."""
        return await aget_by_listing(self, req)
