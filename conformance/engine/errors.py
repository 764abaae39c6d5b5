"""The contract's error kinds, each printed as its display prefix and a message."""

from __future__ import annotations

from typing import ClassVar


class EngineError(Exception):
    """Any error an engine or the contract raises; ``str()`` is prefix + message."""

    prefix: ClassVar[str] = "engine error: "

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.prefix}{self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EngineError):
            return NotImplemented
        return type(self) is type(other) and self.message == other.message

    def __hash__(self) -> int:
        return hash((type(self), self.message))

    def is_transient(self) -> bool:
        """Whether retrying the same call may succeed: true only for `Unavailable`."""
        return False


class Unsupported(EngineError):
    """The engine does not offer what was asked (an undeclared fetch mode, say)."""

    prefix = "unsupported: "


class InvalidRequest(EngineError):
    """The request breaks a contract rule; raised before anything is touched."""

    prefix = "invalid request: "


class Unauthorized(EngineError):
    """The engine refused the caller's credentials."""

    prefix = "unauthorized: "


class NotFound(EngineError):
    """Something the engine needed is missing (not an unknown id: `get` leaves those out)."""

    prefix = "not found: "


class Conflict(EngineError):
    """The call conflicts with the engine's state."""

    prefix = "conflict: "


class Unavailable(EngineError):
    """The engine cannot serve right now; the only transient kind."""

    prefix = "unavailable: "

    def is_transient(self) -> bool:
        """Always true: a later retry may succeed."""
        return True


class EngineFault(EngineError):
    """The engine failed on its own (the Rust variant ``Engine``)."""

    prefix = "engine error: "


class ConfigError(EngineError):
    """The engine's configuration is unusable."""

    prefix = "configuration error: "
