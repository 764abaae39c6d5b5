"""The registry: names, `module:attr` specs, and the errors that tell a vendor what to do."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

import pytest

from conformance import Driver, DriverError, ProfileNotOffered, as_sync
from plugins import registry
from tests.plugins import fake_drivers

SPEC = "tests.plugins.fake_drivers"


def fake_entry_points(monkeypatch: pytest.MonkeyPatch, *eps: tuple[str, str, str]) -> None:
    """Pretend the environment holds exactly these (name, value, distribution) entry points."""
    points = [EntryPoint(name, value, "tinymemory.drivers") for name, value, _ in eps]
    dists = {(name, value): dist for name, value, dist in eps}

    def select(group: str, name: str | None = None) -> list[EntryPoint]:
        return [ep for ep in points if name is None or ep.name == name]

    monkeypatch.setattr(registry, "entry_points", select)
    monkeypatch.setattr(registry, "_distribution", lambda ep: (dists[(ep.name, ep.value)], "9.9"))


def test_entry_point_name_resolves_through_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, ("fake", f"{SPEC}:PLUGIN", "fake-dist"))
    driver = registry.resolve_driver("fake")
    assert driver.name == "fake"
    assert driver.profiles == {"engine"}
    assert (driver.distribution, driver.version) == ("fake-dist", "9.9")
    assert isinstance(driver.make_engine(), fake_drivers.FakeEngine)


def test_unknown_name_lists_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(
        monkeypatch, ("alpha", f"{SPEC}:PLUGIN", "a"), ("beta", f"{SPEC}:PLUGIN", "b")
    )
    with pytest.raises(DriverError, match=r"no driver named `gamma`.*known drivers: alpha, beta"):
        registry.resolve_driver("gamma")


def test_two_distributions_announcing_one_name_are_both_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_entry_points(
        monkeypatch,
        ("dup", f"{SPEC}:PLUGIN", "first-dist"),
        ("dup", f"{SPEC}:BUNDLE", "second-dist"),
    )
    with pytest.raises(DriverError, match=r"first-dist.*second-dist"):
        registry.resolve_driver("dup")


def test_only_the_named_entry_point_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(
        monkeypatch,
        ("good", f"{SPEC}:PLUGIN", "good-dist"),
        ("broken", "no_such_module_anywhere:thing", "broken-dist"),
    )
    assert registry.resolve_driver("good").name == "good"
    with pytest.raises(
        DriverError, match=r"driver `broken`.*failed to import.*ModuleNotFoundError"
    ):
        registry.resolve_driver("broken")


def test_a_hook_with_a_misspelt_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, ("typo", f"{SPEC}:WRONG_HOOK_PLUGIN", "d"))
    with pytest.raises(DriverError, match="invalid plugin"):
        registry.resolve_driver("typo")


def test_a_hook_must_return_a_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, ("odd", f"{SPEC}:RETURNS_NOTHING_PLUGIN", "d"))
    with pytest.raises(DriverError, match=r"did not return a conformance\.Driver"):
        registry.resolve_driver("odd")


def test_options_reach_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, ("fake", f"{SPEC}:PLUGIN", "d"))
    with pytest.raises(DriverError, match="takes no options, but was given: colour"):
        registry.resolve_driver("fake", {"colour": "blue"})


def test_entry_point_may_name_a_driver_object(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, ("bundle", f"{SPEC}:BUNDLE", "d"))
    assert registry.resolve_driver("bundle").profiles == {"engine", "provider"}


@pytest.mark.parametrize(
    ("attr", "profiles"),
    [
        ("BUNDLE", {"engine", "provider"}),
        ("make_bundle", {"engine"}),
        ("ENGINE_INSTANCE", {"engine"}),
        ("FakeEngine", {"engine"}),
        ("FakeProvider", {"provider"}),
    ],
)
def test_module_attr_specs(attr: str, profiles: set[str]) -> None:
    driver = registry.resolve_driver(f"{SPEC}:{attr}")
    assert driver.profiles == profiles
    for profile in driver.profiles:
        driver.make(profile)  # type: ignore[arg-type]


def test_module_attr_class_builds_fresh_instances() -> None:
    driver = registry.resolve_driver(f"{SPEC}:FakeEngine")
    assert driver.make_engine() is not driver.make_engine()


def test_module_attr_callable_receives_options() -> None:
    driver = registry.resolve_driver(f"{SPEC}:configurable", {"path": "/tmp/x"})
    assert driver.make_engine().options == {"path": "/tmp/x"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"{SPEC}:NOT_A_DRIVER", "expected a conformance.Driver"),
        (f"{SPEC}:missing_attr", "failed to import: AttributeError"),
        ("no_such_module_anywhere:x", "failed to import: ModuleNotFoundError"),
        (f"{SPEC}:exploding", "failed to build: RuntimeError: cannot reach the store"),
        (f"{SPEC}:HalfEngine", "neither a conformance.Driver nor"),
        (":x", "not a driver spec"),
    ],
)
def test_module_attr_errors(spec: str, message: str) -> None:
    with pytest.raises(DriverError, match=message):
        registry.resolve_driver(spec)


def test_a_built_object_missing_methods_is_named() -> None:
    driver = registry.resolve_driver(f"{SPEC}:builds_half")
    with pytest.raises(DriverError, match=r"lacks the engine methods: health, store"):
        driver.make_engine()


def test_asking_for_a_profile_not_offered() -> None:
    driver = Driver(name="only-engine", engine=fake_drivers.FakeEngine)
    with pytest.raises(ProfileNotOffered, match=r"does not offer the provider profile.*engine"):
        driver.make_provider()


def test_async_objects_get_a_sync_face() -> None:
    engine: Any = as_sync(fake_drivers.AsyncFakeEngine())
    assert engine.health() == "ok"
    plain = fake_drivers.FakeEngine()
    assert as_sync(plain) is plain
