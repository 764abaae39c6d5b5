"""The versioned database schema (`PRAGMA user_version`) and its migrations.

Version 1 is the store before the logical namespace: rows addressed by the sanitised
physical namespace alone. Version 2 adds the nullable `logical_namespace` column and
backfills nothing: a row written before it keeps `NULL`, enumerates under its
physical address, and heals when it is next written. Version 3 respells the redaction
placeholders inside logical names (`[REDACTED_PII_SSN]` becomes `_REDACTED_PII_SSN_`, see
`address.logical_namespace`), so every reported name is a valid namespace; the physical
address does not change, and neither does any other column. Version 4 makes the logical
namespace the row's identity: `UNIQUE(logical_namespace, key)` replaces `UNIQUE(namespace,
key)`, so two names sharing a physical address keep their entries apart. A row from
before version 2 (`NULL`) takes its physical address as its name, the name it has always
been reported under. SQLite cannot drop a constraint, so the table is rebuilt, keeping
every row's `id`. The full-text index is not part of the versioned schema: it is derived
data, built whenever the SQLite build has FTS5, and its triggers are recreated whenever
they are missing (the rebuild drops them with the old table).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Final

from .address import REDACTION_PLACEHOLDER
from .database import transaction

__all__ = [
    "FTS_TABLE",
    "SCHEMA_VERSION",
    "SchemaTooNew",
    "create_schema",
    "ensure_fts",
    "fts5_available",
    "migrate",
    "schema_version",
]

SCHEMA_VERSION: Final = 4
"""The version this driver reads and writes."""

FTS_TABLE: Final = "memory_docs_fts"
"""The FTS5 index over `memory_docs.title` and `memory_docs.content`."""

_V1: Final = (
    """
    CREATE TABLE memory_docs (
        id INTEGER PRIMARY KEY,
        document_id TEXT NOT NULL UNIQUE,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        source_type TEXT NOT NULL,
        priority TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        metadata TEXT NOT NULL DEFAULT 'null',
        category TEXT NOT NULL,
        session_id TEXT,
        taint TEXT NOT NULL DEFAULT 'internal',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        markdown_rel_path TEXT NOT NULL,
        UNIQUE (namespace, key)
    )
    """,
    "CREATE INDEX memory_docs_recent ON memory_docs (namespace, updated_at)",
)


class SchemaTooNew(Exception):
    """The database was written by a newer driver; opening it could corrupt it."""

    def __init__(self, found: int) -> None:
        super().__init__(
            f"database schema version {found} is newer than this driver supports ({SCHEMA_VERSION})"
        )
        self.found = found


def schema_version(conn: sqlite3.Connection) -> int:
    """The database's `user_version`: 0 for an empty file."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}


def _add_logical_namespace(conn: sqlite3.Connection) -> None:
    # Checked rather than assumed from user_version, so a re-run is a no-op however the
    # version marker came to lag (a copied file, a hand-reset pragma).
    if "logical_namespace" not in _columns(conn, "memory_docs"):
        conn.execute("ALTER TABLE memory_docs ADD COLUMN logical_namespace TEXT")


def _respell_placeholders(conn: sqlite3.Connection) -> None:
    # Rewrites only names holding a bracketed placeholder, which no name written since
    # holds, so a re-run changes nothing.
    held = conn.execute(
        "SELECT id, logical_namespace FROM memory_docs "
        "WHERE logical_namespace LIKE '%[REDACTED_PII_%'"
    ).fetchall()
    conn.executemany(
        "UPDATE memory_docs SET logical_namespace = ? WHERE id = ?",
        [(REDACTION_PLACEHOLDER.sub(r"_\1_", str(name)), rowid) for rowid, name in held],
    )


_COLUMNS_V4: Final = (
    "id, document_id, namespace, key, title, content, source_type, priority, tags, "
    "metadata, category, session_id, taint, created_at, updated_at, markdown_rel_path, "
    "logical_namespace"
)

_V4: Final = (
    """
    CREATE TABLE memory_docs_v4 (
        id INTEGER PRIMARY KEY,
        document_id TEXT NOT NULL UNIQUE,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        source_type TEXT NOT NULL,
        priority TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        metadata TEXT NOT NULL DEFAULT 'null',
        category TEXT NOT NULL,
        session_id TEXT,
        taint TEXT NOT NULL DEFAULT 'internal',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        markdown_rel_path TEXT NOT NULL,
        logical_namespace TEXT NOT NULL,
        UNIQUE (logical_namespace, key)
    )
    """,
    f"""
    INSERT INTO memory_docs_v4 ({_COLUMNS_V4})
    SELECT {_COLUMNS_V4.replace("logical_namespace", "COALESCE(logical_namespace, namespace)")}
    FROM memory_docs
    """,
    "DROP TABLE memory_docs",
    "ALTER TABLE memory_docs_v4 RENAME TO memory_docs",
    "CREATE INDEX memory_docs_recent ON memory_docs (logical_namespace, updated_at)",
)


