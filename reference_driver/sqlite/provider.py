"""`SqliteProvider`: the `sqlite` driver, an on-disk provider (the seed's production store).

A workspace directory holds `memory.db` (SQLite, WAL) and `namespaces/<address>/`, one
Markdown file per entry. Entries are rows keyed by `(logical namespace, key)`: the
logical namespace is `logical_namespace(namespace)` (delimiter-preserving, PII-redacted,
itself a valid namespace naming the same rows), the key `canonical_identifier(key)` (as
written, personal data redacted). Every read, write, listing and enumeration goes by the
logical name, so
`conversation:thread-1` comes back under its `:` spelling,
`conversation:thread-123-45-6789` as `conversation:thread-_REDACTED_PII_SSN_`, and
`agent:a_b`, `agent:a.b` and `agent:a@b` are three namespaces. The physical address
(`sanitize_namespace(namespace)`: path-safe, not injective) only names the directory of
the Markdown file.
"""

from __future__ import annotations

import builtins
import math
from pathlib import Path
from typing import Final

from conformance.provider import (
    SCOPE_UNAPPLIED,
    Backend,
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
)

from . import portability
from .database import DEFAULT_BUSY_TIMEOUT, mapped_errors
from .documents import SqliteDocuments
from .drafts import entry_draft, read_key, read_namespace
from .recall import query_terms
from .rows import timestamp
from .store import SessionFilter, SqliteStore, StoreUnavailable

__all__ = ["DRIVER_ID", "SqliteProvider"]

DRIVER_ID: Final = "sqlite"

_CAPABILITIES: Final = Capabilities.mandatory().with_(Capability.DOCUMENTS)
_HEALTH_LOCK_TIMEOUT: Final = 1.0


class SqliteProvider(ProviderBase):
    """The `sqlite` driver: mandatory families plus `documents`, over one workspace.

    Thread-safe: one connection guarded by a lock. Several providers, in one process or
    many, may open one workspace at once. Every write is committed before it returns.
    A workspace that cannot be opened leaves the provider down: `health()` says why and
    every other call raises `Backend`.
    """

    def __init__(
        self,
        workspace: str | Path,
        *,
        use_fts: bool | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        """Open `workspace` (created if missing). `use_fts=False` forces the scan fallback."""
        self._workspace = Path(workspace)
        self._store: SqliteStore | None = None
        self._down: str | None = None
        try:
            self._store = SqliteStore.open(
                self._workspace, use_fts=use_fts, busy_timeout=busy_timeout
            )
        except StoreUnavailable as error:
            self._down = error.reason
        self._documents = SqliteDocuments(self._live)

    @property
    def workspace(self) -> Path:
        """The workspace directory."""
        return self._workspace

    @property
    def uses_fts(self) -> bool:
        """Whether recall ranks with FTS5 `bm25` rather than the scan fallback."""
        return self._store is not None and self._store.fts

    def _live(self) -> SqliteStore:
        if self._store is None:
            raise Backend(self._down or "the sqlite provider has been shut down")
        return self._store

    # ------------------------------------------------------------------ provider

    def driver_id(self) -> str:
        """`"sqlite"`."""
        return DRIVER_ID

    def capabilities(self) -> Capabilities:
        """The mandatory three and `documents`."""
        return _CAPABILITIES

    def health(self) -> MemoryHealth:
        """Ready; degraded while the connection stays busy; down when it cannot serve."""
        if self._store is None:
            return MemoryHealth.down(self._down or "the sqlite provider has been shut down")
        try:
            answered = self._store.ping(_HEALTH_LOCK_TIMEOUT)
        except Backend as error:
            return MemoryHealth.down(error.message)
        except Exception as error:  # health reports, it does not raise
            return MemoryHealth.down(f"the database did not answer ({type(error).__name__})")
        return MemoryHealth.ready() if answered else MemoryHealth.degraded("the database is busy")

    def shutdown(self) -> None:
        """Close the connection; idempotent. Later calls raise `Backend`."""
        store, self._store = self._store, None
        if store is not None:
            self._down = "the sqlite provider has been shut down"
            store.close()

    def as_documents(self) -> MemoryDocuments | None:
        """The `documents` family."""
        return self._documents

    # ------------------------------------------------------------------ core

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """Upsert on `(namespace, key)`; `Invalid` (nothing stored) for a bad namespace or key."""
        self._live().upsert(entry_draft(namespace, key, content, category, session_id, taint))

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        """The entry, or `None`."""
        stored_key = read_key(key)
        if stored_key is None:
            return None
        with self._live().reader() as reader:
            row = reader.fetch(read_namespace(namespace), stored_key)
        return None if row is None else row.entry()

    def forget(self, namespace: str, key: str) -> bool:
        """Remove the entry and its Markdown file; whether it existed."""
        stored_key = read_key(key)
        if stored_key is None:
            return False
        return self._live().delete(read_namespace(namespace), stored_key)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        """Entries matching every filter; `namespace=None` lists every namespace."""
        logical = None if namespace is None else read_namespace(namespace)
        wanted = None if category is None else str(category)
        with self._live().reader() as reader:
            rows = reader.rows(logical, wanted, session_id)
        return [row.entry() for row in rows]

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        """One summary per logical namespace."""
        with self._live().reader() as reader:
            summaries = reader.summaries()
        return [
            NamespaceSummary(
                namespace=summary.namespace,
                count=summary.count,
                last_updated=timestamp(summary.last_updated),
            )
            for summary in summaries
        ]

    # ------------------------------------------------------------------ recall

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        """The best `limit` entries of one namespace (`None`: `global`) for `query`'s words.

        Honours `category`, `session_id` (with `cross_session`, conversation entries of
        other sessions too) and `min_score`. A `scope` is refused: this driver has no
        source attribution to apply it to inside the query.
        """
        if scope is not None:
            raise Invalid(SCOPE_UNAPPLIED)
        if limit < 0:
            raise Invalid("recall limit must not be negative")
        if opts.min_score is not None and math.isnan(opts.min_score):
            raise Invalid("recall min_score must be a number")
        terms = query_terms(query)
        if not terms or limit == 0:
            return []
        with self._live().reader() as reader:
            found = reader.search(
                read_namespace(opts.namespace),  # `None` and blank: `global`
                terms,
                limit,
                columns="content",
                category=None if opts.category is None else str(opts.category),
                sessions=SessionFilter(opts.session_id, opts.cross_session),
            )
        # Scores fall as rank falls, so filtering after the limit drops only the tail.
        return [
            row.entry(score)
            for row, score in found
            if opts.min_score is None or score >= opts.min_score
        ]

    # ------------------------------------------------------------------ portability

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        """Up to `limit` records past the row `cursor` names, in `(namespace, key)` order."""
        return portability.export_page(self._live(), cursor, limit)

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        """Write each record with its own taint; malformed records are counted and named."""
        store = self._live()
        with mapped_errors():
            return portability.import_records(store.upsert, records)
