"""Entry point `null` (group `tinymemory.drivers`): the driver that retains nothing."""

from __future__ import annotations

from collections.abc import Mapping

from conformance.driver import Driver, reject_options
from null_driver.engine import NullEngine
from null_driver.provider import NullProvider
from plugins.hookspecs import hookimpl

DESCRIPTION = "Retains nothing; every call succeeds empty (engine and provider profiles)"


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `null` driver; it takes no options."""
    reject_options(name, options)
    return Driver(name=name, engine=NullEngine, provider=NullProvider, description=DESCRIPTION)
