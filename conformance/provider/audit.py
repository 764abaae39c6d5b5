"""`audit_provider`: does a driver advertise exactly the families it serves? (A8)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._wire import WireModel
from .capabilities import Capabilities, Capability
from .errors import Invalid

if TYPE_CHECKING:
    from .protocol import AsyncMemoryProvider, MemoryProvider


class CapabilityAudit(WireModel):
    """A disagreement between a driver's advertised and reachable families.

    Both lists are in declaration order. Advertised-but-absent families would
    fail on first call; present-but-unadvertised ones are unreachable.
    """

    advertised_but_absent: list[Capability]
    present_but_unadvertised: list[Capability]

    def __str__(self) -> str:
        parts = []
        if self.advertised_but_absent:
            parts.append(f"advertised but not implemented: {_join(self.advertised_but_absent)}")
        if self.present_but_unadvertised:
            parts.append(f"implemented but not advertised: {_join(self.present_but_unadvertised)}")
        return "memory driver capability mismatch; " + "; ".join(parts)

    def to_error(self) -> Invalid:
        """The mismatch as the error a host refuses the bind with."""
        return Invalid(str(self))


def _join(families: list[Capability]) -> str:
    return ", ".join(family.value for family in families)


def audit_provider(provider: MemoryProvider | AsyncMemoryProvider) -> CapabilityAudit | None:
    """Compare `capabilities()` with `provides()` family by family; `None` when they agree."""
    advertised: Capabilities = provider.capabilities()
    absent = [cap for cap in Capability if cap in advertised and not provider.provides(cap)]
    hidden = [cap for cap in Capability if cap not in advertised and provider.provides(cap)]
    if not absent and not hidden:
        return None
    return CapabilityAudit(advertised_but_absent=absent, present_but_unadvertised=hidden)
