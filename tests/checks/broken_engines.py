"""Reference engines with one fault each, and the check id each fault must trip.

The first eleven are the broken wrappers of contract-reference B12; the rest cover
the checks this kit adds or sharpens (cursors, replay identity, validation, forget).
"""

from __future__ import annotations

import builtins
import hashlib
from collections.abc import Sequence

from conformance.engine import (
    Conversation,
    Document,
    EngineDescriptor,
    EngineFault,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    Learning,
    ListPage,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    rfc3339,
)
from reference_driver.engine import ReferenceEngine

# -- contract-reference B12 ----------------------------------------------------------


class IgnoreFetchFilter(ReferenceEngine):
    """fetch drops the filter."""

    def fetch(self, req: FetchRequest) -> FetchPage:
        return super().fetch(req.model_copy(update={"filter": MetaFilter()}))


class NeverReplay(ReferenceEngine):
    """store always reports replayed=False."""

    def store(self, item: StoreItem) -> StoreReceipt:
        return super().store(item).model_copy(update={"replayed": False})


class AcceptEmptyForget(ReferenceEngine):
    """A forget naming nothing answers 0 instead of InvalidRequest."""

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if _empty(target):
            return ForgetReport(forgotten=0)
        return super().forget(target)


class ClaimEveryMode(ReferenceEngine):
    """Declares only hybrid, but serves every mode (as hybrid)."""

    def descriptor(self) -> EngineDescriptor:
        return super().descriptor().model_copy(update={"fetch_modes": [FetchMode.HYBRID]})

    def fetch(self, req: FetchRequest) -> FetchPage:
        return super().fetch(req.model_copy(update={"mode": FetchMode.HYBRID}))


class CiteUnknownIds(ReferenceEngine):
    """Every citation id is rewritten to `unknown`."""

    def recall(self, req: RecallRequest) -> RecallAnswer:
        answer = super().recall(req)
        citations = [c.model_copy(update={"id": "unknown"}) for c in answer.citations]
        return answer.model_copy(update={"citations": citations})


class Down(ReferenceEngine):
    """health is Down."""

    def health(self) -> EngineHealth:
        return EngineHealth.down("broken on purpose")


class UndercountExplore(ReferenceEngine):
    """Every bucket counts one less."""

    def explore(self, req: ExploreRequest) -> ExplorePage:
        page = super().explore(req)
        buckets = [b.model_copy(update={"count": b.count - 1}) for b in page.buckets]
        return page.model_copy(update={"buckets": buckets})


class GetUnordered(ReferenceEngine):
    """get answers hits sorted by id (reversed if that happens to be the asked order)."""

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        hits = super().get(req)
        ordered = sorted(hits, key=lambda hit: hit.id)
        if [hit.id for hit in ordered] == [hit.id for hit in hits]:
            ordered.reverse()
        return ordered


class StoreManyUnordered(ReferenceEngine):
    """store_many answers its receipts reversed."""

    def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        return super().store_many(items)[::-1]


class ListIgnoresReach(ReferenceEngine):
    """list drops filter.reach."""

    def list(self, req: ListRequest) -> ListPage:
        filter = req.filter.model_copy(update={"reach": None})
        return super().list(req.model_copy(update={"filter": filter}))


class GetIgnoresReach(ReferenceEngine):
    """get drops req.reach."""

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        return super().get(req.model_copy(update={"reach": None}))


# -- faults the kit adds ---------------------------------------------------------------


class RepeatingCursor(ReferenceEngine):
    """Every listing cursor it hands out is `0`, so paging starts over for ever."""

    def list(self, req: ListRequest) -> ListPage:
        page = super().list(req)
        return page if page.next_cursor is None else page.model_copy(update={"next_cursor": "0"})


class SkippingCursor(ReferenceEngine):
    """Each listing cursor points one item past where the next page should start."""

    def list(self, req: ListRequest) -> ListPage:
        page = super().list(req)
        if page.next_cursor is None:
            return page
        return page.model_copy(update={"next_cursor": str(int(page.next_cursor) + 1)})


class ReplayNewId(ReferenceEngine):
    """A replay says so, but answers an id of its own."""

    def store(self, item: StoreItem) -> StoreReceipt:
        receipt = super().store(item)
        if not receipt.replayed:
            return receipt
        return receipt.model_copy(update={"id": f"{receipt.id}-again"})


def _salted(fingerprint: str, meta: MemoryMeta) -> str:
    """`fingerprint`, changed by the observation time when there is one."""
    if meta.observed_at is None:
        return fingerprint
    salted = f"{fingerprint}@{rfc3339(meta.observed_at)}".encode()
    return hashlib.sha256(salted).hexdigest()[:40]


class _ObservedDocument(Document):
    def fingerprint(self) -> str:
        return _salted(super().fingerprint(), self.meta)


class _ObservedConversation(Conversation):
    def fingerprint(self) -> str:
        return _salted(super().fingerprint(), self.meta)


class _ObservedLearning(Learning):
    def fingerprint(self) -> str:
        return _salted(super().fingerprint(), self.meta)


