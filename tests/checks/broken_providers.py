"""Reference providers with one fault each, and the check id each fault must trip."""

from __future__ import annotations

import builtins
import re
import string
import time
import unicodedata
from typing import Any, NamedTuple

from pydantic import JsonValue

from conformance.constraints import Constraints
from conformance.provider import (
    GLOBAL_NAMESPACE,
    Backend,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryDocuments,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceDocumentInput,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
    StoredMemoryDocument,
    entry_record,
)
from reference_driver.documents import ReferenceDocuments
from reference_driver.provider import ReferenceProvider
from tests.fuzz.document_faults import (
    DocumentDeleteMatchesIdPrefix,
    DocumentListCappedAt10,
    DocumentQueryReachesNamespacePrefix,
)


class Written(NamedTuple):
    """The arguments of one `store`."""

    namespace: str
    key: str
    content: str
    category: MemoryCategory
    session_id: str | None
    taint: MemoryTaint


class Hooked(ReferenceProvider):
    """The reference with two hooks a fault (or a freedom) overrides: `write` sees every
    store before it lands, `read` every entry get, list and recall give back. Overrides
    call `super()`, so hooked classes combine."""

    def write(self, row: Written) -> Written:
        return row

    def read(self, entry: MemoryEntry) -> MemoryEntry:
        return entry

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        super().store(*self.write(Written(namespace, key, content, category, session_id, taint)))

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        entry = super().get(namespace, key)
        return None if entry is None else self.read(entry)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return [self.read(e) for e in super().list(namespace, category, session_id)]

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return [self.read(e) for e in super().recall(query, limit, opts, scope)]


class AdvertisesDocuments(ReferenceProvider):
    """Claims the documents family but offers no accessor for it."""

    def as_documents(self) -> MemoryDocuments | None:
        return None


class _DeleteAlwaysDeletes(ReferenceDocuments):
    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        answer = super().delete_document(namespace, document_id)
        assert isinstance(answer, dict)
        return {**answer, "deleted": True}


class _DocumentsLoseTaint(ReferenceDocuments):
    def get_document(self, namespace: str, key: str) -> StoredMemoryDocument | None:
        got = super().get_document(namespace, key)
        return None if got is None else got.model_copy(update={"taint": MemoryTaint.INTERNAL})


class _ClearKeepsDocuments(ReferenceDocuments):
    def clear_namespace(self, namespace: str) -> None:
        return None


class _FaultyDocuments(ReferenceProvider):
    """The reference, its documents family replaced by `family`."""

    family: type[ReferenceDocuments] = ReferenceDocuments

    def __init__(self) -> None:
        super().__init__()
        self._faulty = self.family()

    def as_documents(self) -> MemoryDocuments | None:
        return self._faulty


class DeleteAlwaysDeletes(_FaultyDocuments):
    """`delete_document` answers `deleted: true` even when nothing was there."""

    family = _DeleteAlwaysDeletes


class DocumentsLoseTaint(_FaultyDocuments):
    """A document reads back internal, whatever taint it was put with."""

    family = _DocumentsLoseTaint


class ClearKeepsDocuments(_FaultyDocuments):
    """`clear_namespace` removes nothing."""

    family = _ClearKeepsDocuments


class ForgetAlwaysTrue(ReferenceProvider):
    """Reports True for every forget, present or not."""

    def forget(self, namespace: str, key: str) -> bool:
        super().forget(namespace, key)
        return True


class GetRaises(ReferenceProvider):
    """Every read fails with a backend error."""

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        raise Backend("the read replica is gone")


class ListIgnoresNamespace(ReferenceProvider):
    """Lists every namespace whatever it is asked."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return super().list(None, category, session_id)


class DropsSession(Hooked):
    """Stores every entry without its session."""

    def write(self, row: Written) -> Written:
        return super().write(row)._replace(session_id=None)


class UpsertDuplicates(ReferenceProvider):
    """Keeps the old row beside the new one when a key is stored again."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        if self.get(namespace, key) is not None:
            super().store(namespace, f"{key}#dup", content, category, session_id, taint)
        super().store(namespace, key, content, category, session_id, taint)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(namespace, category, session_id)
        return [r.model_copy(update={"key": r.key.removesuffix("#dup")}) for r in rows]


class IgnoresCategoryFilter(ReferenceProvider):
    """Drops the category filter of list."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return super().list(namespace, None, session_id)


class RestampsTaint(Hooked):
    """Stamps every write internal, whatever taint it was given."""

    def write(self, row: Written) -> Written:
        return super().write(row)._replace(taint=MemoryTaint.INTERNAL)


class RecallIgnoresNamespace(ReferenceProvider):
    """Recalls across every namespace, ignoring the one asked for."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        hits: builtins.list[MemoryEntry] = []
        for summary in self.namespaces():
            pinned = opts.model_copy(update={"namespace": summary.namespace})
            hits.extend(super().recall(query, limit, pinned, scope))
        return sorted(hits, key=lambda e: (e.namespace or "", e.key), reverse=True)[:limit]


class RecallRefusesLimitZero(ReferenceProvider):
    """Refuses `recall` with a limit of 0 (`if limit <= 0: raise Invalid`), valid input
    the contract answers with no hit."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if limit <= 0:
            raise Invalid("recall limit must be positive")
        return super().recall(query, limit, opts, scope)


class _StoresRewritten(ReferenceProvider):
    """The reference, storing each entry's key and content as `held` rewrites them."""

    def held(self, key: str, content: str) -> tuple[str, str]:
        return key, content

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        key, content = self.held(key, content)
        super().store(namespace, key, content, category, session_id, taint)


class EmptyKeyGetsAGeneratedKey(_StoresRewritten):
    """Stores an entry under an empty key as `key or uuid4()`: the store succeeds and
    nothing is found under `""`."""

    def held(self, key: str, content: str) -> tuple[str, str]:
        return key or "generated-0001", content


class KeyAsFileName(_StoresRewritten):
    """Keeps each entry in a file named by its key, and declares keys of at most 255
    characters; the file system counts 255 bytes, so a key of 252 Cyrillic characters
    (504 bytes in UTF-8) fails with `File name too long`."""

    constraints = Constraints(max_key_length=255, reason="keys name files")

    def held(self, key: str, content: str) -> tuple[str, str]:
        if len(key.encode("utf-8", "surrogatepass")) > 255:
            raise Backend("[Errno 36] File name too long")
        return key, content


