"""`MemoryHealth`: ready, degraded with a reason, or down with a reason (A2)."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import SerializerFunctionWrapHandler, model_serializer, model_validator

from ._wire import WireModel

HealthStatus = Literal["ready", "degraded", "down"]


class MemoryHealth(WireModel):
    """A driver's health, tagged by `status` on the wire.

    `{"status":"ready"}`, `{"status":"degraded","reason":…}` or
    `{"status":"down","reason":…}`. A reason must not carry credentials or memory
    content.
    """

    status: HealthStatus
    reason: str | None = None

    @classmethod
    def ready(cls) -> MemoryHealth:
        """Serving normally."""
        return cls(status="ready")

    @classmethod
    def degraded(cls, reason: str) -> MemoryHealth:
        """Serving, with a problem worth reporting."""
        return cls(status="degraded", reason=reason)

    @classmethod
    def down(cls, reason: str) -> MemoryHealth:
        """Not serving."""
        return cls(status="down", reason=reason)

    def is_usable(self) -> bool:
        """Whether calls may be made: false only when down."""
        return self.status != "down"

    def __str__(self) -> str:
        return self.status if self.reason is None else f"{self.status}: {self.reason}"

    @model_validator(mode="before")
    @classmethod
    def _ready_has_no_reason(cls, data: Any) -> Any:
        # `ready` is a unit variant: a `reason` beside it is an unknown key, ignored.
        if isinstance(data, dict) and data.get("status") == "ready":
            return {key: value for key, value in data.items() if key != "reason"}
        return data

    @model_validator(mode="after")
    def _unready_has_a_reason(self) -> Self:
        if self.status != "ready" and self.reason is None:
            raise ValueError(f"a {self.status} health needs a reason")
        return self

    @model_serializer(mode="wrap")
    def _omit_absent_reason(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("reason") is None:
            data.pop("reason", None)
        return data
