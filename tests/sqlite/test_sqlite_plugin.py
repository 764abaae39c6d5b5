"""The `sqlite` plugin: options, the temporary default workspace, and resolution by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlite_helpers import put

from conformance.driver import Driver, DriverError
from plugins import registry
from reference_driver.sqlite import SqliteProvider
from reference_driver.sqlite.plugin import tinymemory_driver


def provider_of(driver: Driver) -> SqliteProvider:
    provider = driver.make_provider()
    assert isinstance(provider, SqliteProvider)
    return provider


def test_the_path_option_names_the_workspace(tmp_path: Path) -> None:
    driver = tinymemory_driver(name="sqlite", options={"path": str(tmp_path / "ws")})
    assert driver.profiles == {"provider"}
    assert not driver.constraints.declared  # every valid namespace is kept apart
    first = provider_of(driver)
    put(first, "ns", "k", "v")
    second = provider_of(driver)  # a fresh provider over the same workspace
    assert second.workspace == tmp_path / "ws"
    assert second.get("ns", "k") is not None
    first.shutdown()
    second.shutdown()


def test_the_default_workspace_is_one_temporary_directory() -> None:
    driver = tinymemory_driver(name="sqlite", options={})
    first, second = provider_of(driver), provider_of(driver)
    assert first.workspace == second.workspace
    assert first.workspace.name.startswith("tinymemory-sqlite-")
    other = provider_of(tinymemory_driver(name="sqlite", options={}))
    assert other.workspace != first.workspace
    for provider in (first, second, other):
        provider.shutdown()


def test_fts_can_be_switched_off(tmp_path: Path) -> None:
    driver = tinymemory_driver(name="sqlite", options={"path": str(tmp_path), "fts": "off"})
    provider = provider_of(driver)
    assert provider.uses_fts is False
    provider.shutdown()
    with pytest.raises(DriverError, match="fts must be `auto` or `off`"):
        tinymemory_driver(name="sqlite", options={"fts": "maybe"})


def test_unknown_options_are_named() -> None:
    with pytest.raises(DriverError, match=r"does not take the option\(s\) colour, size"):
        tinymemory_driver(name="sqlite", options={"size": "1", "colour": "red", "path": "x"})


def test_the_entry_point_resolves(tmp_path: Path) -> None:
    names = [info.name for info in registry.available_drivers()]
    if "sqlite" not in names:
        pytest.skip("the sqlite entry point is not installed in this environment")
    driver = registry.resolve_driver("sqlite", {"path": str(tmp_path)})
    provider = provider_of(driver)
    assert provider.driver_id() == "sqlite"
    provider.shutdown()
