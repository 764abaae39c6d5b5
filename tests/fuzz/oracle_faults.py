"""Engines wrong in a part of an answer the fuzzer's oracle used to leave alone (issue 21).

Each is correct in what the earlier oracle compared, and wrong in one field or reading
it now holds: the order of a whole fetch, a cursor across a write between pages, an
explore stopped at its scan limit, the engine's health between steps, a recall asked for
a held text. Each is a plain class taking no arguments, and its fault depends only on
what was written, so a failing program fails the same way every time.
"""

from __future__ import annotations

import builtins
import dataclasses
import unicodedata

from conformance.engine import (
    EngineFault,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    FetchPage,
    FetchRequest,
    ForgetIds,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)
from conformance.engine.limits import MAX_SCAN_LIMIT
from conformance.provider import (
    GLOBAL_NAMESPACE,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)
from reference_driver.engine import NOTHING_ANSWERS, ReferenceEngine
from reference_driver.provider import ReferenceProvider


class FetchWorstFirst(ReferenceEngine):
    """Ranks by a distance read as a similarity: the whole fetch comes worst first."""

    def fetch(self, req: FetchRequest) -> FetchPage:
        whole = super().fetch(req.model_copy(update={"cursor": None, "limit": 10**6}))
        ranked = builtins.list(reversed(whole.hits))
        start = int(req.cursor or 0)
        page = ranked[start : start + req.limit]
        end = start + len(page)
        return FetchPage(hits=page, next_cursor=str(end) if end < len(ranked) else None)


class ListCursorLostWithItsItem(ReferenceEngine):
    """The cursor names the last item answered; when that item is forgotten before the
    next page, the engine cannot find where to resume and ends the listing."""

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        everything = super().list(req.model_copy(update={"cursor": None, "limit": 10**6})).items
        ids = [hit.id for hit in everything]
        if req.cursor is None:
            start = 0
        elif req.cursor.startswith("after:"):
            last = req.cursor.removeprefix("after:")
            if last not in ids:
                return ListPage(items=[], next_cursor=None)
            start = ids.index(last) + 1
        else:
            raise InvalidRequest(f"unknown cursor `{req.cursor}`")
        page = everything[start : start + req.limit]
        more = start + len(page) < len(everything)
        return ListPage(items=page, next_cursor=f"after:{page[-1].id}" if more and page else None)


class ListRestartsAfterAWrite(ReferenceEngine):
    """Cursors carry the store's version; after any write the engine cannot resume and
    starts the listing over, answering every item again."""

    def __init__(self) -> None:
        super().__init__()
        self._version = 0

    def store(self, item):  # type: ignore[no-untyped-def]
        receipt = super().store(item)
        self._version += 0 if receipt.replayed else 1
        return receipt

    def forget(self, target):  # type: ignore[no-untyped-def]
        report = super().forget(target)
        self._version += 1 if report.forgotten else 0
        return report

    def list(self, req: ListRequest) -> ListPage:
        cursor = req.cursor
        if cursor is not None:
            version, _, position = cursor.partition(":")
            if not version.isdigit():
                raise InvalidRequest(f"unknown cursor `{cursor}`")
            cursor = position if int(version) == self._version else None
        page = super().list(req.model_copy(update={"cursor": cursor}))
        after = None if page.next_cursor is None else f"{self._version}:{page.next_cursor}"
        return page.model_copy(update={"next_cursor": after})


class ExploreHidesItsTruncation(ReferenceEngine):
    """Explores by listing up to `scan_limit` items, and says it counted everything."""

    def explore(self, req: ExploreRequest) -> ExplorePage:
        page = super().explore(req)
        return page.model_copy(update={"truncated": False})


class ExploreCountsPastTheScan(ReferenceEngine):
    """Counts every admitted item, and still says the scan stopped at `scan_limit`."""

    def explore(self, req: ExploreRequest) -> ExplorePage:
        cut = super().explore(req)
        whole = super().explore(req.model_copy(update={"scan_limit": MAX_SCAN_LIMIT}))
        return whole.model_copy(update={"truncated": cut.truncated})


class DownPastSixtyItems(ReferenceEngine):
    """Reports itself down once it holds more than 60 items (a capacity check counting
    the wrong thing), while it goes on serving."""

    def health(self) -> EngineHealth:
        if len(self) > 60:
            return EngineHealth.down("over capacity")
        return super().health()


class RecallDropsLongQuestions(ReferenceEngine):
    """Cuts a question to its first 12 characters before searching (a token budget
    applied to characters): a question that is a held text no longer finds it."""

    def recall(self, req: RecallRequest) -> RecallAnswer:
        req.validate()
        if len(req.question) > 12:
            return RecallAnswer(answer=NOTHING_ANSWERS, citations=[], model="reference")
        return super().recall(req)


