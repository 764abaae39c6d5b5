"""The error kinds: display prefixes, messages, transience."""

from __future__ import annotations

import pytest

from conformance.engine import (
    ConfigError,
    Conflict,
    EngineError,
    EngineFault,
    InvalidRequest,
    NotFound,
    Unauthorized,
    Unavailable,
    Unsupported,
)


@pytest.mark.parametrize(
    ("kind", "prefix"),
    [
        (Unsupported, "unsupported: "),
        (InvalidRequest, "invalid request: "),
        (Unauthorized, "unauthorized: "),
        (NotFound, "not found: "),
        (Conflict, "conflict: "),
        (Unavailable, "unavailable: "),
        (EngineFault, "engine error: "),
        (ConfigError, "configuration error: "),
    ],
)
def test_display_is_prefix_then_message(kind: type[EngineError], prefix: str) -> None:
    error = kind("something went wrong")
    assert isinstance(error, EngineError)
    assert error.message == "something went wrong"
    assert kind.prefix == prefix
    assert str(error) == prefix + "something went wrong"
    assert error.is_transient() is (kind is Unavailable)


def test_errors_compare_by_kind_and_message() -> None:
    assert InvalidRequest("x") == InvalidRequest("x")
    assert InvalidRequest("x") != InvalidRequest("y")
    assert InvalidRequest("x") != Unsupported("x")
    assert len({InvalidRequest("x"), InvalidRequest("x")}) == 1
    assert repr(NotFound("gone")) == "NotFound('gone')"


def test_errors_are_raisable_and_catchable_as_engine_error() -> None:
    with pytest.raises(EngineError, match=r"^unavailable: try later$"):
        raise Unavailable("try later")
