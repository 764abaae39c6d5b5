"""Facet values and narrowing (contract B7)."""

from __future__ import annotations

import pytest

from conformance.engine import (
    Facet,
    InvalidRequest,
    ItemKind,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    SourceKind,
    SourceRef,
    ToolCallRef,
)

FULL = MemoryMeta(
    namespace=Namespace.parse("team:acme/agent:writer"),
    workspace="w",
    folder="/f",
    file_path="/f/a.md",
    language="en",
    repo="o/r",
    url="https://x.test",
    thread_id="t1",
    agent_id="writer",
    tool_call=ToolCallRef(name="grep", id="c1"),
    source=SourceRef(kind=SourceKind.FILE, id="src"),
    tags=["a", "b"],
)


def test_there_are_fourteen_facets_in_contract_order() -> None:
    assert [facet.value for facet in Facet] == [
        "kind",
        "source",
        "source_id",
        "workspace",
        "folder",
        "file_path",
        "language",
        "repo",
        "url",
        "thread",
        "agent",
        "tool_call",
        "tag",
        "namespace",
    ]


@pytest.mark.parametrize(
    ("facet", "full", "empty"),
    [
        (Facet.KIND, ["learning"], ["learning"]),
        (Facet.SOURCE, ["file"], ["agent"]),
        (Facet.SOURCE_ID, ["src"], []),
        (Facet.WORKSPACE, ["w"], []),
        (Facet.FOLDER, ["/f"], []),
        (Facet.FILE_PATH, ["/f/a.md"], []),
        (Facet.LANGUAGE, ["en"], []),
        (Facet.REPO, ["o/r"], []),
        (Facet.URL, ["https://x.test"], []),
        (Facet.THREAD, ["t1"], []),
        (Facet.AGENT, ["writer"], []),
        (Facet.TOOL_CALL, ["grep"], []),
        (Facet.TAG, ["a", "b"], []),
        (Facet.NAMESPACE, ["team:acme/agent:writer"], ["root"]),
    ],
)
def test_values(facet: Facet, full: list[str], empty: list[str]) -> None:
    assert facet.values(ItemKind.LEARNING, FULL) == full
    assert facet.values(ItemKind.LEARNING, MemoryMeta()) == empty


@pytest.mark.parametrize(
    ("facet", "value", "expected"),
    [
        (Facet.KIND, "conversation", MetaFilter(kinds=[ItemKind.CONVERSATION])),
        (Facet.SOURCE, "folder", MetaFilter(sources=[SourceKind.FOLDER])),
        (Facet.SOURCE_ID, "s", MetaFilter(source_id="s")),
        (Facet.WORKSPACE, "w", MetaFilter(workspace="w")),
        (Facet.FOLDER, "/notes", MetaFilter(folder="/notes")),
        (Facet.FILE_PATH, "/notes/a.md", MetaFilter(file_path="/notes/a.md")),
        (Facet.LANGUAGE, "en", MetaFilter(language="en")),
        (Facet.REPO, "o/r", MetaFilter(repo="o/r")),
        (Facet.URL, "u", MetaFilter(url="u")),
        (Facet.THREAD, "t", MetaFilter(thread_id="t")),
        (Facet.AGENT, "a", MetaFilter(agent_id="a")),
        (Facet.TOOL_CALL, "grep", MetaFilter(tool_call="grep")),
        (Facet.TAG, "x", MetaFilter(tags_any=["x"])),
        (
            Facet.NAMESPACE,
            "team:acme",
            MetaFilter(reach=Reach.exact(Namespace.parse("team:acme"))),
        ),
        (Facet.NAMESPACE, "root", MetaFilter(reach=Reach.exact(Namespace.ROOT))),
    ],
)
def test_narrow_sets_the_one_field(facet: Facet, value: str, expected: MetaFilter) -> None:
    narrowed = MetaFilter()
    facet.narrow(narrowed, value)
    assert narrowed == expected


def test_narrow_replaces_the_targeted_field_and_leaves_others() -> None:
    narrowed = MetaFilter(
        kinds=[ItemKind.DOCUMENT, ItemKind.LEARNING],
        tags_any=["old", "older"],
        reach=Reach.of(Namespace.parse("agent:a")),
        workspace="w",
    )
    Facet.KIND.narrow(narrowed, "learning")
    Facet.TAG.narrow(narrowed, "new")
    Facet.NAMESPACE.narrow(narrowed, "agent:b")
    assert narrowed == MetaFilter(
        kinds=[ItemKind.LEARNING],
        tags_any=["new"],
        reach=Reach.exact(Namespace.parse("agent:b")),
        workspace="w",
    )


@pytest.mark.parametrize("facet", list(Facet))
@pytest.mark.parametrize("blank", ["", "  ", "\t\n"])
def test_narrow_refuses_a_blank_value(facet: Facet, blank: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        facet.narrow(MetaFilter(), blank)
    assert caught.value.message == f"a `{facet.value}` value must not be blank"


@pytest.mark.parametrize(
    ("facet", "value", "message"),
    [
        (Facet.KIND, "note", "`note` is not an item kind"),
        (Facet.KIND, "Document", "`Document` is not an item kind"),
        (Facet.SOURCE, "github", "`github` is not a source kind"),
        (Facet.NAMESPACE, "team", "namespace segment `team` must be written kind:id"),
        (Facet.NAMESPACE, "crew:a", "`crew` is not a namespace segment kind"),
    ],
)
def test_narrow_refuses_unknown_values(facet: Facet, value: str, message: str) -> None:
    narrowed = MetaFilter(workspace="w")
    with pytest.raises(InvalidRequest) as caught:
        facet.narrow(narrowed, value)
    assert caught.value.message == message
    assert narrowed == MetaFilter(workspace="w")


def test_a_narrowed_folder_admits_its_subfolders() -> None:
    narrowed = MetaFilter()
    Facet.FOLDER.narrow(narrowed, "/notes")
    assert narrowed.matches(ItemKind.DOCUMENT, MemoryMeta(folder="/notes/2025"))
    assert not narrowed.matches(ItemKind.DOCUMENT, MemoryMeta(folder="/notes2"))
