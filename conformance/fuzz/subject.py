"""What `run_fuzz` is handed, made into the instances it needs.

The fuzzer drives an instance of its own, never one another run used (the suite's
instance carries that run's history, so a fault found on it may not show on the fresh
instance a regression test builds). It needs fresh instances again to shrink a failure
and to check a regression file before writing it. It accepts:

- a `conformance.Driver`: every instance comes from its factory (and its declared
  constraints and fuzz configurations apply);
- a zero-argument factory (a class, say) of an engine or provider;
- an engine or provider object: fuzzed as it is; fresh instances come from its class
  when that takes no arguments, and otherwise a failure cannot be shrunk or written as
  a regression file (the failure says so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.bridge import SyncFace, as_sync
from conformance.constraints import Constraints
from conformance.driver import Driver, Profile, missing_methods
from conformance.fuzz.repro import driver_spec_of

__all__ = ["Subject", "subject_of"]


@dataclass
class Subject:
    """The instance a search drives, and how to build more like it."""

    first: Any
    """The instance the search drives (sync face)."""
    fresh: Callable[[], Any] | None
    """Builds a fresh instance (sync face); `None` when the fuzzer cannot."""
    spec: str | None
    """How a regression file names the driver (`resolve_driver`), when known."""
    built_first: bool
    """Whether the fuzzer built `first` (and so shuts it down)."""
    constraints: Constraints = field(default_factory=Constraints)
    config: Any = None
    """The driver's own fuzz configuration for the profile, if it has one."""


def _checked(obj: Any, profile: Profile, what: str) -> Any:
    missing = missing_methods(obj, profile)
    if missing:
        raise TypeError(
            f"run_fuzz needs a {profile} for this target, but {what} built a "
            f"{type(obj).__qualname__}, which lacks {', '.join(missing)}"
        )
    return as_sync(obj)


def subject_of(handed: Any, profile: Profile, spec: str | None) -> Subject:
    """The `Subject` for what `run_fuzz` was handed; `TypeError` naming what it wants
    for anything else."""
    if isinstance(handed, Driver):
        driver = handed

        def make() -> Any:
            return as_sync(driver.make(profile))

        return Subject(
            first=make(),
            fresh=make,
            spec=spec,
            built_first=True,
            constraints=driver.constraints,
            config=driver.fuzz_configs.get(profile),
        )
    if isinstance(handed, type) or (callable(handed) and missing_methods(handed, profile)):
        factory = handed
        name = getattr(factory, "__qualname__", type(factory).__qualname__)

        def build() -> Any:
            return _checked(factory(), profile, name)

        return Subject(
            first=build(),
            fresh=build,
            spec=spec or driver_spec_of(factory),
            built_first=True,
        )
    target = handed.target if isinstance(handed, SyncFace) else handed
    if not missing_methods(target, profile):
        rebuildable = driver_spec_of(target)
        cls = type(target)
        fresh = (lambda: _checked(cls(), profile, cls.__qualname__)) if rebuildable else None
        return Subject(
            first=as_sync(target), fresh=fresh, spec=spec or rebuildable, built_first=False
        )
    lacks = "" if handed is None else f", which lacks {', '.join(missing_methods(handed, profile))}"
    raise TypeError(
        f"run_fuzz wants a conformance.Driver, a {profile} object, or a zero-argument "
        f"factory of one; it was handed {type(handed).__qualname__}{lacks}"
    )
