"""MetaFilter matching (contract B5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from conformance.engine import (
    ItemKind,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    SourceKind,
    SourceRef,
    ToolCallRef,
    TurnRange,
)

DOC = ItemKind.DOCUMENT
T0 = datetime(2001, 1, 1, tzinfo=UTC)


def admits(
    filter_fields: dict[str, Any], meta_fields: dict[str, Any], kind: ItemKind = DOC
) -> bool:
    return MetaFilter(**filter_fields).matches(kind, MemoryMeta(**meta_fields))


def test_the_empty_filter_admits_everything() -> None:
    assert MetaFilter().is_empty()
    assert MetaFilter().matches(DOC, MemoryMeta())
    full = MemoryMeta(namespace=Namespace.parse("agent:a"), workspace="w", tags=["t"])
    for kind in ItemKind:
        assert MetaFilter().matches(kind, full)


def test_a_filter_with_only_a_reach_is_not_empty() -> None:
    assert not MetaFilter(reach=Reach.default()).is_empty()
    assert not MetaFilter(tags_any=["x"]).is_empty()
    assert not MetaFilter(kinds=[DOC]).is_empty()


def test_kinds() -> None:
    only_learnings = MetaFilter.for_kinds(ItemKind.LEARNING)
    assert only_learnings == MetaFilter(kinds=[ItemKind.LEARNING])
    assert only_learnings.admits_kind(ItemKind.LEARNING)
    assert not only_learnings.admits_kind(DOC)
    assert not only_learnings.matches(DOC, MemoryMeta())
    both = MetaFilter.for_kinds(DOC, ItemKind.CONVERSATION)
    assert both.matches(ItemKind.CONVERSATION, MemoryMeta())
    assert MetaFilter().admits_kind(DOC)


def test_reach_none_reads_every_namespace_and_default_reads_only_root() -> None:
    agent = {"namespace": Namespace.parse("agent:a")}
    assert admits({}, agent)
    assert not admits({"reach": Reach.default()}, agent)
    assert admits({"reach": Reach.default()}, {})
    assert admits({"reach": Reach.subtree(Namespace.ROOT)}, agent)
    assert not admits({"reach": Reach.exact(Namespace.parse("agent:b"))}, agent)


@pytest.mark.parametrize(
    "field", ["workspace", "language", "repo", "commit", "url", "thread_id", "agent_id"]
)
def test_exact_fields(field: str) -> None:
    assert admits({field: "v"}, {field: "v"})
    assert not admits({field: "v"}, {field: "V"})
    assert not admits({field: "v"}, {field: "v/more"})
    assert not admits({field: "v"}, {}), "an item without the field never matches it"
    assert admits({}, {field: "v"})


@pytest.mark.parametrize("field", ["folder", "file_path"])
@pytest.mark.parametrize(
    ("wanted", "held", "expected"),
    [
        ("/a/b", "/a/b", True),
        ("/a/b", "/a/b/c.rs", True),
        ("/a/b", "/a/b/c/d.rs", True),
        ("/a/b", "/a/bc", False),
        ("/a/b", "/a/bc/d", False),
        ("/a/b", "/a", False),
        ("/a/b/", "/a/b", True),
        ("/a/b/", "/a/b/c", True),
        ("/a/b//", "/a/b/c", True),
        ("/a/b/", "/a/bc", False),
        ("/", "/anything/at/all", True),
        ("/", "relative", False),
        ("a", "a/b", True),
        ("a", "ab", False),
        ("/a/b", "/A/b", False),
        ("/a/b", "/a/b/", True),
    ],
)
def test_path_fields_match_by_prefix_on_a_slash_boundary(
    field: str, wanted: str, held: str, expected: bool
) -> None:
    assert admits({field: wanted}, {field: held}) is expected


@pytest.mark.parametrize("field", ["folder", "file_path"])
def test_path_fields_need_a_value(field: str) -> None:
    assert not admits({field: "/a"}, {})


def test_turns_match_the_exact_range() -> None:
    four_five = TurnRange(first=4, last=5)
    assert admits({"turns": four_five}, {"turns": TurnRange(first=4, last=5)})
    assert not admits({"turns": four_five}, {"turns": TurnRange(first=4, last=6)})
    assert not admits({"turns": four_five}, {})


def test_tool_call_matches_the_tool_name() -> None:
    assert admits({"tool_call": "grep"}, {"tool_call": ToolCallRef(name="grep", id="c1")})
    assert not admits({"tool_call": "c1"}, {"tool_call": ToolCallRef(name="grep", id="c1")})
    assert not admits({"tool_call": "grep"}, {})


def test_source_id_matches_the_source_id() -> None:
    assert admits({"source_id": "s"}, {"source": SourceRef(kind=SourceKind.FILE, id="s")})
    assert not admits({"source_id": "s"}, {"source": SourceRef(kind=SourceKind.FILE)})


def test_sources_match_the_source_kind() -> None:
    file_meta = {"source": SourceRef(kind=SourceKind.FILE)}
    assert admits({"sources": [SourceKind.FILE, SourceKind.FOLDER]}, file_meta)
    assert not admits({"sources": [SourceKind.FOLDER]}, file_meta)
    assert admits({"sources": [SourceKind.AGENT]}, {}), "the default source kind is agent"


def test_tags_any_needs_one_shared_tag() -> None:
    assert admits({"tags_any": ["none", "t"]}, {"tags": ["t", "u"]})
    assert not admits({"tags_any": ["none"]}, {"tags": ["t"]})
    assert not admits({"tags_any": ["t"]}, {})


class TestObservedWindow:
    def test_lower_bound_is_inclusive(self) -> None:
        assert admits({"observed_after": T0}, {"observed_at": T0})
        assert not admits({"observed_after": T0}, {"observed_at": T0 - timedelta(microseconds=1)})

    def test_upper_bound_is_exclusive(self) -> None:
        assert not admits({"observed_before": T0}, {"observed_at": T0})
        assert admits({"observed_before": T0}, {"observed_at": T0 - timedelta(microseconds=1)})

    def test_both_bounds(self) -> None:
        window = {
            "observed_after": datetime(2000, 1, 1, tzinfo=UTC),
            "observed_before": datetime(2002, 1, 1, tzinfo=UTC),
        }
        assert admits(window, {"observed_at": T0})
        assert not admits(window, {"observed_at": datetime(2002, 1, 1, tzinfo=UTC)})
        assert not admits(window, {"observed_at": datetime(1999, 12, 31, tzinfo=UTC)})

    def test_an_item_without_observed_at_never_matches_a_window(self) -> None:
        assert not admits({"observed_after": T0}, {})
        assert not admits({"observed_before": T0}, {})

    def test_bounds_compare_instants_across_offsets(self) -> None:
        plus_two = datetime(2001, 1, 1, 2, tzinfo=timezone(timedelta(hours=2)))
        assert admits({"observed_after": plus_two}, {"observed_at": T0})


def test_every_set_field_must_hold() -> None:
    meta = {"workspace": "w", "language": "en", "tags": ["t"]}
    assert admits({"workspace": "w", "language": "en", "tags_any": ["t"]}, meta)
    assert not admits({"workspace": "w", "language": "fr", "tags_any": ["t"]}, meta)


def test_wire_form_omits_unset_fields_in_contract_order() -> None:
    assert MetaFilter().model_dump(mode="json") == {}
    full = MetaFilter(
        reach=Reach.exact(Namespace.parse("agent:a")),
        workspace="w",
        folder="/f",
        file_path="/f/a",
        language="en",
        repo="o/r",
        commit="c",
        url="u",
        thread_id="t",
        turns=TurnRange(first=1, last=2),
        agent_id="a",
        tool_call="grep",
        source_id="s",
        kinds=[DOC],
        sources=[SourceKind.FILE],
        tags_any=["x"],
        observed_after=T0,
        observed_before=T0 + timedelta(days=1),
    )
    wire = full.model_dump(mode="json")
    assert list(wire) == [
        "reach",
        "workspace",
        "folder",
        "file_path",
        "language",
        "repo",
        "commit",
        "url",
        "thread_id",
        "turns",
        "agent_id",
        "tool_call",
        "source_id",
        "kinds",
        "sources",
        "tags_any",
        "observed_after",
        "observed_before",
    ]
    assert wire["reach"] == {"at": "agent:a", "inherit": False, "descendants": False}
    assert wire["observed_after"] == "2001-01-01T00:00:00Z"
    assert MetaFilter.model_validate(wire) == full
