"""Which namespaces belong to a section, and every order the Section API exposes.

Pure functions over provider answers, shared by the synchronous and `async def`
handles, so both return the same result for the same store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from conformance.provider import (
    Backend,
    Invalid,
    MemoryEntry,
    MemorySection,
    Namespace,
    NamespaceSummary,
)

from .constants import MAX_SECTION_NAMESPACES
from .values import SectionScope


def scopes_in_section(
    section: MemorySection, summaries: Iterable[NamespaceSummary]
) -> list[SectionScope]:
    """The summaries whose namespace is in `section`, by entries desc then namespace asc.

    `section` must already be normalised. Unsectioned names and other sections' names
    are not the section's. A name that claims the section (it starts with the section's
    prefix and `:`) but is no valid namespace is never skipped: the section would look
    emptier than the store is, after writes that succeeded. `Backend` names it instead,
    since the driver reported a name no call can address.
    """
    scopes: list[SectionScope] = []
    unreadable: list[tuple[str, str]] = []
    claim = f"{section.prefix}:"
    for summary in summaries:
        try:
            namespace = Namespace.parse(summary.namespace)
        except Invalid as error:
            if summary.namespace.startswith(claim):
                unreadable.append((summary.namespace, error.message))
            continue
        if namespace.is_in(section):
            scopes.append(SectionScope(namespace, summary.count, summary.last_updated))
    if unreadable:
        raise Backend(unreadable_names(section, unreadable))
    # Size, not recency: `last_updated` is optional, and sorting on `None` would
    # make which namespaces the fan-out cap drops arbitrary.
    scopes.sort(key=lambda scope: (-scope.entries, scope.namespace))
    return scopes


_NAMED_AT_MOST = 3


def unreadable_names(section: MemorySection, unreadable: list[tuple[str, str]]) -> str:
    """The message for names of `section` the driver reports and no call can address."""
    named = "; ".join(f"{name!r} ({why})" for name, why in unreadable[:_NAMED_AT_MOST])
    more = len(unreadable) - _NAMED_AT_MOST
    tail = f"; and {more} more" if more > 0 else ""
    return (
        f"the driver reports namespaces of the {section.prefix} section that are not valid "
        f"namespaces, so no call can address them: {named}{tail}"
    )


def fan_out(scopes: list[SectionScope]) -> tuple[list[SectionScope], bool]:
    """The scopes `across_section` visits, in order, and whether the cap skipped any."""
    return scopes[:MAX_SECTION_NAMESPACES], len(scopes) > MAX_SECTION_NAMESPACES


def _address(entry: MemoryEntry) -> tuple[bool, str, str]:
    # `(namespace, key)` is the store's primary key, so this makes every sort total;
    # an entry without a namespace sorts first, as Rust's `None < Some(_)`.
    return entry.namespace is not None, entry.namespace or "", entry.key


def by_address(entries: Iterable[MemoryEntry]) -> list[MemoryEntry]:
    """`entries` sorted by (namespace, key) ascending."""
    return sorted(entries, key=_address)


def _rank(entry: MemoryEntry) -> tuple[int, float]:
    # Absent and non-finite scores share the last rank (as −∞): a NaN or an
    # infinity from a misbehaving driver must not outrank every real hit.
    score = entry.score
    if score is None or not math.isfinite(score):
        return 1, 0.0
    return 0, -score


def merge_hits(batches: Iterable[Iterable[MemoryEntry]], limit: int) -> list[MemoryEntry]:
    """All hits of `batches`, by score desc then (namespace, key) asc, cut to `limit`."""
    merged = sorted(
        (hit for batch in batches for hit in batch),
        key=lambda hit: (_rank(hit), _address(hit)),
    )
    return merged[: max(limit, 0)]
