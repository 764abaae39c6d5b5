"""One Qdrant local-mode client per folder in a process, shared by every engine on it.

Local mode locks its folder: a second `QdrantClient(path=...)` on it, while the first is
open, is refused. The kit builds a fresh engine for each fuzz program while the suite's
engine is still open, and a host may hold several engines too; on one folder they share
one client, closed when the last of them shuts down. `":memory:"` is a store of its own
each time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from qdrant_client import QdrantClient

MEMORY: Final = ":memory:"


@dataclass
class Local:
    """An open client, what its engines share, and how many engines hold it."""

    client: QdrantClient
    key: str | None
    slots: int = 0
    """Points written since the collection was made: live and deleted slots."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held around each read-then-write (a replay, a forget)."""
    holders: int = 1


_OPEN: dict[str, Local] = {}
_GUARD: Final = threading.Lock()


def open_local(location: str) -> Local:
    """The client of `location` (a folder, or `":memory:"` for a new store)."""
    if location == MEMORY:
        return Local(QdrantClient(location=MEMORY), key=None)
    key = str(Path(location).resolve())
    with _GUARD:
        held = _OPEN.get(key)
        if held is not None:
            held.holders += 1
            return held
        local = _OPEN[key] = Local(QdrantClient(path=key), key=key)
        return local


def close_local(local: Local) -> None:
    """Lets go of `local`; the last holder closes its client."""
    with _GUARD:
        local.holders -= 1
        if local.holders > 0:
            return
        if local.key is not None:
            _OPEN.pop(local.key, None)
    local.client.close()
