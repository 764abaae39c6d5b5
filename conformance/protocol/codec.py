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

_NON_FINITE: Final = {math.inf: "Infinity", -math.inf: "-Infinity"}
# Built once: `json.dumps` with arguments builds a new encoder on every call.
_STRICT: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
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
    """`message` as one line of compact JSON, newline included. Non-ASCII characters are
    escaped, so a string the kit holds (a lone surrogate included) reaches the driver
    exactly."""
    try:
        text = _STRICT.encode(message)
    except ValueError:
        # Only a message holding a non-finite float pays for the walk.
        text = _STRICT.encode(_finite(message))
    return text.encode("ascii") + b"\n"


def decode(line: bytes) -> Any:
    """The JSON value of one line; `ValueError` (with position) if it is not UTF-8 JSON.
    The bare tokens `NaN` and `Infinity` are read as numbers, as Python writes them."""
    return _DECODER.decode(line.decode())
