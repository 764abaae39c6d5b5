"""The Section API over the reference provider: round trip, enumeration, fan-out, cost."""

from __future__ import annotations

import math

import pytest

from conformance.provider import (
    SCOPE_UNAPPLIED,
    Backend,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemorySection,
    MemoryTaint,
    Namespace,
    NamespaceSummary,
    Other,
    OwnedRecallOpts,
    SourceScope,
    Timestamp,
    Unavailable,
)
from conformance.sections import (
    MAX_SECTION_NAMESPACES,
    SectionHits,
    Sections,
    SectionScope,
)
from reference_driver.provider import ReferenceProvider

from .fakes import Recording, Scripted, hit

LEARNING = MemorySection.LEARNING
NO_OPTS = OwnedRecallOpts()


def _store(provider: ReferenceProvider, namespace: str, key: str, content: str) -> None:
    provider.store(namespace, key, content, MemoryCategory.CORE, None, MemoryTaint.INTERNAL)


def _mixed_store() -> ReferenceProvider:
    """Every section holds matching content, plus names the convention does not section."""
    provider = ReferenceProvider()
    for prefix in ("conversation", "learning", "document", "tool", "notes"):
        for scope, count in (("alpha", 1), ("beta", 3), ("gamma", 2)):
            for index in range(count):
                _store(provider, f"{prefix}:{scope}", f"k{index}", f"needle {prefix} {index}")
    for unsectioned in ("global", "learning", "learning:", "Learning:x", "bad name:x"):
        _store(provider, unsectioned, "k", "needle elsewhere")
    return provider


# -- round trip --------------------------------------------------------------------------


def test_a_conversation_round_trips_through_the_public_api() -> None:
    sections = Sections(ReferenceProvider())
    view = sections.conversations()
    written = view.put(
        "thread-8f21",
        "turn-1",
        "we agreed to ship on the 14th",
        MemoryCategory.CORE,
        "s1",
        MemoryTaint.EXTERNAL_SYNC,
    )
    assert written == Namespace.conversation("thread-8f21")
    assert written.as_str() == "conversation:thread-8f21"

    entry = view.get("thread-8f21", "turn-1")
    assert entry is not None
    assert (entry.namespace, entry.key, entry.content) == (
        "conversation:thread-8f21",
        "turn-1",
        "we agreed to ship on the 14th",
    )
    assert (entry.category, entry.session_id, entry.taint) == (
        MemoryCategory.CORE,
        "s1",
        MemoryTaint.EXTERNAL_SYNC,
    )
    assert view.list("thread-8f21") == [entry]
    assert view.list("thread-8f21", MemoryCategory.DAILY) == []
    assert view.list("thread-8f21", None, "s2") == []
    assert view.list_section() == [entry]
    assert view.scopes() == [SectionScope(written, 1, None)]
    assert view.scopes()[0].scope() == "thread-8f21"

    found = sections.recall().in_scope(
        MemorySection.CONVERSATION, "thread-8f21", "ship", 5, NO_OPTS
    )
    assert [h.key for h in found.hits] == ["turn-1"]
    assert (found.namespaces_searched, found.truncated) == (1, False)
    across = sections.recall().across_section(MemorySection.CONVERSATION, "ship", 5, NO_OPTS)
    assert across.hits == found.hits

    # Other sections do not see it.
    assert sections.learnings().get("thread-8f21", "turn-1") is None
    assert sections.learnings().scopes() == []

    assert view.forget("thread-8f21", "turn-1") is True
    assert view.get("thread-8f21", "turn-1") is None
    assert view.forget("thread-8f21", "turn-1") is False
    assert view.scopes() == []


