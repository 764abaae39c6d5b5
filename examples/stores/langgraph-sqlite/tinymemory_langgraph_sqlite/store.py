"""`SqliteProvider`: `BaseStoreProvider` over a `SqliteStore` in one SQLite file.

The store keeps items in a table and their vectors in sqlite-vec's; `search(query=...)`
ranks by sqlite-vec's cosine inside SQL, after the namespace and value filters. Each
instance opens its own database: the file named by `path`, or a new file in a
temporary folder of its own, removed when the provider shuts down.

The database is opened with pysqlite3 (SQLite 3.51 built with extension loading), not
the standard library's `sqlite3`: Python builds without loadable extensions (pyenv's
default, macOS's) refuse `enable_load_extension`, which sqlite-vec needs.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pysqlite3.dbapi2 as sqlite3  # type: ignore[import-untyped]
from langgraph.store.sqlite import SqliteStore  # type: ignore[import-untyped]
from tinymemory_langgraph import BaseStoreProvider
from tinymemory_langgraph.embedding import DIMENSIONS, HashedWords

from conformance.provider import Invalid


class SqliteProvider(BaseStoreProvider):
    """The provider profile over a `SqliteStore` at `path` (a fresh temporary file
    when `None`)."""

    def __init__(self, path: str | None = None) -> None:
        self._scratch = None if path is not None else tempfile.mkdtemp(prefix="tm-lg-sqlite-")
        file = path if path is not None else str(Path(self._scratch or "", "store.db"))
        # As `SqliteStore.from_conn_string` opens it: autocommit, usable from any thread
        # (the store holds its own lock around every statement).
        self._conn = sqlite3.connect(file, check_same_thread=False, isolation_level=None)
        # Every put is its own transaction: with the default rollback journal each one
        # waits for two fsyncs (about 20 ms here). A write-ahead log synced at checkpoints
        # keeps the database consistent through a crash; the last writes before a power
        # loss may be lost, which an agent's memory can afford.
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        store = SqliteStore(
            self._conn,
            index={"dims": DIMENSIONS, "embed": HashedWords(), "fields": ["content"]},
        )
        store.setup()
        super().__init__(store, "langgraph-sqlite")

    def _refuse_unstorable(self, *texts: str) -> None:
        # The store writes values as JSON with orjson, which refuses a lone surrogate
        # (no UTF-8 encodes it): refused here with the contract's error instead.
        for text in texts:
            try:
                text.encode()
            except UnicodeEncodeError:
                raise Invalid("text holds a lone surrogate, which UTF-8 cannot encode") from None

    def shutdown(self) -> None:
        """Closes the database and removes a temporary one; idempotent."""
        self._conn.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
