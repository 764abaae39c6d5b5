"""`ReferenceProvider`: the in-memory reference driver of the provider profile (A7).

One dict keyed by `(namespace, key)` behind one lock. Everything it answers can be
checked by reading this file; it is the oracle the kit compares other drivers with.
"""

from __future__ import annotations

import builtins
import math
import re
import threading
from collections import Counter
from collections.abc import Mapping
from typing import Final

from conformance.provider import (
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    REFERENCE_DRIVER_ID,
    SCOPE_UNAPPLIED,
    Capabilities,
    Capability,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryDocuments,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
    Timestamp,
    entry_record,
)

from .documents import ReferenceDocuments

__all__ = ["EXPORT_PAGE_MAX", "TIMESTAMP", "ReferenceProvider"]

TIMESTAMP: Final = Timestamp(0)
"""The `timestamp` of every entry, 1970-01-01T00:00:00Z: the reference driver keeps no
clock."""

EXPORT_PAGE_MAX: Final = 64
"""The most records one export page carries, whatever `limit` asks for."""

_CAPABILITIES: Final = Capabilities.mandatory().with_(Capability.DOCUMENTS)

# The only cursors this driver issues: canonical decimal offsets ("0", "17", never "017").
_CURSOR: Final = re.compile(r"0|[1-9][0-9]*")


class ReferenceProvider(ProviderBase):
    """In-memory provider serving the three mandatory families and `documents`; thread-safe.

    - `store` upserts on `(namespace, key)`, replacing content, category, session
      and taint; the taint is kept exactly as given.
    - `list(namespace=None, ...)` lists every namespace; `recall` with
      `opts.namespace=None` searches `GLOBAL_NAMESPACE` only
      (docs/contract/kit-choices.md#namespace-none).
    - `recall` matches the whole query as a case-insensitive substring of the
      content and scores a hit `len(query) / len(content)` (both lowercased): in
      (0, 1], higher when the query covers more of the entry.
    - Export cursors are decimal offsets into all rows in `(namespace, key)` order.
    - `as_documents()` serves the `documents` family (`ReferenceDocuments`), whose
      documents are records of their own, not core entries.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[tuple[str, str], MemoryEntry] = {}
        self._documents = ReferenceDocuments()
        self._export_reach = 0
        """The furthest offset issued as an export cursor: one past the end of a store
        that shrank since is still this driver's."""

    def driver_id(self) -> str:
        """`"reference"`."""
        return REFERENCE_DRIVER_ID

    def capabilities(self) -> Capabilities:
        """The mandatory families and `documents`."""
        return _CAPABILITIES

    def health(self) -> MemoryHealth:
        """Always ready: there is nothing to lose contact with."""
        return MemoryHealth.ready()

    def as_documents(self) -> MemoryDocuments | None:
        """The `documents` family."""
        return self._documents

    # -- core ---------------------------------------------------------------------------

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """Upsert the entry at `(namespace, key)`, taint exactly as given."""
        entry = _entry(namespace, key, content, category, session_id, taint)
        with self._lock:
            self._rows[namespace, key] = entry

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        """The entry, or `None` when absent."""
        with self._lock:
            return self._rows.get((namespace, key))

    def forget(self, namespace: str, key: str) -> bool:
        """Remove the entry; whether it existed."""
        with self._lock:
            return self._rows.pop((namespace, key), None) is not None

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        """Entries matching every non-`None` filter, sorted by `(namespace, key)`.

        `namespace=None` lists every namespace held
        (docs/contract/kit-choices.md#namespace-none).
        """
        return [
            entry
            for entry in self._sorted_rows()
            if (namespace is None or entry.namespace == namespace)
            and (category is None or entry.category == category)
            and (session_id is None or entry.session_id == session_id)
        ]

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        """Each namespace held with its entry count, sorted by name; no `last_updated`."""
        with self._lock:
            counts = Counter(namespace for namespace, _ in self._rows)
        return [
            NamespaceSummary(namespace=namespace, count=count)
            for namespace, count in sorted(counts.items())
        ]

    # -- recall -------------------------------------------------------------------------

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        """Entries of one namespace whose content contains `query`, best first.

        Searches `opts.namespace`, or `GLOBAL_NAMESPACE` when it is `None`; keeps
        only `opts.category` / `opts.session_id` when set and drops hits scoring
        below `opts.min_score`. Ties go by `(namespace, key)`. A blank query or
        `limit == 0` finds nothing. `opts.cross_session` is accepted and has no
        effect: it adds episodic turns of other sessions, and this driver keeps
        entries only. Any `scope` is refused with `Invalid(SCOPE_UNAPPLIED)`: rows
        carry no source to apply it to, and ignoring it would leak.
        """
        if scope is not None:
            raise Invalid(SCOPE_UNAPPLIED)
        if limit < 0:
            raise Invalid("recall limit must not be negative")
        if opts.min_score is not None and math.isnan(opts.min_score):
            raise Invalid("recall min_score must be a number, not NaN")
        needle = query.lower()
        if not needle.strip() or limit == 0:
            return []
        namespace = GLOBAL_NAMESPACE if opts.namespace is None else opts.namespace
        hits: builtins.list[tuple[float, MemoryEntry]] = []
        for entry in self._sorted_rows():
            if entry.namespace != namespace:
                continue
            if opts.category is not None and entry.category != opts.category:
                continue
            if opts.session_id is not None and entry.session_id != opts.session_id:
                continue
            haystack = entry.content.lower()
            if needle not in haystack:
                continue
            score = len(needle) / len(haystack)
            if opts.min_score is not None and score < opts.min_score:
                continue
            hits.append((score, entry))
        # The rows arrive in (namespace, key) order and `sort` is stable, so ties keep it.
        hits.sort(key=lambda hit: -hit[0])
        return [entry.model_copy(update={"score": score}) for score, entry in hits[:limit]]

    # -- portability --------------------------------------------------------------------

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        """Up to `min(limit, 64)` records from offset `cursor` over all rows.

        `next_cursor` is set while rows remain; an issued cursor past the end of a store
        that shrank since answers an empty last page. Raises `Invalid` for `limit < 1`
        and for a cursor this driver did not issue (not a canonical decimal, or past
        both the end and every offset issued).
        """
        if limit < 1:
            raise Invalid("export page limit must be greater than zero")
        rows = self._sorted_rows()
        start = 0
        if cursor is not None:
            # An offset issued before the store shrank may lie past its end: a last page.
            if _CURSOR.fullmatch(cursor) is None or int(cursor) > max(
                len(rows), self._export_reach
            ):
                raise Invalid(f"unknown export cursor: {cursor}")
            start = int(cursor)
        end = min(start + min(limit, EXPORT_PAGE_MAX), len(rows))
        if end < len(rows):
            with self._lock:
                self._export_reach = max(self._export_reach, end)
        return ExportPage(
            records=[entry_record(entry) for entry in rows[start:end]],
            next_cursor=str(end) if end < len(rows) else None,
        )

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        """Store each `"entry"` record with its own taint; reject the rest with a reason.

        A record needs a namespace and a string payload `key`; `content` defaults
        to `""` and `category` to core. Nothing is skipped: an existing row is
        replaced (upsert).
        """
        accepted: builtins.list[tuple[tuple[str, str], MemoryEntry]] = []
        errors: builtins.list[str] = []
        for record in records:
            try:
                accepted.append(_row_from_record(record))
            except Invalid as error:
                errors.append(error.message)
        # Validated first, written under one lock: a reader sees all of the batch or none.
        with self._lock:
            self._rows.update(accepted)
        return ImportOutcome(imported=len(accepted), skipped=0, failed=len(errors), errors=errors)

    # -- helpers ------------------------------------------------------------------------

    def _sorted_rows(self) -> builtins.list[MemoryEntry]:
        # A snapshot taken under the lock; entries are immutable, so sharing them is safe.
        with self._lock:
            items = builtins.list(self._rows.items())
        return [entry for _, entry in sorted(items, key=lambda item: item[0])]


