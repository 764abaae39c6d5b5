"""Correct drivers that use a freedom the contract leaves, or fail in ways the run's rules
cover: each must pass the fuzzer (or end it inconclusive, never failed)."""

from __future__ import annotations

import builtins
import time

from conformance.engine import ListPage, ListRequest
from conformance.engine import Unavailable as EngineUnavailable
from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    Namespace,
    OwnedRecallOpts,
    SourceScope,
    Unavailable,
)
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider

EVERY = 7
"""A rate-limited driver refuses one call in this many with `Unavailable`."""


class _RateLimited:
    """Answers `Unavailable` to every seventh call from outside, as a rate-limited service
    does (calls a method makes to its own methods are not counted)."""

    unavailable: type[Exception]
    calls = 0
    depth = 0

    def __getattribute__(self, name: str) -> object:
        attr = object.__getattribute__(self, name)
        if name.startswith("_") or not callable(attr) or name in ("descriptor", "unavailable"):
            return attr

        def limited(*args: object, **kwargs: object) -> object:
            if self.depth:
                return attr(*args, **kwargs)
            self.calls += 1
            if self.calls % EVERY == 0:
                raise self.unavailable("rate limited; retry shortly")
            self.depth += 1
            try:
                answer = attr(*args, **kwargs)
            finally:
                self.depth -= 1
            # A family (`as_documents()`) is served by the same limited service.
            return _Family(self, answer) if name.startswith("as_") and answer else answer

        return limited


class _Family:
    """A family of a rate-limited driver: its calls count against the driver's."""

    def __init__(self, owner: _RateLimited, family: object) -> None:
        self._owner = owner
        self._family = family

    def __getattr__(self, name: str) -> object:
        attr = getattr(self._family, name)
        owner = self._owner

        def limited(*args: object, **kwargs: object) -> object:
            owner.calls += 1
            if owner.calls % EVERY == 0:
                raise owner.unavailable("rate limited; retry shortly")
            return attr(*args, **kwargs)  # type: ignore[operator]

        return limited if callable(attr) else attr


class RateLimitedProvider(_RateLimited, ReferenceProvider):
    """The reference provider, rate limited."""

    unavailable = Unavailable


class RateLimitedEngine(_RateLimited, ReferenceEngine):
    """The reference engine, rate limited."""

    unavailable = EngineUnavailable


class ValidatesNamespacesEverywhere(ReferenceProvider):
    """Refuses a malformed namespace with `Invalid` on every operation, `forget` included
    (decisions §4.11)."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        Namespace.validate_name(namespace)
        super().store(namespace, key, content, category, session_id, taint)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        Namespace.validate_name(namespace)
        return super().get(namespace, key)

    def forget(self, namespace: str, key: str) -> bool:
        Namespace.validate_name(namespace)
        return super().forget(namespace, key)


def _unsourced(rows: builtins.list[MemoryEntry]) -> builtins.list[MemoryEntry]:
    return [row for row in rows if MemoryTaint(row.taint) == MemoryTaint.INTERNAL]


class EmptyScopeAnswersUnattributed(ReferenceProvider):
    """With `SourceScope([])` recall hides source-attributed (`external_sync`) rows and
    answers the rest: one reading decisions §4.11 allows."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if scope is None:
            return super().recall(query, limit, opts, None)
        if scope.allow:
            raise Invalid("only the empty scope is applied")
        return _unsourced(super().recall(query, 1_000_000, opts, None))[:limit]


class EmptyScopeAnswersNothing(ReferenceProvider):
    """With `SourceScope([])` recall answers nothing: the other reading decisions §4.11
    allows."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if scope is None:
            return super().recall(query, limit, opts, None)
        return []


class EmptyScopeLeaksAttributed(EmptyScopeAnswersUnattributed):
    """With `SourceScope([])` recall answers source-attributed rows too: a fault."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, limit, opts, None)


class HangsAfterAWhile(ReferenceProvider):
    """Its 60th `list` call never returns (well, not for a minute)."""

    def __init__(self) -> None:
        super().__init__()
        self.lists = 0

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        self.lists += 1
        if self.lists == 60:
            time.sleep(60)
        return super().list(namespace, category, session_id)


class HangingEngine(ReferenceEngine):
    """Its 30th `list` call never returns (well, not for a minute)."""

    def __init__(self) -> None:
        super().__init__()
        self.lists = 0

    def list(self, req: ListRequest) -> ListPage:
        self.lists += 1
        if self.lists == 30:
            time.sleep(60)
        return super().list(req)
