"""A dict-backed provider: entries keyed by (namespace, key), upserted on store."""

from __future__ import annotations

import builtins
import threading

from conformance.provider import (
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    SCOPE_UNAPPLIED,
    Capabilities,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
    entry_record,
)


class AcmeProvider(ProviderBase):
    """Acme's store. `api_key` would authenticate a remote service; here it is only held."""

    def __init__(self, api_key: str | None = None) -> None:
        self._api_key = api_key
        self._lock = threading.Lock()
        self._rows: dict[tuple[str, str], MemoryEntry] = {}

    def driver_id(self) -> str:
        return "acme"

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
        entry = MemoryEntry(
            id=f"{namespace}/{key}",
            key=key,
            content=content,
            namespace=namespace,
            category=category,
            timestamp="2026-01-01T00:00:00Z",
            session_id=session_id,
            taint=taint,
        )
        with self._lock:
            self._rows[namespace, key] = entry

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        with self._lock:
            return self._rows.get((namespace, key))

    def forget(self, namespace: str, key: str) -> bool:
        with self._lock:
            return self._rows.pop((namespace, key), None) is not None

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        with self._lock:
            rows = sorted(self._rows.items())
        return [
            e
            for (ns, _), e in rows
            if namespace in (None, ns)
            and category in (None, e.category)
            and session_id in (None, e.session_id)
        ]

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        counts: dict[str, int] = {}
        for entry in self.list(None, None, None):
            counts[entry.namespace or ""] = counts.get(entry.namespace or "", 0) + 1
        return [NamespaceSummary(namespace=ns, count=n) for ns, n in sorted(counts.items())]

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if scope is not None:
            raise Invalid(SCOPE_UNAPPLIED)
        if limit < 0:
            raise Invalid("recall limit must not be negative")  # `hits[:-1]` would answer
        needle = query.strip().lower()
        if not needle:
            return []
        rows = self.list(opts.namespace or GLOBAL_NAMESPACE, opts.category, opts.session_id)
        hits = [
            e.model_copy(update={"score": len(needle) / max(len(e.content), 1)})
            for e in rows
            if needle in e.content.lower()
        ]
        if opts.min_score is not None:
            hits = [e for e in hits if (e.score or 0.0) >= opts.min_score]
        hits.sort(key=lambda e: -(e.score or 0.0))
        return hits[:limit]

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if limit <= 0:
            raise Invalid("export page limit must be greater than zero")
        rows = self.list(None, None, None)
        # An offset: one past the end of a store that shrank since it was issued answers
        # an empty last page; anything but an offset was never issued.
        if cursor is not None and not (cursor.isascii() and cursor.isdecimal()):
            raise Invalid("export cursor not issued by this driver")
        start = 0 if cursor is None else int(cursor)
        page = rows[start : start + limit]
        records = [entry_record(e) for e in page]
        end = start + len(page)
        return ExportPage(records=records, next_cursor=str(end) if end < len(rows) else None)

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        imported, errors = 0, []
        for record in records:
            payload = record.payload if isinstance(record.payload, dict) else {}
            key, content = payload.get("key"), payload.get("content", "")
            if record.kind != ENTRY_KIND or not isinstance(key, str) or not record.namespace:
                errors.append(f"record {record.id} is not an entry with a namespace and key")
                continue
            category = MemoryCategory.parse(str(payload.get("category") or "core"))
            session = payload.get("session_id")
            self.store(
                record.namespace,
                key,
                str(content),
                category,
                session if isinstance(session, str) else None,
                record.taint,
            )
            imported += 1
        return ImportOutcome(imported=imported, skipped=0, failed=len(errors), errors=errors)
