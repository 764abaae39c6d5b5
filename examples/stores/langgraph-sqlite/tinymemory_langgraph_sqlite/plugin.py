"""Announces the `langgraph-sqlite` driver (LangGraph's SqliteStore) to the TinyMemory kit."""

from collections.abc import Mapping

from conformance import Driver, DriverError
from plugins import hookimpl
from tinymemory_langgraph_sqlite.store import SqliteProvider


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `langgraph-sqlite` driver; `path` names the database file (default: a fresh
    temporary file per instance)."""
    unknown = sorted(set(options) - {"path"})
    if unknown:
        raise DriverError(f"driver `{name}` does not know the options {unknown}")
    path = options.get("path")
    return Driver(name=name, provider=lambda: SqliteProvider(path))
