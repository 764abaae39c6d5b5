"""Recall filters and the fail-closed source allow list (A1)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conformance.provider import MemoryCategory, OwnedRecallOpts, SourceScope


def test_defaults() -> None:
    opts = OwnedRecallOpts()
    assert opts.namespace is None
    assert opts.category is None
    assert opts.session_id is None
    assert opts.min_score is None
    assert opts.cross_session is False
    assert set(OwnedRecallOpts.model_fields) == {
        "namespace",
        "category",
        "session_id",
        "min_score",
        "cross_session",
    }


@pytest.mark.parametrize(
    ("opts", "wire"),
    [
        (OwnedRecallOpts(), '{"cross_session":false}'),
        (OwnedRecallOpts(cross_session=True), '{"cross_session":true}'),
        (OwnedRecallOpts(namespace="global"), '{"namespace":"global","cross_session":false}'),
        (
            OwnedRecallOpts(category=MemoryCategory.custom("x")),
            '{"category":"custom:x","cross_session":false}',
        ),
        (OwnedRecallOpts(session_id="s"), '{"session_id":"s","cross_session":false}'),
        (OwnedRecallOpts(min_score=0.0), '{"min_score":0.0,"cross_session":false}'),
    ],
)
def test_unset_fields_are_omitted(opts: OwnedRecallOpts, wire: str) -> None:
    assert opts.model_dump_json() == wire
    assert OwnedRecallOpts.model_validate_json(wire) == opts


def test_python_dump_omits_unset_fields_too() -> None:
    assert OwnedRecallOpts(session_id="s").model_dump() == {
        "session_id": "s",
        "cross_session": False,
    }


def test_explicit_nulls_decode_as_unset() -> None:
    wire = '{"namespace":null,"category":null,"cross_session":false}'
    assert OwnedRecallOpts.model_validate_json(wire) == OwnedRecallOpts()


def test_an_empty_category_is_refused() -> None:
    with pytest.raises(ValidationError, match="unknown memory category: "):
        OwnedRecallOpts.model_validate_json('{"category":""}')


@pytest.mark.parametrize(
    ("allow", "source_id", "allowed"),
    [
        (["src-abc"], "src-abc", True),
        (["src-abc"], "mem_src:src-abc:item-1", True),
        (["src-abc"], "mem_src:src-abc:", True),
        (["src-abc"], "mem_src:src-abc", False),
        (["src-abc"], "src-abcd", False),
        (["src-abc"], "mem_src:src-abcd:item-1", False),
        (["src-abc"], "src-xyz", False),
        (["src-abc"], "SRC-ABC", False),
        (["src-abc", "src-xyz"], "mem_src:src-xyz:9", True),
        # Fail-closed: an empty allow list denies everything, the empty id included.
        ([], "src-abc", False),
        ([], "", False),
        ([""], "", True),
        ([""], "mem_src::x", True),
    ],
)
def test_source_scope_matching(allow: list[str], source_id: str, allowed: bool) -> None:
    assert SourceScope(allow=allow).allows_source_id(source_id) is allowed


def test_source_scope_wire_form() -> None:
    assert SourceScope(allow=["a"]).model_dump_json() == '{"allow":["a"]}'
    with pytest.raises(ValidationError):
        SourceScope.model_validate_json("{}")
