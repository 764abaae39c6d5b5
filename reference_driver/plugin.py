"""Entry point `reference` (group `tinymemory.drivers`): the in-memory reference driver."""

from __future__ import annotations

from collections.abc import Mapping

from conformance.driver import Driver, reject_options
from plugins.hookspecs import hookimpl
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider

DESCRIPTION = "In-memory reference driver, obvious by inspection (engine and provider profiles)"


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `reference` driver; it takes no options."""
    reject_options(name, options)
    return Driver(
        name=name, engine=ReferenceEngine, provider=ReferenceProvider, description=DESCRIPTION
    )
