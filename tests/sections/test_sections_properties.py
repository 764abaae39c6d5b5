"""Properties over random stores: fan-out equals a brute-force merge; views stay in bounds."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemorySection,
    MemoryTaint,
    Namespace,
    OwnedRecallOpts,
)
from conformance.sections import MAX_SECTION_NAMESPACES, SectionHits, Sections
from reference_driver.provider import ReferenceProvider

from .fakes import Recording

SECTIONS = [
    MemorySection.CONVERSATION,
    MemorySection.LEARNING,
    MemorySection.DOCUMENT,
    MemorySection.custom("notes"),
]
SCOPES = ["a", "b", "c", "a:b", "d-1", "e/f"]
# Unsectioned names, and one that carries a section word without a scope.
LOOSE_NAMESPACES = ["global", "learning", "plain", "notes:"]
WORDS = ["needle", "Needle", "hay", "stack", "needles", "n"]

namespaces = st.one_of(
    st.builds(
        lambda s, scope: f"{s.prefix}:{scope}", st.sampled_from(SECTIONS), st.sampled_from(SCOPES)
    ),
    st.sampled_from(LOOSE_NAMESPACES),
)
rows = st.lists(
    st.tuples(
        namespaces,
        st.sampled_from(["k0", "k1", "k2", "k3"]),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
        st.sampled_from([MemoryCategory.CORE, MemoryCategory.DAILY]),
    ),
    max_size=40,
)
queries = st.sampled_from(["needle", "hay", "n", "stack needle", "absent"])
limits = st.integers(min_value=0, max_value=8)


def _provider(stored: list[tuple[str, str, str, MemoryCategory]]) -> ReferenceProvider:
    provider = ReferenceProvider()
    for namespace, key, content, category in stored:
        provider.store(namespace, key, content, category, None, MemoryTaint.INTERNAL)
    return provider


def _in_section(name: str, section: MemorySection) -> bool:
    # Deliberately not `Namespace.parse`: a plain string test, valid for these names.
    prefix = f"{section.prefix}:"
    return name.startswith(prefix) and len(name) > len(prefix)


def _brute_force(
    provider: ReferenceProvider, section: MemorySection, query: str, limit: int
) -> SectionHits:
    held = [s for s in provider.namespaces() if _in_section(s.namespace, section)]
    held.sort(key=lambda s: (-s.count, s.namespace))
    visited = held[:MAX_SECTION_NAMESPACES]
    hits: list[MemoryEntry] = []
    for summary in visited:
        hits += provider.recall(query, limit, OwnedRecallOpts(namespace=summary.namespace), None)

    def rank(entry: MemoryEntry) -> tuple[float, str, str]:
        score = entry.score
        worst = score is None or not math.isfinite(score)
        return (math.inf if worst else -(score or 0.0)), entry.namespace or "", entry.key

    return SectionHits(sorted(hits, key=rank)[:limit], len(visited), len(held) > len(visited))


@given(rows, st.sampled_from(SECTIONS), queries, limits)
def test_across_section_equals_a_brute_force_merge(
    stored: list[tuple[str, str, str, MemoryCategory]],
    section: MemorySection,
    query: str,
    limit: int,
) -> None:
    provider = _provider(stored)
    found = Sections(provider).recall().across_section(section, query, limit, OwnedRecallOpts())
    assert found == _brute_force(provider, section, query, limit)


@given(rows, st.sampled_from(SECTIONS))
def test_scopes_and_list_section_equal_a_brute_force_filter(
    stored: list[tuple[str, str, str, MemoryCategory]], section: MemorySection
) -> None:
    provider = _provider(stored)
    view = Sections(provider).section(section)
    held = sorted(
        (-s.count, s.namespace) for s in provider.namespaces() if _in_section(s.namespace, section)
    )
    assert [(-s.entries, s.namespace.as_str()) for s in view.scopes()] == held
    everything = provider.list(None, None, None)
    expected = sorted(
        (e for e in everything if _in_section(e.namespace or "", section)),
        key=lambda e: (e.namespace or "", e.key),
    )
    assert view.list_section() == expected
    assert view.list_section(MemoryCategory.DAILY) == [
        e for e in expected if e.category == MemoryCategory.DAILY
    ]


operations = st.lists(
    st.tuples(
        st.sampled_from(
            ["put", "get", "forget", "list", "scopes", "list_section", "in_scope", "across"]
        ),
        st.sampled_from([*SCOPES, "", "bad scope", "x/../y"]),
        st.sampled_from(["k0", "k1"]),
        queries,
    ),
    max_size=12,
)


@given(rows, st.sampled_from([*SECTIONS, MemorySection.custom("learning")]), operations)
def test_a_view_never_touches_a_namespace_outside_its_section(
    stored: list[tuple[str, str, str, MemoryCategory]],
    section: MemorySection,
    ops: list[tuple[str, str, str, str]],
) -> None:
    recording = Recording(_provider(stored))
    sections = Sections(recording)
    view, recall = sections.section(section), sections.recall()
    for operation, scope, key, query in ops:
        try:
            if operation == "put":
                view.put(scope, key, query, MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
            elif operation == "get":
                view.get(scope, key)
            elif operation == "forget":
                view.forget(scope, key)
            elif operation == "list":
                view.list(scope)
            elif operation == "scopes":
                view.scopes()
            elif operation == "list_section":
                view.list_section()
            elif operation == "in_scope":
                recall.in_scope(section, scope, query, 3, OwnedRecallOpts())
            else:
                recall.across_section(section, query, 3, OwnedRecallOpts())
        except Invalid:
            assert scope in ("", "bad scope", "x/../y")
    for call in recording.calls:
        assert call.method in ("store", "get", "forget", "list", "namespaces", "recall")
        if call.method == "namespaces":
            continue
        name = call.namespace()
        assert name is not None, f"{call.method} without a namespace"
        assert Namespace.parse(name).is_in(section.normalised()), call
