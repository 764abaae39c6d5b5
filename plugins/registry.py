"""Resolve a driver name or `module:attr` spec into a `conformance.Driver`."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import pluggy

from conformance.driver import Driver, DriverError, detect_profile, reject_options
from conformance.interrupts import from_user
from conformance.redaction import Redactor
from plugins import hookspecs

EXEC_PREFIX = "exec:"
"""A driver spec naming a command to run over the driver protocol."""


@dataclass(frozen=True)
class DriverInfo:
    """What an entry point announces, read without importing the driver."""

    name: str
    value: str
    distribution: str | None
    version: str | None


def _distribution(ep: EntryPoint) -> tuple[str | None, str | None]:
    dist = ep.dist
    if dist is None:
        return None, None
    return dist.metadata["Name"], dist.version


def available_drivers() -> list[DriverInfo]:
    """Every driver announced in the environment, sorted by name; none is imported."""
    seen: dict[tuple[str, str, str | None], DriverInfo] = {}
    for ep in entry_points(group=hookspecs.ENTRY_POINT_GROUP):
        dist, version = _distribution(ep)
        # The same distribution can appear twice on sys.path (editable installs);
        # that is one announcement, not a clash.
        seen.setdefault((ep.name, ep.value, dist), DriverInfo(ep.name, ep.value, dist, version))
    return sorted(seen.values(), key=lambda info: (info.name, info.distribution or ""))


def resolve_driver(spec: str, options: Mapping[str, str] | None = None) -> Driver:
    """The driver named by an entry-point name, a `module:attr` spec, or `exec:COMMAND`
    (a process speaking the driver protocol, docs/protocol.md).

    A `DriverError` never carries the value of a credential option (a driver that fails
    to build often quotes the key it was given).
    """
    opts = dict(options or {})
    try:
        if spec.startswith(EXEC_PREFIX):
            # Imported on use: only a run over the protocol pays for it.
            from conformance.protocol.client import exec_driver

            return exec_driver(spec[len(EXEC_PREFIX) :], opts)
        if ":" in spec:
            return _from_object_spec(spec, opts)
        return _from_entry_point(spec, opts)
    except DriverError as exc:
        shown = Redactor.from_options(opts).text(str(exc))
        if shown == str(exc):
            raise
        raise type(exc)(shown) from None


def _from_entry_point(name: str, options: dict[str, str]) -> Driver:
    infos = [info for info in available_drivers() if info.name == name]
    if not infos:
        known = ", ".join(info.name for info in available_drivers()) or "none"
        raise DriverError(
            f"no driver named `{name}` is installed (known drivers: {known}; "
            f"`tinymemory-conformance drivers` lists them). Install the distribution that "
            f"provides it, or pass --driver=package.module:attr."
        )
    if len(infos) > 1:
        owners = "; ".join(f"{i.distribution or '?'} ({i.value})" for i in infos)
        raise DriverError(
            f"two distributions announce a driver named `{name}`: {owners}. Uninstall one, "
            f"or pass the one you mean as --driver=package.module:attr."
        )
    info = infos[0]
    ep = next(
        ep
        for ep in entry_points(group=hookspecs.ENTRY_POINT_GROUP, name=name)
        if ep.value == info.value
    )
    try:
        plugin = ep.load()
    except BaseException as exc:
        if from_user(exc):
            raise
        raise DriverError(
            f"driver `{name}` ({info.value}, from {info.distribution or 'an unknown distribution'})"
            f" failed to import: {type(exc).__name__}: {exc}"
        ) from exc
    driver = plugin if isinstance(plugin, Driver) else _call_hook(name, plugin, options)
    return replace(driver, distribution=info.distribution, version=info.version, options=options)


def _call_hook(name: str, plugin: object, options: dict[str, str]) -> Driver:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    try:
        pm.register(plugin, name=name)
        pm.check_pending()
    except Exception as exc:
        raise DriverError(f"driver `{name}` has an invalid plugin: {exc}") from exc
    try:
        driver = pm.hook.tinymemory_driver(name=name, options=options)
    except DriverError:
        raise
    except BaseException as exc:
        if from_user(exc):
            raise
        raise DriverError(f"driver `{name}` failed to build: {type(exc).__name__}: {exc}") from exc
    if not isinstance(driver, Driver):
        raise DriverError(
            f"driver `{name}` did not return a conformance.Driver from tinymemory_driver "
            f"(got {type(driver).__name__}); implement the hook with @plugins.hookimpl."
        )
    return driver


def _from_object_spec(spec: str, options: dict[str, str]) -> Driver:
    module_name, _, attr_path = spec.partition(":")
    if not module_name or not attr_path:
        raise DriverError(f"`{spec}` is not a driver spec; write package.module:attr")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr_path.split("."):
            target = getattr(target, part)
    except BaseException as exc:
        # A module that raises, does not parse or calls sys.exit on import is a bad
        # driver spec, said in one line; only the user's Ctrl-C goes on up.
        if from_user(exc):
            raise
        raise DriverError(
            f"driver spec `{spec}` failed to import: {type(exc).__name__}: {exc}"
        ) from exc
    name = attr_path.rsplit(".", 1)[-1]
    if isinstance(target, Driver):
        reject_options(target.name, options)
        return replace(target, options=options)
    if detect_profile(target) is not None and not inspect.isclass(target):
        reject_options(name, options)
        return _bundle(name, target, lambda: target, options)
    if inspect.isclass(target) and detect_profile(target) is not None:
        # A class shows its profile without being built: nothing is opened until a
        # process that runs checks asks for an instance.
        return _from_class(spec, name, target, options)
    if callable(target):
        return _from_callable(spec, name, target, options)
    raise DriverError(
        f"driver spec `{spec}` names a {type(target).__name__}, not a driver: expected a "
        f"conformance.Driver, a callable returning one, or an engine or provider class or "
        f"instance"
    )


def _parameters(factory: Any) -> list[inspect.Parameter] | None:
    """The parameters of `factory` (a class's `__init__` without `self`); None when it
    has no signature to read (a builtin), which is taken to take no options."""
    try:
        return list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return None


_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _factory(name: str, factory: Any, options: dict[str, str]) -> Any:
    """`factory` as a zero-argument builder. With a parameter named `options` it is given
    every option as `options={...}`; else each option goes to the keyword parameter of
    its name (`path=...`, a string), or to `**kwargs`. An option no parameter takes, or
    a parameter without a default that no option gives, is a `DriverError` naming them
    and what the factory accepts."""
    params = _parameters(factory) or []
    by_name = {p.name: p for p in params if p.kind in _NAMED}
    if "options" in by_name:
        return lambda: factory(options=options)
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    accepted = sorted(by_name)
    if not accepted and not open_ended:
        reject_options(name, options)
    unknown = sorted(set(options) - set(by_name)) if not open_ended else []
    if unknown:
        raise DriverError(
            f"driver `{name}` takes no option {', '.join(unknown)}: the options it takes "
            f"are the keyword parameters of {name}(): {', '.join(accepted)}"
        )
    needed = [
        p.name
        for p in by_name.values()
        if p.default is inspect.Parameter.empty and p.name not in options
    ]
    if needed:
        given = " ".join(f"--driver-option {n}=VALUE" for n in needed)
        raise DriverError(f"driver `{name}` needs the option {', '.join(needed)}: give {given}")
    return lambda: factory(**options)


def _from_class(spec: str, name: str, cls: type, options: dict[str, str]) -> Driver:
    return _bundle(name, cls, _factory(name, cls, options), options)


def _from_callable(spec: str, name: str, factory: Any, options: dict[str, str]) -> Driver:
    build = _factory(name, factory, options)
    try:
        made = build()
    except DriverError:
        raise
    except BaseException as exc:
        if from_user(exc):
            raise
        raise DriverError(
            f"driver spec `{spec}` failed to build: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(made, Driver):
        return replace(made, options=options)
    if detect_profile(made) is None:
        raise DriverError(
            f"`{spec}` returned a {type(made).__name__}, which is neither a conformance.Driver "
            f"nor an object with the engine or provider methods"
        )
    first = [made]

    def fresh() -> Any:
        # The probe instance is handed out once, so a class spec is not built twice.
        return first.pop() if first else build()

    return _bundle(name, made, fresh, options)


def _bundle(name: str, sample: object, factory: Any, options: dict[str, str]) -> Driver:
    if detect_profile(sample) == "engine":
        return Driver(name=name, engine=factory, options=options)
    return Driver(name=name, provider=factory, options=options)
