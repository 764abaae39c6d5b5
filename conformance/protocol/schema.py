"""The JSON Schema of every protocol message, generated from the models that carry them.

`python -m conformance.protocol.schema > docs/protocol.schema.json` writes the published
copy; a test keeps it equal to what this module generates. Arguments are described as the
kit writes them (serialisation), results as the kit accepts them (validation).
"""

from __future__ import annotations

import json
from typing import Any, Final

from pydantic import TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from conformance.constraints import Constraints
from conformance.engine import EngineDescriptor
from conformance.protocol.messages import (
    PROTOCOL_VERSION,
    Error,
    Handshake,
    Hello,
    Result,
    Shutdown,
)
from conformance.protocol.operations import OPERATIONS
from conformance.provider import OwnedRecallOpts

SCHEMA_ID: Final = "tinymemory-conformance/protocol"

_MESSAGES: Final = {
    "Hello": (Hello, "serialization"),
    "Shutdown": (Shutdown, "serialization"),
    "Handshake": (Handshake, "validation"),
    "Result": (Result, "validation"),
    "Error": (Error, "validation"),
}


def protocol_schema() -> dict[str, Any]:
    """The schema: `KitMessage` and `DriverMessage`, a `call` per operation, and the
    result each operation answers with."""
    inputs: list[tuple[str, JsonSchemaMode, TypeAdapter[Any]]] = [
        (name, mode, TypeAdapter(model))  # type: ignore[misc]
        for name, (model, mode) in _MESSAGES.items()
    ]
    for op in OPERATIONS:
        inputs += [(f"{op.name}/{p.name}", "serialization", p.adapter) for p in op.params]
        inputs.append((f"{op.name}/result", "validation", op.result))
    # The handshake carries these as plain JSON objects; the schema names their fields.
    inputs += [
        ("EngineDescriptor", "validation", TypeAdapter(EngineDescriptor)),
        ("Constraints", "validation", TypeAdapter(Constraints)),
    ]
    by_key, defs = TypeAdapter.json_schemas(inputs, ref_template="#/$defs/{model}")
    schema_of = {key: value for (key, _mode), value in by_key.items()}

    calls: dict[str, Any] = {}
    results: dict[str, Any] = {}
    for op in OPERATIONS:
        calls[op.name] = {
            "type": "object",
            "description": f"A call of `{op.name}`; the driver answers with "
            f"`results/{op.name}` or an error.",
            "required": ["type", "id", "op", "args"],
            "properties": {
                "type": {"const": "call"},
                "id": {"type": "integer", "minimum": 1},
                "op": {"const": op.name},
                "args": {
                    "type": "object",
                    "required": [p.name for p in op.params],
                    "properties": {p.name: schema_of[f"{op.name}/{p.name}"] for p in op.params},
                    "additionalProperties": False,
                },
            },
        }
        results[op.name] = schema_of[f"{op.name}/result"]
    definitions: dict[str, Any] = dict(defs.get("$defs", {}))
    for name in _MESSAGES:
        if schema_of[name] != {"$ref": f"#/$defs/{name}"}:
            definitions[name] = schema_of[name]
        # `type` has a default in Python, but every message on the wire carries it.
        message = definitions[name]
        message["required"] = ["type", *(k for k in message.get("required", []) if k != "type")]
    _describe_handshake(definitions)
    _describe_recall_opts(definitions)
    definitions["calls"] = calls
    definitions["results"] = results
    definitions["KitMessage"] = {
        "description": "A line the kit writes on the driver's stdin.",
        "oneOf": [
            {"$ref": "#/$defs/Hello"},
            *({"$ref": f"#/$defs/calls/{op.name}"} for op in OPERATIONS),
            {"$ref": "#/$defs/Shutdown"},
        ],
    }
    definitions["DriverMessage"] = {
        "description": "A line the driver writes on its stdout.",
        "oneOf": [
            {"$ref": "#/$defs/Handshake"},
            {"$ref": "#/$defs/Result"},
            {"$ref": "#/$defs/Error"},
        ],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"TinyMemory driver protocol {PROTOCOL_VERSION}",
        "description": "Newline-delimited JSON between the kit (on the driver's stdin) and a "
        "driver process (on its stdout); see docs/protocol.md. A result's shape depends on "
        "the call it answers: `$defs/results/<op>`.",
        "oneOf": [{"$ref": "#/$defs/KitMessage"}, {"$ref": "#/$defs/DriverMessage"}],
        "$defs": dict(sorted(definitions.items())),
    }


def _describe_handshake(definitions: dict[str, Any]) -> None:
    """The handshake's `engine` is an `EngineDescriptor`, its `constraints` the
    `Constraints` fields (an unknown one is refused), its `capabilities` family names."""
    properties = definitions["Handshake"]["properties"]
    properties["engine"] = {
        "anyOf": [{"$ref": "#/$defs/EngineDescriptor"}, {"type": "null"}],
        "default": None,
        "description": properties["engine"]["description"],
    }
    constraints = dict(definitions["Constraints"])
    constraints["additionalProperties"] = False
    definitions["Constraints"] = constraints
    properties["constraints"] = {
        "$ref": "#/$defs/Constraints",
        "description": properties["constraints"]["description"],
    }
    capabilities = properties["capabilities"]
    capabilities["description"] += " (`$defs/Capability`; a name the kit does not know is ignored)"


def _describe_recall_opts(definitions: dict[str, Any]) -> None:
    """`OwnedRecallOpts` by its fields: its serializer (which omits unset fields) leaves
    pydantic's serialization schema an open object."""
    schema = TypeAdapter(OwnedRecallOpts).json_schema(
        mode="validation", ref_template="#/$defs/{model}"
    )
    schema["additionalProperties"] = False
    definitions["OwnedRecallOpts"] = schema


def render() -> str:
    """The schema as the published file holds it."""
    return json.dumps(protocol_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(), end="")
