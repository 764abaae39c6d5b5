"""`MemoryCategory`: the parse table, the wire form and value semantics (A1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from conformance.provider import Invalid, MemoryCategory


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("core", MemoryCategory.CORE),
        ("daily", MemoryCategory.DAILY),
        ("conversation", MemoryCategory.CONVERSATION),
        ("custom:", MemoryCategory.custom("")),
        ("custom:x", MemoryCategory.custom("x")),
        ("custom:core", MemoryCategory.custom("core")),
        ("custom:custom:x", MemoryCategory.custom("custom:x")),
        ("x", MemoryCategory.custom("x")),
        ("Core", MemoryCategory.custom("Core")),
        (" core", MemoryCategory.custom(" core")),
        ("custom", MemoryCategory.custom("custom")),
    ],
)
def test_parse_table(text: str, category: MemoryCategory) -> None:
    assert MemoryCategory.parse(text) == category


def test_parse_refuses_the_empty_string() -> None:
    with pytest.raises(Invalid) as caught:
        MemoryCategory.parse("")
    assert caught.value.message == "unknown memory category: "
    assert str(caught.value) == "invalid input: unknown memory category: "


@pytest.mark.parametrize(
    ("category", "wire"),
    [
        (MemoryCategory.CORE, "core"),
        (MemoryCategory.DAILY, "daily"),
        (MemoryCategory.CONVERSATION, "conversation"),
        (MemoryCategory.custom("x"), "custom:x"),
        (MemoryCategory.custom(""), "custom:"),
        (MemoryCategory.custom("core"), "custom:core"),
    ],
)
def test_wire_form(category: MemoryCategory, wire: str) -> None:
    assert str(category) == wire
    assert MemoryCategory.parse(wire) == category


@given(st.text(min_size=1))
def test_parse_of_the_wire_form_is_the_identity(text: str) -> None:
    category = MemoryCategory.parse(text)
    assert MemoryCategory.parse(str(category)) == category


def test_value_semantics() -> None:
    assert MemoryCategory.custom("core") != MemoryCategory.CORE
    assert MemoryCategory.custom("a") == MemoryCategory.custom("a")
    both = {MemoryCategory.CORE, MemoryCategory.parse("core"), MemoryCategory.custom("core")}
    assert len(both) == 2
    assert MemoryCategory.CORE != "core"
    assert MemoryCategory.custom("n").name == "n"
    assert MemoryCategory.custom("n").is_custom
    assert not MemoryCategory.DAILY.is_custom
    assert repr(MemoryCategory.DAILY) == "MemoryCategory.DAILY"
    assert repr(MemoryCategory.custom("n")) == "MemoryCategory.custom('n')"


def test_only_the_three_words_are_built_in() -> None:
    with pytest.raises(ValueError):
        MemoryCategory("weekly", custom=False)


class _Holder(BaseModel):
    category: MemoryCategory


def test_pydantic_field_is_a_json_string() -> None:
    holder = _Holder.model_validate_json('{"category":"custom:"}')
    assert holder.category == MemoryCategory.custom("")
    assert _Holder(category=MemoryCategory.DAILY).model_dump_json() == '{"category":"daily"}'
    assert _Holder.model_validate({"category": "x"}).category == MemoryCategory.custom("x")
    with pytest.raises(ValidationError, match="unknown memory category: "):
        _Holder.model_validate_json('{"category":""}')
    with pytest.raises(ValidationError):
        _Holder.model_validate_json('{"category":3}')
