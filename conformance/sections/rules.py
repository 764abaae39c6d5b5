"""What the Section API checks before it calls a provider, and how it pins a recall.

Shared by the synchronous and `async def` handles so both refuse exactly the same
calls with exactly the same messages, always before the first provider call.
"""

from __future__ import annotations

from conformance.provider import Invalid, MemorySection, Namespace, OwnedRecallOpts

from .constants import (
    CROSS_SESSION_FAN_OUT_CONFLICT,
    CROSS_SESSION_SECTION_CONFLICT,
    NAMESPACE_FILTER_CONFLICT,
)

# The shortest scope there is: if even it cannot form a namespace, no scope can.
_PROBE_SCOPE = "x"


def normalise(section: MemorySection) -> MemorySection:
    """The section `section`'s prefix spells: `custom("conversation")` is `CONVERSATION`."""
    return section.normalised()


def require_usable(section: MemorySection) -> None:
    """Raise `Invalid` when no scope of `section` can form a namespace.

    Enumerating calls check this so they fail as the addressed calls would,
    rather than reporting an unusable section as an empty one.
    """
    Namespace.new(section, _PROBE_SCOPE)


def refuse_namespace_filter(opts: OwnedRecallOpts) -> None:
    """Raise `Invalid(NAMESPACE_FILTER_CONFLICT)` when `opts.namespace` is set."""
    if opts.namespace is not None:
        raise Invalid(NAMESPACE_FILTER_CONFLICT)


def _asks_for_sessions(opts: OwnedRecallOpts) -> bool:
    return opts.cross_session or opts.session_id is not None


def in_scope_opts(section: MemorySection, scope: str, opts: OwnedRecallOpts) -> OwnedRecallOpts:
    """The options `in_scope` passes to `recall`, or `Invalid` for a refused call.

    Refuses a namespace filter, then session options outside the conversation
    section (judged on the normalised section), then a scope that cannot form a
    namespace; otherwise `opts` pinned to the scope's namespace.
    """
    refuse_namespace_filter(opts)
    section = normalise(section)
    if _asks_for_sessions(opts) and section != MemorySection.CONVERSATION:
        raise Invalid(CROSS_SESSION_SECTION_CONFLICT)
    return pinned(opts, Namespace.new(section, scope))


def refuse_fan_out(opts: OwnedRecallOpts) -> None:
    """Raise `Invalid` for options `across_section` refuses on every section.

    A namespace filter is `NAMESPACE_FILTER_CONFLICT`; `cross_session` or
    `session_id` is `CROSS_SESSION_FAN_OUT_CONFLICT`.
    """
    refuse_namespace_filter(opts)
    if _asks_for_sessions(opts):
        raise Invalid(CROSS_SESSION_FAN_OUT_CONFLICT)


def pinned(opts: OwnedRecallOpts, namespace: Namespace) -> OwnedRecallOpts:
    """`opts` with `namespace` set to exactly `namespace`; every other field unchanged."""
    return opts.model_copy(update={"namespace": namespace.as_str()})
