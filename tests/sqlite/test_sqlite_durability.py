"""Durability and multi-process safety: acknowledged writes survive SIGKILL; no write is lost."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_helpers import PYTHON, ROOT, subprocess_env

from conformance.provider import MemoryCategory, MemoryTaint
from reference_driver.sqlite import SqliteProvider
from reference_driver.sqlite.database import DATABASE_FILE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

# Writes forever (or `count` times), printing each key once its store has returned.
WRITER = """
import sys
from conformance.provider import MemoryCategory, MemoryTaint
from reference_driver.sqlite import SqliteProvider

workspace, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
provider = SqliteProvider(workspace)
assert provider.health().status == "ready", provider.health()
i = 0
while count < 0 or i < count:
    key = f"{prefix}-{i}"
    provider.store(
        "durability", key, f"payload {key} " + "x" * 512, MemoryCategory.CORE, prefix,
        MemoryTaint.EXTERNAL_SYNC if i % 2 else MemoryTaint.INTERNAL,
    )
    print(key, flush=True)
    i += 1
provider.shutdown()
"""


def writer(workspace: Path, prefix: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-c", WRITER, str(workspace), prefix, str(count)],
        cwd=ROOT,
        env=subprocess_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_intact(workspace: Path, keys: list[str]) -> SqliteProvider:
    with sqlite3.connect(workspace / DATABASE_FILE) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    provider = SqliteProvider(workspace)
    assert provider.health().status == "ready"
    missing = [key for key in keys if provider.get("durability", key) is None]
    assert missing == []
    return provider


@pytest.mark.parametrize("acknowledged_before_kill", [1, 60, 250])
def test_acknowledged_writes_survive_sigkill(tmp_path: Path, acknowledged_before_kill: int) -> None:
    process = writer(tmp_path, "killed", -1)
    assert process.stdout is not None
    acknowledged: list[str] = []
    for line in process.stdout:
        acknowledged.append(line.strip())
        if len(acknowledged) >= acknowledged_before_kill:
            break
    process.send_signal(signal.SIGKILL)  # mid-batch: the writer never stops on its own
    rest, errors = process.communicate(timeout=30)
    acknowledged.extend(line for line in rest.splitlines() if line)  # printed before the kill
    assert process.returncode == -signal.SIGKILL, errors
    provider = assert_intact(tmp_path, acknowledged)
    for key in acknowledged:
        entry = provider.get("durability", key)
        assert entry is not None and entry.content.startswith(f"payload {key} ")
        index = int(key.rsplit("-", 1)[1])
        assert entry.taint is (MemoryTaint.EXTERNAL_SYNC if index % 2 else MemoryTaint.INTERNAL)
    # The store keeps working after the crash, mirror included.
    provider.store("durability", "after", "ok", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    assert provider.get("durability", "after") is not None
    provider.shutdown()


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    count = 150
    # Both start on a workspace that does not exist yet: they also race to create it.
    workspace = tmp_path / "shared"
    processes = [writer(workspace, prefix, count) for prefix in ("left", "right")]
    outputs = [process.communicate(timeout=120) for process in processes]
    for process, (_, errors) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, errors
    keys = [line for out, _ in outputs for line in out.splitlines()]
    assert len(keys) == 2 * count
    provider = assert_intact(workspace, keys)
    assert len(provider.list("durability", None, None)) == 2 * count
    assert {e.session_id for e in provider.list("durability", None, None)} == {"left", "right"}
    mirror = list((workspace / "namespaces" / "durability").iterdir())
    assert len(mirror) == 2 * count and all(path.suffix == ".md" for path in mirror)
    provider.shutdown()


def test_a_second_provider_in_the_same_process_sees_every_write(tmp_path: Path) -> None:
    first, second = SqliteProvider(tmp_path), SqliteProvider(tmp_path)
    for i in range(20):
        target = first if i % 2 else second
        target.store("shared", f"k{i}", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    assert len(first.list("shared", None, None)) == len(second.list("shared", None, None)) == 20
    first.shutdown()
    second.shutdown()
