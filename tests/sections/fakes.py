"""Test doubles for the Section API: a recording wrapper, an async adapter, a scripted store."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.provider import (
    Capabilities,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryProvider,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
)

# Provider methods that touch data; `driver_id` and friends are not recorded.
DATA_METHODS = (
    "store",
    "get",
    "forget",
    "list",
    "namespaces",
    "recall",
    "export_page",
    "import_records",
)


@dataclass(frozen=True)
class Call:
    """One provider call: the method name and its positional arguments."""

    method: str
    args: tuple[Any, ...]

    def namespace(self) -> str | None:
        """The namespace the call addresses (`opts.namespace` for recall), if any."""
        if self.method in ("store", "get", "forget", "list"):
            namespace: str | None = self.args[0]
            return namespace
        if self.method == "recall":
            opts: OwnedRecallOpts = self.args[2]
            return opts.namespace
        return None


class Recording(ProviderBase):
    """Delegates every call to `inner` and records the data calls, in order."""

    def __init__(self, inner: MemoryProvider) -> None:
        self.inner = inner
        self.calls: list[Call] = []

    def count(self, method: str | None = None) -> int:
        """How many data calls (of `method`, when given) were made."""
        return sum(1 for call in self.calls if method is None or call.method == method)

    def of(self, method: str) -> builtins.list[Call]:
        """The calls of `method`, in order."""
        return [call for call in self.calls if call.method == method]

    def reset(self) -> None:
        """Forget the calls recorded so far."""
        self.calls.clear()

    def _call(self, method: str, *args: Any) -> Any:
        self.calls.append(Call(method, args))
        return getattr(self.inner, method)(*args)

    def driver_id(self) -> str:
        return self.inner.driver_id()

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    def health(self) -> MemoryHealth:
        return self.inner.health()

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._call("store", namespace, key, content, category, session_id, taint)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        result: MemoryEntry | None = self._call("get", namespace, key)
        return result

    def forget(self, namespace: str, key: str) -> bool:
        result: bool = self._call("forget", namespace, key)
        return result

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        result: builtins.list[MemoryEntry] = self._call("list", namespace, category, session_id)
        return result

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        result: builtins.list[NamespaceSummary] = self._call("namespaces")
        return result

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        result: builtins.list[MemoryEntry] = self._call("recall", query, limit, opts, scope)
        return result

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        result: ExportPage = self._call("export_page", cursor, limit)
        return result

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        result: ImportOutcome = self._call("import_records", records)
        return result


def hit(namespace: str, key: str, score: float | None) -> MemoryEntry:
    """A recall hit with any score, including the ones no real driver should give."""
    return MemoryEntry(
        id=f"{namespace}::{key}",
        key=key,
        content=f"{key} content",
        namespace=namespace,
        category=MemoryCategory.CORE,
        timestamp="1970-01-01T00:00:00Z",
        score=score,
    )


class Scripted(ProviderBase):
    """A dict-backed provider that answers `namespaces`, `list` and `recall` from a script.

    `summaries` is what `namespaces()` reports; `hits[namespace]` is what a recall
    pinned to that namespace returns (cut to `limit`); `fail[namespace]` builds the
    error such a recall raises instead. `list` answers from `hits` too.
    """

    def __init__(
        self,
        summaries: builtins.list[NamespaceSummary],
        hits: Mapping[str, builtins.list[MemoryEntry]] | None = None,
        fail: Mapping[str, Callable[[], Exception]] | None = None,
    ) -> None:
        self.summaries = summaries
        self.hits = dict(hits or {})
        self.fail = dict(fail or {})

    def driver_id(self) -> str:
        return "scripted"

    def capabilities(self) -> Capabilities:
        return Capabilities.mandatory()

    def health(self) -> MemoryHealth:
        return MemoryHealth.ready()

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        raise AssertionError("the scripted provider is read-only")

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return next((h for h in self.hits.get(namespace, []) if h.key == key), None)

    def forget(self, namespace: str, key: str) -> bool:
        return False

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        assert namespace is not None, "the section surface never lists without a namespace"
        return builtins.list(self.hits.get(namespace, []))

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return builtins.list(self.summaries)

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        assert opts.namespace is not None, "the section surface never recalls unpinned"
        if opts.namespace in self.fail:
            raise self.fail[opts.namespace]()
        return self.hits.get(opts.namespace, [])[:limit]

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        return ExportPage(records=[], next_cursor=None)

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return ImportOutcome(imported=0, skipped=len(records), failed=0, errors=[])
