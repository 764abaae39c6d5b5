"""Namespaces, segments and Reach (contract B4)."""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.engine import (
    MAX_DEPTH,
    InvalidRequest,
    MemoryMeta,
    Namespace,
    Reach,
    Segment,
    SegmentKind,
)
from tests.engine.engine_strategies import namespaces


def ns(text: str) -> Namespace:
    return Namespace.parse(text)


ID_MESSAGE = "must be 1 to 128 characters of A-Z, a-z, 0-9, `_` or `-`"


class TestParseAndPrint:
    def test_root_is_written_root_and_parses_from_empty_or_root(self) -> None:
        assert str(Namespace.ROOT) == "root"
        for text in ("", "   ", "root", "  root\n"):
            assert Namespace.parse(text) == Namespace.ROOT
        assert Namespace.ROOT.is_root
        assert Namespace.ROOT.depth == 0
        assert Namespace.ROOT.segments == ()
        assert Namespace.ROOT.parent is None

    def test_path_round_trips(self) -> None:
        node = ns(" team:acme/agent:writer ")
        assert str(node) == "team:acme/agent:writer"
        assert node.segments == (
            Segment(SegmentKind.TEAM, "acme"),
            Segment(SegmentKind.AGENT, "writer"),
        )
        assert node.depth == 2
        assert not node.is_root

    def test_every_prefix_parses(self) -> None:
        text = "agent:a/team:b/user:c/ws:d/project:e/source:f"
        kinds = [segment.kind for segment in ns(text).segments]
        assert kinds == [
            SegmentKind.AGENT,
            SegmentKind.TEAM,
            SegmentKind.USER,
            SegmentKind.WORKSPACE,
            SegmentKind.PROJECT,
            SegmentKind.SOURCE,
        ]
        assert str(ns(text)) == text

    def test_workspace_serde_form_differs_from_its_prefix(self) -> None:
        assert SegmentKind.WORKSPACE.value == "workspace"
        assert SegmentKind.WORKSPACE.prefix == "ws"
        assert SegmentKind.from_prefix("ws") is SegmentKind.WORKSPACE
        assert [kind.prefix for kind in SegmentKind] == [
            "agent",
            "team",
            "user",
            "ws",
            "project",
            "source",
        ]

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("writer", "namespace segment `writer` must be written kind:id"),
            ("team:acme/", "namespace segment `` must be written kind:id"),
            ("team:acme//agent:x", "namespace segment `` must be written kind:id"),
            ("workspace:x", "`workspace` is not a namespace segment kind"),
            ("Agent:x", "`Agent` is not a namespace segment kind"),
            ("service:x", "`service` is not a namespace segment kind"),
            (":x", "`` is not a namespace segment kind"),
            ("agent:", f"namespace id `` {ID_MESSAGE}"),
            ("agent:a b", f"namespace id `a b` {ID_MESSAGE}"),
            ("agent:a:b", f"namespace id `a:b` {ID_MESSAGE}"),
            ("agent:é", f"namespace id `é` {ID_MESSAGE}"),
            ("agent: a", f"namespace id ` a` {ID_MESSAGE}"),
            ("agent:" + "x" * 129, f"namespace id `{'x' * 129}` {ID_MESSAGE}"),
            ("/".join(["agent:a"] * 9), "a namespace nests at most 8 deep"),
        ],
    )
    def test_bad_text_is_refused_with_the_contract_message(self, text: str, message: str) -> None:
        with pytest.raises(InvalidRequest) as caught:
            Namespace.parse(text)
        assert caught.value.message == message

    def test_limits_are_inclusive(self) -> None:
        assert ns("agent:" + "x" * 128).segments[0].id == "x" * 128
        assert ns("/".join(["agent:a"] * MAX_DEPTH)).depth == MAX_DEPTH

    def test_segment_errors_come_before_the_depth_error(self) -> None:
        with pytest.raises(InvalidRequest, match="`bad` must be written"):
            Namespace.parse("/".join(["agent:a"] * 9 + ["bad"]))

    @given(namespaces)
    def test_print_then_parse_is_identity(self, namespace: Namespace) -> None:
        assert Namespace.parse(str(namespace)) == namespace
        assert hash(Namespace.parse(str(namespace))) == hash(namespace)


