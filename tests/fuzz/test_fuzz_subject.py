"""What `run_fuzz` accepts, and that it drives an instance of its own."""

from __future__ import annotations

import pytest

from conformance import Driver
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, run_fuzz
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider


def test_a_driver_is_fuzzed_on_fresh_instances_of_its_own() -> None:
    made: list[ReferenceProvider] = []

    def build() -> ReferenceProvider:
        made.append(ReferenceProvider())
        return made[-1]

    report = run_fuzz(PROVIDER_TARGET, Driver(name="counted", provider=build), seed=5, examples=3)
    assert report.passed
    assert len(made) == 1  # one instance for the search, built by the fuzzer itself


def test_a_factory_is_accepted() -> None:
    assert run_fuzz(ENGINE_TARGET, ReferenceEngine, seed=5, examples=2).passed


@pytest.mark.parametrize(
    ("handed", "says"),
    [
        ({"not": "a driver"}, "it was handed dict"),
        (None, "it was handed NoneType"),
        (ReferenceEngine(), "it was handed ReferenceEngine, which lacks driver_id"),
    ],
    ids=["dict", "none", "wrong-profile"],
)
def test_anything_else_is_refused_saying_what_is_wanted(handed: object, says: str) -> None:
    with pytest.raises(TypeError, match=r"run_fuzz wants a conformance\.Driver") as raised:
        run_fuzz(PROVIDER_TARGET, handed, seed=5, examples=1)
    assert says in str(raised.value)


def test_a_driver_without_the_profile_says_so() -> None:
    from conformance.driver import ProfileNotOffered

    with pytest.raises(ProfileNotOffered, match="does not offer the provider profile"):
        run_fuzz(PROVIDER_TARGET, Driver(name="engine-only", engine=ReferenceEngine), seed=5)
