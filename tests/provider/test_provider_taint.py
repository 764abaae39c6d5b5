"""`MemoryTaint` decodes fail-closed, also inside every model that carries it (A1)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from conformance.provider import (
    ExportRecord,
    MemoryEntry,
    MemoryTaint,
    NamespaceDocumentInput,
    NamespaceQueryResult,
)

DECODE_TABLE = [
    ("internal", MemoryTaint.INTERNAL),
    ("external_sync", MemoryTaint.EXTERNAL_SYNC),
    ("", MemoryTaint.EXTERNAL_SYNC),
    ("Internal", MemoryTaint.EXTERNAL_SYNC),
    ("INTERNAL", MemoryTaint.EXTERNAL_SYNC),
    (" internal", MemoryTaint.EXTERNAL_SYNC),
    ("internal ", MemoryTaint.EXTERNAL_SYNC),
    ("intern", MemoryTaint.EXTERNAL_SYNC),
    ("External_Sync", MemoryTaint.EXTERNAL_SYNC),
    ("garbage", MemoryTaint.EXTERNAL_SYNC),
]

ENTRY: dict[str, Any] = {
    "id": "i",
    "key": "k",
    "content": "c",
    "category": "core",
    "timestamp": "1970-01-01T00:00:00Z",
}
RECORD: dict[str, Any] = {"kind": "entry", "id": "i", "namespace": "n", "payload": {"key": "k"}}
DOCUMENT: dict[str, Any] = {
    "namespace": "n",
    "key": "k",
    "title": "t",
    "content": "c",
    "source_type": "s",
    "priority": "p",
    "category": "core",
}
QUERY_RESULT: dict[str, Any] = {"key": "k", "content": "c", "score": 0.5, "category": "core"}
CARRIERS: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (MemoryEntry, ENTRY),
    (ExportRecord, RECORD),
    (NamespaceDocumentInput, DOCUMENT),
    (NamespaceQueryResult, QUERY_RESULT),
]


@pytest.mark.parametrize(("raw", "taint"), DECODE_TABLE)
def test_decode_never_fails(raw: str, taint: MemoryTaint) -> None:
    assert MemoryTaint.decode(raw) is taint
    assert MemoryTaint(raw) is taint


@pytest.mark.parametrize(("model", "base"), CARRIERS)
@pytest.mark.parametrize(("raw", "taint"), DECODE_TABLE)
def test_models_decode_taint_fail_closed(
    model: type[BaseModel], base: dict[str, object], raw: str, taint: MemoryTaint
) -> None:
    from_json = model.model_validate_json(json.dumps({**base, "taint": raw}))
    from_python = model.model_validate({**base, "taint": raw})
    for value in (from_json, from_python):
        assert value.model_dump()["taint"] is taint
        assert json.loads(value.model_dump_json())["taint"] == taint.value


@pytest.mark.parametrize(("model", "base"), CARRIERS)
def test_a_missing_taint_is_internal(model: type[BaseModel], base: dict[str, object]) -> None:
    for value in (model.model_validate_json(json.dumps(base)), model.model_validate(base)):
        assert value.model_dump()["taint"] is MemoryTaint.INTERNAL


@pytest.mark.parametrize("bad", [None, 0, 1, True, [], {}])
def test_a_taint_that_is_not_a_string_is_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        MemoryEntry.model_validate_json(json.dumps({**ENTRY, "taint": bad}))


def test_serialises_as_the_bare_string() -> None:
    entry = MemoryEntry.model_validate({**ENTRY, "taint": MemoryTaint.EXTERNAL_SYNC})
    assert '"taint":"external_sync"' in entry.model_dump_json()
    assert str(MemoryTaint.INTERNAL) == "internal"
    assert MemoryTaint.EXTERNAL_SYNC.value == "external_sync"
    assert isinstance(MemoryTaint.INTERNAL, str)
