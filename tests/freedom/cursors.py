"""Cursors in the formats a driver may choose, optionally single-use or bound to a request.

A `CursorBook` issues a cursor for a page's state and redeems it on the next request.
Every format refuses what it did not issue: a base64 JSON cursor carries an HMAC of its
state, a token or UUID names state held server-side.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

CursorFormat = Literal["base64-json", "token", "uuid"]


class CursorRefused(Exception):
    """A cursor this book did not issue, has already redeemed (single-use), or issued for
    another request (bound)."""


@dataclass(frozen=True)
class CursorStyle:
    """How a driver's cursors look and how long they live."""

    format: CursorFormat = "base64-json"
    single_use: bool = False
    """Redeeming drops the cursor's state: a second use is refused."""
    bound: bool = False
    """A cursor is good only with the request (filter, query, mode) it was issued for."""


def binding_of(*parts: object) -> str:
    """A short digest of the request a cursor belongs to."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class CursorBook:
    """Issues and redeems the cursors of one driver instance.

    `used` counts the freedoms exercised under the names in `names` (`format`,
    `single_use`, `bound`), so a test can tell that a run met them.
    """

    def __init__(self, style: CursorStyle, used: Counter[str], names: dict[str, str]) -> None:
        self.style = style
        self.used = used
        self.names = names
        self._key = secrets.token_bytes(16)
        self._held: dict[str, dict[str, Any]] = {}
        self._spent: set[str] = set()

    def issue(self, state: dict[str, Any], binding: str) -> str:
        """A cursor naming `state` for the request `binding`."""
        self.used[self.names["format"]] += 1
        body = {"state": state, "binding": binding, "nonce": secrets.token_hex(4)}
        if self.style.format == "base64-json":
            text = json.dumps(body, sort_keys=True)
            signed = {"body": body, "sig": self._sign(text)}
            # Standard base64, padding and all: `+`, `/` and `=` must survive the round trip.
            return base64.b64encode(json.dumps(signed, sort_keys=True).encode()).decode()
        cursor = secrets.token_urlsafe(12) if self.style.format == "token" else str(uuid.uuid4())
        self._held[cursor] = body
        return cursor

    def redeem(self, cursor: str, binding: str) -> dict[str, Any]:
        """The state `cursor` names; `CursorRefused` when this book cannot honour it."""
        body = (
            self._decode(cursor) if self.style.format == "base64-json" else self._held.get(cursor)
        )
        if body is None:
            raise CursorRefused(cursor)
        if self.style.single_use:
            self.used[self.names["single_use"]] += 1
            if body["nonce"] in self._spent:
                raise CursorRefused(cursor)
            self._spent.add(body["nonce"])
            self._held.pop(cursor, None)
        if self.style.bound:
            self.used[self.names["bound"]] += 1
            if body["binding"] != binding:
                raise CursorRefused(cursor)
        state: dict[str, Any] = body["state"]
        return state

    def _sign(self, text: str) -> str:
        return hmac.new(self._key, text.encode(), hashlib.sha256).hexdigest()[:24]

    def _decode(self, cursor: str) -> dict[str, Any] | None:
        try:
            raw = base64.b64decode(cursor, validate=True)
            signed = json.loads(raw)
            body = signed["body"]
            sig = signed["sig"]
        except (binascii.Error, ValueError, TypeError, KeyError):
            return None
        if not isinstance(body, dict) or not isinstance(sig, str):
            return None
        if not hmac.compare_digest(sig, self._sign(json.dumps(body, sort_keys=True))):
            return None
        return body