class TestSegments:
    def test_segment_checks_its_id(self) -> None:
        with pytest.raises(InvalidRequest) as caught:
            Segment(SegmentKind.AGENT, "no spaces")
        assert caught.value.message == f"namespace id `no spaces` {ID_MESSAGE}"
        assert str(Segment(SegmentKind.WORKSPACE, "main")) == "ws:main"

    def test_sanitized_keeps_valid_ids(self) -> None:
        assert Segment.sanitized(SegmentKind.AGENT, "writer-2_b").id == "writer-2_b"

    def test_sanitized_empty_id_is_underscore(self) -> None:
        assert Segment.sanitized(SegmentKind.AGENT, "").id == "_"

    def test_sanitized_replaces_and_hashes(self) -> None:
        # The hash is over the UTF-8 bytes of the raw id, not its characters.
        assert Segment.sanitized(SegmentKind.AGENT, "a b").id == "a-b-10a3f9f2"
        assert Segment.sanitized(SegmentKind.USER, "priya@acme.com").id == (
            "priya-acme-com-" + f"{_fnv1a(b'priya@acme.com'):08x}"
        )
        assert Segment.sanitized(SegmentKind.AGENT, "héllo").id == (
            "h-llo-" + f"{_fnv1a('héllo'.encode()):08x}"
        )

    def test_sanitized_long_ids_keep_119_characters(self) -> None:
        raw = "x" * 200
        segment = Segment.sanitized(SegmentKind.AGENT, raw)
        assert segment.id == "x" * 119 + f"-{_fnv1a(raw.encode()):08x}"
        assert len(segment.id) == 128
        assert Segment.sanitized(SegmentKind.AGENT, "x" * 128).id == "x" * 128
        assert len(Segment.sanitized(SegmentKind.AGENT, "x" * 129).id) == 128

    def test_agent_node_is_one_sanitised_agent_segment(self) -> None:
        assert Namespace.agent("writer") == ns("agent:writer")
        assert str(Namespace.agent("my agent")) == f"agent:my-agent-{_fnv1a(b'my agent'):08x}"


def _fnv1a(data: bytes) -> int:
    hashed = 0x811C9DC5
    for byte in data:
        hashed = ((hashed ^ byte) * 0x01000193) % 2**32
    return hashed


def test_fnv1a_reference_value() -> None:
    assert _fnv1a(b"") == 0x811C9DC5
    assert _fnv1a(b"a") == 0xE40C292C


class TestTreeHelpers:
    def test_parent_child_and_ancestors(self) -> None:
        helper = ns("team:acme/agent:writer/agent:helper")
        assert helper.parent == ns("team:acme/agent:writer")
        assert ns("team:acme").child(Segment(SegmentKind.AGENT, "writer")) == ns(
            "team:acme/agent:writer"
        )
        assert helper.ancestors_and_self() == [
            Namespace.ROOT,
            ns("team:acme"),
            ns("team:acme/agent:writer"),
            helper,
        ]
        assert Namespace.ROOT.ancestors_and_self() == [Namespace.ROOT]

    def test_child_past_max_depth_is_refused(self) -> None:
        deep = ns("/".join(["agent:a"] * 8))
        with pytest.raises(InvalidRequest, match="at most 8 deep"):
            deep.child(Segment(SegmentKind.AGENT, "b"))
        with pytest.raises(InvalidRequest, match="at most 8 deep"):
            Namespace.new([Segment(SegmentKind.AGENT, "a")] * 9)

    def test_is_within(self) -> None:
        writer = ns("team:acme/agent:writer")
        assert writer.is_within(writer)
        assert writer.is_within(ns("team:acme"))
        assert writer.is_within(Namespace.ROOT)
        assert not ns("team:acme").is_within(writer)
        assert not writer.is_within(ns("team:other"))
        assert not ns("team:acmex").is_within(ns("team:acme"))

    def test_shared_ancestor_skips_trailing_agents(self) -> None:
        assert ns("team:acme/agent:writer/agent:helper").shared_ancestor() == ns("team:acme")
        assert ns("agent:writer").shared_ancestor() == Namespace.ROOT
        assert ns("ws:main/team:acme").shared_ancestor() == ns("ws:main/team:acme")
        assert ns("team:a/agent:b/ws:c/agent:d").shared_ancestor() == ns("team:a/agent:b/ws:c")
        assert Namespace.ROOT.shared_ancestor() == Namespace.ROOT


