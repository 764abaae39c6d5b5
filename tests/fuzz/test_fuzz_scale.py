"""The scale phase (issue 21): the reference passes it, and faults that show only past
the caps real stores have (256, 999, 1,000) fail it, at its real size."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import Driver
from conformance.checks.outcome import ConformanceFailure
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, EngineFuzzConfig, FuzzSession
from conformance.fuzz.config import ProviderFuzzConfig
from conformance.fuzz.scale import engine_scale, provider_scale
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider
from tests.fuzz import oracle_faults as faults

ITEMS = EngineFuzzConfig().scale_items
ROWS = ProviderFuzzConfig().scale_rows


def _scale(target: str, driver: Any) -> None:
    profile = "engine" if target == ENGINE_TARGET else "provider"
    fuzz = FuzzSession.start(target, Driver(name="subject", **{profile: driver}), full_every=100)
    try:
        with fuzz.program() as m:
            if target == ENGINE_TARGET:
                engine_scale(m, ITEMS, 1)
            else:
                provider_scale(m, ROWS, 1)
    finally:
        fuzz.shutdown()


@pytest.mark.parametrize(
    ("target", "driver"),
    [(ENGINE_TARGET, ReferenceEngine), (PROVIDER_TARGET, ReferenceProvider)],
    ids=["engine", "provider"],
)
def test_the_reference_passes_the_scale_phase(target: str, driver: type) -> None:
    _scale(target, driver)


CASES = [
    (ENGINE_TARGET, faults.ListCappedAt1000, "every item the filter admits, each once"),
    (ENGINE_TARGET, faults.ForgetFailsPast999, "too many SQL variables"),
    (PROVIDER_TARGET, faults.RecallCappedAt1000, "min(limit, matches)"),
    (PROVIDER_TARGET, faults.ImportKeepsTheFirst256, "got 256 rows where 500 were due"),
]


@pytest.mark.parametrize(
    ("target", "fault", "message"), CASES, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_cap_past_the_search_fails_the_scale_phase(
    target: str, fault: type, message: str
) -> None:
    with pytest.raises(ConformanceFailure) as failed:
        _scale(target, fault)
    assert message in str(failed.value), str(failed.value)
