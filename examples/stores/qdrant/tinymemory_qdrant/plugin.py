"""Announces the `qdrant` driver (Qdrant in local mode) to the TinyMemory kit."""

from collections.abc import Mapping

from conformance import Driver, DriverError
from plugins import hookimpl
from tinymemory_qdrant.engine import QdrantEngine
from tinymemory_qdrant.local import MEMORY


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `qdrant` driver; `path` names a folder for an on-disk local store (default: in
    memory, one store per instance)."""
    unknown = sorted(set(options) - {"path"})
    if unknown:
        raise DriverError(f"driver `{name}` does not know the options {unknown}")
    location = options.get("path", MEMORY)
    return Driver(name=name, engine=lambda: QdrantEngine(location))