ORACLE_ENGINE_FAULTS = (
    FetchWorstFirst,
    ListCursorLostWithItsItem,
    ListRestartsAfterAWrite,
    ExploreHidesItsTruncation,
    ExploreCountsPastTheScan,
    DownPastSixtyItems,
    RecallDropsLongQuestions,
)
"""Engine faults only the complete oracle sees (issue 21)."""


class _Recalls(ReferenceProvider):
    """A reference provider whose recall answers `shape(hits, query, opts)`."""

    def shape(
        self, hits: builtins.list[MemoryEntry], query: str, opts: OwnedRecallOpts
    ) -> builtins.list[MemoryEntry]:  # pragma: no cover
        raise NotImplementedError

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None = None
    ) -> builtins.list[MemoryEntry]:
        return self.shape(super().recall(query, limit, opts, scope), query, opts)


class RecallWorstFirst(_Recalls):
    """Sorts recall hits by a distance read as a similarity: worst first."""

    def shape(
        self, hits: builtins.list[MemoryEntry], query: str, opts: OwnedRecallOpts
    ) -> builtins.list[MemoryEntry]:
        return sorted(hits, key=lambda hit: hit.score or 0.0)


class RecallRepeatsItsBest(_Recalls):
    """Answers the best hit twice when several match (a chunk store citing two chunks of
    one entry), in place of the last."""

    def shape(
        self, hits: builtins.list[MemoryEntry], query: str, opts: OwnedRecallOpts
    ) -> builtins.list[MemoryEntry]:
        return [*hits[:-1], hits[0]] if len(hits) > 2 else hits


class RecallIgnoresSession(ReferenceProvider):
    """Drops `session_id` from recall's options: a session filter narrows nothing."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None = None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, limit, opts.model_copy(update={"session_id": None}), scope)


class MinScoreOnAnotherScale(ReferenceProvider):
    """Answers scores doubled (its own scale) but holds `min_score` to the raw ones, so
    hits scoring at or above the minimum as answered are dropped."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None = None
    ) -> builtins.list[MemoryEntry]:
        hits = super().recall(query, limit, opts, scope)
        return [hit.model_copy(update={"score": (hit.score or 0.0) * 2}) for hit in hits]


class RecallPagesAtFive(ReferenceProvider):
    """Answers at most the first page (5 rows) of its store's results, whatever the limit."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None = None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, min(limit, 5), opts, scope)


class BlankQueryListsTheNamespace(ReferenceProvider):
    """Reads a blank query as 'anything', answering the namespace's first rows."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None = None
    ) -> builtins.list[MemoryEntry]:
        if query.strip():
            return super().recall(query, limit, opts, scope)
        rows = self.list(opts.namespace or GLOBAL_NAMESPACE, opts.category, opts.session_id)
        return rows[:limit]


class DownPastFortyRows(ReferenceProvider):
    """Reports itself down once it holds more than 40 rows, while it goes on serving."""

    def health(self) -> MemoryHealth:
        if len(self.list(None, None, None)) > 40:
            return MemoryHealth.down("over capacity")
        return super().health()


ORACLE_PROVIDER_FAULTS = (
    RecallWorstFirst,
    RecallRepeatsItsBest,
    RecallIgnoresSession,
    MinScoreOnAnotherScale,
    RecallPagesAtFive,
    BlankQueryListsTheNamespace,
    DownPastFortyRows,
)
"""Provider faults only the complete oracle sees (issue 21)."""


class IdsIgnoreCase(ReferenceEngine):
    """Looks ids up through a case-insensitive collation: `get` of an id's case twin
    answers the item."""

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        req.validate()
        held = {hit.id.casefold(): hit.id for hit in self._every_hit()}
        asked = [held.get(item_id.casefold(), item_id) for item_id in req.ids]
        return super().get(req.model_copy(update={"ids": asked}))

    def _every_hit(self) -> builtins.list[Hit]:
        return super().list(ListRequest(limit=10**6)).items


class ForgetsIdsByPrefix(ReferenceEngine):
    """Forgets by ids with `LIKE '<id>%'`: an id's prefix forgets the item it begins."""

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if not isinstance(target, ForgetIds):
            return super().forget(target)
        target.validate()
        held = [hit.id for hit in super().list(ListRequest(limit=10**6)).items]
        named = [h for h in held if any(h.startswith(item_id) for item_id in target.ids)]
        return super().forget(ForgetIds(ids=named)) if named else ForgetReport(forgotten=0)


class StoresTextsAsNFC(ReferenceEngine):
    """Normalises item texts to NFC on the way in (the fingerprint taken before): a text
    written decomposed reads back composed."""

    def store(self, item: StoreItem) -> StoreReceipt:
        receipt = super().store(item)
        if receipt.replayed:
            return receipt
        entry = self._by_id[receipt.id]
        data = dict(entry.hit_data)
        data["text"] = unicodedata.normalize("NFC", data["text"])
        fixed = dataclasses.replace(entry, hit_data=data)
        with self._lock:
            self._by_id[receipt.id] = fixed
            self._entries[self._entries.index(entry)] = fixed
        return receipt


