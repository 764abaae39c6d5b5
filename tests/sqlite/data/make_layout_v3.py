"""Writes `layout_v3.db`: a workspace database as the `sqlite` driver of schema version 3
wrote it, where rows were keyed by their physical address (`UNIQUE(namespace, key)`).

Run it with that driver on the import path, never with the current one:

    git archive 3dc5b85 | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python tests/sqlite/data/make_layout_v3.py tests/sqlite/data/layout_v3.db

It refuses to run against any other schema version. `test_sqlite_schema.py` opens a
copy of the file with the current driver.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from conformance.provider import MemoryCategory, MemoryTaint, NamespaceDocumentInput
from reference_driver.sqlite import SCHEMA_VERSION, SqliteProvider
from reference_driver.sqlite.database import DATABASE_FILE

# The scenario: three names with one address; that layout kept one row, labelled
# with the last name written, holding the last content.
MERGED = ("agent:a_b", "agent:a.b", "agent:a@b")


def main(out: Path) -> None:
    if SCHEMA_VERSION != 3:
        raise SystemExit(f"run this with the schema version 3 driver, not {SCHEMA_VERSION}")
    workspace = Path(tempfile.mkdtemp(prefix="layout-v3-"))
    provider = SqliteProvider(workspace)
    for namespace in MERGED:
        provider.store(
            namespace, "k", f"content of {namespace}", MemoryCategory.CORE, None,
            MemoryTaint.INTERNAL,
        )  # fmt: skip
    provider.store(
        "conversation:thread-1", "turn-1", "hello from the thread",
        MemoryCategory.CONVERSATION, "s1", MemoryTaint.INTERNAL,
    )  # fmt: skip
    provider.store(
        "user:123-45-6789", "note", "an external note", MemoryCategory.DAILY, None,
        MemoryTaint.EXTERNAL_SYNC,
    )  # fmt: skip
    provider.store(
        "global", "g", "a global needle", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
    )
    provider.store(
        "team.alpha", "k", "the dotted team", MemoryCategory.custom("notes"), None,
        MemoryTaint.INTERNAL,
    )  # fmt: skip
    documents = provider.as_documents()
    assert documents is not None
    documents.put_document(
        NamespaceDocumentInput(
            namespace="document:handbook",
            key="intro",
            title="Onboarding",
            content="where the zinc roof is",
            source_type="upload",
            priority="high",
            tags=["a", "b"],
            metadata={"v": 1},
            category="core",
            taint=MemoryTaint.EXTERNAL_SYNC,
        )
    )
    provider.shutdown()
    # The last connection closed: the WAL is checkpointed into the file and removed.
    assert not (workspace / f"{DATABASE_FILE}-wal").exists()
    shutil.copyfile(workspace / DATABASE_FILE, out)
    shutil.rmtree(workspace)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
