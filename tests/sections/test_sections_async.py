"""The `async def` twin over an async wrapper of the reference provider."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from conformance.provider import (
    Backend,
    Invalid,
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    Namespace,
    NamespaceSummary,
    OwnedRecallOpts,
)
from conformance.sections import (
    CROSS_SESSION_FAN_OUT_CONFLICT,
    CROSS_SESSION_SECTION_CONFLICT,
    MAX_SECTION_NAMESPACES,
    NAMESPACE_FILTER_CONFLICT,
    AsyncSections,
    AsyncSectionView,
    Sections,
)
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncOver

from .fakes import Recording, Scripted

T = TypeVar("T")
NO_OPTS = OwnedRecallOpts()
LEARNING = MemorySection.LEARNING


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def _store(count: int) -> Recording:
    provider = ReferenceProvider()
    for index in range(count):
        for prefix in ("learning", "conversation"):
            for key in range(index % 3 + 1):
                provider.store(
                    f"{prefix}:s{index:03d}",
                    f"k{key}",
                    "needle " + "x" * key,
                    MemoryCategory.CORE,
                    None,
                    MemoryTaint.INTERNAL,
                )
    return Recording(provider)


def test_a_round_trip_through_the_async_surface() -> None:
    async def scenario() -> None:
        sections = AsyncSections(AsyncOver(ReferenceProvider()))
        view = sections.documents()
        written = await view.put(
            "handbook", "intro", "welcome aboard", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
        )
        assert written == Namespace.document("handbook")
        entry = await view.get("handbook", "intro")
        assert entry is not None and entry.content == "welcome aboard"
        assert await view.list("handbook") == [entry]
        assert await view.list_section() == [entry]
        assert [s.namespace for s in await view.scopes()] == [written]
        found = await sections.recall().in_scope(
            MemorySection.DOCUMENT, "handbook", "welcome", 3, NO_OPTS
        )
        assert [h.key for h in found.hits] == ["intro"]
        assert await view.forget("handbook", "intro") is True
        assert await view.get("handbook", "intro") is None

    run(scenario())


@pytest.mark.parametrize("count", [0, 3, MAX_SECTION_NAMESPACES, MAX_SECTION_NAMESPACES + 1])
def test_the_async_twin_answers_as_the_sync_surface_at_the_same_cost(count: int) -> None:
    recording = _store(count)
    sync_sections = Sections(recording)
    async_sections = AsyncSections(AsyncOver(recording))
    for section in (LEARNING, MemorySection.CONVERSATION, MemorySection.TOOL):
        recording.reset()
        expected = sync_sections.recall().across_section(section, "needle", 5, NO_OPTS)
        sync_calls = list(recording.calls)
        recording.reset()
        got = run(async_sections.recall().across_section(section, "needle", 5, NO_OPTS))
        assert got == expected
        assert recording.calls == sync_calls
        held = 0 if section == MemorySection.TOOL else count
        assert len(sync_calls) == 1 + min(held, MAX_SECTION_NAMESPACES)
        assert got.truncated is (held > MAX_SECTION_NAMESPACES)

        sync_view, async_view = sync_sections.section(section), async_sections.section(section)
        assert run(async_view.scopes()) == sync_view.scopes()
        assert run(async_view.list_section()) == sync_view.list_section()
        if held:
            recording.reset()
            one = run(async_sections.recall().in_scope(section, "s000", "needle", 5, NO_OPTS))
            assert one == sync_sections.recall().in_scope(section, "s000", "needle", 5, NO_OPTS)
            assert recording.count() == 2  # one per surface


def test_the_async_twin_refuses_the_same_calls_before_any_call() -> None:
    recording = _store(2)
    recall = AsyncSections(AsyncOver(recording)).recall()
    recording.reset()
    cases = [
        (
            recall.in_scope(LEARNING, "s000", "q", 5, OwnedRecallOpts(namespace="learning:s000")),
            NAMESPACE_FILTER_CONFLICT,
        ),
        (
            recall.across_section(LEARNING, "q", 5, OwnedRecallOpts(namespace="x")),
            NAMESPACE_FILTER_CONFLICT,
        ),
        (
            recall.in_scope(LEARNING, "s000", "q", 5, OwnedRecallOpts(cross_session=True)),
            CROSS_SESSION_SECTION_CONFLICT,
        ),
        (
            recall.across_section(
                MemorySection.CONVERSATION, "q", 5, OwnedRecallOpts(session_id="s")
            ),
            CROSS_SESSION_FAN_OUT_CONFLICT,
        ),
    ]
    for coro, message in cases:
        with pytest.raises(Invalid) as raised:
            run(coro)
        assert raised.value.message == message
    view = AsyncSectionView(AsyncOver(recording), MemorySection.custom("Bad"))
    with pytest.raises(Invalid):
        run(view.scopes())
    with pytest.raises(Invalid):
        run(view.list_section())
    with pytest.raises(Invalid):
        run(
            AsyncSectionView(AsyncOver(recording), LEARNING).put(
                "bad scope", "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
            )
        )
    assert recording.calls == []


def test_the_async_view_normalises_its_section() -> None:
    view = AsyncSections(AsyncOver(ReferenceProvider())).section(
        MemorySection.custom("conversation")
    )
    assert view.section == MemorySection.CONVERSATION
    assert view.namespace("t").as_str() == "conversation:t"


def test_an_unreadable_name_of_the_section_is_reported_by_the_async_twin_too() -> None:
    scripted = Scripted(
        [
            NamespaceSummary(namespace="learning:ok", count=1),
            NamespaceSummary(namespace="learning:[REDACTED_PII_SSN]", count=1),
        ]
    )
    sections = AsyncSections(AsyncOver(scripted))
    for call in (
        sections.learnings().scopes,
        sections.learnings().list_section,
        lambda: sections.recall().across_section(LEARNING, "needle", 5, NO_OPTS),
    ):
        with pytest.raises(Backend, match=r"'learning:\[REDACTED_PII_SSN\]'"):
            run(call())
