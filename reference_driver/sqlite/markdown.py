"""The per-entry Markdown mirror: one file per row under `namespaces/<address>/`.

The database is authoritative; the mirror is rewritten on every write so a person can
read (and grep, and back up) the workspace. The row's physical address names its
directory; its file name is derived, never taken from input: a path-safe slug of the key
for humans plus a digest of `(logical namespace, key)`, the row's identity, so two rows
never share a file even where their slugs, their addresses or their addresses'
directories agree. A file is removed by the path its row records, which is where an
earlier layout put it too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from pydantic import JsonValue

from conformance.provider import PathEscape

from .address import address_directory
from .rows import Row, timestamp

__all__ = ["NAMESPACES_DIR", "MarkdownMirror", "file_name", "render"]

NAMESPACES_DIR: Final = "namespaces"
"""The workspace folder holding one directory per physical namespace address."""

_SLUG_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
_SLUG_MAX: Final = 48


def file_name(logical: str, key: str) -> str:
    """The mirror file name of the row `(logical, key)`: `<slug>-<digest>.md`."""
    digest = hashlib.sha256(json.dumps([logical, key]).encode()).hexdigest()[:20]
    slug = _SLUG_UNSAFE.sub("_", key[:_SLUG_MAX]).lstrip("-")
    return f"{slug or 'entry'}-{digest}.md"


def render(row: Row) -> str:
    """The file's text: JSON-valued front matter (valid YAML), a blank line, the content."""
    fields: dict[str, JsonValue] = {
        "document_id": row.document_id,
        "namespace": row.namespace,
        "key": row.key,
        "title": row.title,
        "category": row.category,
        "session_id": row.session_id,
        "taint": row.taint.value,
        "source_type": row.source_type,
        "priority": row.priority,
        "tags": list[JsonValue](row.tags),
        "metadata": row.metadata,
        "created_at": timestamp(row.created_at).rfc3339(),
        "updated_at": timestamp(row.updated_at).rfc3339(),
    }
    front = "\n".join(
        f"{name}: {json.dumps(value, ensure_ascii=False)}" for name, value in fields.items()
    )
    return f"---\n{front}\n---\n\n{row.content}"


class MarkdownMirror:
    """Writes and removes mirror files, never outside `<workspace>/namespaces`."""

    def __init__(self, workspace: Path) -> None:
        self._workspace = workspace
        self._root = workspace / NAMESPACES_DIR

    @property
    def root(self) -> Path:
        """The `namespaces` folder."""
        return self._root

    def path(self, physical: str, logical: str, key: str) -> Path:
        """The file of the row `(logical, key)`, in the directory of its address `physical`;
        `PathEscape` if it would leave the workspace."""
        try:
            directory = address_directory(self._root, physical)
        except ValueError:
            raise PathEscape("a storage address would leave the workspace") from None
        return directory / file_name(logical, key)

    def relative(self, path: Path) -> str:
        """`path` relative to the workspace, `/`-separated (as `markdown_rel_path` holds it)."""
        return path.relative_to(self._workspace).as_posix()

    def write(self, path: Path, row: Row) -> None:
        """Replace the row's file at `path` atomically (readers see the old or the new text)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
                handle.write(render(row))
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def remove_all(self, relatives: Iterable[str]) -> None:
        """Delete the files at `relatives` (as `markdown_rel_path` holds them), then every
        directory they leave empty. A path outside the `namespaces` folder (a column
        edited by hand) is left alone, as is an empty one (a row written without a file)."""
        root = self._root.resolve()
        for relative in relatives:
            if not relative:
                continue
            path = self._workspace / relative
            if root not in path.resolve().parents:
                continue
            path.unlink(missing_ok=True)
            self._prune(path.parent)

    def _prune(self, directory: Path) -> None:
        while directory != self._root and directory.is_relative_to(self._root):
            try:
                directory.rmdir()
            except OSError:
                break  # not empty (another namespace nests here), or already gone
            directory = directory.parent
