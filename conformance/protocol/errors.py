"""Contract errors on the wire, and the protocol's own failures.

An error travels as `{"name", "message"}`: for a provider the A3 wire name
(`ai.tinyhumans.tinymemory.Error.Invalid`), for an engine the B1 variant name
(`InvalidRequest`), and the inner message without its display prefix. Decoding gives
back the profile's exception class; an unknown provider name is `Other` (A3, never
`Invalid`), an unknown engine name is `EngineFault` with the name kept in its message.
"""

from __future__ import annotations

from typing import Final

from conformance.engine import errors as engine_errors
from conformance.provider import errors as provider_errors

ENGINE_WIRE_NAMES: Final[dict[type[engine_errors.EngineError], str]] = {
    engine_errors.Unsupported: "Unsupported",
    engine_errors.InvalidRequest: "InvalidRequest",
    engine_errors.Unauthorized: "Unauthorized",
    engine_errors.NotFound: "NotFound",
    engine_errors.Conflict: "Conflict",
    engine_errors.Unavailable: "Unavailable",
    engine_errors.EngineFault: "Engine",
    engine_errors.ConfigError: "Config",
}
"""The wire name of each engine error class: the contract's variant name (B1)."""

_ENGINE_BY_NAME: Final = {name: cls for cls, name in ENGINE_WIRE_NAMES.items()}


class ProtocolError(Exception):
    """The driver process broke the protocol: it exited, wrote something that is not a
    protocol message, answered the wrong request, or answered in the wrong shape.

    A call that meets one fails its check with this message; the kit starts a fresh
    process for the next call when the stream can no longer be trusted.
    """


class HandshakeRefused(ProtocolError):
    """The driver and the kit cannot work together (incompatible versions, say)."""


def engine_error_to_wire(error: BaseException) -> tuple[str, str]:
    """`(name, message)` for an exception an engine raised; any other exception is the
    contract's `Engine` variant naming its Python type."""
    if isinstance(error, engine_errors.EngineError):
        for cls in type(error).__mro__:
            if cls in ENGINE_WIRE_NAMES:
                return ENGINE_WIRE_NAMES[cls], error.message
        return "Engine", error.message
    return "Engine", f"{type(error).__qualname__}: {error}"


def engine_error_from_wire(name: str, message: str) -> engine_errors.EngineError:
    """The engine exception a wire error stands for."""
    cls = _ENGINE_BY_NAME.get(name)
    if cls is None:
        return engine_errors.EngineFault(f"{name}: {message}")
    return cls(message)


def provider_error_to_wire(error: BaseException) -> tuple[str, str]:
    """`(name, message)` for an exception a provider raised; any other exception is the
    contract's `Other` variant naming its Python type."""
    if isinstance(error, provider_errors.ProviderError):
        return provider_errors.to_wire(error)
    return provider_errors.Other.wire_name, f"{type(error).__qualname__}: {error}"


def provider_error_from_wire(name: str, message: str) -> provider_errors.ProviderError:
    """The provider exception a wire error stands for (A3's `from_wire`)."""
    return provider_errors.from_wire(name, message)


def error_to_wire(target: str, error: BaseException) -> tuple[str, str]:
    """`(name, message)` of `error` raised by an operation on `target`."""
    if target == "engine":
        return engine_error_to_wire(error)
    return provider_error_to_wire(error)


def error_from_wire(target: str, name: str, message: str) -> Exception:
    """The exception of `target`'s profile that a wire error stands for."""
    if target == "engine":
        return engine_error_from_wire(name, message)
    return provider_error_from_wire(name, message)
