"""The workspace database connection: WAL, a busy timeout, transactions, error mapping."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from conformance.provider import Backend, IoFailure, ProviderError, Unavailable

__all__ = [
    "DATABASE_FILE",
    "DEFAULT_BUSY_TIMEOUT",
    "connect",
    "mapped_errors",
    "provider_error",
    "transaction",
]

DATABASE_FILE: Final = "memory.db"
"""Name of the database file inside the workspace."""

DEFAULT_BUSY_TIMEOUT: Final = 5.0
"""Seconds a statement waits for another connection's lock before failing."""

_BUSY_CODES: Final = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})


def connect(path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> sqlite3.Connection:
    """Open `path` in WAL mode with full syncs, autocommit, usable from any thread.

    The caller serialises use of the connection; `check_same_thread` is off because the kit
    calls drivers from worker threads.
    """
    conn = sqlite3.connect(
        path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
    )
    try:
        # Switching a fresh file to WAL needs a moment of exclusive access, and SQLite may
        # answer SQLITE_BUSY without consulting the busy handler while another process
        # does the same; retry until the busy timeout is spent.
        deadline = time.monotonic() + busy_timeout
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL").fetchone()
                break
            except sqlite3.OperationalError as error:
                if not is_busy(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        # FULL: a commit that returned is on disk, so an acknowledged write survives a crash
        # of the process and of the machine.
        conn.execute("PRAGMA synchronous=FULL")
    except BaseException:
        conn.close()
        raise
    return conn


def is_busy(error: sqlite3.Error) -> bool:
    """Whether `error` is another connection holding a lock."""
    return getattr(error, "sqlite_errorname", "") in _BUSY_CODES


@contextmanager
def transaction(conn: sqlite3.Connection, *, write: bool) -> Iterator[sqlite3.Connection]:
    """One transaction: committed when the block ends, rolled back if it raises.

    A write takes the database's write lock at the start (`BEGIN IMMEDIATE`), so two
    processes never both read and then fail to upgrade; a read sees one snapshot.
    """
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield conn
    except BaseException:
        # Some errors (SQLITE_FULL, SQLITE_IOERR) already rolled the transaction back.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def provider_error(error: Exception) -> ProviderError:
    """The contract error for a storage failure; the message names no path, key or content."""
    if isinstance(error, ProviderError):
        return error
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorname", None) or type(error).__name__
        if is_busy(error):
            return Unavailable(f"the database is locked by another writer ({code})")
        return Backend(f"the sqlite database failed ({code})")
    if isinstance(error, OSError):
        return IoFailure(f"the markdown mirror could not be updated ({type(error).__name__})")
    return Backend(f"the sqlite store failed ({type(error).__name__})")


@contextmanager
def mapped_errors() -> Iterator[None]:
    """Re-raise storage failures inside the block as contract errors."""
    try:
        yield
    except ProviderError:
        raise
    except (sqlite3.Error, OSError) as error:
        raise provider_error(error) from error