class ReplacesLoneSurrogates(_StoresRewritten):
    """Encodes content with `errors="replace"`: a lone surrogate is kept as `?`."""

    def held(self, key: str, content: str) -> tuple[str, str]:
        return key, content.encode("utf-8", "replace").decode("utf-8")


class RecallSlicesByLimit(ReferenceProvider):
    """Cuts its ranking with `hits[:limit]`, unchecked: a limit of -1 answers all but one."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if limit < 0:
            return super().recall(query, 10**6, opts, scope)[:limit]
        return super().recall(query, limit, opts, scope)


class _QuerySlicesByLimit(ReferenceDocuments):
    def query_documents(self, namespace: str, query: str, limit: int) -> JsonValue:
        if limit >= 0:
            return super().query_documents(namespace, query, limit)
        found = super().query_documents(namespace, query, 10**6)
        return found.model_copy(update={"hits": found.hits[:limit]})


class DocumentQuerySlicesByLimit(_FaultyDocuments):
    """`query_documents` cuts its hits with `hits[:limit]`: -1 answers all but one."""

    family = _QuerySlicesByLimit


class RecallNoneSearchesEverything(ReferenceProvider):
    """Treats `opts.namespace = None` as every namespace (the Rust reference's divergence)."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if opts.namespace is not None:
            return super().recall(query, limit, opts, scope)
        hits: builtins.list[MemoryEntry] = []
        for summary in self.namespaces():
            pinned = opts.model_copy(update={"namespace": summary.namespace})
            hits.extend(super().recall(query, limit, pinned, scope))
        return hits[:limit]


class RecallIgnoresScope(ReferenceProvider):
    """Answers a scoped recall as if it were unscoped."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, limit, opts, None)


class CollapsesSectionColon(ReferenceProvider):
    """Enumerates namespaces by a storage address that turned `:` into `_` (the seed's bug)."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return [
            s.model_copy(update={"namespace": s.namespace.replace(":", "_")})
            for s in super().namespaces()
        ]


_SSN = re.compile(r"[0-9]{3}-[0-9]{2}-[0-9]{4}")


class ReportsBracketedRedaction(ReferenceProvider):
    """Enumerates a name carrying a social security number with it redacted in brackets
    (`conversation:thread-[REDACTED_PII_SSN]`): no valid namespace (the sqlite store's
    former bug)."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return [
            s.model_copy(update={"namespace": _SSN.sub("[REDACTED_PII_SSN]", s.namespace)})
            for s in super().namespaces()
        ]


class ReportsARedactedNameThatAddressesNothing(ReferenceProvider):
    """Enumerates a name carrying a social security number redacted to a valid namespace
    under which nothing can be read back."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return [
            s.model_copy(update={"namespace": _SSN.sub("REDACTED", s.namespace)})
            for s in super().namespaces()
        ]


class ExportNeverEnds(ReferenceProvider):
    """Hands out a fresh cursor for every page, for ever."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(None, limit)
        turn = int(cursor.split("-")[1]) + 1 if cursor else 0
        return ExportPage(records=page.records, next_cursor=f"again-{turn}")


class ExportCursorRepeats(ReferenceProvider):
    """Answers every page with the same cursor."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(None, limit)
        return ExportPage(records=page.records, next_cursor="0")


class AcceptsForeignCursor(ReferenceProvider):
    """Treats a cursor it never issued as the start of the export."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        try:
            return super().export_page(cursor, limit)
        except Exception:
            return ExportPage(records=[], next_cursor=None)


class ImportDropsTaint(ReferenceProvider):
    """Imports every record as internal."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return super().import_records(
            [r.model_copy(update={"taint": MemoryTaint.INTERNAL}) for r in records]
        )


class MangleContent(Hooked):
    """Normalises line endings and drops NUL characters on the way in."""

    def write(self, row: Written) -> Written:
        cleaned = row.content.replace("\r\n", "\n").replace("\0", "")
        return super().write(row)._replace(content=cleaned)


class LeaksCredential(ReferenceProvider):
    """Puts its API key into the error for a cursor it did not issue."""

    secret = "sk-live-conformance-0042"

    def __init__(self, options: dict[str, str] | None = None) -> None:
        super().__init__()
        self.secret = (options or {}).get("api_key", type(self).secret)

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        try:
            return super().export_page(cursor, limit)
        except Invalid as exc:
            raise Invalid(f"{exc.message} (api key {self.secret})") from exc


class ChangesContentOnTheWayBack(Hooked):
    """Stores everything, but gives content back lowercased (a normalising read path)."""

    def read(self, entry: MemoryEntry) -> MemoryEntry:
        return entry.model_copy(update={"content": entry.content.lower()})


class GetFindsNothing(ReferenceProvider):
    """Stores and lists, but `get` never finds anything (a read path with the wrong key)."""

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return None


class SearchPagesOfTen(ReferenceProvider):
    """An adapter that reads one page of its store's search (LangGraph's `search` returns 10
    items unless asked for more): list, list(None), namespaces() counts and recall stop at
    10. Subclasses cap one operation each, or another page size."""

    page = 10
    capped: frozenset[str] = frozenset({"list", "list(None)", "namespaces", "recall"})

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(namespace, category, session_id)
        which = "list" if namespace is not None else "list(None)"
        return rows[: self.page] if which in self.capped else rows

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        summaries = super().namespaces()
        if "namespaces" not in self.capped:
            return summaries
        return [s.model_copy(update={"count": min(s.count, self.page)}) for s in summaries]

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if "recall" in self.capped:
            limit = min(limit, self.page)
        return super().recall(query, limit, opts, scope)


class ListPagesOfTwenty(SearchPagesOfTen):
    """Lists one namespace 20 rows at a time and never asks for the next page."""

    page = 20
    capped = frozenset({"list"})


class ListNonePagesOfTen(SearchPagesOfTen):
    """Lists every namespace (`list(None)`) from one page of 10."""

    capped = frozenset({"list(None)"})


class ListNonePagesOfFifty(SearchPagesOfTen):
    """Lists every namespace (`list(None)`) from one page of 50."""

    page = 50
    capped = frozenset({"list(None)"})


