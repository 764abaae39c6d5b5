"""`SqliteStore`: the workspace (database plus Markdown mirror) at the level of rows.

Rows are identified by `(logical namespace, key)`: every read, write, listing and
enumeration goes by the logical name. The physical address (`memory_docs.namespace`)
only places the row's Markdown file, so two names that sanitise to one address
(`agent:a_b`, `agent:a.b`) share a directory and never an entry. One connection serves
every thread, guarded by a lock; every write is its own `BEGIN IMMEDIATE` transaction,
committed (with a full sync) before the call returns, and its mirror file is written
inside that transaction so two processes never interleave a row and its file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.provider import Backend, Invalid

from .database import DATABASE_FILE, DEFAULT_BUSY_TIMEOUT, connect, mapped_errors, transaction
from .drafts import Draft
from .markdown import MarkdownMirror
from .recall import (
    COVERAGE_FUNCTION,
    TERM_SEPARATOR,
    Columns,
    bm25_score,
    coverage,
    fts_expression,
)
from .rows import ROW_COLUMNS, Row
from .schema import FTS_TABLE, SchemaTooNew, ensure_fts, migrate

__all__ = ["Reader", "SessionFilter", "SqliteStore", "StoreUnavailable", "Summary"]

_D_COLUMNS: Final = ", ".join(f"d.{column.strip()}" for column in ROW_COLUMNS.split(","))
_SELECT: Final = f"SELECT {_D_COLUMNS} FROM memory_docs AS d"


class StoreUnavailable(Exception):
    """The workspace could not be opened; `reason` is safe to report (no path, no data)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Summary:
    """One logical namespace: its name, its size and its latest write."""

    namespace: str
    count: int
    last_updated: float


@dataclass(frozen=True, slots=True)
class SessionFilter:
    """Recall's session options: only `session_id`'s rows, plus conversations if `cross`."""

    session_id: str | None
    cross_session: bool

    def sql(self) -> tuple[str, list[object]]:
        """A `WHERE` fragment (starting with ` AND`) and its parameters."""
        if self.session_id is None:
            return "", []
        if self.cross_session:
            return " AND (d.session_id = ? OR d.category = 'conversation')", [self.session_id]
        return " AND d.session_id = ?", [self.session_id]


def document_id_for(logical: str, key: str, attempt: int = 1) -> str:
    """The id a new row gets when none is given: stable for its `(logical namespace, key)`;
    `attempt` 2, 3, ... when a caller gave the first to another row.

    Hashed with a tag, so it never equals an id derived by schema version 3 from an
    address (`[address, key]`): a row that layout wrote under `a.b` keeps its id when
    `a_b`, whose address is the same, is written beside it.
    """
    tagged: list[object] = ["logical", logical, key]
    if attempt > 1:
        tagged.append(attempt)
    digest = hashlib.sha256(json.dumps(tagged).encode()).hexdigest()
    return "doc_" + digest[:24]


def _unused_document_id(conn: sqlite3.Connection, logical: str, key: str) -> str:
    """The first `document_id_for(logical, key, attempt)` no other row has."""
    attempt = 1
    while True:
        candidate = document_id_for(logical, key, attempt)
        holder = conn.execute(
            "SELECT logical_namespace, key FROM memory_docs WHERE document_id = ?", (candidate,)
        ).fetchone()
        if holder is None or tuple(holder) == (logical, key):
            return candidate
        attempt += 1


