"""Announces the `acme` driver to the TinyMemory conformance kit."""

from collections.abc import Mapping

from acme_memory.store import AcmeProvider
from conformance import Driver, DriverError
from plugins import hookimpl


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `acme` driver; it takes an optional `api_key` option."""
    unknown = sorted(set(options) - {"api_key"})
    if unknown:
        raise DriverError(f"driver `{name}` does not know the options {unknown}")
    return Driver(name=name, provider=lambda: AcmeProvider(api_key=options.get("api_key")))