class CountsPagesOfTen(SearchPagesOfTen):
    """Counts a namespace's entries from one page of 10."""

    capped = frozenset({"namespaces"})


class RecallPagesOfTen(SearchPagesOfTen):
    """Recalls from one page of 10 hits, whatever the limit."""

    capped = frozenset({"recall"})


class ListPagesOfHundred(SearchPagesOfTen):
    """Lists one namespace from one page of 100 rows (an adapter's SQL `LIMIT 100`)."""

    page = 100
    capped = frozenset({"list"})


class ListPagesOfFifty(SearchPagesOfTen):
    """Lists one namespace from one page of 50 rows."""

    page = 50
    capped = frozenset({"list"})


class ListNonePagesOfHundred(SearchPagesOfTen):
    """Lists every namespace (`list(None)`) from one page of 100."""

    page = 100
    capped = frozenset({"list(None)"})


class CountsPagesOfHundred(SearchPagesOfTen):
    """Counts a namespace's entries from one page of 100."""

    page = 100
    capped = frozenset({"namespaces"})


class CountsPagesOfFifty(SearchPagesOfTen):
    """Counts a namespace's entries from one page of 50."""

    page = 50
    capped = frozenset({"namespaces"})


class RecallPagesOfFifty(SearchPagesOfTen):
    """Recalls from one page of 50 hits, whatever the limit."""

    page = 50
    capped = frozenset({"recall"})


class RecallPagesOfHundred(SearchPagesOfTen):
    """Recalls from one page of 100 hits (a vector query's default top-k)."""

    page = 100
    capped = frozenset({"recall"})


class NamespacesFirstHundred(ReferenceProvider):
    """Enumerates namespaces from one page of 100 (LangGraph's `list_namespaces`
    default limit) and never asks for the next."""

    page = 100

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return super().namespaces()[: self.page]


class NamespacesFirstFifty(NamespacesFirstHundred):
    """Enumerates namespaces from one page of 50."""

    page = 50


class _RecallFiltersAfterCut(ReferenceProvider):
    """Recall that searches wider than asked (`wider`: the options it leaves out of the
    search), keeps the best `cut(limit)` hits and only then applies what it left out, as
    an adapter filtering a vector store's top k in its own code does."""

    wider: frozenset[str] = frozenset()

    def cut(self, limit: int) -> int:
        return 100

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        loose = opts.model_copy(update=dict.fromkeys(self.wider - {"namespace"}))
        searched = [opts.namespace]
        if "namespace" in self.wider:
            searched = [s.namespace for s in self.namespaces()]
        hits: builtins.list[MemoryEntry] = []
        for namespace in searched:
            pinned = loose.model_copy(update={"namespace": namespace})
            hits.extend(super().recall(query, 10**6, pinned, scope))
        hits.sort(key=lambda h: (-(h.score or 0.0), h.namespace or "", h.key))
        asked = opts.namespace or GLOBAL_NAMESPACE
        return [
            h
            for h in hits[: self.cut(limit)]
            if h.namespace == asked
            and (opts.category is None or h.category == opts.category)
            and (opts.session_id is None or h.session_id == opts.session_id)
        ][:limit]


class RecallNamespaceAfterTopHundred(_RecallFiltersAfterCut):
    """Ranks every namespace, keeps the best 100, then keeps the asked namespace."""

    wider = frozenset({"namespace"})


class RecallNamespaceAfterLimitPlusFifty(RecallNamespaceAfterTopHundred):
    """Ranks every namespace, keeps the best `limit + 50`, then the asked namespace."""

    def cut(self, limit: int) -> int:
        return limit + 50


class RecallCategoryAfterTopHundred(_RecallFiltersAfterCut):
    """Searches the namespace, keeps the best 100, then keeps the asked category."""

    wider = frozenset({"category"})


class RecallCategoryAfterLimitPlusFifty(RecallCategoryAfterTopHundred):
    """Keeps the best `limit + 50` of the namespace, then the asked category."""

    def cut(self, limit: int) -> int:
        return limit + 50


class RecallSessionAfterTopHundred(_RecallFiltersAfterCut):
    """Searches the namespace, keeps the best 100, then keeps the asked session."""

    wider = frozenset({"session_id"})


class RecallSessionAfterLimitPlusFifty(RecallSessionAfterTopHundred):
    """Keeps the best `limit + 50` of the namespace, then the asked session."""

    def cut(self, limit: int) -> int:
        return limit + 50


class JoinsNamespaceAndKey(ReferenceProvider):
    """Addresses a row by `f"{namespace}:{key}"` (a vector store's id), so `(a:j, k)` and
    `(a, j:k)` are one row: the later store replaces the earlier, and a read of either
    answers the row last written there."""

    def __init__(self) -> None:
        super().__init__()
        self._owners: dict[str, tuple[str, str]] = {}

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        owner = self._owners.get(f"{namespace}:{key}")
        if owner is not None and owner != (namespace, key):
            super().forget(*owner)
        self._owners[f"{namespace}:{key}"] = (namespace, key)
        super().store(namespace, key, content, category, session_id, taint)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        owner = self._owners.get(f"{namespace}:{key}")
        return None if owner is None else super().get(*owner)

    def forget(self, namespace: str, key: str) -> bool:
        owner = self._owners.pop(f"{namespace}:{key}", None)
        return owner is not None and super().forget(*owner)


class NamespaceMatchedAsPrefix(ReferenceProvider):
    """Matches a namespace as a string prefix (`LIKE 'ns%'`) in list, recall and counts."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(None, category, session_id)
        return [r for r in rows if namespace is None or (r.namespace or "").startswith(namespace)]

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if opts.namespace is None:
            return super().recall(query, limit, opts, scope)
        hits: builtins.list[MemoryEntry] = []
        for summary in super().namespaces():
            if summary.namespace.startswith(opts.namespace):
                pinned = opts.model_copy(update={"namespace": summary.namespace})
                hits.extend(super().recall(query, limit, pinned, scope))
        return sorted(hits, key=lambda h: -(h.score or 0))[:limit]

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        summaries = super().namespaces()
        return [
            s.model_copy(
                update={
                    "count": sum(t.count for t in summaries if t.namespace.startswith(s.namespace))
                }
            )
            for s in summaries
        ]


class ListMatchesPathPrefix(ReferenceProvider):
    """Lists a namespace with everything below it (`a` admits `a/b`), as a hierarchical
    prefix search does."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(None, category, session_id)
        return [
            r
            for r in rows
            if namespace is None
            or r.namespace == namespace
            or (r.namespace or "").startswith(namespace + "/")
        ]


