"""The fingerprint (contract B2, decisions §4.3): golden vectors and properties.

Each vector asserts the canonical JSON too, so the rules are visible: compact,
declaration order with "type" first, unset fields left out, observed_at,
observed_actor and meta.tool_call.id cleared, f32 confidences in ryu's shortest
form, timestamps RFC 3339 with Z.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given

from conformance.engine import (
    Document,
    DocumentBody,
    LearningKind,
    MemoryMeta,
    Namespace,
    ObservedActor,
    Role,
    SourceKind,
    SourceRef,
    StoreItem,
    ToolCallRef,
    Turn,
    TurnRange,
    canonical_json,
    canonical_text,
    conversation,
    document,
    fingerprint,
    learning,
    to_wire,
)
from tests.engine.engine_strategies import conversations, documents, utc_times, valid_items

WRITER = Namespace.parse("team:acme/agent:writer")
AT = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
AGENT = '"meta":{"source":{"kind":"agent"}}'


@dataclass(frozen=True)
class Golden:
    name: str
    item: StoreItem
    canonical: str
    fingerprint: str


GOLDEN = [
    # The three vectors of the contract reference, B2.
    Golden(
        "contract: document hello",
        document("hello"),
        '{"type":"document","body":{"text":"hello"},' + AGENT + "}",
        "b729fc0286fa53f2d226929fa056cd9bdac79133",
    ),
    Golden(
        "contract: learning prefers tabs",
        learning("prefers tabs", LearningKind.PREFERENCE, 0.8),
        '{"type":"learning","text":"prefers tabs","kind":"preference","confidence":0.8,'
        + AGENT
        + "}",
        "8a8f01f6a30ffa27d488a48fc9218a8ec5af4228",
    ),
    Golden(
        "contract: document hello at team:acme/agent:writer",
        document("hello", MemoryMeta(namespace=WRITER)),
        '{"type":"document","body":{"text":"hello"},'
        '"meta":{"namespace":"team:acme/agent:writer","source":{"kind":"agent"}}}',
        "63873ead657786848caf68b428543570549d25b1",
    ),
    Golden(
        "non-ASCII is written raw, not escaped",
        document("héllo — 👋 まいど"),
        '{"type":"document","body":{"text":"héllo — 👋 まいど"},' + AGENT + "}",
        "a135400834dfe63672827fa905589b8d083739d8",
    ),
    Golden(
        "quotes and backslashes are escaped, / is not",
        document('say "hi" \\ C:\\dir /slash'),
        r'{"type":"document","body":{"text":"say \"hi\" \\ C:\\dir /slash"},' + AGENT + "}",
        "b7b68ca7da70575f7af6f915562b313379895a73",
    ),
    Golden(
        "control characters: short escapes, else \\u00xx; DEL and U+2028 stay raw",
        document("a\nb\r\nc\td\x00e\x08f\x0cg\x1fh\x7fi\u2028j"),
        r'{"type":"document","body":{"text":"a\nb\r\nc\td\u0000e\bf\fg\u001fh'
        + "\x7fi\u2028j"
        + '"},'
        + AGENT
        + "}",
        "2f1e6243ba9b4a0a13d1a47f710881a78091af1b",
    ),
    Golden(
        "confidence 0.1",
        learning("tenth", LearningKind.FACT, 0.1),
        '{"type":"learning","text":"tenth","kind":"fact","confidence":0.1,' + AGENT + "}",
        "51553579b809076ec38c2453030b3fc8a9948038",
    ),
    Golden(
        "confidence 0.75 with evidence after it",
        learning(
            "the user prefers short answers",
            LearningKind.PREFERENCE,
            0.75,
            evidence="said so twice",
        ),
        '{"type":"learning","text":"the user prefers short answers","kind":"preference",'
        '"confidence":0.75,"evidence":"said so twice",' + AGENT + "}",
        "a52d09b093b99d26370beeda6df67d74a5fcddd0",
    ),
    Golden(
        "confidence 1/3 narrows to f32 and prints 0.33333334",
        learning("third", LearningKind.OTHER, 1 / 3),
        '{"type":"learning","text":"third","kind":"other","confidence":0.33333334,' + AGENT + "}",
        "2ddc60f0ac42bc9b68a37b861b63b25dd3756aa6",
    ),
    Golden(
        "confidence 1e-5 prints in plain decimal",
        learning("tiny", LearningKind.FACT, 1e-5),
        '{"type":"learning","text":"tiny","kind":"fact","confidence":0.00001,' + AGENT + "}",
        "2ddad9bd514d8078f7128a6c7a8580f9695b2a14",
    ),
    Golden(
        "confidence 1e-7 switches to exponent form",
        learning("tinier", LearningKind.FACT, 1e-7),
        '{"type":"learning","text":"tinier","kind":"fact","confidence":1e-7,' + AGENT + "}",
        "4394db262de6043dc81a939dd5859d4ea83cde3e",
    ),
    Golden(
        "confidence 9.5e-7",
        learning("tinier still", LearningKind.FACT, 9.5e-7),
        '{"type":"learning","text":"tinier still","kind":"fact","confidence":9.5e-7,' + AGENT + "}",
        "ce59506b72de7141623341cef9107838b2cbcf23",
    ),
    Golden(
        "confidence 1 prints 1.0",
        learning("sure", LearningKind.PROCEDURE, 1.0),
        '{"type":"learning","text":"sure","kind":"procedure","confidence":1.0,' + AGENT + "}",
        "007b574e70094bcf8e7465612a2e68a459a8dbde",
    ),
    Golden(
        "confidence 0 prints 0.0",
        learning("unsure", LearningKind.CORRECTION, 0.0),
        '{"type":"learning","text":"unsure","kind":"correction","confidence":0.0,' + AGENT + "}",
        "7bd3c6c2d8f5469b82c2ee4f9cfd3870b5202a73",
    ),
    Golden(
        "document title before body, mime after",
        document("# Plan\n\n1. a", title="Plan", mime="text/markdown"),
        r'{"type":"document","title":"Plan","body":{"text":"# Plan\n\n1. a"},'
        '"mime":"text/markdown",' + AGENT + "}",
        "97548f8bbdd7658eb5cb0d1fc91c4971e18ed98d",
    ),
    Golden(
        "an empty title is set, so it is kept",
        document("body", title=""),
        '{"type":"document","title":"","body":{"text":"body"},' + AGENT + "}",
        "8101757a91463fdb32a3390a606c9bfb1ad8be8c",
    ),
    Golden(
        "uri body",
        Document(body=DocumentBody(uri="https://example.com/a.md")),
        '{"type":"document","body":{"uri":"https://example.com/a.md"},' + AGENT + "}",
        "797cf5407797e41fba82edcfe90654712d86e866",
    ),
    Golden(
        "deep namespace with ws and source segments",
        document(
            "deep",
            MemoryMeta(namespace=Namespace.parse("ws:main/project:atlas/user:priya/source:gh")),
        ),
        '{"type":"document","body":{"text":"deep"},"meta":{"namespace":'
        '"ws:main/project:atlas/user:priya/source:gh","source":{"kind":"agent"}}}',
        "81c67bef0432b4a64a9dfe292252bb7a4e23a892",
    ),
    Golden(
        "tags keep their order, after source",
        document("tagged", MemoryMeta(tags=["b", "a", "ünïcode"])),
        '{"type":"document","body":{"text":"tagged"},'
        '"meta":{"source":{"kind":"agent"},"tags":["b","a","ünïcode"]}}',
        "47b57e2f8797c541b89ec99c34ec446df4c6e5a4",
    ),
    Golden(
        "source with id",
        document("from a file", MemoryMeta.from_source(SourceKind.IMPORT, "legacy-1")),
        '{"type":"document","body":{"text":"from a file"},'
        '"meta":{"source":{"kind":"import","id":"legacy-1"}}}',
        "49daaab262922c59aa24dfa5cd03834bb4710fa9",
    ),
    Golden(
        "meta.tool_call keeps its name, its id is cleared",
        document(
            "made by a tool", MemoryMeta(tool_call=ToolCallRef(name="read_plan", id="call-9"))
        ),
        '{"type":"document","body":{"text":"made by a tool"},'
        '"meta":{"tool_call":{"name":"read_plan"},"source":{"kind":"agent"}}}',
        "d2c53cea2cb3de4f1bdd34900a71d54aa320189f",
    ),
    Golden(
        "every meta field in order; observed_at and observed_actor cleared",
        learning(
            "everything",
            LearningKind.FACT,
            0.5,
            MemoryMeta(
                namespace=WRITER,
                workspace="/w",
                folder="/w/src",
                file_path="/w/src/a.rs",
                language="rust",
                repo="acme/atlas",
                commit="c0ffee",
                url="https://x.test/a",
                thread_id="t1",
                turns=TurnRange(first=4, last=5),
                agent_id="writer",
                tool_call=ToolCallRef(name="grep", id="c1"),
                source=SourceRef(kind=SourceKind.CONVERSATION, id="t1"),
                tags=["x"],
                observed_at=AT,
                derive=False,
                observed_actor=ObservedActor(id="user:priya@acme.com", name="Priya"),
            ),
        ),
        '{"type":"learning","text":"everything","kind":"fact","confidence":0.5,"meta":{'
        '"namespace":"team:acme/agent:writer","workspace":"/w","folder":"/w/src",'
        '"file_path":"/w/src/a.rs","language":"rust","repo":"acme/atlas","commit":"c0ffee",'
        '"url":"https://x.test/a","thread_id":"t1","turns":{"first":4,"last":5},'
        '"agent_id":"writer","tool_call":{"name":"grep"},'
        '"source":{"kind":"conversation","id":"t1"},"tags":["x"],"derive":false}}',
        "ae2d13f5ecb7432555422c929b830b864a9ec5d6",
    ),
    Golden(
        "derive true is part of identity",
        document("derive me", MemoryMeta(derive=True)),
        '{"type":"document","body":{"text":"derive me"},'
        '"meta":{"source":{"kind":"agent"},"derive":true}}',
        "9c6e6c1e73dd5d954d179b644724d38061330344",
    ),
    Golden(
        "turns: times with 0, 3 and 6 fraction digits; tool calls in turns keep ids",
        conversation(
            [
                Turn(role=Role.USER, text="what is in the plan", at=AT),
                Turn(
                    role=Role.ASSISTANT,
                    text="the plan has three steps",
                    at=AT + timedelta(microseconds=120000),
                    tool_calls=[
                        ToolCallRef(name="read_plan", id="call-1"),
                        ToolCallRef(name="grep"),
                    ],
                ),
                Turn(role=Role.TOOL, text="done", at=AT + timedelta(microseconds=123456)),
            ],
            MemoryMeta.from_source(SourceKind.CONVERSATION, "thread-1"),
        ),
        '{"type":"conversation","turns":['
        '{"role":"user","text":"what is in the plan","at":"2025-05-06T07:08:09Z"},'
        '{"role":"assistant","text":"the plan has three steps","at":"2025-05-06T07:08:09.120Z",'
        '"tool_calls":[{"name":"read_plan","id":"call-1"},{"name":"grep"}]},'
        '{"role":"tool","text":"done","at":"2025-05-06T07:08:09.123456Z"}],'
        '"meta":{"source":{"kind":"conversation","id":"thread-1"}}}',
        "002a577d8a6b8626c718caef15cca41ae7d3e31a",
    ),
]


@pytest.mark.parametrize("golden", GOLDEN, ids=[golden.name for golden in GOLDEN])
def test_golden_vector(golden: Golden) -> None:
    assert canonical_text(golden.item) == golden.canonical
    assert canonical_json(golden.item) == golden.canonical.encode()
    assert fingerprint(golden.item) == golden.fingerprint
    assert golden.item.fingerprint() == golden.fingerprint
    digest = hashlib.sha256(golden.canonical.encode()).hexdigest()
    assert golden.fingerprint == digest[:40]


def test_there_are_at_least_twenty_vectors_and_they_differ() -> None:
    assert len(GOLDEN) >= 20
    assert len({golden.fingerprint for golden in GOLDEN}) == len(GOLDEN)


def test_observed_at_and_observed_actor_do_not_change_it() -> None:
    base = document("hello")
    seen = document(
        "hello",
        MemoryMeta(observed_at=AT, observed_actor=ObservedActor(id="user:priya")),
    )
    assert fingerprint(seen) == fingerprint(base) == "b729fc0286fa53f2d226929fa056cd9bdac79133"


def test_tool_call_id_does_not_change_it_but_the_name_does() -> None:
    with_id = document("x", MemoryMeta(tool_call=ToolCallRef(name="grep", id="1")))
    other_id = document("x", MemoryMeta(tool_call=ToolCallRef(name="grep", id="2")))
    no_id = document("x", MemoryMeta(tool_call=ToolCallRef(name="grep")))
    other_name = document("x", MemoryMeta(tool_call=ToolCallRef(name="find", id="1")))
    assert fingerprint(with_id) == fingerprint(other_id) == fingerprint(no_id)
    assert fingerprint(other_name) != fingerprint(with_id)


def test_fingerprint_does_not_alter_the_item() -> None:
    item = document("x", MemoryMeta(tool_call=ToolCallRef(name="grep", id="1"), observed_at=AT))
    before = item.model_copy(deep=True)
    fingerprint(item)
    assert item == before
    assert item.meta.tool_call is not None and item.meta.tool_call.id == "1"


@pytest.mark.parametrize(
    "changed",
    [
        document("hello", MemoryMeta(tags=["t"])),
        document("hellp"),
        document("hello", MemoryMeta(namespace=Namespace.parse("agent:a"))),
        document("hello", title="t"),
        document("hello", mime="text/plain"),
        document("hello", MemoryMeta(source=SourceRef(kind=SourceKind.FILE))),
    ],
)
def test_any_other_change_is_a_new_item(changed: StoreItem) -> None:
    assert fingerprint(changed) != fingerprint(document("hello"))


def test_confidence_changes_identity_at_f32_resolution_only() -> None:
    base = learning("x", LearningKind.FACT, 0.8)
    assert fingerprint(learning("x", LearningKind.FACT, 0.80000001)) == fingerprint(base)
    assert fingerprint(learning("x", LearningKind.FACT, 0.81)) != fingerprint(base)


def _cleared_wire(item: StoreItem) -> dict[str, Any]:
    wire: dict[str, Any] = to_wire(item)
    meta = wire["meta"]
    meta.pop("observed_at", None)
    meta.pop("observed_actor", None)
    if "tool_call" in meta:
        meta["tool_call"].pop("id", None)
    return wire


@given(documents | conversations)
def test_canonical_json_is_json_dumps_of_the_cleared_wire_form(item: StoreItem) -> None:
    # No floats in these kinds, so json.dumps prints exactly what serde_json would.
    expected = json.dumps(_cleared_wire(item), ensure_ascii=False, separators=(",", ":"))
    assert canonical_text(item) == expected


@given(valid_items)
def test_canonical_json_reads_back_as_the_cleared_wire_form(item: StoreItem) -> None:
    assert json.loads(canonical_json(item)) == _cleared_wire(item)


@given(valid_items, utc_times)
def test_fingerprint_ignores_observed_at_and_actor(item: StoreItem, seen: datetime) -> None:
    restamped = item.model_copy(deep=True)
    restamped.meta.observed_at = seen
    restamped.meta.observed_actor = ObservedActor(id="user:someone")
    assert fingerprint(restamped) == fingerprint(item)
    restamped.meta.observed_at = None
    restamped.meta.observed_actor = None
    assert fingerprint(restamped) == fingerprint(item)


@given(valid_items)
def test_fingerprint_is_40_lowercase_hex(item: StoreItem) -> None:
    value = fingerprint(item)
    assert len(value) == 40
    assert value == value.lower()
    int(value, 16)
