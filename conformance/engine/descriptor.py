"""What an engine is and offers (``EngineDescriptor``), and whether it serves (``EngineHealth``)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field, model_validator

from .errors import Unsupported
from .requests import FetchMode
from .wire import Omittable, WireModel


class EngineDescriptor(WireModel):
    """What an engine is and which fetch modes it serves.

    ``default_endpoint`` is written as ``null`` when unset, as the Rust descriptor is.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    description: str
    hosted: bool
    needs_endpoint: bool
    needs_key: bool
    default_endpoint: str | None = None
    fetch_modes: list[FetchMode] = Field(default_factory=list)

    def supports(self, mode: FetchMode) -> bool:
        """Whether the engine serves ``mode``."""
        return mode in self.fetch_modes

    def ensure_mode(self, mode: FetchMode) -> None:
        """Raises ``Unsupported`` ("engine `<id>` does not offer <mode> fetch") unless
        the engine declares ``mode``."""
        if mode not in self.fetch_modes:
            raise Unsupported(f"engine `{self.id}` does not offer {mode.value} fetch")


class HealthState(StrEnum):
    """Whether an engine serves: fully, impaired, or not at all."""

    OK = "ok"
    DEGRADED = "degraded"
    DOWN = "down"


class EngineHealth(WireModel):
    """Adjacently tagged: ``{"state":"ok"}``, ``{"state":"degraded","reason":...}`` or
    ``{"state":"down","reason":...}``. The reason never carries a credential."""

    model_config = ConfigDict(frozen=True)

    state: HealthState
    reason: Omittable[str] = None

    @model_validator(mode="after")
    def _reason_matches_state(self) -> EngineHealth:
        if (self.state is HealthState.OK) != (self.reason is None):
            raise ValueError("health `ok` carries no reason; `degraded` and `down` carry one")
        return self

    @classmethod
    def ok(cls) -> EngineHealth:
        """Serving."""
        return cls(state=HealthState.OK)

    @classmethod
    def degraded(cls, reason: str) -> EngineHealth:
        """Serving, impaired (rate limited, partially available)."""
        return cls(state=HealthState.DEGRADED, reason=reason)

    @classmethod
    def down(cls, reason: str) -> EngineHealth:
        """Not serving."""
        return cls(state=HealthState.DOWN, reason=reason)

    def is_serving(self) -> bool:
        """False only when down."""
        return self.state is not HealthState.DOWN
