"""The versioned schema: the logical_namespace migrations (seed §4) and refusing newer files.

Acceptance: every migration is idempotent; a row predating the logical column keeps
the name it has always been reported under (its address); from version 4 a row's
identity is its logical namespace, and a database the version 3 driver wrote
(`data/layout_v3.db`, made by `data/make_layout_v3.py`) opens and reads as it did,
while names that shared an address there now keep their entries apart.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from sqlite_helpers import files_under, put, raw_rows

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
from reference_driver.sqlite.rows import timestamp
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
    assert migrate(conn) == SCHEMA_VERSION == 4
    once = (schema_sql(conn), table(conn), schema_version(conn))
    assert "logical_namespace" in columns(conn)
    assert migrate(conn) == 4
    assert (schema_sql(conn), table(conn), schema_version(conn)) == once
    # Even with the version marker knocked back, a re-run changes nothing.
    conn.execute("PRAGMA user_version = 1")
    assert migrate(conn) == 4
    assert (schema_sql(conn), table(conn), schema_version(conn)) == once
    # The row predating the logical column took its address as its name.
    assert conn.execute("SELECT logical_namespace FROM memory_docs").fetchall() == [
        ("conversation_thread-1",)
    ]
    conn.close()


def test_creating_an_existing_schema_changes_nothing(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "fresh.db", isolation_level=None)
    assert create_schema(conn) == 4
    before = schema_sql(conn)
    assert create_schema(conn, version=1) == 4  # never downgrades
    assert schema_sql(conn) == before
    with pytest.raises(ValueError):
        create_schema(conn, version=5)
    conn.close()


def test_a_row_predating_the_logical_column_keeps_the_name_it_was_reported_under(
    tmp_path: Path,
) -> None:
    workspace = v1_workspace(tmp_path / "ws", [("conversation_thread-1", "turn-1", "legacy text")])
    provider = SqliteProvider(workspace)
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [("conversation_thread-1", 1)]
    entry = provider.get("conversation_thread-1", "turn-1")
    assert entry is not None
    assert (entry.namespace, entry.content) == ("conversation_thread-1", "legacy text")
    # Another name sharing its address is another namespace: the name it was written
    # under is not recorded, and guessing would merge two namespaces.
    assert provider.get("conversation:thread-1", "turn-1") is None
    assert provider.list("conversation:thread-1", None, None) == []

    put(provider, "conversation:thread-1", "turn-1", "new text", MemoryCategory.CONVERSATION)
    assert [(s.namespace, s.count) for s in provider.namespaces()] == [
        ("conversation:thread-1", 1),
        ("conversation_thread-1", 1),
    ]
    assert raw_rows(workspace) == [
        ("conversation_thread-1", "conversation_thread-1", "turn-1"),
        ("conversation_thread-1", "conversation:thread-1", "turn-1"),
    ]
    assert provider.forget("conversation_thread-1", "turn-1") is True
    entry = provider.get("conversation:thread-1", "turn-1")
    assert entry is not None and entry.content == "new text"
    provider.shutdown()


def test_opening_a_version_1_workspace_migrates_it_and_builds_the_index(tmp_path: Path) -> None:
    workspace = v1_workspace(tmp_path / "ws", [("global", "k", "legacy needle")])
    provider = SqliteProvider(workspace)
    assert provider.uses_fts
    assert [h.key for h in provider.recall("needle", 5, OwnedRecallOpts(), None)] == ["k"]
    provider.shutdown()
    conn = sqlite3.connect(workspace / DATABASE_FILE)
    assert schema_version(conn) == 4
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
    assert create_schema(conn, version=3) == 3
    assert list(
        conn.execute("SELECT namespace, logical_namespace, key FROM memory_docs ORDER BY key")
    ) == [
        ("conversation_thread-_REDACTED_PII_SSN_", "conversation:thread-_REDACTED_PII_SSN_", "t1"),
        ("conversation_thread-8f21", "conversation:thread-8f21", "t2"),
        ("conversation_legacy", None, "t3"),
    ]
    once = table(conn)
    conn.execute("PRAGMA user_version = 2")
    assert create_schema(conn, version=3) == 3
    assert table(conn) == once
    conn.close()


def test_a_migrated_pii_scope_enumerates_in_its_section(tmp_path: Path) -> None:
    provider = SqliteProvider(v2_workspace(tmp_path / "ws", V2_ROWS))
    view = Sections(provider).conversations()
    assert [s.scope() for s in view.scopes()] == ["thread-8f21", "thread-_REDACTED_PII_SSN_"]
    assert "conversation_legacy" in [s.namespace for s in provider.namespaces()]
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
    assert health.reason == "database schema version 99 is newer than this driver supports (4)"
    with pytest.raises(Backend):
        provider.namespaces()


# ------------------------------------------------------------------ version 4: identity

LAYOUT_V3 = Path(__file__).parent / "data" / "layout_v3.db"
"""A workspace database written by the version 3 driver (`data/make_layout_v3.py`)."""

THREE = ("agent:a_b", "agent:a.b", "agent:a@b")


def unique_keys(conn: sqlite3.Connection) -> list[list[str]]:
    return [
        [str(c[2]) for c in conn.execute(f"PRAGMA index_info('{index[1]}')")]
        for index in conn.execute("PRAGMA index_list('memory_docs')")
        if index[2]
    ]


def layout_v3_workspace(workspace: Path) -> Path:
    workspace.mkdir(parents=True)
    shutil.copyfile(LAYOUT_V3, workspace / DATABASE_FILE)
    return workspace


def test_the_fixture_was_written_by_the_version_3_layout() -> None:
    conn = sqlite3.connect(f"file:{LAYOUT_V3}?mode=ro", uri=True)
    assert schema_version(conn) == 3
    assert ["namespace", "key"] in unique_keys(conn)
    # That layout merged the three names into one row, the last write's.
    assert list(
        conn.execute("SELECT logical_namespace, content FROM memory_docs WHERE key = 'k'")
    ) == [("agent:a@b", "content of agent:a@b"), ("team.alpha", "the dotted team")]
    conn.close()


@pytest.mark.parametrize("use_fts", [True, False], ids=["fts5", "scan"])
def test_a_version_3_database_opens_reads_and_keeps_three_names_apart(
    tmp_path: Path, use_fts: bool
) -> None:
    before = sqlite3.connect(LAYOUT_V3)
    old = {
        (row[0], row[1]): row
        for row in before.execute(
            "SELECT logical_namespace, key, document_id, content, category, session_id, "
            "taint, updated_at FROM memory_docs"
        )
    }
    before.close()
    provider = SqliteProvider(layout_v3_workspace(tmp_path / "ws"), use_fts=use_fts)
    # Every entry the old layout held reads back as it was written, under its name.
    for (namespace, key), (_, _, document_id, content, category, session, taint, at) in old.items():
        entry = provider.get(namespace, key)
        assert entry is not None, (namespace, key)
        assert (entry.id, entry.namespace, entry.content) == (document_id, namespace, content)
        assert (str(entry.category), entry.session_id, entry.taint.value) == (
            category,
            session,
            taint,
        )
        assert entry.timestamp == timestamp(at)
    assert sorted((s.namespace, s.count) for s in provider.namespaces()) == sorted(
        (namespace, 1) for namespace, _ in old
    )
    family = provider.as_documents()
    assert family is not None
    document = family.get_document("document:handbook", "intro")
    assert document is not None
    assert (document.title, document.tags, document.metadata, document.priority) == (
        "Onboarding",
        ["a", "b"],
        {"v": 1},
        "high",
    )
    hits = provider.recall("needle", 5, OwnedRecallOpts(), None)
    assert [(h.namespace, h.key) for h in hits] == [("global", "g")]
    # The merge the old layout made is kept as it was; from now on the names stay apart.
    assert provider.get("agent:a_b", "k") is None
    for namespace in THREE:
        put(provider, namespace, "k", f"new content of {namespace}")
    for namespace in THREE:
        entry = provider.get(namespace, "k")
        assert entry is not None
        assert (entry.namespace, entry.content) == (namespace, f"new content of {namespace}")
    summaries = {s.namespace: s.count for s in provider.namespaces()}
    assert {n: summaries.get(n) for n in THREE} == {n: 1 for n in THREE}
    kept = provider.get("agent:a@b", "k")
    assert kept is not None and kept.id == old["agent:a@b", "k"][2]
    # The index serves old rows and new ones alike.
    put(provider, "agent:a.b", "k2", "a fresh needle")
    found = provider.recall("needle", 5, OwnedRecallOpts(namespace="agent:a.b"), None)
    assert [h.key for h in found] == ["k2"]
    provider.shutdown()
    conn = sqlite3.connect(tmp_path / "ws" / DATABASE_FILE)
    assert schema_version(conn) == SCHEMA_VERSION
    assert sorted(unique_keys(conn)) == [["document_id"], ["logical_namespace", "key"]]
    conn.close()


def test_version_4_rebuilds_the_table_keeping_every_row_and_the_index(tmp_path: Path) -> None:
    workspace = v2_workspace(tmp_path / "ws", V2_ROWS)
    conn = sqlite3.connect(workspace / DATABASE_FILE, isolation_level=None)
    assert create_schema(conn, version=3) == 3
    rows_before = table(conn)
    assert ensure_fts(conn) is True
    assert migrate(conn) == 4
    assert ["logical_namespace", "key"] in unique_keys(conn)
    assert ["namespace", "key"] not in unique_keys(conn)
    # The same rows with the same ids; only the pre-logical row gained its address as name.
    logical = [str(c[1]) for c in conn.execute("PRAGMA table_info(memory_docs)")].index(
        "logical_namespace"
    )
    assert [r[logical] for r in table(conn)] == [
        "conversation:thread-_REDACTED_PII_SSN_",
        "conversation:thread-8f21",
        "conversation_legacy",
    ]
    assert [r[:logical] for r in table(conn)] == [r[:logical] for r in rows_before]
    conn.close()
    # Opening it recreates the index's triggers: a write is found by a full-text search.
    provider = SqliteProvider(workspace, use_fts=True)
    put(provider, "conversation:thread-8f21", "t9", "zebra crossing")
    hits = provider.recall("zebra", 5, OwnedRecallOpts(namespace="conversation:thread-8f21"), None)
    assert [h.key for h in hits] == ["t9"]
    hits = provider.recall("turn", 5, OwnedRecallOpts(namespace="conversation_legacy"), None)
    assert [h.key for h in hits] == ["t3"]
    provider.shutdown()


def test_a_rewritten_row_of_the_old_layout_moves_its_file(tmp_path: Path) -> None:
    old_path = "namespaces/agent_a_b/k-0123456789abcdef0123.md"
    workspace = workspace_at(
        tmp_path / "ws",
        3,
        [
            {
                "namespace": "agent_a_b",
                "logical_namespace": "agent:a@b",
                "key": "k",
                "content": "old",
                "markdown_rel_path": old_path,
            }
        ],
    )
    (workspace / old_path).parent.mkdir(parents=True)
    (workspace / old_path).write_text("old file")
    provider = SqliteProvider(workspace)
    put(provider, "agent:a@b", "k", "rewritten")
    files = [f.relative_to(workspace).as_posix() for f in files_under(workspace / "namespaces")]
    assert old_path not in files and len(files) == 1
    assert "rewritten" in (workspace / files[0]).read_text()
    assert provider.forget("agent:a@b", "k") is True
    assert files_under(workspace / "namespaces") == []
    provider.shutdown()
