"""The pluggy hooks through which a distribution announces a TinyMemory driver.

A distribution lists a module (or object) under the entry-point group
`tinymemory.drivers`; the entry point's name is the driver's name. The module
implements `tinymemory_driver`, marked with `plugins.hookimpl`:

    from conformance import Driver
    from plugins import hookimpl

    @hookimpl
    def tinymemory_driver(name, options):
        return Driver(name=name, engine=lambda: MyEngine(**options))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    # Only named in the hook's signature: a driver's plugin module imports `hookimpl`
    # from here, and need not load the contract's models to do so.
    from conformance.driver import Driver

PROJECT = "tinymemory"
ENTRY_POINT_GROUP = "tinymemory.drivers"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(firstresult=True)
def tinymemory_driver(name: str, options: Mapping[str, str]) -> Driver | None:
    """Build the driver announced under `name`, configured by `options`.

    Raise `conformance.DriverError` for options the driver cannot take; return
    None when this plugin does not serve `name`.
    """
