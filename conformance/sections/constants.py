"""The fan-out cap and the exact messages of the Section API's refusals (A10)."""

from __future__ import annotations

from typing import Final

MAX_SECTION_NAMESPACES: Final = 64
"""How many namespaces `across_section` visits before it stops.

One recall per namespace means an uncapped fan-out would turn one call into
thousands on a store with thousands of conversations; the cap bounds the cost
and `SectionHits.truncated` reports when it bit.
"""

NAMESPACE_FILTER_CONFLICT: Final = (
    "recall options must not set a namespace: the section surface derives it"
)
"""Why a section recall refuses options that already pin `namespace`."""

CROSS_SESSION_SECTION_CONFLICT: Final = (
    "cross-session recall is only meaningful for the conversation section"
)
"""Why `in_scope` refuses `cross_session` or `session_id` outside `conversation`.

A driver's cross-session and session paths surface conversational rows labelled
with whatever namespace the call pinned, so honouring them on another section
would present conversation content as that section's own.
"""

CROSS_SESSION_FAN_OUT_CONFLICT: Final = (
    "cross-session and session-scoped recall cannot fan out across a section; "
    "use in_scope, which issues exactly one call"
)
"""Why `across_section` refuses `cross_session` or `session_id` on every section.

A driver adds the cross-session or session rows once per call whatever the
pinned namespace, so a fan-out would repeat them once per scope and crowd the
real hits out of `limit`.
"""