def _entry(
    namespace: str,
    key: str,
    content: str,
    category: MemoryCategory,
    session_id: str | None,
    taint: MemoryTaint,
) -> MemoryEntry:
    return MemoryEntry(
        id=f"{namespace}::{key}",
        key=key,
        content=content,
        namespace=namespace,
        category=category,
        timestamp=TIMESTAMP,
        session_id=session_id,
        score=None,
        taint=taint,
    )


def _row_from_record(record: ExportRecord) -> tuple[tuple[str, str], MemoryEntry]:
    """The row an import record stands for; `Invalid` with the reason it cannot be."""
    if record.kind != ENTRY_KIND:
        raise Invalid(f'record {record.id} has kind "{record.kind}", not "{ENTRY_KIND}"')
    payload = record.payload if isinstance(record.payload, dict) else {}
    key = payload.get("key")
    if record.namespace is None or not isinstance(key, str):
        raise Invalid(f"record {record.id} lacks a namespace or key")
    content = _optional_str(record.id, payload, "content")
    session_id = _optional_str(record.id, payload, "session_id")
    raw_category = _optional_str(record.id, payload, "category")
    category = MemoryCategory.CORE
    if raw_category is not None:
        try:
            category = MemoryCategory.parse(raw_category)
        except Invalid as error:
            raise Invalid(f"record {record.id}: {error.message}") from None
    # The record's own taint, already decoded fail-closed by `ExportRecord`.
    entry = _entry(record.namespace, key, content or "", category, session_id, record.taint)
    return (record.namespace, key), entry


def _optional_str(record_id: str, payload: Mapping[str, object], field: str) -> str | None:
    value = payload.get(field)
    if value is None or isinstance(value, str):
        return value
    raise Invalid(f"record {record_id} has a non-string {field}")
