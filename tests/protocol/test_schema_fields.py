"""The wire schema describes every field a driver reads or writes: no open objects."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conformance.constraints import Constraints
from conformance.engine import EngineDescriptor
from conformance.protocol.schema import protocol_schema
from conformance.provider import OwnedRecallOpts

ROOT = Path(__file__).resolve().parents[2]


def objects(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object schema in `node`, with where it is."""
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield path, node
        for key, value in node.items():
            if key not in ("default", "const", "examples"):
                yield from objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from objects(value, f"{path}[{index}]")


def test_no_object_in_the_wire_schema_is_left_open() -> None:
    # An object names its fields, or is a map whose values have a schema of their own.
    schema = protocol_schema()
    open_ones = [
        path
        for path, node in objects(schema)
        if "properties" not in node and not isinstance(node.get("additionalProperties"), dict)
    ]
    assert open_ones == []


def test_recall_options_name_every_field_and_nothing_else() -> None:
    defs = protocol_schema()["$defs"]
    assert defs["calls"]["provider.recall"]["properties"]["args"]["properties"]["opts"] == {
        "$ref": "#/$defs/OwnedRecallOpts"
    }
    opts = defs["OwnedRecallOpts"]
    assert set(opts["properties"]) == set(OwnedRecallOpts.model_fields)
    assert opts["additionalProperties"] is False
    assert "GLOBAL_NAMESPACE" in opts["properties"]["namespace"]["description"]


def test_the_handshake_names_the_descriptor_and_constraint_fields() -> None:
    defs = protocol_schema()["$defs"]
    shake = defs["Handshake"]["properties"]
    assert {"$ref": "#/$defs/EngineDescriptor"} in shake["engine"]["anyOf"]
    assert set(defs["EngineDescriptor"]["properties"]) == set(EngineDescriptor.model_fields)
    assert shake["constraints"]["$ref"] == "#/$defs/Constraints"
    constraints = defs["Constraints"]
    assert set(constraints["properties"]) == {f.name for f in dataclasses.fields(Constraints)}
    assert constraints["additionalProperties"] is False  # from_wire refuses an unknown one
    assert all("description" in field for field in constraints["properties"].values())


def test_the_published_schema_has_them_too() -> None:
    published = json.loads((ROOT / "docs" / "protocol.schema.json").read_text(encoding="utf-8"))
    assert published["$defs"]["OwnedRecallOpts"]["properties"].keys() == set(
        OwnedRecallOpts.model_fields
    )
