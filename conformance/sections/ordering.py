"""Which namespaces belong to a section, and every order the Section API exposes.

Pure functions over provider answers, shared by the synchronous and `async def`
handles, so both return the same result for the same store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from conformance.provider import Invalid, MemoryEntry, MemorySection, Namespace, NamespaceSummary

from .constants import MAX_SECTION_NAMESPACES
from .values import SectionScope


def scopes_in_section(
    section: MemorySection, summaries: Iterable[NamespaceSummary]
) -> list[SectionScope]:
    """The summaries whose namespace is in `section`, by entries desc then namespace asc.

    `section` must already be normalised. Unsectioned names, other sections'
    names and names the convention cannot parse are skipped: a driver may hold
    names this vocabulary does not admit, and one of them must not make the
    section unlistable.
    """
    scopes: list[SectionScope] = []
    for summary in summaries:
        try:
            namespace = Namespace.parse(summary.namespace)
        except Invalid:
            continue
        if namespace.is_in(section):
            scopes.append(SectionScope(namespace, summary.count, summary.last_updated))
    # Size, not recency: `last_updated` is optional, and sorting on `None` would
    # make which namespaces the fan-out cap drops arbitrary.
    scopes.sort(key=lambda scope: (-scope.entries, scope.namespace))
    return scopes


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
