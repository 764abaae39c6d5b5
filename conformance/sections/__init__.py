"""The Section API: typed access to `<section>:<scope>` namespaces over any provider (A10).

`Sections(provider)` hands out a `SectionView` per section (put, get, forget and
list by scope; `scopes()` and `list_section()` across it) and a `SectionRecall`
(`in_scope`, one call; `across_section`, a capped fan-out). The `Async...` twins
do the same over an `async def` provider. Every refusal is
`conformance.provider.Invalid` carrying one of the constants below. Enumeration never
drops a namespace: a name the driver reports in a section that is not a valid namespace
fails the enumerating call with `conformance.provider.Backend` naming it.
"""

from .constants import (
    CROSS_SESSION_FAN_OUT_CONFLICT,
    CROSS_SESSION_SECTION_CONFLICT,
    MAX_SECTION_NAMESPACES,
    NAMESPACE_FILTER_CONFLICT,
)
from .recall import AsyncSectionRecall, SectionRecall
from .sections import AsyncSections, Sections
from .values import SectionHits, SectionScope
from .view import AsyncSectionView, SectionView

__all__ = [
    "CROSS_SESSION_FAN_OUT_CONFLICT",
    "CROSS_SESSION_SECTION_CONFLICT",
    "MAX_SECTION_NAMESPACES",
    "NAMESPACE_FILTER_CONFLICT",
    "AsyncSectionRecall",
    "AsyncSectionView",
    "AsyncSections",
    "SectionHits",
    "SectionRecall",
    "SectionScope",
    "SectionView",
    "Sections",
]
