"""The sqlite driver's mandatory core family, health, lifecycle and threads (A4, A9)."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlite_helpers import files_under, put, raw_rows

from conformance.provider import (
    Backend,
    Capabilities,
    Capability,
    Invalid,
    MemoryCategory,
    MemoryProvider,
    MemoryTaint,
    OwnedRecallOpts,
    audit_provider,
)
from reference_driver.sqlite import DRIVER_ID, SqliteProvider
from reference_driver.sqlite.database import DATABASE_FILE

RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6})?Z")


@pytest.fixture
def provider(tmp_path: Path) -> Iterator[SqliteProvider]:
    provider = SqliteProvider(tmp_path / "workspace")
    yield provider
    provider.shutdown()


def test_identity_capabilities_and_audit(provider: SqliteProvider) -> None:
    assert isinstance(provider, MemoryProvider)
    assert provider.driver_id() == DRIVER_ID == "sqlite"
    assert provider.capabilities() == Capabilities.mandatory().with_(Capability.DOCUMENTS)
    assert audit_provider(provider) is None
    assert provider.as_documents() is not None
    assert provider.provides(Capability.DOCUMENTS)
    assert not provider.provides(Capability.GRAPH)
    assert provider.health().status == "ready"


def test_store_get_round_trip(provider: SqliteProvider) -> None:
    put(provider, "round-trip", "k1", "the quick brown fox", session_id="session-1")
    entry = provider.get("round-trip", "k1")
    assert entry is not None
    assert (entry.key, entry.content, entry.namespace) == (
        "k1",
        "the quick brown fox",
        "round-trip",
    )
    assert entry.category == MemoryCategory.CORE
    assert entry.session_id == "session-1"
    assert entry.score is None
    assert RFC3339_UTC.fullmatch(entry.timestamp.rfc3339())
    assert provider.get("round-trip", "never-stored") is None
    assert provider.get("never-written", "k1") is None


def test_store_upserts_rather_than_duplicates(provider: SqliteProvider) -> None:
    put(provider, "upsert", "same-key", "first", MemoryCategory.CORE, "s1", MemoryTaint.INTERNAL)
    first = provider.get("upsert", "same-key")
    put(
        provider,
        "upsert",
        "same-key",
        "second",
        MemoryCategory.DAILY,
        None,
        MemoryTaint.EXTERNAL_SYNC,
    )
    rows = provider.list("upsert", None, None)
    assert [(row.content, row.category, row.session_id, row.taint) for row in rows] == [
        ("second", MemoryCategory.DAILY, None, MemoryTaint.EXTERNAL_SYNC)
    ]
    assert first is not None
    assert rows[0].id == first.id  # the row is replaced in place, not re-created
    assert rows[0].timestamp >= first.timestamp


@pytest.mark.parametrize("taint", list(MemoryTaint))
def test_taint_is_stored_and_read_back_exactly(
    provider: SqliteProvider, taint: MemoryTaint
) -> None:
    put(provider, "taint", "k", taint=taint)
    entry = provider.get("taint", "k")
    assert entry is not None and entry.taint is taint
    assert [row.taint for row in provider.list("taint", None, None)] == [taint]


def test_list_filters_narrow_and_summaries_count(provider: SqliteProvider) -> None:
    put(provider, "filters", "core-a", "x", MemoryCategory.CORE, "s1")
    put(provider, "filters", "daily-b", "y", MemoryCategory.DAILY, "s2")
    put(provider, "filters", "custom-c", "z", MemoryCategory.custom("notes"), "s2")
    assert [e.key for e in provider.list("filters", None, None)] == [
        "core-a",
        "custom-c",
        "daily-b",
    ]
    assert [e.key for e in provider.list("filters", MemoryCategory.CORE, None)] == ["core-a"]
    assert [e.key for e in provider.list("filters", None, "s2")] == ["custom-c", "daily-b"]
    assert [e.key for e in provider.list("filters", MemoryCategory.DAILY, "s2")] == ["daily-b"]
    custom = provider.list("filters", MemoryCategory.custom("notes"), None)
    assert [e.category for e in custom] == [MemoryCategory.custom("notes")]
    (summary,) = provider.namespaces()
    assert (summary.namespace, summary.count) == ("filters", 3)
    assert summary.last_updated is not None
    assert RFC3339_UTC.fullmatch(summary.last_updated.rfc3339())


def test_list_none_spans_every_namespace(provider: SqliteProvider) -> None:
    put(provider, "global", "g")
    put(provider, "alpha", "a")
    put(provider, "learning:rust", "l")
    everything = provider.list(None, None, None)
    assert {(e.namespace, e.key) for e in everything} == {
        ("global", "g"),
        ("alpha", "a"),
        ("learning:rust", "l"),
    }
    assert [e.key for e in provider.list(None, None, None)] == [e.key for e in everything]


def test_recall_with_no_namespace_searches_global_only(provider: SqliteProvider) -> None:
    put(provider, "global", "g", "needle in the global haystack")
    put(provider, "elsewhere", "e", "needle somewhere else")
    hits = provider.recall("needle", 10, OwnedRecallOpts(), None)
    assert [(hit.namespace, hit.key) for hit in hits] == [("global", "g")]
    blank = provider.recall("needle", 10, OwnedRecallOpts(namespace=""), None)
    assert [hit.key for hit in blank] == ["g"]


def test_namespaces_are_isolated(provider: SqliteProvider) -> None:
    put(provider, "iso-a", "k")
    assert provider.list("iso-b", None, None) == []
    assert provider.get("iso-b", "k") is None


def test_forget_is_idempotent_and_removes_the_mirror_file(provider: SqliteProvider) -> None:
    put(provider, "forget", "k", "v")
    assert len(files_under(provider.workspace / "namespaces")) == 1
    assert provider.forget("forget", "k") is True
    assert provider.forget("forget", "k") is False
    assert provider.get("forget", "k") is None
    assert files_under(provider.workspace / "namespaces") == []
    assert provider.namespaces() == []


AWKWARD = {
    "unicode": "héllo — 👋 まいど",
    "empty": "",
    "large": "x" * 65536,
    "newlines": "a\nb\r\nc\0d",
}


@pytest.mark.parametrize("key", list(AWKWARD))
def test_awkward_content_reads_back_byte_identical(provider: SqliteProvider, key: str) -> None:
    put(provider, "awkward", key, AWKWARD[key])
    entry = provider.get("awkward", key)
    assert entry is not None and entry.content == AWKWARD[key]


@pytest.mark.parametrize(
    "namespace",
    ["", "has space", "héllo", "../escape", "/abs", "trailing/", "a\0b", "x" * 201, "tab\there"],
)
def test_store_refuses_an_invalid_namespace_and_stores_nothing(
    provider: SqliteProvider, namespace: str
) -> None:
    with pytest.raises(Invalid):
        put(provider, namespace, "k")
    assert provider.namespaces() == []
    assert raw_rows(provider.workspace) == []
    assert files_under(provider.workspace / "namespaces") == []


def test_store_refuses_an_empty_key(provider: SqliteProvider) -> None:
    with pytest.raises(Invalid, match="key must not be empty"):
        put(provider, "keys", "")
    assert provider.namespaces() == []


def test_store_refuses_text_that_is_not_utf8(provider: SqliteProvider) -> None:
    with pytest.raises(Invalid):
        put(provider, "keys", "k", "lone \ud800 surrogate")
    assert provider.get("keys", "\ud800") is None
    assert provider.forget("keys", "\ud800") is False


def test_keys_are_kept_as_written_whitespace_included(provider: SqliteProvider) -> None:
    keys = ["padded", "  padded\n", "padded ", "   ", "\t"]
    for key in keys:
        put(provider, "keys", key, f"value of {key!r}")
    for key in keys:
        entry = provider.get("keys", key)
        assert entry is not None and (entry.key, entry.content) == (key, f"value of {key!r}")
    assert sorted(e.key for e in provider.list("keys", None, None)) == sorted(keys)
    assert provider.forget("keys", " padded") is False
    assert provider.forget("keys", "padded ") is True
    assert provider.get("keys", "padded") is not None


def test_keys_are_canonical_on_every_path(provider: SqliteProvider) -> None:
    put(provider, "keys", "ssn-123-45-6789", "w")
    pii = provider.get("keys", "ssn-123-45-6789")
    assert pii is not None and pii.key == "ssn-[REDACTED_PII_SSN]"
    assert provider.forget("keys", "ssn-123-45-6789") is True


def test_shutdown_is_idempotent_and_later_calls_fail(provider: SqliteProvider) -> None:
    put(provider, "s", "k")
    provider.shutdown()
    provider.shutdown()
    assert provider.health().status == "down"
    with pytest.raises(Backend):
        provider.get("s", "k")
    with pytest.raises(Backend):
        put(provider, "s", "k")


def test_data_survives_reopening(tmp_path: Path) -> None:
    first = SqliteProvider(tmp_path)
    put(first, "durable", "k", "kept", taint=MemoryTaint.EXTERNAL_SYNC)
    first.shutdown()
    second = SqliteProvider(tmp_path)
    entry = second.get("durable", "k")
    assert entry is not None and (entry.content, entry.taint) == ("kept", MemoryTaint.EXTERNAL_SYNC)
    second.shutdown()


def _assert_down_without_leaking(provider: SqliteProvider, workspace: Path) -> str:
    health = provider.health()
    assert health.status == "down"
    assert health.reason is not None
    assert str(workspace) not in health.reason and workspace.name not in health.reason
    with pytest.raises(Backend):
        provider.list(None, None, None)
    provider.shutdown()
    return health.reason


def test_health_is_down_when_the_database_is_not_a_database(tmp_path: Path) -> None:
    workspace = tmp_path / "corrupt-workspace"
    workspace.mkdir()
    (workspace / DATABASE_FILE).write_bytes(b"this is not a sqlite database, secret content" * 100)
    reason = _assert_down_without_leaking(SqliteProvider(workspace), workspace)
    assert "SQLITE_NOTADB" in reason
    assert "secret" not in reason


def test_health_is_down_when_the_workspace_is_a_file(tmp_path: Path) -> None:
    workspace = tmp_path / "a-file"
    workspace.write_text("occupied")
    _assert_down_without_leaking(SqliteProvider(workspace), workspace)


def test_health_is_degraded_while_another_thread_holds_the_connection(
    provider: SqliteProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("reference_driver.sqlite.provider._HEALTH_LOCK_TIMEOUT", 0.05)
    with provider._live().reader():  # holds the connection's lock
        result: list[str] = []
        worker = threading.Thread(target=lambda: result.append(provider.health().status))
        worker.start()
        worker.join()
    assert result == ["degraded"]
    assert provider.health().status == "ready"


def test_threads_share_one_provider_safely(provider: SqliteProvider) -> None:
    errors: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            for i in range(25):
                namespace = f"threads-{thread % 3}"
                put(provider, namespace, f"t{thread}-{i}", f"thread {thread} item {i}")
                assert provider.get(namespace, f"t{thread}-{i}") is not None
                provider.list(namespace, None, None)
                provider.recall("item", 5, OwnedRecallOpts(namespace=namespace), None)
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    assert len(provider.list(None, None, None)) == 8 * 25
    assert sum(summary.count for summary in provider.namespaces()) == 8 * 25


def test_every_write_is_committed_before_it_returns(provider: SqliteProvider) -> None:
    put(provider, "committed", "k", "visible")
    # A second connection (another process, in effect) sees the write at once.
    with sqlite3.connect(provider.workspace / DATABASE_FILE) as other:
        assert other.execute("SELECT content FROM memory_docs").fetchall() == [("visible",)]
