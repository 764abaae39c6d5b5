"""Entry point `null` (group `tinymemory.drivers`): the driver that retains nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from conformance.driver import Driver, reject_options
from null_driver.provider import NullProvider
from plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from null_driver.engine import NullEngine

DESCRIPTION = "Retains nothing; every call succeeds empty (engine and provider profiles)"


def _engine() -> NullEngine:
    # Imported on first use so that resolving the driver never loads the engine half.
    from null_driver.engine import NullEngine

    return NullEngine()


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `null` driver; it takes no options."""
    reject_options(name, options)
    return Driver(name=name, engine=_engine, provider=NullProvider, description=DESCRIPTION)
