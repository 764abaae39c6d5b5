"""Correct providers using the freedoms the contract leaves pass every provider check."""

from __future__ import annotations

import builtins
import hashlib
import itertools
from typing import Any

import pytest

from conformance.checks.context import RunSettings
from conformance.checks.runner import run_provider_suite
from conformance.provider import (
    ExportPage,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    Namespace,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
)
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncOver
from tests.checks.broken_providers import Hooked, Written

FAST = RunSettings(timeout=10.0, retries=0)
NOT_RUN = {
    "provider.no_credential_in_errors": "no credential option given to the driver",
}
EVERYTHING = 10**6


class OpaqueIds(Hooked):
    """Entry and record ids that are digests, unrelated to namespace and key."""

    @staticmethod
    def _id(*parts: object) -> str:
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]

    def read(self, entry: MemoryEntry) -> MemoryEntry:
        opaque = self._id("entry", entry.namespace, entry.key)
        return super().read(entry).model_copy(update={"id": opaque})

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(cursor, limit)
        records = [r.model_copy(update={"id": self._id("record", r.id)}) for r in page.records]
        return ExportPage(records=records, next_cursor=page.next_cursor)


class NewestFirst(ReferenceProvider):
    """Lists in the reverse of the reference's order."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return builtins.list(reversed(super().list(namespace, category, session_id)))


class ShortExportPages(ReferenceProvider):
    """Pages of at most 2 records, an empty page with a cursor after each, an empty last
    page after a full one, and single-use cursors of its own format."""

    def __init__(self) -> None:
        super().__init__()
        self._issued: dict[str, tuple[int, str]] = {}
        self._tokens = itertools.count()

    def _issue(self, offset: int, mode: str) -> str:
        cursor = f"pg~{next(self._tokens)}~{hashlib.md5(str(offset).encode()).hexdigest()[:6]}"
        self._issued[cursor] = (offset, mode)
        return cursor

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if limit < 1:
            raise Invalid("export page limit must be greater than zero")
        offset, mode = (0, "page") if cursor is None else self._issued.pop(cursor, (-1, ""))
        if offset < 0:
            raise Invalid("export cursor not issued by this driver, or used already")
        if mode == "empty":
            return ExportPage(records=[], next_cursor=self._issue(offset, "page"))
        if mode == "final":
            return ExportPage(records=[], next_cursor=None)
        size = min(limit, 2)
        page = super().export_page(str(offset) if offset else None, size)
        end = offset + len(page.records)
        if page.next_cursor is not None:
            return ExportPage(records=page.records, next_cursor=self._issue(end, "empty"))
        full = len(page.records) == size and page.records
        return ExportPage(
            records=page.records, next_cursor=self._issue(end, "final") if full else None
        )


class OtherScale(ReferenceProvider):
    """Scores `100 s - 50` (negative for weak hits; higher is still better), `min_score`
    compared with the score it reports."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        unfiltered = opts.model_copy(update={"min_score": None})
        hits = [
            h.model_copy(update={"score": h.score * 100 - 50 if h.score is not None else None})
            for h in super().recall(query, EVERYTHING, unfiltered, scope)
        ]
        bound = opts.min_score
        kept = [h for h in hits if bound is None or (h.score is not None and h.score >= bound)]
        return kept[: max(limit, 0)]


class NoScores(ReferenceProvider):
    """Ranks, but reports no scores."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return [
            h.model_copy(update={"score": None}) for h in super().recall(query, limit, opts, scope)
        ]


class OffsetTimestamps(Hooked):
    """Times written with non-UTC offsets (the same instants), and a namespace time."""

    def read(self, entry: MemoryEntry) -> MemoryEntry:
        shifted = {"timestamp": "1970-01-01T05:30:00+05:30"}
        return super().read(entry).model_copy(update=shifted)

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return [
            s.model_copy(update={"last_updated": "1969-12-31T21:00:00.250-03:00"})
            for s in super().namespaces()
        ]


class KeepsEmptyNamespaces(Hooked):
    """Keeps listing a namespace once written, with count 0 when emptied."""

    def __init__(self) -> None:
        super().__init__()
        self._ever: set[str] = set()

    def write(self, row: Written) -> Written:
        self._ever.add(row.namespace)
        return super().write(row)

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        held = {s.namespace: s for s in super().namespaces()}
        for name in self._ever - set(held):
            held[name] = NamespaceSummary(namespace=name, count=0)
        return sorted(held.values(), key=lambda s: s.namespace)


class ScopeDeniesAttributedOnly(ReferenceProvider):
    """Applies a source scope: an entry without source attribution (internal) is returned,
    an attributed one (external_sync) is denied unless allowed (decisions §4.11)."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if scope is None:
            return super().recall(query, limit, opts, None)
        hits = super().recall(query, EVERYTHING, opts, None)
        return [h for h in hits if h.taint == MemoryTaint.INTERNAL][: max(limit, 0)]


class ScopeDeniesAll(ReferenceProvider):
    """Answers [] for any source scope: nothing it holds carries a source it may show."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return [] if scope is not None else super().recall(query, limit, opts, None)


class RefusesMalformedReads(ReferenceProvider):
    """Refuses a malformed namespace on reads and forgets too, as the contract allows."""

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        Namespace.parse(namespace)
        return super().get(namespace, key)

    def forget(self, namespace: str, key: str) -> bool:
        Namespace.parse(namespace)
        return super().forget(namespace, key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        if namespace is not None:
            Namespace.parse(namespace)
        return super().list(namespace, category, session_id)


class EveryFreedom(
    OpaqueIds,
    NewestFirst,
    ShortExportPages,
    OtherScale,
    OffsetTimestamps,
    KeepsEmptyNamespaces,
    ScopeDeniesAttributedOnly,
    RefusesMalformedReads,
):
    """All of the above at once."""


FREE = [
    OpaqueIds,
    NewestFirst,
    ShortExportPages,
    OtherScale,
    NoScores,
    OffsetTimestamps,
    KeepsEmptyNamespaces,
    ScopeDeniesAttributedOnly,
    ScopeDeniesAll,
    RefusesMalformedReads,
    EveryFreedom,
]


def not_passed(provider: Any) -> dict[str, str]:
    results = run_provider_suite(provider, FAST)
    return {k: r.reason for k, r in results.items() if r.outcome != "passed"}


@pytest.mark.parametrize("free", FREE, ids=lambda f: f.__name__)
def test_a_provider_using_a_freedom_passes_every_check(free: type[ReferenceProvider]) -> None:
    assert not_passed(free()) == NOT_RUN


@pytest.mark.parametrize("free", [ReferenceProvider, EveryFreedom], ids=lambda f: f.__name__)
def test_an_async_provider_passes_every_check(free: type[ReferenceProvider]) -> None:
    assert not_passed(AsyncOver(free())) == NOT_RUN


def test_short_pages_really_are_short_and_cursors_single_use() -> None:
    provider = ShortExportPages()
    for i in range(5):
        provider.store("ns", f"k{i}", "x", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    first = provider.export_page(None, 8)
    assert len(first.records) == 2 and first.next_cursor is not None
    empty = provider.export_page(first.next_cursor, 8)
    assert empty.records == [] and empty.next_cursor is not None
    with pytest.raises(Invalid):
        provider.export_page(first.next_cursor, 8)
