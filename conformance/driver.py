"""The `Driver` bundle: a named plugin offering an engine and/or a provider."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.constraints import Constraints
from conformance.redaction import Redactor, redact_options

Profile = Literal["engine", "provider"]
PROFILES: tuple[Profile, ...] = ("engine", "provider")

# The methods a profile object must have; `descriptor`/`capabilities` make detection cheap.
ENGINE_METHODS: tuple[str, ...] = (
    "descriptor",
    "health",
    "store",
    "store_many",
    "fetch",
    "recall",
    "list",
    "forget",
    "explore",
    "get",
)
PROVIDER_METHODS: tuple[str, ...] = (
    "driver_id",
    "capabilities",
    "health",
    "shutdown",
    "provides",
    "store",
    "get",
    "forget",
    "list",
    "namespaces",
    "recall",
    "export_page",
    "import_records",
)
METHODS: Mapping[Profile, tuple[str, ...]] = {
    "engine": ENGINE_METHODS,
    "provider": PROVIDER_METHODS,
}


class DriverError(Exception):
    """A driver could not be found, loaded, configured or built."""


class ProfileNotOffered(DriverError):
    """The driver does not offer the profile that was asked of it."""


def missing_methods(obj: object, profile: Profile) -> list[str]:
    """The methods of `profile` that `obj` lacks or that are not callable."""
    return [name for name in METHODS[profile] if not callable(getattr(obj, name, None))]


def detect_profile(obj: object) -> Profile | None:
    """Which profile `obj` implements, judged by the methods it has."""
    for profile in PROFILES:
        if not missing_methods(obj, profile):
            return profile
    return None


def is_async(obj: object) -> bool:
    """Whether a profile object is of the `async def` form (judged by its `health`)."""
    return inspect.iscoroutinefunction(getattr(obj, "health", None))


def reject_options(name: str, options: Mapping[str, str]) -> None:
    """Refuse options for a driver that takes none, naming what was passed."""
    if options:
        given = ", ".join(sorted(options))
        raise DriverError(f"driver `{name}` takes no options, but was given: {given}")


@dataclass(frozen=True)
class Driver:
    """A named driver: factories for the profiles it offers, plus where it came from."""

    name: str
    engine: Callable[[], Any] | None = None
    provider: Callable[[], Any] | None = None
    distribution: str | None = None
    version: str | None = None
    description: str = ""
    options: Mapping[str, str] = field(default_factory=dict)
    fuzz_configs: Mapping[str, Any] = field(default_factory=dict)
    """Per profile (`"engine"`, `"provider"`), a `conformance.fuzz` config that narrows
    what the fuzzer generates to what the store accepts (an `EngineFuzzConfig` or a
    `ProviderFuzzConfig`); a profile without one is fuzzed with the defaults."""
    constraints: Constraints = field(default_factory=Constraints)
    """Contract-valid input the store refuses and cannot be made to take. It narrows what
    the suites and the fuzzer send, and the report lists it beside the level."""
    release: Callable[[], None] | None = None
    """Called once when a run is done with the driver, to stop what it started (the
    processes of an `exec:` driver); the objects it made are not used afterwards."""
    command: tuple[str, ...] | None = None
    """The command line of the process serving this driver over the driver protocol
    (`exec:`); `None` for a driver in process."""
    secret_options: frozenset[str] = frozenset()
    """Names of options that are credentials though their names do not say so (a
    `region_token` is recognised anyway; an `endpoint` carrying a key is not): their
    values are kept out of every output like those of `api_key` or `password`."""
    thread_safe: bool = True
    """Whether the driver's objects may be called from several threads at once (async
    ones: several calls awaited at once on one loop). `False`: under
    `--conformance-concurrency` the checks run one at a time, and the report says so."""

    def __repr__(self) -> str:
        # The options are shown with credentials redacted: a traceback that prints the
        # driver must not print its key.
        shown = redact_options(self.options, self.secret_options)
        return (
            f"Driver(name={self.name!r}, profiles={sorted(self.profiles)}, "
            f"distribution={self.distribution!r}, version={self.version!r}, options={shown!r})"
        )

    @property
    def redactor(self) -> Redactor:
        """The credentials among this driver's options."""
        return Redactor.from_options(self.options, self.secret_options)

    @property
    def profiles(self) -> frozenset[Profile]:
        """The profiles this driver offers."""
        offered: set[Profile] = set()
        if self.engine is not None:
            offered.add("engine")
        if self.provider is not None:
            offered.add("provider")
        return frozenset(offered)

    def make(self, profile: Profile) -> Any:
        """A fresh instance of `profile`, checked against the profile's methods."""
        factory = self.engine if profile == "engine" else self.provider
        if factory is None:
            offered = ", ".join(sorted(self.profiles)) or "none"
            raise ProfileNotOffered(
                f"driver `{self.name}` does not offer the {profile} profile (it offers: {offered})"
            )
        try:
            obj = factory()
        except DriverError:
            raise
        except Exception as exc:
            cause = self.redactor.text(f"{type(exc).__name__}: {exc}")
            error = DriverError(f"driver `{self.name}` failed to build its {profile}: {cause}")
            # A cause that names a credential stays out of every traceback.
            raise error from (exc if cause == f"{type(exc).__name__}: {exc}" else None)
        missing = missing_methods(obj, profile)
        if missing:
            raise DriverError(
                f"driver `{self.name}` built a {profile} of type {type(obj).__qualname__} that "
                f"lacks the {profile} methods: {', '.join(missing)}"
            )
        return obj

    def make_engine(self) -> Any:
        """A fresh engine (sync or async `MemoryEngine`)."""
        return self.make("engine")

    def make_provider(self) -> Any:
        """A fresh provider (sync or async `MemoryProvider`)."""
        return self.make("provider")
