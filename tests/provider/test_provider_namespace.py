"""The `<section>:<scope>` namespace grammar (A6): every rule, in order, exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from conformance.provider import MAX_NAMESPACE_LEN, Invalid, MemorySection, Namespace
from conformance.provider.namespace import validate_name

ALLOWED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+"
SECTION_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_"


def refusal(call: object, *args: object) -> str:
    assert callable(call)
    with pytest.raises(Invalid) as caught:
        call(*args)
    assert type(caught.value) is Invalid
    assert str(caught.value) == "invalid input: " + caught.value.message
    return caught.value.message


# validate_name: each rule and its exact message


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "namespace must not be empty"),
        ("x" * 201, "namespace is 201 bytes, over the 200-byte limit"),
        # Length is checked before characters, and counted in UTF-8 bytes.
        (" " * 201, "namespace is 201 bytes, over the 200-byte limit"),
        ("é" * 101, "namespace is 202 bytes, over the 200-byte limit"),
        ("é" * 100, "namespace contains disallowed character 'é'"),
        ("a b", "namespace contains disallowed character ' '"),
        ("a\tb", "namespace contains disallowed character '\\t'"),
        ("a\nb", "namespace contains disallowed character '\\n'"),
        ("a\0b", "namespace contains disallowed character '\\0'"),
        ("a'b", "namespace contains disallowed character '\\''"),
        ('a"b', "namespace contains disallowed character '\"'"),
        ("a\\b", "namespace contains disallowed character '\\\\'"),
        ("a\u200bb", "namespace contains disallowed character '\\u{200b}'"),
        ("a\x7fb", "namespace contains disallowed character '\\u{7f}'"),
        ("ab#c d", "namespace contains disallowed character '#'"),
        ("..", "namespace must not contain a '..' segment"),
        ("a/../b", "namespace must not contain a '..' segment"),
        ("a/..", "namespace must not contain a '..' segment"),
        # The '..' rule comes before the slash rule.
        ("/../", "namespace must not contain a '..' segment"),
        ("/a", "namespace must not start or end with '/'"),
        ("a/", "namespace must not start or end with '/'"),
        ("/", "namespace must not start or end with '/'"),
    ],
)
def test_validate_name_refuses_with_the_first_broken_rule(raw: str, message: str) -> None:
    assert refusal(validate_name, raw) == message
    assert refusal(Namespace.validate_name, raw) == message
    assert refusal(Namespace.parse, raw) == message


@pytest.mark.parametrize(
    "raw",
    ["x" * MAX_NAMESPACE_LEN, "a..b", "..a", "a/..b", "a//b", "a.b/c:d@e+f_g-h", ":", "a:"],
)
def test_validate_name_accepts(raw: str) -> None:
    validate_name(raw)
    assert Namespace.parse(raw).as_str() == raw


# parse


@pytest.mark.parametrize(
    ("raw", "section", "scope"),
    [
        ("conversation:thread-8f21", MemorySection.CONVERSATION, "thread-8f21"),
        ("document:handbook", MemorySection.DOCUMENT, "handbook"),
        ("learning:rust-async", MemorySection.LEARNING, "rust-async"),
        ("entity:people", MemorySection.ENTITY, "people"),
        ("profile:default", MemorySection.PROFILE, "default"),
        ("tool:github", MemorySection.TOOL, "github"),
        ("source:gmail", MemorySection.SOURCE, "gmail"),
        ("conversation:a:b:c", MemorySection.CONVERSATION, "a:b:c"),
        ("whatsapp-web:12025551234@c.us", MemorySection.custom("whatsapp-web"), "12025551234@c.us"),
        ("a:b_c", MemorySection.custom("a"), "b_c"),
        ("a_b:c", MemorySection.custom("a_b"), "c"),
        ("v2:x", MemorySection.custom("v2"), "x"),
        ("research-notes", None, "research-notes"),
        ("conversation_thread-8f21", None, "conversation_thread-8f21"),
        ("Conversation:x", None, "Conversation:x"),
        ("my.section:x", None, "my.section:x"),
        ("a/b:c", None, "a/b:c"),
        ("conversation:", None, "conversation:"),
        (":x", None, ":x"),
    ],
)
def test_parse_splits_at_the_first_colon_and_never_rewrites(
    raw: str, section: MemorySection | None, scope: str
) -> None:
    namespace = Namespace.parse(raw)
    assert namespace.section() == section
    assert namespace.scope() == scope
    assert namespace.is_sectioned() is (section is not None)
    assert namespace.as_str() == str(namespace) == raw
    assert Namespace(raw) == namespace


@given(st.text(alphabet=ALLOWED, min_size=1, max_size=MAX_NAMESPACE_LEN))
def test_parse_then_render_is_byte_identical(raw: str) -> None:
    try:
        namespace = Namespace.parse(raw)
    except Invalid as refused:
        assert refused.message in (
            "namespace must not contain a '..' segment",
            "namespace must not start or end with '/'",
        )
        return
    assert str(namespace) == raw
    assert namespace.flatten(":") == raw
    section = namespace.section()
    if section is None:
        assert namespace.scope() == raw
    else:
        assert f"{section.prefix}:{namespace.scope()}" == raw
    assert Namespace.parse(str(namespace)) == namespace


@given(
    st.text(alphabet=SECTION_CHARS, min_size=1, max_size=20),
    st.text(alphabet=ALLOWED, min_size=1, max_size=120),
)
def test_new_renders_a_name_that_parses_back_to_itself(prefix: str, scope: str) -> None:
    try:
        namespace = Namespace.new(MemorySection.custom(prefix), scope)
    except Invalid:
        return
    assert namespace.as_str() == f"{prefix}:{scope}"
    assert namespace.section() == MemorySection.from_prefix(prefix)
    assert Namespace.parse(namespace.as_str()) == namespace


# new: normalisation and refusals


def test_new_normalises_a_custom_section_that_spells_a_known_one() -> None:
    namespace = Namespace.new(MemorySection.custom("conversation"), "s")
    assert namespace.section() is MemorySection.CONVERSATION
    assert namespace == Namespace.conversation("s") == Namespace.parse("conversation:s")
    assert hash(namespace) == hash(Namespace.parse("conversation:s"))


@pytest.mark.parametrize(
    ("section", "scope", "message"),
    [
        (
            MemorySection.custom("Bad"),
            "x",
            "namespace section \"Bad\" must be lowercase letters, digits, '-' or '_'",
        ),
        (
            MemorySection.custom(""),
            "x",
            "namespace section \"\" must be lowercase letters, digits, '-' or '_'",
        ),
        (
            MemorySection.custom('a"b'),
            "x",
            "namespace section \"a\\\"b\" must be lowercase letters, digits, '-' or '_'",
        ),
        (
            MemorySection.custom("my.section"),
            "x",
            "namespace section \"my.section\" must be lowercase letters, digits, '-' or '_'",
        ),
        # The section is checked before the scope.
        (
            MemorySection.custom("Bad"),
            "",
            "namespace section \"Bad\" must be lowercase letters, digits, '-' or '_'",
        ),
        (MemorySection.CONVERSATION, "", "namespace scope must not be empty"),
        (MemorySection.LEARNING, "bad scope", "namespace contains disallowed character ' '"),
        (MemorySection.LEARNING, "x" * 200, "namespace is 209 bytes, over the 200-byte limit"),
        (MemorySection.DOCUMENT, "a/../b", "namespace must not contain a '..' segment"),
        (MemorySection.TOOL, "x/", "namespace must not start or end with '/'"),
    ],
)
def test_new_refuses(section: MemorySection, scope: str, message: str) -> None:
    assert refusal(Namespace.new, section, scope) == message


@pytest.mark.parametrize(
    ("helper", "section"),
    [
        (Namespace.conversation, MemorySection.CONVERSATION),
        (Namespace.document, MemorySection.DOCUMENT),
        (Namespace.learning, MemorySection.LEARNING),
        (Namespace.entity, MemorySection.ENTITY),
        (Namespace.profile, MemorySection.PROFILE),
        (Namespace.tool, MemorySection.TOOL),
        (Namespace.source, MemorySection.SOURCE),
    ],
)
def test_section_helpers(helper: object, section: MemorySection) -> None:
    assert callable(helper)
    namespace = helper("scope:with:colons")
    assert namespace == Namespace.new(section, "scope:with:colons")
    assert namespace.as_str() == f"{section.prefix}:scope:with:colons"
    assert namespace.scope() == "scope:with:colons"
    assert namespace.is_in(section)
    assert refusal(helper, "") == "namespace scope must not be empty"


# unsectioned


@pytest.mark.parametrize("raw", ["research-notes", "Document:x", "a:", ":a", "my.section:x"])
def test_unsectioned_accepts_names_without_a_section(raw: str) -> None:
    namespace = Namespace.unsectioned(raw)
    assert namespace.section() is None
    assert namespace.scope() == raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("document:x", 'namespace "document:x" carries a section prefix; use Namespace::parse'),
        ("a:b", 'namespace "a:b" carries a section prefix; use Namespace::parse'),
        ("", "namespace must not be empty"),
        ("a b", "namespace contains disallowed character ' '"),
    ],
)
def test_unsectioned_refuses(raw: str, message: str) -> None:
    assert refusal(Namespace.unsectioned, raw) == message


# accessors, flatten, identity


def test_flatten_is_an_output_form() -> None:
    assert Namespace.document("handbook").flatten("__") == "document__handbook"
    assert Namespace.conversation("a:b").flatten("/") == "conversation/a:b"
    assert Namespace.parse("notes").flatten("__") == "notes"
    assert Namespace.parse("whatsapp-web:1@c.us").flatten("_") == "whatsapp-web_1@c.us"


def test_is_in_compares_sections_exactly() -> None:
    namespace = Namespace.conversation("x")
    assert namespace.is_in(MemorySection.CONVERSATION)
    assert not namespace.is_in(MemorySection.LEARNING)
    assert not namespace.is_in(MemorySection.custom("conversation"))
    assert not Namespace.parse("notes").is_in(MemorySection.CONVERSATION)


def test_ordering_puts_unsectioned_first_then_sections_in_declaration_order() -> None:
    names = [
        "zz:a",
        "source:a",
        "conversation:b",
        "notes",
        "learning:a",
        "conversation:a",
        "aa:z",
        "document:a",
    ]
    ordered = [str(namespace) for namespace in sorted(Namespace.parse(name) for name in names)]
    assert ordered == [
        "notes",
        "conversation:a",
        "conversation:b",
        "document:a",
        "learning:a",
        "source:a",
        "aa:z",
        "zz:a",
    ]


def test_equality_and_hash_follow_the_rendered_name() -> None:
    assert Namespace.parse("a:b_c") != Namespace.parse("a_b:c")
    assert len({Namespace.parse("x"), Namespace.parse("x"), Namespace.parse("y")}) == 2
    assert Namespace.parse("x") != "x"
    assert repr(Namespace.parse("learning:x")) == "Namespace('learning:x')"


class _Holder(BaseModel):
    namespace: Namespace


def test_pydantic_field_is_the_plain_string() -> None:
    holder = _Holder.model_validate_json('{"namespace":"conversation:t1"}')
    assert holder.namespace == Namespace.conversation("t1")
    assert holder.model_dump_json() == '{"namespace":"conversation:t1"}'
    assert _Holder(namespace=Namespace.parse("notes")).namespace.as_str() == "notes"
    with pytest.raises(ValidationError, match="namespace must not start or end with '/'"):
        _Holder.model_validate_json('{"namespace":"/etc"}')


# MemorySection


def test_known_sections_in_declaration_order() -> None:
    assert [section.prefix for section in MemorySection.known()] == [
        "conversation",
        "document",
        "learning",
        "entity",
        "profile",
        "tool",
        "source",
    ]
    assert all(not section.is_custom for section in MemorySection.known())


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("conversation", MemorySection.CONVERSATION),
        ("tool", MemorySection.TOOL),
        ("Tool", MemorySection.custom("Tool")),
        ("", MemorySection.custom("")),
        ("anything at all", MemorySection.custom("anything at all")),
    ],
)
def test_from_prefix_never_fails(prefix: str, expected: MemorySection) -> None:
    section = MemorySection.from_prefix(prefix)
    assert section == expected
    assert section.prefix == str(section) == prefix


def test_custom_section_is_distinct_until_normalised() -> None:
    custom = MemorySection.custom("learning")
    assert custom != MemorySection.LEARNING
    assert custom.is_custom
    assert custom.normalised() is MemorySection.LEARNING
    assert MemorySection.custom("x").normalised() == MemorySection.custom("x")
    assert repr(custom) == "MemorySection.custom('learning')"
    assert repr(MemorySection.SOURCE) == "MemorySection.SOURCE"


def test_section_ordering_is_declaration_order_then_custom_by_name() -> None:
    sections = [MemorySection.custom("b"), MemorySection.SOURCE, MemorySection.custom("a")]
    sections += [MemorySection.CONVERSATION]
    assert sorted(sections) == [
        MemorySection.CONVERSATION,
        MemorySection.SOURCE,
        MemorySection.custom("a"),
        MemorySection.custom("b"),
    ]


def test_section_serde_rejects_what_serde_would() -> None:
    class Holder(BaseModel):
        section: MemorySection

    assert Holder(section=MemorySection.custom("x")).model_dump_json() == (
        '{"section":{"custom":"x"}}'
    )
    for bad in ('"Conversation"', '"custom"', '{"custom":1}', '{"other":"x"}', "3"):
        with pytest.raises(ValidationError):
            Holder.model_validate_json(f'{{"section":{bad}}}')
