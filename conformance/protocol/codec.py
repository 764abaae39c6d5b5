"""One message per line: compact JSON, with non-finite numbers written as strings.

Contract JSON has no NaN or infinity (serde_json writes them `null`), yet the kit must be
able to send a driver the invalid confidence `NaN` it would pass in process. The protocol
writes a non-finite number as the string `"NaN"`, `"Infinity"` or `"-Infinity"`; the
contract models read those strings back as the float, and any other driver sees a value
that is not a number in range, which is what it is.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from pydantic_core import PydanticSerializationError, from_json, to_json

_NON_FINITE: Final = {math.inf: "Infinity", -math.inf: "-Infinity"}
# Built once: `json.dumps` with arguments builds a new encoder on every call.
_ESCAPING: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
_DECODER: Final = json.JSONDecoder()


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else _NON_FINITE[value]
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def encode(message: dict[str, Any]) -> bytes:
    """`message` (JSON data) as one line of compact UTF-8 JSON, newline included. A string
    UTF-8 cannot carry (a lone surrogate) is written as a `\\u` escape, so every string
    the kit holds reaches the driver exactly."""
    try:
        # pydantic-core's writer is several times faster than `json` on answers of hits.
        return to_json(message, inf_nan_mode="strings") + b"\n"
    except PydanticSerializationError:
        # Only a message holding a lone surrogate (or a value that is not JSON data, for
        # `json` to refuse by name) pays for the escaping writer and the walk.
        return _ESCAPING.encode(_finite(message)).encode("ascii") + b"\n"


def decode(line: bytes) -> Any:
    """The JSON value of one line; `ValueError` (with position) if it is not UTF-8 JSON.
    The bare tokens `NaN` and `Infinity` are read as numbers, as Python writes them."""
    try:
        return from_json(line)
    except ValueError:
        # pydantic-core refuses an escaped lone surrogate, which the kit sends on purpose;
        # `json` reads it, and words the error for a line that is not JSON at all.
        return _DECODER.decode(line.decode())
