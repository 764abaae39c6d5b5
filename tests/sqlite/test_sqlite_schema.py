"""The versioned schema: the logical_namespace migration (seed §4) and refusing newer files.

Acceptance: the migration is idempotent, and a row predating it still enumerates under
its sanitised name, until it is rewritten and heals.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from sqlite_helpers import put, raw_rows

from conformance.provider import Backend, MemoryCategory, OwnedRecallOpts
from conformance.sections import Sections
from reference_driver.sqlite import (
    SCHEMA_VERSION,
    SqliteProvider,
    create_schema,
    migrate,
    schema_version,
)
from reference_driver.sqlite.database import DATABASE_FILE
from reference_driver.sqlite.schema import SchemaTooNew, ensure_fts


def workspace_at(workspace: Path, version: int, rows: list[dict[str, str | None]]) -> Path:
    """A workspace whose database an earlier version of the driver wrote, holding `rows`
    (`namespace`, `key` and `content`, plus `logical_namespace` from version 2)."""
    workspace.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(workspace / DATABASE_FILE, isolation_level=None) as conn:
        assert create_schema(conn, version=version) == version
        for row in rows:
            values = {
                "document_id": f"legacy-{row['namespace']}-{row['key']}",
                "title": row["key"],
                "source_type": "chat",
                "priority": "medium",
                "category": "core",
                "created_at": time.time(),
                "updated_at": time.time(),
                "markdown_rel_path": "",
                **row,
            }
            marks = ", ".join("?" for _ in values)
            conn.execute(
                f"INSERT INTO memory_docs ({', '.join(values)}) VALUES ({marks})",
                tuple(values.values()),
            )
    conn.close()
    return workspace


def v1_workspace(workspace: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A workspace whose database predates the logical column, holding `(address, key, content)`."""
    return workspace_at(
        workspace, 1, [{"namespace": p, "key": k, "content": c} for p, k, c in rows]
    )


def columns(conn: sqlite3.Connection) -> list[str]:
    return [str(row[1]) for row in conn.execute("PRAGMA table_info(memory_docs)")]