class Reader:
    """Queries over one connection, used while the store's lock is held."""

    def __init__(self, conn: sqlite3.Connection, fts: bool) -> None:
        self._conn = conn
        self._fts = fts

    def summaries(self) -> list[Summary]:
        """Every logical namespace, ordered by name."""
        cursor = self._conn.execute(
            "SELECT logical_namespace, COUNT(*), MAX(updated_at) FROM memory_docs "
            "GROUP BY logical_namespace ORDER BY logical_namespace"
        )
        return [
            Summary(namespace=str(n), count=int(c), last_updated=float(u)) for n, c, u in cursor
        ]

    def fetch(self, logical: str, key: str) -> Row | None:
        """The row at `(logical, key)`."""
        found = self._conn.execute(
            f"{_SELECT} WHERE d.logical_namespace = ? AND d.key = ?", (logical, key)
        ).fetchone()
        return None if found is None else Row.from_sql(found)

    def rows(
        self,
        logical: str | None,
        category: str | None = None,
        session_id: str | None = None,
        *,
        offset: int = 0,
        limit: int = -1,
    ) -> list[Row]:
        """Rows matching every given filter, by namespace then key; `limit=-1` for all."""
        where: list[str] = []
        params: list[object] = []
        for column, value in (
            ("logical_namespace", logical),
            ("category", category),
            ("session_id", session_id),
        ):
            if value is not None:
                where.append(f"d.{column} = ?")
                params.append(value)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        cursor = self._conn.execute(
            f"{_SELECT}{clause} ORDER BY d.logical_namespace, d.key LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [Row.from_sql(found) for found in cursor]

    def rows_after(self, after: tuple[str, str] | None, limit: int) -> list[Row]:
        """Up to `limit` rows past `(logical namespace, key)` (`None`: from the first), in
        that order."""
        clause = ""
        params: tuple[str, ...] = ()
        if after is not None:
            # A row value (SQLite 3.15+) walks the `(logical_namespace, key)` index.
            clause, params = " WHERE (d.logical_namespace, d.key) > (?, ?)", after
        cursor = self._conn.execute(
            f"{_SELECT}{clause} ORDER BY d.logical_namespace, d.key LIMIT ?", (*params, limit)
        )
        return [Row.from_sql(found) for found in cursor]

    def recent(self, logical: str, limit: int) -> list[Row]:
        """The namespace's rows, latest write first (ties by key)."""
        cursor = self._conn.execute(
            f"{_SELECT} WHERE d.logical_namespace = ? ORDER BY d.updated_at DESC, d.key LIMIT ?",
            (logical, limit),
        )
        return [Row.from_sql(found) for found in cursor]

    def search(
        self,
        logical: str,
        terms: list[str],
        limit: int,
        *,
        columns: Columns,
        category: str | None = None,
        sessions: SessionFilter | None = None,
    ) -> list[tuple[Row, float]]:
        """The best `limit` rows of the namespace holding any of `terms`, with scores."""
        filters = ""
        params: list[object] = [logical]
        if category is not None:
            filters += " AND d.category = ?"
            params.append(category)
        if sessions is not None:
            sql, values = sessions.sql()
            filters += sql
            params.extend(values)
        if self._fts:
            cursor = self._conn.execute(
                f"SELECT {_D_COLUMNS}, bm25({FTS_TABLE}) AS relevance FROM {FTS_TABLE} "
                f"JOIN memory_docs AS d ON d.id = {FTS_TABLE}.rowid "
                f"WHERE {FTS_TABLE} MATCH ? AND d.logical_namespace = ?{filters} "
                "ORDER BY relevance, d.key LIMIT ?",
                (fts_expression(terms, columns), *params, limit),
            )
            return [(Row.from_sql(found[:-1]), bm25_score(float(found[-1]))) for found in cursor]
        text = "d.content" if columns == "content" else "d.title || char(10) || d.content"
        cursor = self._conn.execute(
            f"SELECT * FROM (SELECT {_D_COLUMNS}, {COVERAGE_FUNCTION}({text}, ?) AS score "
            f"FROM memory_docs AS d WHERE d.logical_namespace = ?{filters}) "
            "WHERE score > 0 ORDER BY score DESC, key LIMIT ?",
            (TERM_SEPARATOR.join(terms), *params, limit),
        )
        return [(Row.from_sql(found[:-1]), float(found[-1])) for found in cursor]


class SqliteStore:
    """The database and mirror of one workspace directory, safe to share across threads."""

    def __init__(self, workspace: Path, conn: sqlite3.Connection, fts: bool) -> None:
        self._workspace = workspace
        self._conn: sqlite3.Connection | None = conn
        self._fts = fts
        self._mirror = MarkdownMirror(workspace)
        self._lock = threading.RLock()

    @classmethod
    def open(
        cls,
        workspace: Path,
        *,
        use_fts: bool | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> SqliteStore:
        """Open (creating if needed) and migrate the workspace; `StoreUnavailable` if not.

        `use_fts`: `None` uses FTS5 when the build has it, `False` never, `True` insists.
        """
        try:
            workspace.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreUnavailable(
                f"the workspace directory could not be created ({type(error).__name__})"
            ) from error
        try:
            conn = connect(workspace / DATABASE_FILE, busy_timeout)
        except sqlite3.Error as error:
            raise StoreUnavailable(_open_failure(error)) from error
        try:
            conn.create_function(COVERAGE_FUNCTION, 2, coverage, deterministic=True)
            migrate(conn)
            fts = False if use_fts is False else ensure_fts(conn)
            if use_fts and not fts:
                raise StoreUnavailable("this SQLite build has no FTS5")
        except SchemaTooNew as error:
            conn.close()
            raise StoreUnavailable(str(error)) from error
        except sqlite3.Error as error:
            conn.close()
            raise StoreUnavailable(_open_failure(error)) from error
        except BaseException:
            conn.close()
            raise
        return cls(workspace, conn, fts)

    @property
    def fts(self) -> bool:
        """Whether recall ranks with FTS5 `bm25` (else the scan fallback)."""
        return self._fts

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise Backend("the sqlite provider has been shut down")
        return self._conn

    @contextmanager
    def reader(self, *, snapshot: bool = False) -> Iterator[Reader]:
        """Queries under the lock; `snapshot=True` runs them in one read transaction."""
        with self._lock, mapped_errors():
            conn = self._connection()
            if snapshot:
                with transaction(conn, write=False):
                    yield Reader(conn, self._fts)
            else:
                yield Reader(conn, self._fts)

    @contextmanager
    def _writer(self) -> Iterator[tuple[sqlite3.Connection, Reader]]:
        with self._lock, mapped_errors():
            conn = self._connection()
            with transaction(conn, write=True):
                yield conn, Reader(conn, self._fts)

    def upsert(self, draft: Draft) -> Row:
        """Insert or replace the row at `(draft.logical, draft.key)`; the row as stored."""
        updates = [
            "namespace = excluded.namespace",
            "content = excluded.content",
            "category = excluded.category",
            "session_id = excluded.session_id",
            "taint = excluded.taint",
            "updated_at = excluded.updated_at",
            "markdown_rel_path = excluded.markdown_rel_path",
        ]
        if draft.whole_document:
            updates += [
                f"{column} = excluded.{column}"
                for column in ("title", "source_type", "priority", "tags", "metadata")
            ]
            if draft.document_id is not None:
                updates.append("document_id = excluded.document_id")
        now = time.time()
        path = self._mirror.path(draft.physical, draft.logical, draft.key)
        relative = self._mirror.relative(path)
        fields = (
            draft.physical,
            draft.logical,
            draft.key,
            draft.title,
            draft.content,
            draft.source_type,
            draft.priority,
            json.dumps(list(draft.tags), ensure_ascii=False),
            draft.metadata_json,
            draft.category,
            draft.session_id,
            draft.taint.value,
            now,
            now,
            relative,
        )
        with self._writer() as (conn, reader):
            before = _files(conn, "logical_namespace = ? AND key = ?", (draft.logical, draft.key))
            document_id = draft.document_id or _unused_document_id(conn, draft.logical, draft.key)
            params = (document_id, *fields)
            try:
                conn.execute(
                    "INSERT INTO memory_docs (document_id, namespace, logical_namespace, key, "
                    "title, content, source_type, priority, tags, metadata, category, "
                    "session_id, taint, created_at, updated_at, markdown_rel_path) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    f"ON CONFLICT (logical_namespace, key) DO UPDATE SET {', '.join(updates)}",
                    params,
                )
            except sqlite3.IntegrityError as error:
                # The only other unique column: an explicit id another row already has.
                raise Invalid("document id is already used by another document") from error
            row = reader.fetch(draft.logical, draft.key)
            if row is None:  # pragma: no cover - the insert above guarantees it
                raise Backend("the sqlite store lost a row it had just written")
            self._mirror.write(path, row)
            # A row an earlier layout wrote has its file elsewhere (named by its address).
            self._mirror.remove_all(other for other in before if other != relative)
        return row

    def delete(self, logical: str, key: str) -> bool:
        """Remove the row at `(logical, key)` and its file; whether it existed."""
        where, params = "logical_namespace = ? AND key = ?", (logical, key)
        with self._writer() as (conn, _):
            files = _files(conn, where, params)
            conn.execute(f"DELETE FROM memory_docs WHERE {where}", params)
            self._mirror.remove_all(files)
        return bool(files)

    def delete_document(self, logical: str, document_id: str) -> bool:
        """Remove the namespace's row with `document_id` and its file; whether it existed."""
        where, params = "logical_namespace = ? AND document_id = ?", (logical, document_id)
        with self._writer() as (conn, _):
            files = _files(conn, where, params)
            conn.execute(f"DELETE FROM memory_docs WHERE {where}", params)
            self._mirror.remove_all(files)
        return bool(files)

    def clear(self, logical: str) -> int:
        """Remove every row of the namespace and their files; how many."""
        where, params = "logical_namespace = ?", (logical,)
        with self._writer() as (conn, _):
            files = _files(conn, where, params)
            conn.execute(f"DELETE FROM memory_docs WHERE {where}", params)
            # Only this namespace's files: another namespace's may share or nest in its
            # directory.
            self._mirror.remove_all(files)
        return len(files)

    def ping(self, timeout: float) -> bool:
        """Run one trivial query; False if the lock stays busy for `timeout` seconds.

        Raises if the database cannot answer.
        """
        if not self._lock.acquire(timeout=timeout):
            return False
        try:
            with mapped_errors():
                self._connection().execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            self._lock.release()
        return True

    def close(self) -> None:
        """Close the connection; idempotent. Later calls raise `Backend`."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _open_failure(error: sqlite3.Error) -> str:
    code = getattr(error, "sqlite_errorname", None) or type(error).__name__
    return f"the database could not be opened ({code})"


def _files(conn: sqlite3.Connection, where: str, params: tuple[str, ...]) -> list[str]:
    """`markdown_rel_path` of every row matching `where`, one per row."""
    # Read before deleting: DELETE ... RETURNING needs SQLite 3.35, newer than some
    # platforms' Python ships with.
    query = f"SELECT markdown_rel_path FROM memory_docs WHERE {where}"
    return [str(path) for (path,) in conn.execute(query, params)]