class RecallMatchesPrefix(NamespaceMatchedAsPrefix):
    """Only recall matches the namespace as a string prefix."""

    list = ReferenceProvider.list  # type: ignore[assignment]
    namespaces = ReferenceProvider.namespaces  # type: ignore[assignment]


class ForgetsKeyUnderTheParent(ReferenceProvider):
    """Forgets the key in every namespace under the same parent (a delete keyed on the
    parent path and the key, not the namespace)."""

    def forget(self, namespace: str, key: str) -> bool:
        parent = namespace.rsplit("/", 1)[0]
        found = False
        for summary in self.namespaces():
            if summary.namespace.startswith(parent):
                found = super().forget(summary.namespace, key) or found
        return found


class _CategoryCompared(ReferenceProvider):
    """Lists filtered by category with `same` in place of equality."""

    @staticmethod
    def same(stored: MemoryCategory, wanted: MemoryCategory) -> bool:
        return stored == wanted

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(namespace, None, session_id)
        if category is None:
            return rows
        return [r for r in rows if self.same(r.category, category)]


class CategoryFilterIgnoresCase(_CategoryCompared):
    """Compares categories without case (`COLLATE NOCASE`)."""

    @staticmethod
    def same(stored: MemoryCategory, wanted: MemoryCategory) -> bool:
        return str(stored).lower() == str(wanted).lower()


class CategoryFilterByName(_CategoryCompared):
    """Compares categories by name alone, so `custom:core` passes for `core` (a column
    holding `category.name`)."""

    @staticmethod
    def same(stored: MemoryCategory, wanted: MemoryCategory) -> bool:
        return stored.name == wanted.name


class SessionFilterMatchesPrefix(ReferenceProvider):
    """Matches the session filter as a prefix (`LIKE 's%'`)."""

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = super().list(namespace, category, None)
        if session_id is None:
            return rows
        return [r for r in rows if (r.session_id or "").startswith(session_id)]


class DropsRecallOption(ReferenceProvider):
    """Drops one option of recall (`option`), as an adapter that never maps it does."""

    option = "category"

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return super().recall(query, limit, opts.model_copy(update={self.option: None}), scope)


class RecallIgnoresCategory(DropsRecallOption):
    """Drops recall's category option."""

    option = "category"


class RecallSessionIgnoresCase(ReferenceProvider):
    """Matches recall's session option without case."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        wanted = opts.session_id
        hits = super().recall(query, 1000, opts.model_copy(update={"session_id": None}), scope)
        kept = [h for h in hits if wanted is None or (h.session_id or "").lower() == wanted.lower()]
        return kept[:limit]


class UpsertKeepsOldLabels(Hooked):
    """Replaces the content on a second store, but keeps the first category, session
    and taint."""

    def write(self, row: Written) -> Written:
        old = self.get(row.namespace, row.key)
        if old is None:
            return super().write(row)
        kept = row._replace(category=old.category, session_id=old.session_id, taint=old.taint)
        return super().write(kept)


class UpsertMergesSession(Hooked):
    """A second store without a session keeps the first one's (a metadata upsert that
    merges the new fields into the old ones, as chromadb's does, and omits `None`)."""

    def write(self, row: Written) -> Written:
        old = self.get(row.namespace, row.key)
        if old is None or row.session_id is not None:
            return super().write(row)
        return super().write(row._replace(session_id=old.session_id))


class RecallReversed(ReferenceProvider):
    """Ranks the worst match first (an L2 distance sorted as if it were a similarity)."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        return builtins.list(reversed(super().recall(query, limit, opts, scope)))


class RecallInKeyOrder(ReferenceProvider):
    """Answers matches in key order, without scores."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        hits = super().recall(query, 1000, opts, scope)
        ordered = sorted(hits, key=lambda h: h.key)[:limit]
        return [h.model_copy(update={"score": None}) for h in ordered]


class RecallAnswersAnyway(ReferenceProvider):
    """Answers the namespace's entries when nothing matches (a vector store with no
    threshold)."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        hits = super().recall(query, limit, opts, scope)
        if hits or not query.strip():
            return hits
        return self.list(opts.namespace or "global", None, None)[:limit]


class IgnoresMinScore(DropsRecallOption):
    """Drops `min_score`."""

    option = "min_score"


class MinScoreExclusive(ReferenceProvider):
    """Keeps only hits scoring strictly above `min_score` (`>` where `>=` is due)."""

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        hits = super().recall(query, limit, opts, scope)
        bound = opts.min_score
        return [h for h in hits if bound is None or (h.score is not None and h.score > bound)]


class TimestampsWithoutZone(Hooked):
    """Gives entry times without a zone (`2024-05-01T12:00:00`)."""

    def read(self, entry: MemoryEntry) -> MemoryEntry:
        return entry.model_copy(update={"timestamp": "2024-05-01T12:00:00"})


class SummaryTimeWithoutZone(ReferenceProvider):
    """Reports a namespace's last update as a local time without a zone."""

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        return [
            s.model_copy(update={"last_updated": "2024-05-01 12:00:00"})
            for s in super().namespaces()
        ]


