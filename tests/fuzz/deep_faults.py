"""Reference drivers with one fault each that shows only after several steps.

Each is a plain class taking no arguments, so a fuzz reproduction file can rebuild it
from its `module:Class` spec. Every fault is keyed by what a run writes (a namespace,
a key, a cursor), never by a process-wide counter, so a failing example fails the
same way every time it is replayed.
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Sequence

from conformance.engine import ListPage, ListRequest, StoreItem, StoreReceipt
from conformance.provider import (
    Backend,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    Namespace,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
)
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider


class CursorSkipsPastFirstPage(ReferenceEngine):
    """Every page after the first drops its first item: a listing skips items only once
    it has more than one page."""

    def list(self, req: ListRequest) -> ListPage:
        page = super().list(req)
        if req.cursor is None or not page.items:
            return page
        return ListPage(items=page.items[1:], next_cursor=page.next_cursor)


class StoreManyNeverReplays(ReferenceEngine):
    """`store_many` reports every item as new, even one already held."""

    def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        return [
            receipt.model_copy(update={"replayed": False}) for receipt in super().store_many(items)
        ]


class ThirdWriteDuplicates(ReferenceProvider):
    """The third write to a key keeps the previous row beside the new one in listings."""

    def __init__(self) -> None:
        super().__init__()
        self._writes: Counter[tuple[str, str]] = Counter()
        self._stale: dict[tuple[str, str], MemoryEntry] = {}

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._writes[namespace, key] += 1
        old = self.get(namespace, key)
        if self._writes[namespace, key] == 3 and old is not None:
            self._stale[namespace, key] = old
        super().store(namespace, key, content, category, session_id, taint)

    def forget(self, namespace: str, key: str) -> bool:
        self._stale.pop((namespace, key), None)
        return super().forget(namespace, key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(namespace, category, session_id)
        stale = [
            row
            for (ns, _), row in self._stale.items()
            if (namespace is None or ns == namespace)
            and (category is None or row.category == category)
            and (session_id is None or row.session_id == session_id)
        ]
        return rows + stale


class NamespaceCountDrifts(ReferenceProvider):
    """`namespaces()` keeps counting an entry after it is forgotten."""

    def __init__(self) -> None:
        super().__init__()
        self._forgotten: Counter[str] = Counter()

    def forget(self, namespace: str, key: str) -> bool:
        existed = super().forget(namespace, key)
        if existed:
            self._forgotten[namespace] += 1
        return existed

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        counts = {s.namespace: s.count for s in super().namespaces()}
        for namespace, extra in self._forgotten.items():
            counts[namespace] = counts.get(namespace, 0) + extra
        return [NamespaceSummary(namespace=ns, count=n) for ns, n in sorted(counts.items())]


class ForgetLeavesGhostInListAll(ReferenceProvider):
    """A forgotten entry vanishes from its namespace but still shows in `list(None)`."""

    def __init__(self) -> None:
        super().__init__()
        self._ghosts: dict[tuple[str, str], MemoryEntry] = {}

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._ghosts.pop((namespace, key), None)
        super().store(namespace, key, content, category, session_id, taint)

    def forget(self, namespace: str, key: str) -> bool:
        old = self.get(namespace, key)
        if old is not None:
            self._ghosts[namespace, key] = old
        return super().forget(namespace, key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(namespace, category, session_id)
        if namespace is not None:
            return rows
        return rows + [
            row
            for row in self._ghosts.values()
            if (category is None or row.category == category)
            and (session_id is None or row.session_id == session_id)
        ]


class RecallSearchesEverywhere(ReferenceProvider):
    """Recall with no namespace searches every namespace instead of `global` only (the
    divergence of the Rust reference driver that decisions §4.1 pins against)."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if opts.namespace is not None:
            return super().recall(query, limit, opts, scope)
        hits: builtins.list[MemoryEntry] = []
        for summary in self.namespaces():
            pinned = opts.model_copy(update={"namespace": summary.namespace})
            hits += super().recall(query, limit, pinned, scope)
        return hits[:limit]


ENGINE_FAULTS = (CursorSkipsPastFirstPage, StoreManyNeverReplays)
PROVIDER_FAULTS = (
    ThirdWriteDuplicates,
    NamespaceCountDrifts,
    ForgetLeavesGhostInListAll,
    RecallSearchesEverywhere,
)


class AcceptsMalformedItems(ReferenceEngine):
    """Stores items without validating them (a blank body, a confidence of 1.5, ...)."""

    def store(self, item: StoreItem) -> StoreReceipt:
        item_id = item.fingerprint()
        if any(hit.id == item_id for hit in self.list(ListRequest(limit=10**6)).items):
            return StoreReceipt(id=item_id, replayed=True)
        # Validation skipped: a reference with `validate` a no-op for this one item.
        object.__setattr__(item, "validate", lambda: None)
        try:
            return super().store(item)
        finally:
            object.__delattr__(item, "validate")


class RefusesWithBackend(ReferenceProvider):
    """Refuses a namespace breaking the naming rules, but with `Backend`, not `Invalid`."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        try:
            Namespace.validate_name(namespace)
        except Invalid as error:
            raise Backend(f"the database refused the row: {error.message}") from None
        super().store(namespace, key, content, category, session_id, taint)


SHALLOW_FAULTS = (AcceptsMalformedItems, RefusesWithBackend)
