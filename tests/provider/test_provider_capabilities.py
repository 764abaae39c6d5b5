"""Capability vocabulary, the advertised set and its validation (A2)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from conformance.provider import MANDATORY, Capabilities, Capability, Invalid

NAMES = [
    "core",
    "recall",
    "ingest",
    "documents",
    "tree",
    "entities",
    "graph",
    "diff",
    "goals",
    "tool_memory",
    "sources",
    "maintenance",
    "portability",
    "people",
    "chunks",
    "retrieval",
    "profile",
    "episodic",
]


def test_eighteen_families_in_bit_order() -> None:
    assert [capability.value for capability in Capability] == NAMES
    assert [capability.bit for capability in Capability] == list(range(18))


def test_mandatory_families() -> None:
    assert MANDATORY == (Capability.CORE, Capability.RECALL, Capability.PORTABILITY)
    assert [c for c in Capability if c.is_mandatory] == list(MANDATORY)


@pytest.mark.parametrize("name", NAMES)
def test_parse_known(name: str) -> None:
    assert Capability.parse(name).value == name
    assert str(Capability.parse(name)) == name


@pytest.mark.parametrize("name", ["", "Core", "tool-memory", "teleportation"])
def test_parse_unknown(name: str) -> None:
    with pytest.raises(Invalid) as caught:
        Capability.parse(name)
    assert caught.value.message == f"unknown memory capability: {name}"


class _Handshake(BaseModel):
    capabilities: Capabilities


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ('["portability","recall","core"]', '["core","recall","portability"]'),
        ('["core","core","recall","core"]', '["core","recall"]'),
        ('["core","from_the_future","episodic","Core",""]', '["core","episodic"]'),
        ("[]", "[]"),
    ],
)
def test_wire_array_is_ordered_deduplicated_and_skips_unknown(wire: str, expected: str) -> None:
    handshake = _Handshake.model_validate_json(f'{{"capabilities":{wire}}}')
    assert handshake.model_dump_json() == f'{{"capabilities":{expected}}}'


@pytest.mark.parametrize("wire", ['"core"', "[1]", "[null]", "{}"])
def test_wire_shape_is_still_checked(wire: str) -> None:
    with pytest.raises(ValidationError):
        _Handshake.model_validate_json(f'{{"capabilities":{wire}}}')


def test_python_construction_refuses_unknown_names() -> None:
    with pytest.raises(Invalid, match=r"^invalid input: unknown memory capability: nope$"):
        Capabilities(["core", "nope"])
    assert Capabilities.from_wire(["core", "nope"]) == Capabilities([Capability.CORE])


def test_set_semantics() -> None:
    caps = Capabilities(["recall", Capability.CORE, "core"])
    assert len(caps) == 2
    assert list(caps) == [Capability.CORE, Capability.RECALL]
    assert Capability.CORE in caps and "recall" in caps
    assert "documents" not in caps and "nope" not in caps
    assert not caps.__contains__(3)
    assert caps == {Capability.RECALL, Capability.CORE}
    assert hash(caps) == hash(frozenset(caps))
    assert caps.with_(Capability.DOCUMENTS).to_wire() == ["core", "recall", "documents"]
    assert caps.without(Capability.CORE).to_wire() == ["recall"]
    assert isinstance(caps | {Capability.GRAPH}, Capabilities)
    assert Capabilities.mandatory().to_wire() == ["core", "recall", "portability"]
    assert Capabilities.all().to_wire() == NAMES
    assert repr(caps) == "Capabilities(['core', 'recall'])"


def test_validate_accepts_a_complete_set() -> None:
    Capabilities.mandatory().validate()
    Capabilities.all().validate()


@pytest.mark.parametrize(
    ("caps", "missing"),
    [
        (Capabilities(), "core, recall, portability"),
        (Capabilities(["documents", "graph"]), "core, recall, portability"),
        (Capabilities(["core"]), "recall, portability"),
        (Capabilities(["core", "portability"]), "recall"),
        (Capabilities(["recall", "core", "episodic"]), "portability"),
    ],
)
def test_validate_lists_every_missing_family(caps: Capabilities, missing: str) -> None:
    with pytest.raises(Invalid) as caught:
        caps.validate()
    assert caught.value.message == (
        "memory driver advertises an incomplete capability set; "
        f"missing mandatory families: {missing}"
    )
    assert caps.missing_mandatory() == [Capability.parse(n) for n in missing.split(", ")]
