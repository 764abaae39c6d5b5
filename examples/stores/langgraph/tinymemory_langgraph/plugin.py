"""Announces the `langgraph` driver (LangGraph's InMemoryStore) to the TinyMemory kit."""

from collections.abc import Mapping

from conformance import Driver, DriverError
from plugins import hookimpl
from tinymemory_langgraph.provider import memory_provider


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `langgraph` driver; it takes no options (the store lives in the process)."""
    if options:
        raise DriverError(f"driver `{name}` takes no options, got {sorted(options)}")
    return Driver(name=name, provider=memory_provider)
