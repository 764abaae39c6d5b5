"""Entry point `reference` (group `tinymemory.drivers`): the in-memory reference driver."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from conformance.driver import Driver, reject_options
from plugins.hookspecs import hookimpl
from reference_driver.provider import ReferenceProvider

if TYPE_CHECKING:
    from reference_driver.engine import ReferenceEngine

DESCRIPTION = "In-memory reference driver, obvious by inspection (engine and provider profiles)"


def _engine() -> ReferenceEngine:
    # Imported on first use so that resolving the driver never loads the engine half.
    from reference_driver.engine import ReferenceEngine

    return ReferenceEngine()


@hookimpl
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver:
    """The `reference` driver; it takes no options."""
    reject_options(name, options)
    return Driver(name=name, engine=_engine, provider=ReferenceProvider, description=DESCRIPTION)
