"""EngineDescriptor and EngineHealth (contract B8)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conformance.engine import EngineDescriptor, EngineHealth, FetchMode, Unsupported

DESCRIPTOR = EngineDescriptor(
    id="cortexdb",
    label="CortexDB",
    description="An engine declaring only hybrid fetch.",
    hosted=False,
    needs_endpoint=True,
    needs_key=False,
    fetch_modes=[FetchMode.HYBRID],
)


def test_supports_and_ensure_mode() -> None:
    assert DESCRIPTOR.supports(FetchMode.HYBRID)
    assert not DESCRIPTOR.supports(FetchMode.KEYWORD)
    DESCRIPTOR.ensure_mode(FetchMode.HYBRID)
    with pytest.raises(Unsupported) as caught:
        DESCRIPTOR.ensure_mode(FetchMode.VECTOR)
    assert caught.value.message == "engine `cortexdb` does not offer vector fetch"
    assert str(caught.value) == "unsupported: engine `cortexdb` does not offer vector fetch"


def test_descriptor_wire_form() -> None:
    assert DESCRIPTOR.model_dump(mode="json") == {
        "id": "cortexdb",
        "label": "CortexDB",
        "description": "An engine declaring only hybrid fetch.",
        "hosted": False,
        "needs_endpoint": True,
        "needs_key": False,
        "default_endpoint": None,
        "fetch_modes": ["hybrid"],
    }


@pytest.mark.parametrize(
    ("health", "wire", "serving"),
    [
        (EngineHealth.ok(), {"state": "ok"}, True),
        (
            EngineHealth.degraded("rate limited"),
            {"state": "degraded", "reason": "rate limited"},
            True,
        ),
        (
            EngineHealth.down("broken on purpose"),
            {"state": "down", "reason": "broken on purpose"},
            False,
        ),
    ],
)
def test_health_is_adjacently_tagged(
    health: EngineHealth, wire: dict[str, str], serving: bool
) -> None:
    assert health.model_dump(mode="json") == wire
    assert EngineHealth.model_validate(wire) == health
    assert health.is_serving() is serving


@pytest.mark.parametrize(
    "bad",
    [
        {"state": "ok", "reason": "why"},
        {"state": "down"},
        {"state": "degraded"},
        {"state": "sleeping", "reason": "x"},
        {},
    ],
)
def test_health_shapes_outside_the_contract_are_refused(bad: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        EngineHealth.model_validate(bad)