def _unique_keys(conn: sqlite3.Connection, table: str) -> list[list[str]]:
    """The column lists of `table`'s unique indexes."""
    return [
        [str(column[2]) for column in conn.execute(f"PRAGMA index_info('{index[1]}')")]
        for index in conn.execute(f"PRAGMA index_list('{table}')")
        if index[2]
    ]


def _key_by_logical_namespace(conn: sqlite3.Connection) -> None:
    # A table already keyed by its logical name (a lagging version marker) is left alone.
    # The copy cannot clash: version 3 held one row per (address, key); a logical name
    # determines its address, and an address taken as a name is its own address.
    if ["logical_namespace", "key"] in _unique_keys(conn, "memory_docs"):
        return
    for statement in _V4:
        conn.execute(statement)


_MIGRATIONS: Final[dict[int, Callable[[sqlite3.Connection], None]]] = {
    2: _add_logical_namespace,
    3: _respell_placeholders,
    4: _key_by_logical_namespace,
}
"""The step that brings a database from `version - 1` to `version`."""


def create_schema(conn: sqlite3.Connection, version: int = SCHEMA_VERSION) -> int:
    """Bring the database to at least `version`, in one write transaction; the version after.

    An empty database gets the version 1 tables first; `version=1` therefore creates the
    pre-migration schema (for tests of the migration). A database already at or past
    `version` is left as it is. Raises `SchemaTooNew` past `SCHEMA_VERSION`.
    """
    if not 1 <= version <= SCHEMA_VERSION:
        raise ValueError(f"schema version must be between 1 and {SCHEMA_VERSION}")
    with transaction(conn, write=True):
        current = schema_version(conn)
        if current > SCHEMA_VERSION:
            raise SchemaTooNew(current)
        if current == 0:
            for statement in _V1:
                conn.execute(statement)
            current = 1
        for step in range(current + 1, version + 1):
            _MIGRATIONS[step](conn)
            current = step
        # PRAGMA takes no parameters; `current` is an int this function computed.
        conn.execute(f"PRAGMA user_version = {current}")
    return current


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to `SCHEMA_VERSION`; idempotent. The version after."""
    return create_schema(conn, SCHEMA_VERSION)


def fts5_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite build can create FTS5 tables."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.tinymemory_fts5_probe USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.tinymemory_fts5_probe")
    return True


_FTS_TABLE: Final = f"""
    CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(
        title, content, content='memory_docs', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2'
    )
    """

_FTS_TRIGGERS: Final = (
    f"""
    CREATE TRIGGER {FTS_TABLE}_insert AFTER INSERT ON memory_docs BEGIN
        INSERT INTO {FTS_TABLE} (rowid, title, content)
        VALUES (new.id, new.title, new.content);
    END
    """,
    f"""
    CREATE TRIGGER {FTS_TABLE}_delete AFTER DELETE ON memory_docs BEGIN
        INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
    END
    """,
    f"""
    CREATE TRIGGER {FTS_TABLE}_update AFTER UPDATE OF title, content ON memory_docs BEGIN
        INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
        INSERT INTO {FTS_TABLE} (rowid, title, content)
        VALUES (new.id, new.title, new.content);
    END
    """,
)


def _held(conn: sqlite3.Connection, kind: str, name: str) -> bool:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name)
    ).fetchone()
    return found is not None


def ensure_fts(conn: sqlite3.Connection) -> bool:
    """Create and fill the full-text index if it is missing; whether it exists now.

    An external-content index kept in step by triggers; built from every row the first
    time, so a database written without FTS5 gains it when a build with FTS5 opens it.
    An index whose triggers are gone (the version 4 migration rebuilt the table, which
    drops them) gets them back and is rebuilt from every row.
    """
    if not fts5_available(conn):
        return False
    with transaction(conn, write=True):
        table = _held(conn, "table", FTS_TABLE)
        triggers = _held(conn, "trigger", f"{FTS_TABLE}_insert")
        if table and triggers:
            return True
        if not table:
            conn.execute(_FTS_TABLE)
        for statement in _FTS_TRIGGERS:
            conn.execute(statement.replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS", 1))
        conn.execute(f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}) VALUES ('rebuild')")
    return True