class TestReach:
    R = Namespace.ROOT
    T = ns("team:acme")
    W = ns("team:acme/agent:writer")
    H = ns("team:acme/agent:writer/agent:helper")
    E = ns("team:acme/agent:editor")
    ALL = (R, T, W, H, E)

    def admitted(self, reach: Reach) -> set[Namespace]:
        return {node for node in self.ALL if reach.admits(node)}

    def test_worked_example_of_the_contract(self) -> None:
        R, T, W, H, E = self.ALL
        assert self.admitted(Reach.of(W)) == {R, T, W}
        assert self.admitted(Reach.of(E)) == {R, T, E}
        assert self.admitted(Reach.exact(W)) == {W}
        assert self.admitted(Reach.of(H)) == {R, T, W, H}
        assert self.admitted(Reach.subtree(W)) == {W, H}
        assert self.admitted(Reach.subtree(T)) == {T, W, H, E}
        assert self.admitted(Reach(at=T, inherit=True, descendants=True)) == {R, T, W, H, E}
        assert self.admitted(Reach.of(R)) == {R}
        assert self.admitted(Reach.subtree(R)) == {R, T, W, H, E}

    def test_defaults(self) -> None:
        assert Reach() == Reach.default() == Reach.of(Namespace.ROOT)
        assert Reach().inherit is True
        assert Reach().descendants is False

    def test_nodes(self) -> None:
        assert Reach.of(self.W).nodes() == [self.R, self.T, self.W]
        assert Reach.exact(self.W).nodes() == [self.W]
        assert Reach.subtree(self.W).nodes() == [self.W]

    def test_wire_form(self) -> None:
        reach = Reach.of(self.W)
        assert reach.model_dump(mode="json") == {
            "at": "team:acme/agent:writer",
            "inherit": True,
            "descendants": False,
        }
        assert Reach().model_dump(mode="json") == {
            "at": "root",
            "inherit": True,
            "descendants": False,
        }
        assert Reach.model_validate({}) == Reach.default()
        assert Reach.model_validate({"at": "team:acme", "descendants": True}) == Reach(
            at=self.T, inherit=True, descendants=True
        )

    def test_reach_is_hashable(self) -> None:
        assert len({Reach.of(self.W), Reach.of(self.W), Reach.exact(self.W)}) == 2


class TestNamespaceAsAWireString:
    def test_meta_omits_the_root_namespace(self) -> None:
        assert MemoryMeta().model_dump(mode="json") == {"source": {"kind": "agent"}}
        meta = MemoryMeta(namespace=ns("team:acme"))
        assert meta.model_dump(mode="json")["namespace"] == "team:acme"
        assert MemoryMeta.model_validate({"namespace": "root"}).namespace == Namespace.ROOT
        assert MemoryMeta.model_validate({}).namespace == Namespace.ROOT

    def test_strings_are_accepted_as_namespaces(self) -> None:
        assert MemoryMeta(namespace="team:acme").namespace == ns("team:acme")

    def test_a_bad_namespace_is_a_validation_error_with_the_contract_words(self) -> None:
        with pytest.raises(ValueError, match="`bogus` is not a namespace segment kind"):
            MemoryMeta.model_validate({"namespace": "bogus:x"})
        with pytest.raises(ValueError, match="written as a string"):
            MemoryMeta.model_validate({"namespace": 7})
