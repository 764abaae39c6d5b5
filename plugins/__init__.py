"""The pluggy layer: driver hooks, the driver registry, the pytest plugin and the CLI."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plugins.hookspecs import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
    from plugins.hookspecs import hookimpl as hookimpl
    from plugins.hookspecs import hookspec as hookspec
    from plugins.registry import DriverInfo as DriverInfo
    from plugins.registry import available_drivers as available_drivers
    from plugins.registry import resolve_driver as resolve_driver

_HOOK_NAMES = frozenset({"ENTRY_POINT_GROUP", "hookimpl", "hookspec"})
_REGISTRY_NAMES = frozenset({"DriverInfo", "available_drivers", "resolve_driver"})


def __getattr__(name: str) -> Any:
    # Loaded on first use: pytest imports `plugins.pytest_plugin` (so this package) for
    # every run once the kit is installed, and the registry loads the contract's models.
    if name in _HOOK_NAMES:
        import plugins.hookspecs as hookspecs

        return getattr(hookspecs, name)
    if name in _REGISTRY_NAMES:
        import plugins.registry as registry

        return getattr(registry, name)
    raise AttributeError(f"module 'plugins' has no attribute {name!r}")


__all__ = [
    "ENTRY_POINT_GROUP",
    "DriverInfo",
    "available_drivers",
    "hookimpl",
    "hookspec",
    "resolve_driver",
]
