"""The whole Section API over a driver that retains nothing: every call Ok and empty."""

from __future__ import annotations

import asyncio

import pytest

from conformance.provider import (
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    Namespace,
    OwnedRecallOpts,
)
from conformance.sections import AsyncSections, SectionHits, Sections
from null_driver.provider import NullProvider
from tests.async_wrappers import AsyncOver

EVERY_SECTION = [*MemorySection.known(), MemorySection.custom("notes")]
EMPTY_SEARCH = SectionHits([], namespaces_searched=1, truncated=False)
EMPTY_SECTION = SectionHits([], namespaces_searched=0, truncated=False)


@pytest.mark.parametrize("section", EVERY_SECTION, ids=str)
def test_the_full_surface_succeeds_empty(section: MemorySection) -> None:
    sections = Sections(NullProvider())
    view = sections.section(section)
    written = view.put("t", "k", "v", MemoryCategory.CORE, "s", MemoryTaint.EXTERNAL_SYNC)
    assert written == Namespace.new(section, "t")
    assert view.get("t", "k") is None
    assert view.forget("t", "k") is False
    assert view.list("t") == []
    assert view.list("t", MemoryCategory.DAILY, "s") == []
    assert view.scopes() == []
    assert view.list_section() == []
    assert view.list_section(MemoryCategory.CORE, "s") == []
    recall = sections.recall()
    assert recall.in_scope(section, "t", "v", 5, OwnedRecallOpts()) == EMPTY_SEARCH
    assert recall.across_section(section, "v", 5, OwnedRecallOpts()) == EMPTY_SECTION


def test_the_named_accessors_succeed_empty() -> None:
    sections = Sections(NullProvider())
    for view in (sections.conversations(), sections.learnings(), sections.documents()):
        assert view.scopes() == []
        assert view.list_section() == []


@pytest.mark.parametrize("section", EVERY_SECTION, ids=str)
def test_the_async_surface_succeeds_empty(section: MemorySection) -> None:
    async def scenario() -> None:
        sections = AsyncSections(AsyncOver(NullProvider()))
        view = sections.section(section)
        await view.put("t", "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
        assert await view.get("t", "k") is None
        assert await view.forget("t", "k") is False
        assert await view.list("t") == []
        assert await view.scopes() == []
        assert await view.list_section() == []
        recall = sections.recall()
        assert await recall.in_scope(section, "t", "v", 5, OwnedRecallOpts()) == EMPTY_SEARCH
        assert await recall.across_section(section, "v", 5, OwnedRecallOpts()) == EMPTY_SECTION

    asyncio.run(scenario())