RELATIVE_ENGINE_FAULTS = (IdsIgnoreCase, ForgetsIdsByPrefix, StoresTextsAsNFC)
"""Engine faults only relatives of held values show (issue 21)."""


class KeysIgnoreCase(ReferenceProvider):
    """Looks keys up through a case-insensitive collation: `get` of a key's case twin
    answers the entry (and answers it under the held key)."""

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        for entry in super().list(namespace, None, None):
            if entry.key.casefold() == key.casefold():
                return entry
        return None


class TrimsKeys(ReferenceProvider):
    """Strips whitespace from keys on the way in: ` k` and `k` are one entry."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        super().store(namespace, key.strip() or key, content, category, session_id, taint)


class NamespacesShareAnAddress(ReferenceProvider):
    """Keeps entries under the namespace's sanitised address (`.`, `@`, `+`, `:` as `_`),
    not its name: `a.b` and `a_b` are one namespace, reported under the last name written."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        address = _address(namespace)
        for held in [e for e in self.list(None, None, None) if e.key == key]:
            if held.namespace != namespace and _address(held.namespace or "") == address:
                super().forget(held.namespace or "", key)
        super().store(namespace, key, content, category, session_id, taint)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        for entry in self.list(None, None, None):
            if entry.key == key and _address(entry.namespace or "") == _address(namespace):
                return entry
        return None


def _address(namespace: str) -> str:
    return "".join("_" if ch in ".@+:" else ch for ch in namespace)


RELATIVE_PROVIDER_FAULTS = (KeysIgnoreCase, TrimsKeys, NamespacesShareAnAddress)
"""Provider faults only relatives of held values show (issue 21)."""


class ImportDropsKeylessQuietly(ReferenceProvider):
    """Counts a record it could not write as imported (it dropped it)."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        outcome = super().import_records(records)
        return ImportOutcome(
            imported=outcome.imported + outcome.failed, skipped=0, failed=0, errors=[]
        )


class ImportFailsWithoutReasons(ReferenceProvider):
    """Counts the records it rejects but says nothing of why."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return super().import_records(records).model_copy(update={"errors": []})


class ExportRestartsAfterAWrite(ReferenceProvider):
    """Export cursors carry the store's version; after any write the export starts over,
    answering every row again."""

    def __init__(self) -> None:
        super().__init__()
        self._version = 0

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._version += 1
        super().store(namespace, key, content, category, session_id, taint)

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        position = cursor
        if cursor is not None and ":" in cursor:
            version, _, position = cursor.partition(":")
            if version != str(self._version):
                position = None
        page = super().export_page(position, limit)
        if page.next_cursor is None:
            return page
        return page.model_copy(update={"next_cursor": f"{self._version}:{page.next_cursor}"})


PORTABILITY_FAULTS = (
    ImportDropsKeylessQuietly,
    ImportFailsWithoutReasons,
    ExportRestartsAfterAWrite,
)
"""Provider faults of portability only the complete oracle sees (issue 21)."""


class ListCappedAt1000(ReferenceEngine):
    """The backend answers at most 1,000 rows per query and the adapter forgot to page
    past them: a listing (and what is built on it) stops at 1,000 items."""

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        capped = super().list(req.model_copy(update={"cursor": None, "limit": 1_000})).items
        start = int(req.cursor or 0)
        page = capped[start : start + req.limit]
        end = start + len(page)
        return ListPage(items=page, next_cursor=str(end) if end < len(capped) else None)


class ForgetFailsPast999(ReferenceEngine):
    """Deletes the items a filter admits with one `IN (...)` of their ids, which SQLite
    refuses past 999 variables."""

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if isinstance(target, ForgetIds):
            return super().forget(target)
        target.validate()
        found = super().list(ListRequest(filter=target.filter, limit=10**6)).items
        if len(found) > 999:
            raise EngineFault("too many SQL variables")
        return super().forget(target)


class RecallCappedAt1000(ReferenceProvider):
    """Asks its search backend for at most 1,000 hits, whatever the limit."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None = None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, min(limit, 1_000), opts, scope)


class ImportKeepsTheFirst256(ReferenceProvider):
    """Writes the first 256 records of a batch (its backend's batch size) and counts them
    all as imported."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        outcome = super().import_records(records[:256])
        dropped = len(records) - min(len(records), 256)
        return outcome.model_copy(update={"imported": outcome.imported + dropped})


SCALE_ENGINE_FAULTS = (ListCappedAt1000, ForgetFailsPast999)
SCALE_PROVIDER_FAULTS = (RecallCappedAt1000, ImportKeepsTheFirst256)
"""Faults only the scale phase reaches: caps of 256, 999 and 1,000 (issue 21)."""
