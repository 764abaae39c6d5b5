"""Reference providers with one fault each, and the check id each fault must trip."""

from __future__ import annotations

import builtins
from typing import Any

from conformance.provider import (
    Backend,
    Capabilities,
    Capability,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    SourceScope,
)
from reference_driver.provider import ReferenceProvider


class AdvertisesDocuments(ReferenceProvider):
    """Claims the documents family but offers no accessor for it."""

    def capabilities(self) -> Capabilities:
        return super().capabilities().with_(Capability.DOCUMENTS)


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


class DropsSession(ReferenceProvider):
    """Stores every entry without its session."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        super().store(namespace, key, content, category, None, taint)


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


class RestampsTaint(ReferenceProvider):
    """Stamps every write internal, whatever taint it was given."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        super().store(namespace, key, content, category, session_id, MemoryTaint.INTERNAL)


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


class MangleContent(ReferenceProvider):
    """Normalises line endings and drops NUL characters on the way in."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        cleaned = content.replace("\r\n", "\n").replace("\0", "")
        super().store(namespace, key, cleaned, category, session_id, taint)


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


# Each broken provider and the check that exists to catch it.
BROKEN_PROVIDERS: dict[type[Any], str] = {
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
    ExportNeverEnds: "provider.export_cursor_terminates",
    ExportCursorRepeats: "provider.export_cursor_terminates",
    AcceptsForeignCursor: "provider.export_cursor_terminates",
    ImportDropsTaint: "provider.export_import_round_trip",
    MangleContent: "provider.awkward_content_round_trips",
    LeaksCredential: "provider.no_credential_in_errors",
}
