"""Every JSON example of the contract (reference part B, operations seed) read into the
models and written back unchanged: ``model_dump_json()`` is the contract's compact JSON."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, TypeAdapter

from conformance.engine import (
    Citation,
    DocumentBody,
    EngineDescriptor,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListPage,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    ObservedActor,
    Reach,
    RecallAnswer,
    RecallRequest,
    SourceRef,
    StoreItem,
    StoreReceipt,
    ToolCallRef,
    Turn,
    TurnRange,
    parse_item,
    to_json,
)

# StoreItems, compact JSON exactly as the contract writes it: B2's golden-vector
# inputs, then B10's round-trip items.
ITEM_EXAMPLES = [
    '{"type":"document","body":{"text":"hello"},"meta":{"source":{"kind":"agent"}}}',
    '{"type":"learning","text":"prefers tabs","kind":"preference","confidence":0.8,'
    '"meta":{"source":{"kind":"agent"}}}',
    '{"type":"document","body":{"text":"hello"},'
    '"meta":{"namespace":"team:acme/agent:writer","source":{"kind":"agent"}}}',
    '{"type":"document","title":"Round trip","body":{"text":"tmconf1 document body"},'
    '"mime":"text/markdown","meta":{"workspace":"tinymemory-conformance/1",'
    '"source":{"kind":"agent"},"tags":["roundtrip"]}}',
    '{"type":"conversation","turns":[{"role":"user","text":"tmconf1 what is in the plan",'
    '"at":"2025-05-06T07:08:09Z"},{"role":"assistant","text":"the plan has three steps",'
    '"at":"2025-05-06T07:08:09Z","tool_calls":[{"name":"read_plan","id":"call-1"}]}],'
    '"meta":{"source":{"kind":"conversation","id":"tmconf1-thread"}}}',
    '{"type":"learning","text":"tmconf1 the user prefers short answers","kind":"preference",'
    '"confidence":0.75,"evidence":"said so twice","meta":{"source":{"kind":"agent"}}}',
]

# (model, compact JSON exactly as the contract writes it)
MODEL_EXAMPLES: list[tuple[type[BaseModel], str]] = [
    # B2 / B3 pieces.
    (DocumentBody, '{"text":"..."}'),
    (DocumentBody, '{"uri":"..."}'),
    (TurnRange, '{"first":4,"last":5}'),
    (ToolCallRef, '{"name":"read_plan","id":"call-1"}'),
    (ToolCallRef, '{"name":"read_plan"}'),
    (SourceRef, '{"kind":"agent"}'),
    (SourceRef, '{"kind":"file","id":"src-1"}'),
    (ObservedActor, '{"id":"user:priya@acme.com"}'),
    (Turn, '{"role":"tool","text":"ok","at":"2025-05-06T07:08:09.123Z"}'),
    (
        MemoryMeta,
        '{"namespace":"team:acme/agent:writer","workspace":"w","folder":"/f","file_path":"/f/a",'
        '"language":"en","repo":"o/r","commit":"c","url":"u","thread_id":"t",'
        '"turns":{"first":0,"last":1},"agent_id":"a","tool_call":{"name":"n","id":"i"},'
        '"source":{"kind":"import"},"tags":["x","y"],"observed_at":"2001-01-01T00:00:00Z",'
        '"derive":true,"observed_actor":{"id":"user:p","name":"P"}}',
    ),
    # B4 / B5.
    (Reach, '{"at":"root","inherit":true,"descendants":false}'),
    (Reach, '{"at":"agent:a/agent:scout","inherit":false,"descendants":true}'),
    (MetaFilter, "{}"),
    (
        MetaFilter,
        '{"reach":{"at":"agent:b","inherit":false,"descendants":false},"workspace":"w",'
        '"kinds":["learning"],"sources":["folder"],"tags_any":["namespaces"],'
        '"observed_after":"2000-01-01T00:00:00Z","observed_before":"2002-01-01T00:00:00Z"}',
    ),
    # B6 requests and responses.
    (RecallRequest, '{"question":"tmconf1","filter":{},"limit":5}'),
    (
        RecallRequest,
        '{"question":"q","filter":{"workspace":"w"},"limit":5,"instructions":"be brief"}',
    ),
    (RecallAnswer, '{"answer":"Nothing stored answers this question.","citations":[]}'),
    (
        RecallAnswer,
        '{"answer":"From 1 stored items: a","citations":[{"id":"abc","kind":"document",'
        '"snippet":"a","meta":{"source":{"kind":"agent"}},"score":0.5}],"model":"reference"}',
    ),
    (Citation, '{"id":"abc","kind":"learning","snippet":"s","meta":{"source":{"kind":"agent"}}}'),
    (FetchRequest, '{"query":"q","mode":"hybrid","filter":{},"limit":50}'),
    (FetchRequest, '{"query":"q","mode":"keyword","filter":{},"limit":2,"cursor":"2"}'),
    (FetchPage, '{"hits":[]}'),
    (
        FetchPage,
        '{"hits":[{"id":"abc","kind":"document","text":"hello","meta":{"source":{"kind":"agent"}},'
        '"score":0.33333334}],"next_cursor":"1"}',
    ),
    (ListRequest, '{"filter":{"kinds":["document"]},"limit":2}'),
    (ListPage, '{"items":[]}'),
    (
        ListPage,
        '{"items":[{"id":"abc","kind":"learning","text":"prefers tabs",'
        '"meta":{"source":{"kind":"agent"}},"score":0.0,"confidence":0.8}],"next_cursor":"2"}',
    ),
    (
        Hit,
        '{"id":"x","kind":"conversation","text":"user: hi","meta":{"source":{"kind":"agent"}},'
        '"score":1.0}',
    ),
    (ForgetReport, '{"forgotten":2}'),
    (ExploreRequest, '{"facet":"kind","filter":{},"limit":10,"scan_limit":5000}'),
    (
        ExplorePage,
        '{"facet":"namespace","buckets":[{"value":"agent:a","count":1},{"value":"root","count":1}],'
        '"total":2,"missing":0,"more_buckets":0,"truncated":false}',
    ),
    (GetRequest, '{"ids":["a","b"]}'),
    (GetRequest, '{"ids":["a"],"reach":{"at":"agent:b","inherit":true,"descendants":false}}'),
    (StoreReceipt, '{"id":"b729fc0286fa53f2d226929fa056cd9bdac79133","replayed":true}'),
    # B8.
    (EngineHealth, '{"state":"ok"}'),
    (EngineHealth, '{"state":"degraded","reason":"rate limited"}'),
    (EngineHealth, '{"state":"down","reason":"broken on purpose"}'),
    (
        EngineDescriptor,
        '{"id":"reference","label":"Reference (in-memory)","description":"d","hosted":false,'
        '"needs_endpoint":false,"needs_key":false,"default_endpoint":null,'
        '"fetch_modes":["keyword","vector","hybrid"]}',
    ),
]


@pytest.mark.parametrize("text", ITEM_EXAMPLES)
def test_item_example_reads_and_writes_back_unchanged(text: str) -> None:
    item = parse_item(text)
    assert item.model_dump_json() == text
    assert item.model_dump(mode="json") == json.loads(text)
    assert to_json(item) == text
    adapter: TypeAdapter[StoreItem] = TypeAdapter(StoreItem)
    assert adapter.dump_json(adapter.validate_json(text)).decode() == text


@pytest.mark.parametrize(("model", "text"), MODEL_EXAMPLES)
def test_example_reads_and_writes_back_unchanged(model: type[BaseModel], text: str) -> None:
    value = model.model_validate_json(text)
    assert value.model_dump_json() == text
    assert value.model_dump(mode="json") == json.loads(text)
    assert to_json(value) == text


@pytest.mark.parametrize("text", ['{"ids":["a","b"]}', '{"filter":{"tags_any":["t"]}}'])
def test_forget_target_examples(text: str) -> None:
    adapter: TypeAdapter[ForgetTarget] = TypeAdapter(ForgetTarget)
    assert adapter.dump_json(adapter.validate_json(text)).decode() == text
