"""Arguments cross the pipe exactly: what the kit passes is what a Python driver receives,
for every value the fuzzer generates (invalid ones included), and the schema published
in docs/ is the one the models generate."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.engine import FetchRequest, ListRequest, MetaFilter, RecallRequest
from conformance.fuzz.strategies import (
    EngineRequest,
    ProviderEntry,
    engine_items,
    invalid_engine_items,
    invalid_engine_requests,
    meta_filters,
    provider_entries,
    recall_options,
)
from conformance.protocol.codec import decode, encode
from conformance.protocol.errors import (
    ENGINE_WIRE_NAMES,
    engine_error_from_wire,
    engine_error_to_wire,
    provider_error_from_wire,
    provider_error_to_wire,
)
from conformance.protocol.operations import BY_NAME, OPERATIONS
from conformance.protocol.schema import render
from conformance.provider import MemoryCategory, MemoryTaint
from conformance.provider import errors as provider_errors

ROOT = Path(__file__).resolve().parents[2]


def across(op_name: str, *args: Any) -> list[Any]:
    """`args` as the driver's side decodes them after one trip through the codec."""
    op = BY_NAME[op_name]
    line = encode({"type": "call", "id": 1, "op": op.name, "args": op.encode_args(args, {})})
    return op.decode_args(decode(line)["args"])


def wire_of(value: Any) -> bytes:
    """A value's wire JSON as the codec writes it (NaN included, unlike `==`)."""
    return encode({"v": BY_NAME["engine.store"].params[0].adapter.dump_python(value, mode="json")})


@given(item=engine_items() | invalid_engine_items())
def test_items_cross_unchanged(item: Any) -> None:
    (received,) = across("engine.store", item)
    assert wire_of(received) == wire_of(item)
    if not (hasattr(item, "confidence") and math.isnan(item.confidence)):
        assert received == item


@given(request=invalid_engine_requests())
def test_invalid_requests_cross_unchanged(request: EngineRequest) -> None:
    if request.op == "store_many":
        (received,) = across("engine.store_many", request.request)
        assert received == list(request.request)  # type: ignore[call-overload]
        return
    (received,) = across(f"engine.{request.op}", request.request)
    assert received == request.request


@given(filter=meta_filters(), limit=st.integers(0, 10**6), cursor=st.none() | st.text())
def test_requests_with_any_filter_cross_unchanged(
    filter: MetaFilter, limit: int, cursor: str | None
) -> None:
    listing = ListRequest(filter=filter, limit=limit, cursor=cursor)
    assert across("engine.list", listing) == [listing]
    recall = RecallRequest(question="q", filter=filter, limit=limit)
    assert across("engine.recall", recall) == [recall]


@given(entry=provider_entries(), opts=recall_options())
def test_provider_arguments_cross_unchanged(entry: ProviderEntry, opts: Any) -> None:
    assert across("provider.store", *entry) == list(entry)
    assert across("provider.recall", entry.content, 5, opts, None) == [entry.content, 5, opts, None]


def test_strings_the_fuzzer_uses_cross_exactly() -> None:
    awkward = "nul\x00 lone\ud800 surrogate, émoji 🧠, \u2028 line sep, \r\n"
    assert across("provider.get", awkward, awkward) == [awkward, awkward]


def test_non_finite_numbers_travel_as_strings() -> None:
    line = encode({"a": [math.nan, math.inf, -math.inf, 0.5]})
    assert line == b'{"a":["NaN","Infinity","-Infinity",0.5]}\n'
    request = FetchRequest(query="q", mode="keyword", limit=3)  # type: ignore[arg-type]
    assert across("engine.fetch", request) == [request]


def test_arguments_bind_by_keyword_as_in_python() -> None:
    op = BY_NAME["provider.export_page"]
    assert op.encode_args((), {"limit": 8, "cursor": None}) == {"cursor": None, "limit": 8}
    with pytest.raises(TypeError, match="missing a required argument: 'limit'"):
        op.encode_args((None,), {})


@pytest.mark.parametrize("cls", list(ENGINE_WIRE_NAMES))
def test_engine_errors_keep_their_class_and_message(cls: type[Exception]) -> None:
    error = cls("the message")
    name, message = engine_error_to_wire(error)
    assert name == ENGINE_WIRE_NAMES[cls]  # type: ignore[index]
    assert engine_error_from_wire(name, message) == error


def test_unknown_errors_map_to_the_catch_all_of_each_profile() -> None:
    assert str(engine_error_from_wire("Teapot", "short")) == "engine error: Teapot: short"
    assert engine_error_to_wire(KeyError("k")) == ("Engine", "KeyError: 'k'")
    other = provider_error_from_wire("ai.tinyhumans.tinymemory.Error.Teapot", "short")
    assert type(other) is provider_errors.Other
    assert provider_error_to_wire(ValueError("v")) == (
        "ai.tinyhumans.tinymemory.Error.Other",
        "ValueError: v",
    )


@pytest.mark.parametrize(
    "error",
    [
        provider_errors.Invalid("bad"),
        provider_errors.NotFound("gone"),
        provider_errors.Unavailable("later"),
        provider_errors.Unsupported("documents"),
    ],
)
def test_provider_errors_keep_their_class_and_message(error: Exception) -> None:
    back = provider_error_from_wire(*provider_error_to_wire(error))
    assert type(back) is type(error)
    assert str(back) == str(error)


def test_the_published_schema_is_the_generated_one() -> None:
    published = (ROOT / "docs" / "protocol.schema.json").read_text(encoding="utf-8")
    assert published == render(), (
        "docs/protocol.schema.json is stale: python -m conformance.protocol.schema > "
        "docs/protocol.schema.json"
    )


def test_the_schema_describes_every_operation() -> None:
    defs = json.loads(render())["$defs"]
    assert set(defs["calls"]) == set(defs["results"]) == {op.name for op in OPERATIONS}
    store = defs["calls"]["provider.store"]["properties"]["args"]
    assert store["required"] == ["namespace", "key", "content", "category", "session_id", "taint"]
    kit = [ref["$ref"] for ref in defs["KitMessage"]["oneOf"]]
    assert kit[0] == "#/$defs/Hello" and kit[-1] == "#/$defs/Shutdown"
    assert defs["Handshake"]["required"] == [
        "type",
        "id",
        "protocol",
        "contract_version",
        "driver_id",
        "profiles",
    ]
    assert defs["Hello"]["required"] == ["type", "contract_version", "kit"]


def test_values_of_a_looser_type_are_read_as_the_parameter_type() -> None:
    # A driver in process would take the plain string; over the wire it is the same value.
    assert across("provider.store", "global", "k", "c", "core", None, "internal") == [
        "global",
        "k",
        "c",
        MemoryCategory.CORE,
        None,
        MemoryTaint.INTERNAL,
    ]
    assert across("provider.store", "global", "k", "c", "core", None, "garbage")[-1] == (
        MemoryTaint.EXTERNAL_SYNC
    )


def test_the_protocol_document_lists_every_operation() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    for op in OPERATIONS:
        params = ", ".join(f"`{p.name}`" for p in op.params) or "—"
        assert f"| `{op.name}` | {params} | {op.result_name} |" in text, op.name
