"""The messages of the driver process protocol, one JSON object per line.

The kit writes `hello`, then `call`s, then `shutdown` on the driver's stdin; the driver
answers `handshake` to the hello and `result` or `error` to every other message, on its
stdout, each carrying the `id` of the message it answers. A driver whose handshake says
`concurrent` takes several calls in flight and may answer them in any order.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, NonNegativeInt


class Version(BaseModel):
    """A `major.minor` version; only the major number decides compatibility."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    major: NonNegativeInt
    minor: NonNegativeInt

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


PROTOCOL_VERSION: Final = Version(major=1, minor=0)
"""The version of this protocol the kit speaks."""

KIT_NAME: Final = "tinymemory-conformance"


class _Message(BaseModel):
    # Unknown keys are kept, not refused: a later minor version may add some.
    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)


class KitInfo(BaseModel):
    """Which kit is speaking."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str = KIT_NAME
    version: str


class Hello(_Message):
    """The kit's first message: who it is, what it speaks, and the driver's options."""

    type: Literal["hello"] = "hello"
    id: NonNegativeInt = 0
    protocol: Version = PROTOCOL_VERSION
    contract_version: Version
    """The TinyMemory contract version the kit holds drivers to."""
    kit: KitInfo
    options: dict[str, str] = Field(default_factory=dict)
    """The driver options the user gave (`--driver-option`), credentials included."""


class Call(_Message):
    """One operation of a profile, with its arguments in the contract's wire JSON."""

    type: Literal["call"] = "call"
    id: NonNegativeInt
    op: str
    """`engine.<operation>`, `provider.<method>` or `documents.<method>`."""
    args: dict[str, JsonValue] = Field(default_factory=dict)


class Shutdown(_Message):
    """The kit's last message: answer it, then exit."""

    type: Literal["shutdown"] = "shutdown"
    id: NonNegativeInt


KitMessage = Annotated[Hello | Call | Shutdown, Field(discriminator="type")]
"""Any message the kit writes."""


class Handshake(_Message):
    """The driver's answer to `hello`: the contract's handshake shape, plus its profiles."""

    type: Literal["handshake"] = "handshake"
    id: NonNegativeInt
    protocol: Version
    contract_version: Version
    driver_id: str
    """A stable name for the driver, without URL or token."""
    driver_version: str | None = None
    profiles: list[Literal["engine", "provider"]] = Field(min_length=1)
    capabilities: list[str] = Field(default_factory=list)
    """Provider profile: the capability families advertised (A2), snake_case names."""
    engine: dict[str, JsonValue] | None = None
    """Engine profile: the `EngineDescriptor` (B8)."""
    constraints: dict[str, JsonValue] = Field(default_factory=dict)
    """Contract-valid input the store refuses, by `Constraints` field name (absent or
    empty: none); it narrows what the suites and the fuzzer send, as in process."""
    secret_options: list[str] = Field(default_factory=list)
    """Names of options that are credentials though their names do not say so; their
    values are kept out of every output, as a Python driver's `secret_options` are."""
    concurrent: bool = False
    """Whether the driver takes several calls in flight at once and may answer them in any
    order, each answer carrying its call's `id` (the kit may then call it from several
    threads at once); absent or false, the kit sends a call only once the previous one is
    answered."""


class Result(_Message):
    """A call's success: its return value in the contract's wire JSON (`null` for none)."""

    type: Literal["result"] = "result"
    id: NonNegativeInt
    result: JsonValue = None


class ErrorBody(BaseModel):
    """A contract error: the profile's wire name and the inner message (no prefix)."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    name: str
    message: str


class Error(_Message):
    """A call's failure, or the driver's refusal of the hello."""

    type: Literal["error"] = "error"
    id: NonNegativeInt
    error: ErrorBody


DriverMessage = Annotated[Handshake | Result | Error, Field(discriminator="type")]
"""Any message the driver writes."""