class ExportTimeWithoutZone(ReferenceProvider):
    """Exports each entry's time as a local time without a zone (`2024-05-01T12:00:00`)."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(cursor, limit)
        records = [
            r.model_copy(update={"payload": {**r.payload, "timestamp": "2024-05-01T12:00:00"}})
            if isinstance(r.payload, dict)
            else r
            for r in page.records
        ]
        return ExportPage(records=records, next_cursor=page.next_cursor)


class RefusesDottedNamespaces(Hooked):
    """Refuses any namespace holding a `.` (LangGraph splits namespaces on dots)."""

    def _refuse(self, namespace: str | None) -> None:
        if namespace is not None and "." in namespace:
            raise Invalid(f"namespace labels cannot contain periods: {namespace}")

    def write(self, row: Written) -> Written:
        self._refuse(row.namespace)
        return super().write(row)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        self._refuse(namespace)
        return super().get(namespace, key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        self._refuse(namespace)
        return super().list(namespace, category, session_id)


class RefusesEmptySegments(Hooked):
    """Refuses a namespace with an empty or a `.` `/` segment (LangGraph refuses empty
    labels; a store mapping `/` onto directories cannot hold `.`)."""

    def write(self, row: Written) -> Written:
        if any(segment in ("", ".") for segment in row.namespace.split("/")):
            raise Invalid("namespace labels cannot be empty strings or '.'")
        return super().write(row)


class FoldsDotSegments(Hooked):
    """Normalises namespaces as paths (`a/./b` becomes `a/b`) on the way in and out:
    `get` still finds the entry, but it comes back under another namespace."""

    @staticmethod
    def _fold(namespace: str) -> str:
        return "/".join(part for part in namespace.split("/") if part != ".")

    def write(self, row: Written) -> Written:
        return super().write(row._replace(namespace=self._fold(row.namespace)))

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return super().get(self._fold(namespace), key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        folded = None if namespace is None else self._fold(namespace)
        return super().list(folded, category, session_id)


class RefusesLongKeys(Hooked):
    """Refuses keys over 255 characters (a VARCHAR(255) column)."""

    max_key = 255

    def write(self, row: Written) -> Written:
        if len(row.key) > self.max_key:
            raise Invalid(f"key is longer than {self.max_key} characters")
        return super().write(row)


class RefusesEmptyContent(Hooked):
    """Refuses empty content (as TinyCortex does), without declaring it: no fault, a
    refusal the contract names (A4 `store`)."""

    def write(self, row: Written) -> Written:
        if not row.content:
            raise Invalid("content must not be empty")
        return super().write(row)


class Declaring(Hooked):
    """The reference, declaring `constraints` and refusing with `Invalid` everything they
    leave out: a store keeping the promise its declaration makes (no fault)."""

    constraints: Constraints = Constraints()

    def __init__(self, constraints: Constraints | None = None) -> None:
        super().__init__()
        if constraints is not None:
            self.constraints = constraints

    def write(self, row: Written) -> Written:
        why = self.constraints.namespace_refusal(row.namespace)
        if why is not None:
            raise Invalid(f"the namespace {why}")
        if not self.constraints.admits_key(row.key):
            raise Invalid("the key is not one this store takes")
        if not self.constraints.admits_content(row.content):
            raise Invalid("the content is not one this store takes")
        return super().write(row)


_ALIASED = re.compile(r"[_.@+]")


class DeclaresAnAlphabetButMerges(Hooked):
    """Declares a namespace alphabet without `_ . @ +` yet takes such names, keeping each
    at an address that spells all four `_`: `a_b`, `a.b` and `a@b` are one namespace
    (the `sqlite` store's former fault)."""

    constraints = Constraints(
        namespace_alphabet=string.ascii_letters + string.digits + "-/:",
        reason="addresses spell `_ . @ +` alike",
    )

    @staticmethod
    def _address(namespace: str | None) -> str | None:
        return None if namespace is None else _ALIASED.sub("_", namespace)

    def write(self, row: Written) -> Written:
        return super().write(row._replace(namespace=_ALIASED.sub("_", row.namespace)))

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return super().get(_ALIASED.sub("_", namespace), key)

    def forget(self, namespace: str, key: str) -> bool:
        return super().forget(_ALIASED.sub("_", namespace), key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        return super().list(self._address(namespace), category, session_id)

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        address = opts.model_copy(update={"namespace": self._address(opts.namespace)})
        return super().recall(query, limit, address, scope)


class EmptyContentFailsAsBackend(Hooked):
    """Refuses empty content, but as a backend failure rather than `Invalid`."""

    def write(self, row: Written) -> Written:
        if not row.content:
            raise Backend("content must not be empty")
        return super().write(row)


class EmptyContentRefusedYetStored(Hooked):
    """Answers `Invalid` for empty content after storing it anyway."""

    def write(self, row: Written) -> Written:
        if not row.content:
            ReferenceProvider.store(self, *super().write(row))
            raise Invalid("content must not be empty")
        return super().write(row)


class TrimsContent(Hooked):
    """Strips leading and trailing whitespace from what it stores."""

    def write(self, row: Written) -> Written:
        return super().write(row)._replace(content=row.content.strip())


class NormalisesContent(Hooked):
    """Stores content in Unicode NFKC form."""

    def write(self, row: Written) -> Written:
        normal = unicodedata.normalize("NFKC", row.content)
        return super().write(row)._replace(content=normal)


class ExportSkipsBetweenPages(ReferenceProvider):
    """Starts each next page one record too far (an off-by-one cursor)."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(cursor, limit)
        if page.next_cursor is None:
            return page
        skipped = int(page.next_cursor) + 1
        total = len(self._sorted_rows())
        return ExportPage(
            records=page.records, next_cursor=str(skipped) if skipped < total else None
        )


class ExportRepeatsRecord(ReferenceProvider):
    """Starts each next page on the last record of the page before (an inclusive cursor)."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        page = super().export_page(cursor, limit)
        if page.next_cursor is None or len(page.records) < 2:
            return page
        return ExportPage(records=page.records, next_cursor=str(int(page.next_cursor) - 1))


class ExportPageCappedAtHundred(ReferenceProvider):
    """Pages hold at most 100 records, and a page shorter than the limit asked for is
    taken as the last (no cursor)."""

    cap = 100

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if limit < 1:
            raise Invalid("export page limit must be greater than zero")
        rows = self._sorted_rows()
        if cursor is not None and (not cursor.isdigit() or int(cursor) > len(rows)):
            raise Invalid(f"unknown export cursor: {cursor}")
        start = int(cursor or 0)
        page = rows[start : start + min(limit, self.cap)]
        end = start + len(page)
        more = end < len(rows) and len(page) == limit
        return ExportPage(
            records=[entry_record(e) for e in page], next_cursor=str(end) if more else None
        )


class ExportPageCappedAtFifty(ExportPageCappedAtHundred):
    """Pages hold at most 50 records; a short page is taken as the last."""

    cap = 50


class ImportFirstHundred(ReferenceProvider):
    """Imports the first 100 records of a batch (its store's batch size), and says so."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        return super().import_records(records[:100])


class ImportFirstFiftyClaimsAll(ReferenceProvider):
    """Imports the first 50 records of a batch, but reports every record imported."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        outcome = super().import_records(records[:50])
        return outcome.model_copy(update={"imported": len(records)})


class ImportDropsSession(ReferenceProvider):
    """Imports every record without its session."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        stripped = []
        for record in records:
            payload = dict(record.payload) if isinstance(record.payload, dict) else {}
            payload["session_id"] = None
            stripped.append(record.model_copy(update={"payload": payload}))
        return super().import_records(stripped)


class ImportFailsTheBatchForOneRecord(ReferenceProvider):
    """Refuses a whole batch when one record cannot be written (validates all, then
    raises), where the contract counts that record in `failed`."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        outcome = super().import_records(records)
        if outcome.failed:
            raise Invalid(f"batch refused: {outcome.errors[0]}")
        return outcome


class ImportNeedsItsOwnRecordIds(ReferenceProvider):
    """Imports only records whose id is one it issues (`<namespace>::<key>`), counting the
    rest as skipped: records another store exported never land."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        own = [r for r in records if "::" in r.id]
        outcome = super().import_records(own)
        return outcome.model_copy(update={"skipped": len(records) - len(own)})


class ImportFillsMissingContent(ReferenceProvider):
    """Imports a record whose payload has no `content` with a placeholder text, where the
    contract defaults it to `""` (or the record fails)."""

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        filled = [
            r.model_copy(update={"payload": {**r.payload, "content": "(no content)"}})
            if isinstance(r.payload, dict) and "key" in r.payload and "content" not in r.payload
            else r
            for r in records
        ]
        return super().import_records(filled)


class ExportRestartsAfterAWrite(ReferenceProvider):
    """Export cursors carry the store's version; after any write between pages the export
    cannot resume and starts over, exporting every row again."""

    def __init__(self) -> None:
        super().__init__()
        self._version = 0

    def store(self, *args: Any) -> None:
        self._version += 1
        super().store(*args)

    def forget(self, namespace: str, key: str) -> bool:
        self._version += 1
        return super().forget(namespace, key)

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        inner = None
        if cursor is not None:
            version, _, inner = cursor.partition("@")
            if version != str(self._version):
                inner = None
        page = super().export_page(inner, limit)
        more = page.next_cursor
        return page.model_copy(
            update={"next_cursor": None if more is None else f"{self._version}@{more}"}
        )


class ExportCursorLostWithItsRow(ReferenceProvider):
    """The export cursor names the last row exported; when that row is forgotten before
    the next page, the store cannot find where to resume and ends the export."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        rows = self._sorted_rows()
        start = 0
        if cursor is not None:
            names = [f"{r.namespace}|{r.key}" for r in rows]
            if cursor not in names:
                return ExportPage(records=[], next_cursor=None)
            start = names.index(cursor) + 1
        page = super().export_page(str(start) if start else None, limit)
        if page.next_cursor is None or not page.records:
            return page
        last = page.records[-1]
        key = last.payload.get("key") if isinstance(last.payload, dict) else None
        return page.model_copy(update={"next_cursor": f"{last.namespace}|{key}"})


class ExportRefusesCursorPastTheEnd(ReferenceProvider):
    """The export cursor is an offset checked against the rows held now: once the store
    shrinks below it, the cursor it issued is refused as unknown."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if cursor is not None and cursor.isdigit() and int(cursor) > len(self._sorted_rows()):
            raise Invalid(f"unknown export cursor: {cursor}")
        return super().export_page(cursor, limit)


class ExportRefusesCursorAtTheEnd(ReferenceProvider):
    """As `ExportRefusesCursorPastTheEnd`, refusing too a cursor exactly at the end of the
    store that shrank to it."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if cursor is not None and cursor.isdigit() and int(cursor) >= len(self._sorted_rows()):
            raise Invalid(f"unknown export cursor: {cursor}")
        return super().export_page(cursor, limit)


class ProviderDown(ReferenceProvider):
    """health is down."""

    def health(self) -> MemoryHealth:
        return MemoryHealth.down("broken on purpose")


class ProviderHealthRaises(ReferenceProvider):
    """health raises instead of answering."""

    def health(self) -> MemoryHealth:
        raise Backend("the health endpoint crashed")


class HealthReasonQuotesContent(ReferenceProvider):
    """Once anything is held, health is degraded with a reason quoting the latest write."""

    def __init__(self) -> None:
        super().__init__()
        self._latest: str | None = None

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._latest = content
        super().store(namespace, key, content, category, session_id, taint)

    def health(self) -> MemoryHealth:
        if self._latest is None:
            return MemoryHealth.ready()
        return MemoryHealth.degraded(f"slow since writing {self._latest!r}")


class ExportTakesLimitZero(ReferenceProvider):
    """`export_page` with a limit of 0 answers an empty last page (it reads as an empty
    store) instead of refusing it."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if limit == 0:
            return ExportPage(records=[], next_cursor=None)
        return super().export_page(cursor, limit)


class RecallPassesQueryToSearchSyntax(ReferenceProvider):
    """Recall hands the query to a search syntax unescaped: a double quote or a bare
    operator is a syntax error there."""

    def recall(
        self,
        query: str,
        limit: int,
        opts: OwnedRecallOpts,
        scope: SourceScope | None = None,
    ) -> builtins.list[MemoryEntry]:
        if query.count('"') % 2 or re.search(r"\b(AND|OR|NOT|NEAR)\b|[()*:]", query):
            raise Backend(f"fts5: syntax error near {query!r}")
        return super().recall(query, limit, opts, scope)


class RecallStopsBelowMinScore(ReferenceProvider):
    """Recall scans in key order and stops at the first match scoring below `min_score`
    (a `break` where a `continue` belonged), losing every later match above it."""

    def recall(
        self,
        query: str,
        limit: int,
        opts: OwnedRecallOpts,
        scope: SourceScope | None = None,
    ) -> builtins.list[MemoryEntry]:
        unfiltered = super().recall(query, 1000, opts.model_copy(update={"min_score": None}), scope)
        if opts.min_score is None:
            return unfiltered[:limit]
        kept: builtins.list[MemoryEntry] = []
        for entry in sorted(unfiltered, key=lambda e: e.key):
            if (entry.score or 0.0) < opts.min_score:
                break
            kept.append(entry)
        kept.sort(key=lambda e: -(e.score or 0.0))
        return kept[:limit]


# Each broken provider and the check that exists to catch it.
class _ClearsPrefix(ReferenceDocuments):
    def clear_namespace(self, namespace: str) -> None:
        # `DELETE ... WHERE namespace LIKE ns || '%'`.
        for other in sorted({d.namespace for d in self._sorted()}):
            if other.startswith(namespace):
                super().clear_namespace(other)


class _QueryRefusesLimitZero(ReferenceDocuments):
    def query_documents(self, namespace: str, query: str, limit: int) -> Any:
        if limit <= 0:
            raise Invalid("limit must be positive")
        return super().query_documents(namespace, query, limit)


class _RowsWithoutTaint(ReferenceDocuments):
    def list_documents(self, namespace: str | None) -> JsonValue:
        listing = super().list_documents(namespace)
        assert isinstance(listing, dict) and isinstance(listing["documents"], list)
        for row in listing["documents"]:
            assert isinstance(row, dict)
            row.pop("taint", None)
        return listing


class DocumentRowsWithoutTaint(ReferenceProvider):
    """`list_documents` rows leave out the pinned `taint` key (the row is read as
    `internal`), so an `external_sync` document lists as internal."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _RowsWithoutTaint()


class DocumentQueryRefusesLimitZero(ReferenceProvider):
    """`query_documents` refuses a limit of 0, valid input answered with no hit."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _QueryRefusesLimitZero()


class DocumentClearReachesPrefix(ReferenceProvider):
    """`clear_namespace(ns)` also clears every namespace `ns` is a string prefix of."""

    def __init__(self) -> None:
        super().__init__()
        self._documents = _ClearsPrefix()


class _IdFromKey(ReferenceDocuments):
    def _fresh_id(self, namespace: str, key: str) -> str:
        # The reference before it stepped past a taken id: `put_document` then refuses.
        return f"{namespace}::{key}"


class _DeleteIgnoresIdCase(ReferenceDocuments):
    def delete_document(self, namespace: str, document_id: str) -> JsonValue:
        # `WHERE document_id = ?` under a case-insensitive collation.
        held = [d for d in self._sorted() if d.namespace == namespace]
        twins = [d.document_id for d in held if d.document_id.casefold() == document_id.casefold()]
        for twin in twins:
            super().delete_document(namespace, twin)
        return {"deleted": bool(twins), "namespace": namespace, "documentId": document_id}


class _EchoesBlankId(ReferenceDocuments):
    def put_document(self, document: NamespaceDocumentInput) -> str:
        given = document.document_id
        if given is None or given.strip():
            return super().put_document(document)
        # An adapter answering the id it was given, whatever its store made of it.
        super().put_document(document.model_copy(update={"document_id": None}))
        return given


class DocumentPutEchoesBlankId(_FaultyDocuments):
    """A put with a blank id answers that blank id, the document held under another."""

    family = _EchoesBlankId


class DocumentIdFromKey(_FaultyDocuments):
    """A put without an id gets `<namespace>::<key>`, refused when a caller gave that id
    (freed by a delete) to another document."""

    family = _IdFromKey


class DocumentDeleteIgnoresIdCase(_FaultyDocuments):
    """`delete_document` matches ids case-insensitively, taking an id's case twin too."""

    family = _DeleteIgnoresIdCase


class ExportRefusesWithoutWords(ReferenceProvider):
    """Refuses a cursor it never issued with `Invalid(None)`: no text on the wire."""

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        try:
            return super().export_page(cursor, limit)
        except Invalid:
            raise Invalid(None) from None  # type: ignore[arg-type]


class ForgetsInTwoSteps(ReferenceProvider):
    """`forget` looks the key up and removes it in two steps, each under the lock but not
    the two together, a round trip to the store between them: threads forgetting one
    key at once each answer True."""

    def forget(self, namespace: str, key: str) -> bool:
        with self._lock:
            held = (namespace, key) in self._rows
        time.sleep(0.0005)
        with self._lock:
            self._rows.pop((namespace, key), None)
        return held


BROKEN_PROVIDERS: dict[type[Any], str] = {
    ProviderDown: "provider.health",
    ForgetsInTwoSteps: "provider.racing_writes",
    RecallStopsBelowMinScore: "provider.recall_honours_min_score",
    RecallPassesQueryToSearchSyntax: "provider.recall_takes_any_query",
    ExportTakesLimitZero: "provider.export_cursor_terminates",
    ExportRefusesWithoutWords: "provider.export_cursor_terminates",
    ProviderHealthRaises: "provider.health",
    HealthReasonQuotesContent: "provider.health",
    DocumentIdFromKey: "provider.document_ids",
    DocumentPutEchoesBlankId: "provider.document_ids",
    DocumentDeleteIgnoresIdCase: "provider.document_ids",
    ImportFailsTheBatchForOneRecord: "provider.import_takes_records_written_elsewhere",
    DocumentRowsWithoutTaint: "provider.documents_round_trip",
    ImportNeedsItsOwnRecordIds: "provider.import_takes_records_written_elsewhere",
    ImportFillsMissingContent: "provider.import_takes_records_written_elsewhere",
    ExportRestartsAfterAWrite: "provider.export_during_writes",
    ExportCursorLostWithItsRow: "provider.export_during_writes",
    ExportRefusesCursorPastTheEnd: "provider.export_during_writes",
    ExportRefusesCursorAtTheEnd: "provider.export_during_writes",
    DocumentClearReachesPrefix: "provider.documents_at_volume",
    DocumentQueryRefusesLimitZero: "provider.documents_at_volume",
    RecallRefusesLimitZero: "provider.recall_respects_limit_and_namespace",
    RecallSlicesByLimit: "provider.recall_respects_limit_and_namespace",
    EmptyKeyGetsAGeneratedKey: "provider.accepts_valid_input",
    KeyAsFileName: "provider.accepts_valid_input",
    ReplacesLoneSurrogates: "provider.awkward_content_round_trips",
    DocumentQuerySlicesByLimit: "provider.documents_at_volume",
    DocumentListCappedAt10: "provider.documents_at_volume",
    DocumentDeleteMatchesIdPrefix: "provider.documents_at_volume",
    DocumentQueryReachesNamespacePrefix: "provider.documents_at_volume",
    AdvertisesDocuments: "provider.capability_audit",
    ForgetAlwaysTrue: "provider.forget_is_idempotent",
    GetRaises: "provider.retention_probe",
    ListIgnoresNamespace: "provider.namespaces_are_isolated",
    DropsSession: "provider.store_get_round_trip",
    UpsertDuplicates: "provider.upsert_replaces_rather_than_duplicates",
    IgnoresCategoryFilter: "provider.list_filters_narrow",
    RestampsTaint: "provider.taint_is_preserved",
    RecallIgnoresNamespace: "provider.recall_respects_limit_and_namespace",
    RecallNoneSearchesEverything: "provider.namespace_none_semantics",
    RecallIgnoresScope: "provider.recall_respects_source_scope",
    CollapsesSectionColon: "provider.namespaces_preserve_their_section",
    ReportsBracketedRedaction: "provider.section_writes_are_enumerable",
    ReportsARedactedNameThatAddressesNothing: "provider.section_writes_are_enumerable",
    ExportNeverEnds: "provider.export_cursor_terminates",
    ExportCursorRepeats: "provider.export_cursor_terminates",
    AcceptsForeignCursor: "provider.export_cursor_terminates",
    ImportDropsTaint: "provider.export_import_round_trip",
    MangleContent: "provider.awkward_content_round_trips",
    LeaksCredential: "provider.no_credential_in_errors",
    ChangesContentOnTheWayBack: "provider.retention_probe",
    GetFindsNothing: "provider.retention_probe",
    SearchPagesOfTen: "provider.listing_holds_at_volume",
    ListPagesOfTwenty: "provider.listing_holds_at_volume",
    ListNonePagesOfTen: "provider.listing_holds_at_volume",
    ListNonePagesOfFifty: "provider.listing_holds_at_volume",
    CountsPagesOfTen: "provider.listing_holds_at_volume",
    RecallPagesOfTen: "provider.recall_respects_limit_and_namespace",
    ListPagesOfHundred: "provider.listing_holds_at_volume",
    ListPagesOfFifty: "provider.listing_holds_at_volume",
    CountsPagesOfFifty: "provider.listing_holds_at_volume",
    ListNonePagesOfHundred: "provider.listing_holds_at_volume",
    CountsPagesOfHundred: "provider.listing_holds_at_volume",
    NamespacesFirstHundred: "provider.listing_holds_at_volume",
    NamespacesFirstFifty: "provider.listing_holds_at_volume",
    RecallPagesOfFifty: "provider.recall_respects_limit_and_namespace",
    RecallPagesOfHundred: "provider.recall_respects_limit_and_namespace",
    RecallNamespaceAfterTopHundred: "provider.recall_respects_limit_and_namespace",
    RecallNamespaceAfterLimitPlusFifty: "provider.recall_respects_limit_and_namespace",
    RecallCategoryAfterTopHundred: "provider.recall_filters_narrow",
    RecallCategoryAfterLimitPlusFifty: "provider.recall_filters_narrow",
    RecallSessionAfterTopHundred: "provider.recall_filters_narrow",
    RecallSessionAfterLimitPlusFifty: "provider.recall_filters_narrow",
    NamespaceMatchedAsPrefix: "provider.namespaces_are_isolated",
    JoinsNamespaceAndKey: "provider.namespaces_are_isolated",
    ListMatchesPathPrefix: "provider.namespaces_are_isolated",
    RecallMatchesPrefix: "provider.namespaces_are_isolated",
    ForgetsKeyUnderTheParent: "provider.namespaces_are_isolated",
    CategoryFilterIgnoresCase: "provider.list_filters_narrow",
    CategoryFilterByName: "provider.list_filters_narrow",
    SessionFilterMatchesPrefix: "provider.list_filters_narrow",
    UpsertKeepsOldLabels: "provider.upsert_replaces_rather_than_duplicates",
    UpsertMergesSession: "provider.upsert_replaces_rather_than_duplicates",
    RecallIgnoresCategory: "provider.recall_filters_narrow",
    RecallSessionIgnoresCase: "provider.recall_filters_narrow",
    RecallReversed: "provider.recall_ranks_best_first",
    RecallInKeyOrder: "provider.recall_ranks_best_first",
    RecallAnswersAnyway: "provider.recall_respects_limit_and_namespace",
    IgnoresMinScore: "provider.recall_honours_min_score",
    MinScoreExclusive: "provider.recall_honours_min_score",
    TimestampsWithoutZone: "provider.timestamps_are_well_formed",
    SummaryTimeWithoutZone: "provider.timestamps_are_well_formed",
    ExportTimeWithoutZone: "provider.timestamps_are_well_formed",
    RefusesDottedNamespaces: "provider.accepts_valid_input",
    RefusesEmptySegments: "provider.accepts_valid_input",
    FoldsDotSegments: "provider.accepts_valid_input",
    RefusesLongKeys: "provider.accepts_valid_input",
    DeclaresAnAlphabetButMerges: "provider.declared_constraints_refuse",
    EmptyContentFailsAsBackend: "provider.awkward_content_round_trips",
    EmptyContentRefusedYetStored: "provider.awkward_content_round_trips",
    TrimsContent: "provider.awkward_content_round_trips",
    NormalisesContent: "provider.awkward_content_round_trips",
    ExportSkipsBetweenPages: "provider.export_covers_every_record",
    ExportRepeatsRecord: "provider.export_covers_every_record",
    ImportDropsSession: "provider.export_import_round_trip",
    DeleteAlwaysDeletes: "provider.documents_round_trip",
    DocumentsLoseTaint: "provider.documents_round_trip",
    ClearKeepsDocuments: "provider.documents_round_trip",
    ExportPageCappedAtHundred: "provider.export_covers_every_record",
    ExportPageCappedAtFifty: "provider.export_covers_every_record",
    ImportFirstHundred: "provider.export_import_round_trip",
    ImportFirstFiftyClaimsAll: "provider.export_import_round_trip",
}
