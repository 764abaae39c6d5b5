"""Shared helpers of the sqlite driver's tests (a plain module: tests/sqlite has no conftest)."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from conformance.provider import MemoryCategory, MemoryTaint
from reference_driver.sqlite import SqliteProvider
from reference_driver.sqlite.database import DATABASE_FILE

ROOT = Path(__file__).resolve().parents[2]
"""The checkout, for subprocesses that import the project."""

FTS_MODES = (True, False)
"""`use_fts` values: FTS5 `bm25`, then the scan fallback."""


def put(
    provider: SqliteProvider,
    namespace: str,
    key: str,
    content: str = "content",
    category: MemoryCategory = MemoryCategory.CORE,
    session_id: str | None = None,
    taint: MemoryTaint = MemoryTaint.INTERNAL,
) -> None:
    """`store` with defaults for the arguments a test does not care about."""
    provider.store(namespace, key, content, category, session_id, taint)


def raw_rows(workspace: Path) -> list[tuple[str, str | None, str]]:
    """`(namespace, logical_namespace, key)` of every row, read straight from the file."""
    with sqlite3.connect(workspace / DATABASE_FILE) as conn:
        return list(
            conn.execute("SELECT namespace, logical_namespace, key FROM memory_docs ORDER BY id")
        )


def files_under(directory: Path) -> list[Path]:
    """Every file (not directory) below `directory`, sorted."""
    return sorted(path for path in directory.rglob("*") if not path.is_dir())


def subprocess_env() -> dict[str, str]:
    """The environment for a child `python` that imports this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


PYTHON = sys.executable
