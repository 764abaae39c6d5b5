"""The contract's `MemoryError` (A3) as an exception hierarchy, and its wire mapping.

`str(error)` is the contract's display form: the variant's prefix, then the message.
On the wire an error travels as `(name, message)` where the message is the inner
string, never the display form. Messages must not carry a namespace key, content,
query, credential or absolute path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final

if TYPE_CHECKING:
    from .capabilities import Capability

WIRE_PREFIX: Final = "ai.tinyhumans.tinymemory.Error."
"""Every wire error name starts with this."""


class ProviderError(Exception):
    """A failure of a provider call: the contract's `MemoryError`.

    Named so as not to shadow Python's builtin `MemoryError`. Raise a subclass;
    the base is treated as `Other` on the wire.
    """

    prefix: ClassVar[str] = ""
    """Display prefix of the variant (`str(e) == prefix + message`)."""
    wire_name: ClassVar[str] = WIRE_PREFIX + "Other"
    """Full wire name of the variant."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.prefix + self.message

    def is_transient(self) -> bool:
        """Whether retrying the same call later may succeed."""
        return False


class NotFound(ProviderError):
    """A requested record, source or node does not exist."""

    prefix = "not found: "
    wire_name = WIRE_PREFIX + "NotFound"


class Invalid(ProviderError):
    """The caller's input failed validation."""

    prefix = "invalid input: "
    wire_name = WIRE_PREFIX + "Invalid"


class BudgetExceeded(ProviderError):
    """A configured budget was exceeded."""

    prefix = "budget exceeded: "
    wire_name = WIRE_PREFIX + "BudgetExceeded"


class PathEscape(ProviderError):
    """A path left the workspace sandbox."""

    prefix = "path escapes workspace: "
    wire_name = WIRE_PREFIX + "PathEscape"


class IoFailure(ProviderError):
    """An underlying I/O failure (the contract's `Io`)."""

    prefix = "io error: "
    wire_name = WIRE_PREFIX + "Io"


class SerdeFailure(ProviderError):
    """A serialisation or deserialisation failure (the contract's `Serde`)."""

    prefix = "serde error: "
    wire_name = WIRE_PREFIX + "Serde"


class Unsupported(ProviderError):
    """The driver does not implement a capability family; the message is its name."""

    prefix = "unsupported capability: "
    wire_name = WIRE_PREFIX + "Unsupported"

    def __init__(self, capability: str) -> None:
        super().__init__(capability)
        self.capability = capability

    @classmethod
    def of(cls, capability: Capability) -> Unsupported:
        """The refusal for a known family, under its canonical name."""
        return cls(capability.value)

    @classmethod
    def raw(cls, capability: str) -> Unsupported:
        """The refusal for a family named by a wire string, kept verbatim."""
        return cls(capability)


class Unauthorized(ProviderError):
    """The backend rejected or required a credential."""

    prefix = "unauthorized: "
    wire_name = WIRE_PREFIX + "Unauthorized"


class Unreachable(ProviderError):
    """The backend could not be reached (connect, DNS, TLS)."""

    prefix = "unreachable: "
    wire_name = WIRE_PREFIX + "Unreachable"


class Timeout(ProviderError):
    """The call exceeded its deadline."""

    prefix = "timed out: "
    wire_name = WIRE_PREFIX + "Timeout"


class Unavailable(ProviderError):
    """The backend cannot serve right now (429/502/503/504); worth retrying."""

    prefix = "unavailable: "
    wire_name = WIRE_PREFIX + "Unavailable"

    def is_transient(self) -> bool:
        """Always true: the backend said to come back later."""
        return True


class Backend(ProviderError):
    """The backend answered with an otherwise unclassified failure."""

    prefix = "backend failed: "
    wire_name = WIRE_PREFIX + "Backend"


class Other(ProviderError):
    """An opaque lower-level failure; displayed as its message alone."""


_BY_WIRE_NAME: Final[dict[str, type[ProviderError]]] = {
    cls.wire_name: cls
    for cls in (
        NotFound,
        Invalid,
        BudgetExceeded,
        PathEscape,
        Unauthorized,
        Unreachable,
        Timeout,
        Unavailable,
        Backend,
        Other,
    )
}


def to_wire(error: ProviderError) -> tuple[str, str]:
    """The `(name, message)` pair that carries `error` across a process boundary."""
    return error.wire_name, error.message


def from_wire(name: str, message: str) -> ProviderError:
    """Rebuild an error from a wire pair.

    `Io` and `Serde` come back as `Other` with their display prefix in the message
    (the original error cannot be rebuilt). An unknown name is `Other`, never
    `Invalid`: telling a caller its input was wrong when it was not sends it into a
    rewrite loop.
    """
    if name == IoFailure.wire_name:
        return Other(IoFailure.prefix + message)
    if name == SerdeFailure.wire_name:
        return Other(SerdeFailure.prefix + message)
    if name == Unsupported.wire_name:
        return Unsupported.raw(message)
    return _BY_WIRE_NAME.get(name, Other)(message)
