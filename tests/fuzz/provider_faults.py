"""Reference providers with one fault each of the kind real adapters have, each showing
only in a state the fuzzer must reach: more than 50 rows, an export crossing a page,
a namespace or key beside its string-prefix sibling, a hit scoring below the minimum,
an instance that has taken many writes.

Each is a plain class taking no arguments, so a regression file rebuilds it from its
`module:Class` spec.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping

from conformance import Driver
from conformance.provider import (
    Backend,
    ExportPage,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)
from reference_driver.provider import ReferenceProvider


class ListCappedAt50(ReferenceProvider):
    """The backend answers at most 50 rows per query: a listing stops at 50."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return super().list(namespace, category, session_id)[:50]


class ExportSkipsAtPageBoundary(ReferenceProvider):
    """The export cursor points one row past where the next page starts: a row is lost at
    every page boundary."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(cursor, limit)
        if page.next_cursor is None:
            return page
        skipped = str(int(page.next_cursor) + 1)
        total = len(self._sorted_rows())
        return page.model_copy(update={"next_cursor": skipped if int(skipped) < total else None})


class ListsNamespacePrefix(ReferenceProvider):
    """`list(namespace)` matches the namespace as a string prefix: `~/a` lists `~/ab`."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(None, category, session_id)
        if namespace is None:
            return rows
        return [row for row in rows if (row.namespace or "").startswith(namespace)]


class ForgetsKeyPrefix(ReferenceProvider):
    """`forget(namespace, key)` deletes every key starting with `key`: forgetting `k1`
    takes `k10` to `k19` with it."""

    def forget(self, namespace: str, key: str) -> bool:
        existed = super().forget(namespace, key)
        for row in super().list(namespace, None, None):
            if row.key.startswith(key):
                super().forget(namespace, row.key)
        return existed


class MinScoreIgnored(ReferenceProvider):
    """Recall never drops a hit below `min_score`."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, limit, opts.model_copy(update={"min_score": None}), scope)


class TaintLostAfter20Writes(ReferenceProvider):
    """After its 20th write the instance stores every taint as `internal`."""

    after = 20

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self.writes += 1
        if self.writes > self.after:
            taint = MemoryTaint.INTERNAL
        super().store(namespace, key, content, category, session_id, taint)


class TaintLostAfter400Writes(TaintLostAfter20Writes):
    """The same fault after 400 writes: no single program makes that many, so it shows
    only on an instance that earlier programs have written to."""

    after = 400


ISSUE_13_PROVIDER_FAULTS = (
    ListCappedAt50,
    ExportSkipsAtPageBoundary,
    ListsNamespacePrefix,
    ForgetsKeyPrefix,
    MinScoreIgnored,
    TaintLostAfter20Writes,
)
"""Provider faults the fuzzer must find at its default budget under every seed."""


class BrokenInTheFirstInstanceOnly(ReferenceProvider):
    """Loses the taint of every write, but only in the first instance the process makes:
    a fault no fresh instance shows, however it is replayed (reset `made` before use)."""

    made = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).made += 1
        self.broken = type(self).made == 1

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        if self.broken:
            taint = MemoryTaint.INTERNAL
        super().store(namespace, key, content, category, session_id, taint)


class LeaksItsKey(ReferenceProvider):
    """Refuses a namespace with an `@` with a `Backend` error that quotes its API key."""

    def __init__(self, api_key: str) -> None:
        super().__init__()
        self.api_key = api_key

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        if "@" in namespace:
            raise Backend(f"the service refused the write for key {self.api_key}")
        super().store(namespace, key, content, category, session_id, taint)


def leaks_its_key(options: Mapping[str, str]) -> Driver:
    """The callable driver form: `--driver=tests.fuzz.provider_faults:leaks_its_key`."""
    return Driver(name="leaky", provider=lambda: LeaksItsKey(options["api_key"]))
