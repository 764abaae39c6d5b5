"""The bundled `reference` and `null` drivers resolve through the `tinymemory.drivers` group."""

from __future__ import annotations

import pytest

from conformance import Driver, DriverError
from conformance.provider import ProviderBase
from null_driver.provider import NullProvider
from plugins import available_drivers, resolve_driver
from reference_driver.provider import ReferenceProvider

BUNDLED: list[tuple[str, type[ProviderBase]]] = [
    ("reference", ReferenceProvider),
    ("null", NullProvider),
]


@pytest.mark.parametrize(("name", "provider_class"), BUNDLED)
def test_bundled_driver_builds_its_provider(name: str, provider_class: type[ProviderBase]) -> None:
    driver = resolve_driver(name)
    assert isinstance(driver, Driver)
    assert driver.name == name
    assert driver.distribution == "tinymemory-conformance"
    assert driver.description
    assert "provider" in driver.profiles
    provider = driver.make_provider()
    assert type(provider) is provider_class
    assert provider.driver_id() == name
    assert driver.make_provider() is not provider  # a fresh store per build


@pytest.mark.parametrize("name", ["reference", "null"])
def test_bundled_driver_offers_the_engine_profile(name: str) -> None:
    # The engine half is imported lazily, so only its presence as a profile is pinned here.
    assert "engine" in resolve_driver(name).profiles


@pytest.mark.parametrize("name", ["reference", "null"])
def test_bundled_driver_is_announced(name: str) -> None:
    assert any(info.name == name for info in available_drivers())


@pytest.mark.parametrize("name", ["reference", "null"])
def test_bundled_driver_refuses_options_naming_them(name: str) -> None:
    with pytest.raises(DriverError, match=rf"driver `{name}` takes no options.*: colour, size"):
        resolve_driver(name, {"size": "1", "colour": "red"})
