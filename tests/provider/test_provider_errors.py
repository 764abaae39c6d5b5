"""`ProviderError` (the contract's `MemoryError`): display forms and the wire mapping (A3)."""

from __future__ import annotations

import builtins

import pytest

from conformance.provider import (
    WIRE_PREFIX,
    Backend,
    BudgetExceeded,
    Capability,
    Invalid,
    IoFailure,
    NotFound,
    Other,
    PathEscape,
    ProviderError,
    SerdeFailure,
    Timeout,
    Unauthorized,
    Unavailable,
    Unreachable,
    Unsupported,
    from_wire,
    to_wire,
)

TABLE: list[tuple[type[ProviderError], str, str]] = [
    (NotFound, "not found: ", "NotFound"),
    (Invalid, "invalid input: ", "Invalid"),
    (BudgetExceeded, "budget exceeded: ", "BudgetExceeded"),
    (PathEscape, "path escapes workspace: ", "PathEscape"),
    (IoFailure, "io error: ", "Io"),
    (SerdeFailure, "serde error: ", "Serde"),
    (Unsupported, "unsupported capability: ", "Unsupported"),
    (Unauthorized, "unauthorized: ", "Unauthorized"),
    (Unreachable, "unreachable: ", "Unreachable"),
    (Timeout, "timed out: ", "Timeout"),
    (Unavailable, "unavailable: ", "Unavailable"),
    (Backend, "backend failed: ", "Backend"),
    (Other, "", "Other"),
]


@pytest.mark.parametrize(("cls", "prefix", "name"), TABLE)
def test_display_is_prefix_then_message(cls: type[ProviderError], prefix: str, name: str) -> None:
    error = cls("the message")
    assert isinstance(error, ProviderError)
    assert error.message == "the message"
    assert cls.prefix == prefix
    assert str(error) == prefix + "the message"
    assert cls.wire_name == "ai.tinyhumans.tinymemory.Error." + name
    assert to_wire(error) == (WIRE_PREFIX + name, "the message")


@pytest.mark.parametrize(
    "cls",
    [cls for cls, _, name in TABLE if name not in ("Io", "Serde")],
)
def test_wire_round_trip_keeps_variant_and_message(cls: type[ProviderError]) -> None:
    back = from_wire(*to_wire(cls("kept")))
    assert type(back) is cls
    assert back.message == "kept"


def test_io_and_serde_come_back_as_other_with_their_prefix() -> None:
    io = from_wire(*to_wire(IoFailure("disk full")))
    assert type(io) is Other
    assert io.message == str(io) == "io error: disk full"
    serde = from_wire(*to_wire(SerdeFailure("bad json")))
    assert type(serde) is Other
    assert serde.message == "serde error: bad json"


@pytest.mark.parametrize(
    "name",
    [
        WIRE_PREFIX + "FromTheFuture",
        "Invalid",
        "ai.tinyhumans.tinybus.Error.ModuleUnavailable",
        "",
        WIRE_PREFIX.lower() + "invalid",
    ],
)
def test_unknown_wire_names_are_other_never_invalid(name: str) -> None:
    error = from_wire(name, "something broke")
    assert type(error) is Other
    assert str(error) == "something broke"


def test_unsupported_carries_the_capability_name() -> None:
    error = Unsupported.of(Capability.DOCUMENTS)
    assert error.capability == "documents"
    assert error.message == "documents"
    assert str(error) == "unsupported capability: documents"
    raw = Unsupported.raw("teleportation")
    assert raw.capability == "teleportation"
    back = from_wire(*to_wire(error))
    assert isinstance(back, Unsupported)
    assert back.capability == "documents"
    assert Capability.parse(back.capability) is Capability.DOCUMENTS


def test_only_unavailable_is_transient() -> None:
    assert Unavailable("rate limited").is_transient()
    for cls, _, name in TABLE:
        if name != "Unavailable":
            assert not cls("x").is_transient()


def test_does_not_shadow_the_builtin_memory_error() -> None:
    assert not issubclass(ProviderError, builtins.MemoryError)
    assert issubclass(ProviderError, Exception)


def test_errors_raise_and_catch_as_provider_errors() -> None:
    with pytest.raises(ProviderError, match=r"^not found: x$"):
        raise NotFound("x")
