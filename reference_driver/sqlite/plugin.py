"""The `sqlite` driver's pluggy plugin (entry point `sqlite` in `tinymemory.drivers`).

Options: `path`, the workspace directory (default: a fresh temporary directory, removed
when the interpreter exits), and `fts`, `auto` (default) or `off` to rank with the scan
fallback even where FTS5 exists.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from conformance.driver import Driver, DriverError
from plugins.hookspecs import hookimpl

from .provider import SqliteProvider

__all__ = ["tinymemory_driver"]

OPTIONS: Final = ("fts", "path")

_FTS_CHOICES: Final = {"auto": None, "off": False}


def _temporary_workspace() -> Callable[[], Path]:
    """A directory made on first use, shared by later calls, removed at exit."""
    made: list[Path] = []
    lock = threading.Lock()

    def workspace() -> Path:
        with lock:
            if not made:
                path = Path(tempfile.mkdtemp(prefix="tinymemory-sqlite-"))
                atexit.register(shutil.rmtree, path, ignore_errors=True)
                made.append(path)
            return made[0]

    return workspace


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `sqlite` driver: a provider over the workspace at option `path`."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise DriverError(
            f"driver `{name}` does not take the option(s) {', '.join(unknown)} "
            f"(it takes: {', '.join(OPTIONS)})"
        )
    fts_choice = options.get("fts", "auto")
    if fts_choice not in _FTS_CHOICES:
        raise DriverError(f"driver `{name}`: option fts must be `auto` or `off`")
    use_fts = _FTS_CHOICES[fts_choice]
    path = options.get("path")
    workspace: Callable[[], Path] = (lambda: Path(path)) if path else _temporary_workspace()

    def provider() -> SqliteProvider:
        return SqliteProvider(workspace(), use_fts=use_fts)

    return Driver(
        name=name,
        provider=provider,
        description="on-disk provider: SQLite (WAL, FTS5) plus a Markdown file per entry",
    )