def schema_sql(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return list(
        conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    )


def table(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return list(conn.execute("SELECT * FROM memory_docs ORDER BY id"))


def test_version_1_has_no_logical_column(tmp_path: Path) -> None:
    v1_workspace(tmp_path, [])
    conn = sqlite3.connect(tmp_path / DATABASE_FILE, isolation_level=None)
    assert schema_version(conn) == 1
    assert "logical_namespace" not in columns(conn)
    conn.close()


def test_the_migration_is_idempotent(tmp_path: Path) -> None:
    v1_workspace(tmp_path, [("conversation_thread-1", "k", "legacy")])
    conn = sqlite3.connect(tmp_path / DATABASE_FILE, isolation_level=None)
    assert migrate(conn) == SCHEMA_VERSION == 3
    once = (schema_sql(conn), table(conn), schema_version(conn))
    assert "logical_namespace" in columns(conn)
    assert migrate(conn) == 3
    assert (schema_sql(conn), table(conn), schema_version(conn)) == once
    # Even with the version marker knocked back, a re-run changes nothing.
    conn.execute("PRAGMA user_version = 1")
    assert migrate(conn) == 3
    assert (schema_sql(conn), table(conn), schema_version(conn)) == once
    # No backfill: the legacy row keeps NULL.
    assert conn.execute("SELECT logical_namespace FROM memory_docs").fetchall() == [(None,)]
    conn.close()


def test_creating_an_existing_schema_changes_nothing(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "fresh.db", isolation_level=None)
    assert create_schema(conn) == 3
    before = schema_sql(conn)
    assert create_schema(conn, version=1) == 3  # never downgrades
    assert schema_sql(conn) == before
    with pytest.raises(ValueError):
        create_schema(conn, version=4)
    conn.close()


def test_a_pre_migration_row_enumerates_under_its_sanitised_name_then_heals(tmp_path: Path) -> None:
    workspace = v1_workspace(tmp_path / "ws", [("conversation_thread-1", "turn-1", "legacy text")])
    provider = SqliteProvider(workspace)
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [("conversation_thread-1", 1)]
    # The row is reachable through the logical spelling (same address) and its own name.
    for spelling in ("conversation:thread-1", "conversation_thread-1"):
        entry = provider.get(spelling, "turn-1")
        assert entry is not None
        assert (entry.namespace, entry.content) == ("conversation_thread-1", "legacy text")
    assert [h.key for h in provider.list("conversation:thread-1", None, None)] == ["turn-1"]

    put(provider, "conversation:thread-1", "turn-1", "rewritten", MemoryCategory.CONVERSATION)
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [("conversation:thread-1", 1)]
    assert raw_rows(workspace) == [("conversation_thread-1", "conversation:thread-1", "turn-1")]
    provider.shutdown()


def test_one_rewritten_row_relabels_its_whole_address(tmp_path: Path) -> None:
    workspace = v1_workspace(
        tmp_path / "ws", [("learning_rust", "a", "legacy a"), ("learning_rust", "b", "legacy b")]
    )
    provider = SqliteProvider(workspace)
    put(provider, "learning:rust", "c", "new")
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [("learning:rust", 3)]
    labels = {e.key: e.namespace for e in provider.list(None, None, None)}
    assert labels == {"a": "learning_rust", "b": "learning_rust", "c": "learning:rust"}
    provider.shutdown()


def test_opening_a_version_1_workspace_migrates_it_and_builds_the_index(tmp_path: Path) -> None:
    workspace = v1_workspace(tmp_path / "ws", [("global", "k", "legacy needle")])
    provider = SqliteProvider(workspace)
    assert provider.uses_fts
    assert [h.key for h in provider.recall("needle", 5, OwnedRecallOpts(), None)] == ["k"]
    provider.shutdown()
    conn = sqlite3.connect(workspace / DATABASE_FILE)
    assert schema_version(conn) == 3
    assert ensure_fts(conn) is True  # already there: a no-op
    conn.close()


def v2_workspace(workspace: Path, rows: list[tuple[str, str | None, str]]) -> Path:
    """A version 2 workspace holding `(address, logical name, key)` rows as version 2 wrote
    them: a PII-bearing logical name still held its bracketed placeholder."""
    return workspace_at(
        workspace,
        2,
        [
            {"namespace": p, "logical_namespace": n, "key": k, "content": "turn text"}
            for p, n, k in rows
        ],
    )


V2_ROWS: list[tuple[str, str | None, str]] = [
    ("conversation_thread-_REDACTED_PII_SSN_", "conversation:thread-[REDACTED_PII_SSN]", "t1"),
    ("conversation_thread-8f21", "conversation:thread-8f21", "t2"),
    ("conversation_legacy", None, "t3"),
]


def test_version_3_respells_placeholders_in_logical_names_only(tmp_path: Path) -> None:
    workspace = v2_workspace(tmp_path / "ws", V2_ROWS)
    conn = sqlite3.connect(workspace / DATABASE_FILE, isolation_level=None)
    assert migrate(conn) == 3
    assert list(
        conn.execute("SELECT namespace, logical_namespace, key FROM memory_docs ORDER BY key")
    ) == [
        ("conversation_thread-_REDACTED_PII_SSN_", "conversation:thread-_REDACTED_PII_SSN_", "t1"),
        ("conversation_thread-8f21", "conversation:thread-8f21", "t2"),
        ("conversation_legacy", None, "t3"),
    ]
    once = table(conn)
    conn.execute("PRAGMA user_version = 2")
    assert migrate(conn) == 3
    assert table(conn) == once
    conn.close()


def test_a_migrated_pii_scope_enumerates_in_its_section(tmp_path: Path) -> None:
    provider = SqliteProvider(v2_workspace(tmp_path / "ws", V2_ROWS))
    view = Sections(provider).conversations()
    assert [s.scope() for s in view.scopes()] == ["thread-8f21", "thread-_REDACTED_PII_SSN_"]
    assert [(e.namespace, e.key) for e in view.list_section()] == [
        ("conversation:thread-8f21", "t2"),
        ("conversation:thread-_REDACTED_PII_SSN_", "t1"),
    ]
    provider.shutdown()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    conn = sqlite3.connect(tmp_path / DATABASE_FILE, isolation_level=None)
    conn.execute("PRAGMA user_version = 99")
    with pytest.raises(SchemaTooNew):
        migrate(conn)
    conn.close()
    provider = SqliteProvider(tmp_path)
    health = provider.health()
    assert health.status == "down"
    assert health.reason == "database schema version 99 is newer than this driver supports (3)"
    with pytest.raises(Backend):
        provider.namespaces()