def test_put_upserts_rather_than_duplicating() -> None:
    view = Sections(ReferenceProvider()).learnings()
    view.put("rust", "k", "first", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    view.put("rust", "k", "second", MemoryCategory.DAILY, None, MemoryTaint.INTERNAL)
    [entry] = view.list("rust")
    assert (entry.content, entry.category) == ("second", MemoryCategory.DAILY)


# -- scopes and list_section -------------------------------------------------------------


def test_scopes_keep_only_the_section_sorted_by_size_then_name() -> None:
    scopes = Sections(_mixed_store()).learnings().scopes()
    assert [(s.namespace.as_str(), s.entries) for s in scopes] == [
        ("learning:beta", 3),
        ("learning:gamma", 2),
        ("learning:alpha", 1),
    ]
    assert all(s.namespace.is_in(LEARNING) for s in scopes)


def test_scopes_break_ties_by_namespace_and_keep_colons_in_the_scope() -> None:
    provider = ReferenceProvider()
    for scope in ("b", "a:z", "c", "a"):
        _store(provider, f"tool:{scope}", "k", "v")
    scopes = Sections(provider).section(MemorySection.TOOL).scopes()
    assert [s.scope() for s in scopes] == ["a", "a:z", "b", "c"]


UNREADABLE = [
    NamespaceSummary(namespace="learning:ok", count=1),
    NamespaceSummary(namespace="learning:has space", count=9),
    NamespaceSummary(namespace="learning:a/../b", count=9),
]


def test_names_of_the_section_that_do_not_parse_are_reported_not_skipped() -> None:
    sections = Sections(Scripted(UNREADABLE, hits={"learning:ok": [hit("learning:ok", "k", 1)]}))
    expected = (
        "backend failed: the driver reports namespaces of the learning section that are not "
        "valid namespaces, so no call can address them: 'learning:has space' (namespace "
        "contains disallowed character ' '); 'learning:a/../b' (namespace must not contain "
        "a '..' segment)"
    )
    for call in (
        sections.learnings().scopes,
        sections.learnings().list_section,
        lambda: sections.recall().across_section(LEARNING, "needle", 5, NO_OPTS),
    ):
        with pytest.raises(Backend) as caught:
            call()
        assert str(caught.value) == expected


def test_unreadable_names_of_other_sections_do_not_stop_this_one() -> None:
    scripted = Scripted(
        [
            *UNREADABLE,
            NamespaceSummary(namespace="", count=9),
            NamespaceSummary(namespace="bad name", count=9),
            NamespaceSummary(namespace="learnings:has space", count=9),
        ]
    )
    assert Sections(scripted).documents().scopes() == []
    with pytest.raises(Backend, match="learnings:has space"):
        Sections(scripted).section(MemorySection.custom("learnings")).scopes()


def test_many_unreadable_names_are_counted() -> None:
    names = [NamespaceSummary(namespace=f"tool:bad {n}", count=1) for n in range(5)]
    with pytest.raises(Backend, match=r"'tool:bad 2' \(.*\); and 2 more$"):
        Sections(Scripted(names)).section(MemorySection.TOOL).scopes()


def test_a_scope_carrying_personal_data_is_enumerable() -> None:
    """The issue's scenario on the reference store, which keeps names verbatim."""
    sections = Sections(ReferenceProvider())
    view = sections.conversations()
    written = view.put(
        "thread-123-45-6789",
        "turn-1",
        "needle",
        MemoryCategory.CONVERSATION,
        None,
        MemoryTaint.INTERNAL,
    )
    assert view.get("thread-123-45-6789", "turn-1") is not None
    assert [s.namespace for s in view.scopes()] == [written]
    assert [e.key for e in view.list_section()] == ["turn-1"]
    found = sections.recall().across_section(MemorySection.CONVERSATION, "needle", 5, NO_OPTS)
    assert [h.key for h in found.hits] == ["turn-1"]


def test_scopes_carry_last_updated_through() -> None:
    at = "2025-05-06T07:08:09.123456789Z"
    scripted = Scripted([NamespaceSummary(namespace="learning:a", count=2, last_updated=at)])
    assert Sections(scripted).learnings().scopes() == [
        SectionScope(Namespace.learning("a"), 2, Timestamp.parse(at))
    ]


def test_list_section_lists_every_scope_sorted_by_namespace_then_key() -> None:
    provider = ReferenceProvider()
    for index in range(MAX_SECTION_NAMESPACES + 6):
        for key in ("z", "a"):
            _store(provider, f"learning:s{index:03d}", key, "v")
    _store(provider, "document:s000", "a", "v")
    recording = Recording(provider)
    entries = Sections(recording).learnings().list_section()
    assert len(entries) == 2 * (MAX_SECTION_NAMESPACES + 6)  # uncapped
    assert [(e.namespace, e.key) for e in entries] == sorted((e.namespace, e.key) for e in entries)
    assert {e.namespace for e in entries} == {
        f"learning:s{index:03d}" for index in range(MAX_SECTION_NAMESPACES + 6)
    }
    assert recording.count("namespaces") == 1
    assert recording.count("list") == MAX_SECTION_NAMESPACES + 6
    assert recording.count() == 1 + MAX_SECTION_NAMESPACES + 6


def test_list_section_passes_the_filters_to_every_list() -> None:
    provider = ReferenceProvider()
    provider.store("learning:a", "x", "v", MemoryCategory.CORE, "s1", MemoryTaint.INTERNAL)
    provider.store("learning:a", "y", "v", MemoryCategory.DAILY, "s1", MemoryTaint.INTERNAL)
    provider.store("learning:b", "z", "v", MemoryCategory.CORE, "s2", MemoryTaint.INTERNAL)
    view = Sections(provider).learnings()
    assert [e.key for e in view.list_section(MemoryCategory.CORE)] == ["x", "z"]
    assert [e.key for e in view.list_section(None, "s1")] == ["x", "y"]
    assert [e.key for e in view.list_section(MemoryCategory.CORE, "s2")] == ["z"]


# -- across_section ----------------------------------------------------------------------


@pytest.mark.parametrize("section", [*MemorySection.known(), MemorySection.custom("notes")])
def test_across_section_returns_only_its_own_section(section: MemorySection) -> None:
    provider = _mixed_store()
    found = Sections(provider).recall().across_section(section, "needle", 100, NO_OPTS)
    held = Sections(provider).section(section).scopes()
    assert all(Namespace.parse(h.namespace or "").is_in(section) for h in found.hits)
    assert len(found.hits) == sum(s.entries for s in held)
    assert found.namespaces_searched == len(held)
    assert found.truncated is False


def test_across_section_orders_by_score_then_namespace_then_key() -> None:
    provider = ReferenceProvider()
    # The reference scores len(query) / len(content): shorter content ranks higher.
    _store(provider, "learning:b", "k2", "needle xx")
    _store(provider, "learning:a", "k9", "needle xx")
    _store(provider, "learning:a", "k1", "needle")
    _store(provider, "learning:c", "k1", "needle xxxxxxxx")
    _store(provider, "learning:b", "k1", "needle xx")
    found = Sections(provider).recall().across_section(LEARNING, "needle", 10, NO_OPTS)
    assert [(h.namespace, h.key) for h in found.hits] == [
        ("learning:a", "k1"),
        ("learning:a", "k9"),
        ("learning:b", "k1"),
        ("learning:b", "k2"),
        ("learning:c", "k1"),
    ]
    scores = [h.score or 0.0 for h in found.hits]
    assert all(h.score is not None for h in found.hits)
    assert scores == sorted(scores, reverse=True)
    assert found.namespaces_searched == 3


def test_across_section_asks_each_namespace_for_the_full_limit_then_truncates() -> None:
    provider = ReferenceProvider()
    for scope in ("a", "b", "c"):
        for index in range(3):
            _store(provider, f"learning:{scope}", f"k{index}", "needle " + "x" * (index + 1))
    recording = Recording(provider)
    found = Sections(recording).recall().across_section(LEARNING, "needle", 2, NO_OPTS)
    assert [(h.namespace, h.key) for h in found.hits] == [
        ("learning:a", "k0"),
        ("learning:b", "k0"),
    ]
    assert [call.args[1] for call in recording.of("recall")] == [2, 2, 2]
    assert found.truncated is False


def test_across_section_on_an_empty_section_searches_nothing() -> None:
    recording = Recording(_mixed_store())
    found = Sections(recording).recall().across_section(MemorySection.PROFILE, "needle", 5, NO_OPTS)
    assert found == SectionHits([], 0, False)
    assert [c.method for c in recording.calls] == ["namespaces"]


def _scopes(count: int, section: str = "learning") -> ReferenceProvider:
    provider = ReferenceProvider()
    for index in range(count):
        # Sizes descend with the index, so scopes() order is the index order.
        for key in range(1 if index else 2):
            _store(provider, f"{section}:s{index:03d}", f"k{key}", "needle")
    return provider


@pytest.mark.parametrize(
    ("count", "searched", "truncated"),
    [
        (0, 0, False),
        (1, 1, False),
        (63, 63, False),
        (64, 64, False),
        (65, 64, True),
        (130, 64, True),
    ],
)
def test_the_cap_sets_truncated_only_when_a_namespace_was_skipped(
    count: int, searched: int, truncated: bool
) -> None:
    recording = Recording(_scopes(count))
    found = Sections(recording).recall().across_section(LEARNING, "needle", 1000, NO_OPTS)
    assert (found.namespaces_searched, found.truncated) == (searched, truncated)
    assert len(found.hits) == (searched + 1 if searched else 0)
    # Cost: one enumeration plus one recall per visited namespace, nothing else.
    assert [c.method for c in recording.calls] == ["namespaces"] + ["recall"] * searched


def test_the_fan_out_visits_in_scopes_order_with_the_exact_namespace() -> None:
    provider = _scopes(MAX_SECTION_NAMESPACES + 1)
    _store(provider, "learning:s064", "extra1", "needle")
    _store(provider, "learning:s064", "extra2", "needle")  # now the largest scope
    recording = Recording(provider)
    sections = Sections(recording)
    order = [s.namespace.as_str() for s in sections.learnings().scopes()]
    assert order[0] == "learning:s064"
    recording.reset()
    found = sections.recall().across_section(LEARNING, "needle", 1, NO_OPTS)
    visited = [c.namespace() for c in recording.of("recall")]
    assert visited == order[:MAX_SECTION_NAMESPACES]
    assert order[MAX_SECTION_NAMESPACES] not in visited
    assert found.truncated is True
    for call in recording.of("recall"):
        assert call.args[0] == "needle"
        assert call.args[2] == OwnedRecallOpts(namespace=call.namespace())


def test_in_scope_costs_exactly_one_call_and_keeps_driver_order() -> None:
    provider = _mixed_store()
    recording = Recording(provider)
    opts = OwnedRecallOpts(category=MemoryCategory.CORE, min_score=0.1)
    found = Sections(recording).recall().in_scope(LEARNING, "beta", "needle", 2, opts)
    [call] = recording.calls
    assert call.method == "recall"
    assert call.args[:2] == ("needle", 2)
    assert call.args[2] == OwnedRecallOpts(
        namespace="learning:beta", category=MemoryCategory.CORE, min_score=0.1
    )
    assert found.hits == provider.recall("needle", 2, call.args[2], None)
    assert (found.namespaces_searched, found.truncated) == (1, False)


def test_the_other_options_reach_every_fan_out_recall_unchanged() -> None:
    recording = Recording(_mixed_store())
    opts = OwnedRecallOpts(category=MemoryCategory.DAILY, min_score=0.5)
    Sections(recording).recall().across_section(LEARNING, "needle", 3, opts)
    for call in recording.of("recall"):
        assert call.args[2] == opts.model_copy(update={"namespace": call.namespace()})


def test_sources_are_passed_through_unchanged() -> None:
    scripted = Scripted(
        [NamespaceSummary(namespace="learning:a", count=1)],
        {"learning:a": [hit("learning:a", "k", 0.5)]},
    )
    recording = Recording(scripted)
    sources = SourceScope(allow=["src-1"])
    recall = Sections(recording).recall()
    recall.in_scope(LEARNING, "a", "q", 3, NO_OPTS, sources)
    recall.across_section(LEARNING, "q", 3, NO_OPTS, sources)
    recall.across_section(LEARNING, "q", 3, NO_OPTS)
    assert [c.args[3] for c in recording.of("recall")] == [sources, sources, None]
    assert recording.of("recall")[0].args[3] is sources


def test_the_drivers_refusal_of_sources_is_passed_through() -> None:
    recall = Sections(_mixed_store()).recall()
    with pytest.raises(Invalid) as raised:
        recall.across_section(LEARNING, "needle", 3, NO_OPTS, SourceScope(allow=[]))
    assert raised.value.message == SCOPE_UNAPPLIED
    with pytest.raises(Invalid):
        recall.in_scope(LEARNING, "beta", "needle", 3, NO_OPTS, SourceScope(allow=[]))


def test_any_recall_error_fails_the_whole_call() -> None:
    scripted = Scripted(
        [NamespaceSummary(namespace=f"learning:{s}", count=1) for s in "abc"],
        {f"learning:{s}": [hit(f"learning:{s}", "k", 0.5)] for s in "abc"},
        fail={"learning:b": lambda: Unavailable("backend busy")},
    )
    with pytest.raises(Unavailable):
        Sections(scripted).recall().across_section(LEARNING, "q", 5, NO_OPTS)


def test_an_enumeration_error_fails_every_enumerating_call() -> None:
    class Broken(Scripted):
        def namespaces(self) -> list[NamespaceSummary]:
            raise Other("enumeration failed")

    sections = Sections(Broken([]))
    with pytest.raises(Other):
        sections.learnings().scopes()
    with pytest.raises(Other):
        sections.learnings().list_section()
    with pytest.raises(Other):
        sections.recall().across_section(LEARNING, "q", 5, NO_OPTS)


def test_absent_and_non_finite_scores_rank_last_by_address() -> None:
    hits = {
        "learning:a": [
            hit("learning:a", "nan", math.nan),
            hit("learning:a", "low", 0.1),
            hit("learning:a", "none", None),
        ],
        "learning:b": [
            hit("learning:b", "inf", math.inf),
            hit("learning:b", "high", 0.9),
            hit("learning:b", "neg", -math.inf),
            hit("learning:b", "none", None),
            hit("learning:b", "low", 0.1),
        ],
    }
    scripted = Scripted(
        [NamespaceSummary(namespace=ns, count=len(h)) for ns, h in hits.items()], hits
    )
    found = Sections(scripted).recall().across_section(LEARNING, "q", 100, NO_OPTS)
    assert [(h.namespace, h.key) for h in found.hits] == [
        ("learning:b", "high"),
        ("learning:a", "low"),
        ("learning:b", "low"),
        ("learning:a", "nan"),
        ("learning:a", "none"),
        ("learning:b", "inf"),
        ("learning:b", "neg"),
        ("learning:b", "none"),
    ]
    # Each namespace returns its first three in driver order; the merge then cuts to three.
    cut = Sections(scripted).recall().across_section(LEARNING, "q", 3, NO_OPTS)
    assert [(h.namespace, h.key) for h in cut.hits] == [
        ("learning:b", "high"),
        ("learning:a", "low"),
        ("learning:a", "nan"),
    ]


def test_a_hit_without_a_namespace_sorts_before_named_ones_on_a_tie() -> None:
    unnamed = hit("learning:b", "k", 0.5).model_copy(update={"namespace": None})
    scripted = Scripted(
        [NamespaceSummary(namespace="learning:a", count=1)],
        {"learning:a": [hit("learning:a", "k", 0.5), unnamed]},
    )
    found = Sections(scripted).recall().across_section(LEARNING, "q", 5, NO_OPTS)
    assert [h.namespace for h in found.hits] == [None, "learning:a"]


# -- determinism -------------------------------------------------------------------------


def _everything(provider: ReferenceProvider) -> list[object]:
    sections = Sections(provider)
    results: list[object] = []
    for section in (*MemorySection.known(), MemorySection.custom("notes")):
        view = sections.section(section)
        results += [view.scopes(), view.list_section()]
        results.append(sections.recall().across_section(section, "needle", 4, NO_OPTS))
    return results


def test_every_ordering_is_deterministic_on_a_fixed_store() -> None:
    provider = _mixed_store()
    assert _everything(provider) == _everything(provider)
    # The same store built in the opposite order answers identically.
    rebuilt = ReferenceProvider()
    rows: list[MemoryEntry] = provider.list(None, None, None)
    for entry in reversed(rows):
        rebuilt.store(
            entry.namespace or "",
            entry.key,
            entry.content,
            entry.category,
            entry.session_id,
            entry.taint,
        )
    assert _everything(rebuilt) == _everything(provider)


def test_the_handles_hold_only_the_provider_and_section() -> None:
    provider = ReferenceProvider()
    sections = Sections(provider)
    view, recall = sections.section(MemorySection.custom("conversation")), sections.recall()
    for handle in (sections, view, recall):
        assert not hasattr(handle, "__dict__")
    assert repr(sections) == "Sections(driver_id='reference')"
    assert repr(view) == "SectionView(section=MemorySection.CONVERSATION, driver_id='reference')"
    assert repr(recall) == "SectionRecall(driver_id='reference')"
    # Stateless: a second handle sees what the first wrote.
    view.put("t", "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    assert Sections(provider).conversations().get("t", "k") is not None
