"""Items: validation messages, render_text, constructors and the JSON shape (contract B2)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

import pytest
from hypothesis import given
from pydantic import ValidationError

from conformance.engine import (
    Conversation,
    Document,
    DocumentBody,
    InvalidRequest,
    ItemKind,
    Learning,
    LearningKind,
    MemoryMeta,
    Role,
    StoreItem,
    ToolCallRef,
    Turn,
    conversation,
    document,
    learning,
    parse_item,
    to_wire,
)
from tests.engine.engine_strategies import valid_items


def refusal(item: StoreItem) -> str:
    with pytest.raises(InvalidRequest) as caught:
        item.validate()
    return caught.value.message


class TestDocumentValidation:
    def test_text_body_is_valid(self) -> None:
        document("hello").validate()
        document(" x ").validate()

    @pytest.mark.parametrize("text", ["", " ", "\n\t ", "\u3000\u2003", "\xa0\u2028"])
    def test_blank_body_is_refused(self, text: str) -> None:
        assert refusal(document(text)) == "document body must not be empty"

    def test_rust_does_not_trim_information_separators(self) -> None:
        # Python's isspace() counts U+001C..U+001F; Rust's trim keeps them as content.
        document("\x1c\x1f").validate()

    def test_uri_body_is_refused(self) -> None:
        item = Document(body=DocumentBody(uri="https://example.com/a.md"))
        assert refusal(item) == (
            "document body is an unresolved uri; resolve it through a source first"
        )
        assert refusal(Document(body=DocumentBody(uri=""))) == (
            "document body is an unresolved uri; resolve it through a source first"
        )

    def test_a_body_is_text_or_uri_never_both_or_neither(self) -> None:
        with pytest.raises(ValidationError):
            DocumentBody()
        with pytest.raises(ValidationError):
            DocumentBody(text="a", uri="b")
        with pytest.raises(ValidationError):
            DocumentBody.model_validate({"text": "a", "extra": 1})


class TestConversationValidation:
    def test_no_turns_is_refused(self) -> None:
        assert refusal(conversation([])) == "conversation must have at least one turn"

    def test_a_blank_turn_is_refused(self) -> None:
        turns = [Turn(role=Role.USER, text="hi"), Turn(role=Role.ASSISTANT, text="  ")]
        assert refusal(conversation(turns)) == "conversation turns must not be empty"

    def test_no_turns_wins_over_blank_turns(self) -> None:
        conversation([Turn(role=Role.USER, text="hi")]).validate()


class TestLearningValidation:
    @pytest.mark.parametrize("confidence", [0.0, -0.0, 0.5, 1.0, 1.00000001, -1e-50])
    def test_confidence_in_range_as_an_f32_is_valid(self, confidence: float) -> None:
        learning("fact", LearningKind.FACT, confidence).validate()

    @pytest.mark.parametrize(
        ("confidence", "printed"),
        [
            (1.5, "1.5"),
            (1.0000001, "1.0000001"),
            (-0.1, "-0.1"),
            (-1.0, "-1"),
            (2.0, "2"),
            (math.nan, "NaN"),
            (math.inf, "inf"),
            (-math.inf, "-inf"),
            (1e39, "inf"),
            (1e-7 - 1, "-0.9999999"),
        ],
    )
    def test_confidence_out_of_range_is_refused(self, confidence: float, printed: str) -> None:
        item = learning("fact", LearningKind.FACT, confidence)
        assert refusal(item) == f"learning confidence {printed} is outside 0.0..=1.0"

    def test_blank_text_is_refused_before_the_confidence(self) -> None:
        assert refusal(learning(" ", LearningKind.FACT, 7.0)) == "learning text must not be empty"


class TestRenderText:
    def test_document_with_and_without_title(self) -> None:
        assert document("body").render_text() == "body"
        assert document("body", title="Plan").render_text() == "# Plan\n\nbody"
        assert document("body", title="  ").render_text() == "body"
        assert document("body", title="").render_text() == "body"
        uri = Document(title="Link", body=DocumentBody(uri="https://x.test"))
        assert uri.render_text() == "# Link\n\nhttps://x.test"

    def test_conversation_renders_turns_and_tool_calls(self) -> None:
        item = conversation(
            [
                Turn(role=Role.USER, text="what is in the plan"),
                Turn(
                    role=Role.ASSISTANT,
                    text="three steps",
                    tool_calls=[
                        ToolCallRef(name="read_plan", id="call-1"),
                        ToolCallRef(name="grep"),
                    ],
                ),
                Turn(role=Role.TOOL, text="ok"),
                Turn(role=Role.SYSTEM, text="be brief"),
            ]
        )
        assert item.render_text() == (
            "user: what is in the plan\n"
            "assistant: three steps [tools: read_plan (call-1), grep]\n"
            "tool: ok\n"
            "system: be brief"
        )

    def test_learning_renders_its_text(self) -> None:
        assert (
            learning("prefers tabs", LearningKind.PREFERENCE, 0.8).render_text() == "prefers tabs"
        )


class TestKindsAndConstructors:
    def test_every_item_names_its_kind(self) -> None:
        assert document("a").kind is ItemKind.DOCUMENT
        assert conversation([Turn(role=Role.USER, text="a")]).kind is ItemKind.CONVERSATION
        item = learning("a", LearningKind.CORRECTION, 0.5, evidence="seen")
        assert item.kind is ItemKind.LEARNING
        assert item.learning_kind is LearningKind.CORRECTION
        assert item.evidence == "seen"
        assert list(ItemKind) == [ItemKind.DOCUMENT, ItemKind.CONVERSATION, ItemKind.LEARNING]

    def test_constructors_leave_optional_fields_unset(self) -> None:
        assert document("a") == Document(body=DocumentBody(text="a"), meta=MemoryMeta())
        assert learning("a", LearningKind.FACT, 0.5).evidence is None

    def test_learning_accepts_the_wire_name_kind(self) -> None:
        item = Learning.model_validate({"text": "a", "kind": "fact", "confidence": 1})
        assert item.learning_kind is LearningKind.FACT
        assert item.confidence == 1.0


class TestWireShape:
    def test_document_json(self) -> None:
        item = document("body", title="T", mime="text/markdown")
        assert to_wire(item) == {
            "type": "document",
            "title": "T",
            "body": {"text": "body"},
            "mime": "text/markdown",
            "meta": {"source": {"kind": "agent"}},
        }
        assert list(json.loads(item.model_dump_json())) == ["type", "title", "body", "mime", "meta"]

    def test_conversation_json(self) -> None:
        at = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
        item = conversation(
            [
                Turn(role=Role.USER, text="q", at=at),
                Turn(role=Role.ASSISTANT, text="a", tool_calls=[ToolCallRef(name="t", id="c")]),
            ]
        )
        assert to_wire(item) == {
            "type": "conversation",
            "turns": [
                {"role": "user", "text": "q", "at": "2025-05-06T07:08:09Z"},
                {"role": "assistant", "text": "a", "tool_calls": [{"name": "t", "id": "c"}]},
            ],
            "meta": {"source": {"kind": "agent"}},
        }

    def test_learning_json_prints_the_f32_confidence(self) -> None:
        item = learning("a", LearningKind.PREFERENCE, 1 / 3, evidence="e")
        assert item.model_dump_json() == (
            '{"type":"learning","text":"a","kind":"preference","confidence":0.33333334,'
            '"evidence":"e","meta":{"source":{"kind":"agent"}}}'
        )
        assert item.confidence == 1 / 3  # kept as given in Python
        assert item.model_dump()["confidence"] == 1 / 3

    def test_nan_confidence_is_null_on_the_wire(self) -> None:
        item = learning("a", LearningKind.FACT, math.nan)
        assert json.loads(item.model_dump_json())["confidence"] is None
        assert to_wire(item)["confidence"] is None

    def test_meta_defaults_when_missing(self) -> None:
        item = parse_item({"type": "document", "body": {"text": "x"}})
        assert item.meta == MemoryMeta()

    def test_unknown_fields_are_ignored_like_serde(self) -> None:
        item = parse_item({"type": "document", "body": {"text": "x"}, "future": 1})
        assert to_wire(item) == {
            "type": "document",
            "body": {"text": "x"},
            "meta": {"source": {"kind": "agent"}},
        }

    @given(valid_items)
    def test_every_valid_item_round_trips_through_json(self, item: StoreItem) -> None:
        item.validate()
        again = parse_item(item.model_dump_json())
        assert again == item
        assert again.fingerprint() == item.fingerprint()
        assert parse_item(to_wire(item)) == item

    def test_a_non_f32_confidence_keeps_its_fingerprint_through_json(self) -> None:
        item = learning("a", LearningKind.FACT, 1 / 3)
        again = parse_item(item.model_dump_json())
        assert isinstance(again, Learning)
        assert again.confidence == 0.33333334
        assert again.fingerprint() == item.fingerprint()


class TestParseItem:
    def test_parses_text_bytes_and_dicts(self) -> None:
        text = '{"type":"learning","text":"t","kind":"fact","confidence":0.5}'
        assert parse_item(text) == parse_item(text.encode()) == parse_item(json.loads(text))
        assert isinstance(parse_item(text), Learning)
        assert isinstance(parse_item('{"type":"conversation","turns":[]}'), Conversation)

    def test_does_not_run_validate(self) -> None:
        item = parse_item('{"type":"document","body":{"text":"  "}}')
        assert refusal(item) == "document body must not be empty"

    @pytest.mark.parametrize(
        ("data", "fragment"),
        [
            ('{"type":"note"}', "does not match any of the expected tags"),
            ("{}", "unable to extract tag"),
            ("[]", "input should be an object"),
            ("not json", "invalid JSON"),
            ('{"type":"learning","text":"t","kind":"guess","confidence":1}', "learning.kind"),
            ('{"type":"learning","text":"t","kind":"fact"}', "learning.confidence: field required"),
            (
                '{"type":"document","body":{"text":"x"},"meta":{"namespace":"team"}}',
                "document.meta.namespace: namespace segment `team` must be written kind:id",
            ),
            ('{"type":"document","body":{"html":"x"}}', "document.body"),
            (
                '{"type":"conversation","turns":[{"role":"bot","text":"x"}]}',
                "conversation.turns.0.role",
            ),
            (
                '{"type":"document","body":{"text":"x"},"meta":{"observed_at":"2025-05-06T07:08:09"}}',
                "document.meta.observed_at",
            ),
        ],
    )
    def test_a_bad_shape_is_an_invalid_request(self, data: str, fragment: str) -> None:
        with pytest.raises(InvalidRequest) as caught:
            parse_item(data)
        assert caught.value.message.startswith("not a store item: ")
        assert fragment in caught.value.message

    def test_timestamps_are_held_in_utc(self) -> None:
        item = parse_item(
            '{"type":"document","body":{"text":"x"},'
            '"meta":{"observed_at":"2025-05-06T09:08:09.5+02:00"}}'
        )
        assert item.meta.observed_at == datetime(2025, 5, 6, 7, 8, 9, 500000, tzinfo=UTC)
        assert to_wire(item)["meta"]["observed_at"] == "2025-05-06T07:08:09.500Z"
