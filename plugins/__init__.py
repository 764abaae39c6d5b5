"""The pluggy layer: driver hooks, the driver registry, the pytest plugin and the CLI."""

from plugins.hookspecs import ENTRY_POINT_GROUP, hookimpl, hookspec
from plugins.registry import DriverInfo, available_drivers, resolve_driver

__all__ = [
    "ENTRY_POINT_GROUP",
    "DriverInfo",
    "available_drivers",
    "hookimpl",
    "hookspec",
    "resolve_driver",
]