def _retyped(
    item: StoreItem,
    as_document: type[Document],
    as_conversation: type[Conversation],
    as_learning: type[Learning],
) -> StoreItem:
    """`item` rebuilt, unvalidated, as the matching subclass."""
    fields = dict(item)
    if isinstance(item, Document):
        return as_document.model_construct(**fields)
    if isinstance(item, Conversation):
        return as_conversation.model_construct(**fields)
    return as_learning.model_construct(**fields)


class FingerprintIncludesObservedAt(ReferenceEngine):
    """Stores an item seen at another time as a new item, under a new id."""

    def store(self, item: StoreItem) -> StoreReceipt:
        observed = _retyped(item, _ObservedDocument, _ObservedConversation, _ObservedLearning)
        return super().store(observed)


class _UncheckedDocument(Document):
    def validate(self) -> None:  # type: ignore[override]
        return None


class _UncheckedConversation(Conversation):
    def validate(self) -> None:  # type: ignore[override]
        return None


class _UncheckedLearning(Learning):
    def validate(self) -> None:  # type: ignore[override]
        return None


class StoresInvalidItems(ReferenceEngine):
    """store skips validation, keeping blank and out-of-range items."""

    def store(self, item: StoreItem) -> StoreReceipt:
        unchecked = _retyped(item, _UncheckedDocument, _UncheckedConversation, _UncheckedLearning)
        return super().store(unchecked)


class EmptyForgetDeletesEverything(ReferenceEngine):
    """Refuses a forget naming nothing, but only after removing every item it holds."""

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if _empty(target):
            with self._lock:
                self._entries.clear()
                self._by_id.clear()
        return super().forget(target)


class DropsTags(ReferenceEngine):
    """Stores every item without its tags."""

    def store(self, item: StoreItem) -> StoreReceipt:
        return super().store(
            item.model_copy(update={"meta": item.meta.model_copy(update={"tags": []})})
        )


class ForgetByIdReportsZero(ReferenceEngine):
    """Forgets by id, but reports 0 forgotten."""

    def forget(self, target: ForgetTarget) -> ForgetReport:
        report = super().forget(target)
        return ForgetReport(forgotten=0) if isinstance(target, ForgetIds) else report


class ForgetFilterIgnoresTags(ReferenceEngine):
    """Forgets by filter as if `tags_any` were not set."""

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if isinstance(target, ForgetFilter):
            target = ForgetFilter(filter=target.filter.model_copy(update={"tags_any": []}))
        return super().forget(target)


class HealthRaises(ReferenceEngine):
    """health raises instead of answering."""

    def health(self) -> EngineHealth:
        raise EngineFault("the health endpoint crashed")


class ListRaises(ReferenceEngine):
    """Every listing fails, so the retention probe cannot read its document back."""

    def list(self, req: ListRequest) -> ListPage:
        raise EngineFault("the read replica is gone")


class LeaksCredential(ReferenceEngine):
    """Puts its API key into the error for a cursor it did not issue."""

    secret = "tm-key-conformance-7731"

    def __init__(self, options: dict[str, str] | None = None) -> None:
        super().__init__()
        self.secret = (options or {}).get("api_key", type(self).secret)

    def list(self, req: ListRequest) -> ListPage:
        try:
            return super().list(req)
        except InvalidRequest as exc:
            raise InvalidRequest(f"{exc.message} (authenticated with {self.secret})") from exc


def _empty(target: ForgetTarget) -> bool:
    if isinstance(target, ForgetIds):
        return not target.ids
    return target.filter.is_empty()


BROKEN_ENGINES: dict[type[ReferenceEngine], str] = {
    IgnoreFetchFilter: "engine.fetch_filters",
    NeverReplay: "engine.replay",
    AcceptEmptyForget: "engine.empty_forget",
    ClaimEveryMode: "engine.unsupported_modes",
    CiteUnknownIds: "engine.recall",
    Down: "engine.health",
    UndercountExplore: "engine.explore",
    GetUnordered: "engine.get",
    StoreManyUnordered: "engine.store_many",
    ListIgnoresReach: "engine.namespaces",
    GetIgnoresReach: "engine.namespaces",
    RepeatingCursor: "engine.cursor_progress",
    SkippingCursor: "engine.cursor_progress",
    ReplayNewId: "engine.replay",
    FingerprintIncludesObservedAt: "engine.replay",
    EmptyForgetDeletesEverything: "engine.empty_forget",
    StoresInvalidItems: "engine.validation",
    DropsTags: "engine.round_trip",
    ForgetByIdReportsZero: "engine.forget_by_id",
    ForgetFilterIgnoresTags: "engine.forget_by_filter",
    HealthRaises: "engine.health",
    ListRaises: "engine.retention_probe",
    LeaksCredential: "engine.no_credential_in_errors",
}
"""Each broken engine, and the id of the check its fault must fail."""

DESTRUCTIVE: frozenset[type[ReferenceEngine]] = frozenset({EmptyForgetDeletesEverything})
"""Engines whose fault itself destroys data outside the run: no suite can protect it."""
