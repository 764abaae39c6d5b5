"""An item's identity: SHA-256 over its canonical JSON, first 20 bytes as 40 hex.

The canonical JSON is serde_json's compact output of the item in declaration
order, ``"type"`` first, unset fields left out, after clearing
``meta.observed_at``, ``meta.observed_actor`` and ``meta.tool_call.id`` (when an
item was seen, who said it and which call produced it do not change what it is).
Confidences print as the shortest decimal naming the same ``f32``; timestamps as
RFC 3339 with ``Z``.

The text is assembled directly from the model's attributes: every key and its
order is written out below, so the rules are visible and no generic serialiser
pass is paid for.
"""

from __future__ import annotations

import hashlib
import json.encoder
from typing import TYPE_CHECKING, Final, cast

from .floats import f32_json

if TYPE_CHECKING:
    from .items import Conversation, Document, Learning, StoreItem, Turn
    from .meta import MemoryMeta, ToolCallRef

FINGERPRINT_BYTES: Final = 20
"""How many bytes of the SHA-256 digest name an item (40 hex characters)."""

# The C escaper behind json.dumps(ensure_ascii=False): the same escapes as serde_json.
_quote: Final = json.encoder.encode_basestring

# MemoryMeta's plain text fields ahead of `turns`, in wire order, with their JSON keys.
_LEADING_TEXT_FIELDS: Final = (
    "workspace",
    "folder",
    "file_path",
    "language",
    "repo",
    "commit",
    "url",
    "thread_id",
)
_LEADING_TEXT_KEYS: Final = tuple((name, f'"{name}":') for name in _LEADING_TEXT_FIELDS)


def _meta_json(meta: MemoryMeta) -> str:
    fields = meta.__dict__
    parts: list[str] = []
    namespace = fields["namespace"]
    if not namespace.is_root:
        parts.append(f'"namespace":"{namespace}"')  # segment ids never need escaping
    for name, key in _LEADING_TEXT_KEYS:
        value = fields[name]
        if value is not None:
            parts.append(key + _quote(value))
    turns = fields["turns"]
    if turns is not None:
        parts.append(f'"turns":{{"first":{turns.first},"last":{turns.last}}}')
    agent_id = fields["agent_id"]
    if agent_id is not None:
        parts.append('"agent_id":' + _quote(agent_id))
    tool_call = fields["tool_call"]
    if tool_call is not None:
        parts.append('"tool_call":{"name":' + _quote(tool_call.name) + "}")  # id cleared
    source = fields["source"]
    if source.id is None:
        parts.append(f'"source":{{"kind":"{source.kind.value}"}}')
    else:
        parts.append(f'"source":{{"kind":"{source.kind.value}","id":{_quote(source.id)}}}')
    tags = fields["tags"]
    if tags:
        parts.append('"tags":[' + ",".join(map(_quote, tags)) + "]")
    # observed_at is cleared here.
    derive = fields["derive"]
    if derive is not None:
        parts.append('"derive":true' if derive else '"derive":false')
    # observed_actor is cleared here.
    return "{" + ",".join(parts) + "}"


def _tool_call_json(call: ToolCallRef) -> str:
    if call.id is None:
        return '{"name":' + _quote(call.name) + "}"
    return '{"name":' + _quote(call.name) + ',"id":' + _quote(call.id) + "}"


def _turn_json(turn: Turn) -> str:
    text = f'{{"role":"{turn.role.value}","text":{_quote(turn.text)}'
    if turn.at is not None:
        text += f',"at":"{turn.at.rfc3339()}"'
    if turn.tool_calls:
        text += ',"tool_calls":[' + ",".join(map(_tool_call_json, turn.tool_calls)) + "]"
    return text + "}"


def _document_json(item: Document) -> str:
    text = '{"type":"document"'
    if item.title is not None:
        text += ',"title":' + _quote(item.title)
    body = item.body
    if body.text is not None:
        text += ',"body":{"text":' + _quote(body.text) + "}"
    else:
        text += ',"body":{"uri":' + _quote(body.uri or "") + "}"
    if item.mime is not None:
        text += ',"mime":' + _quote(item.mime)
    return text + ',"meta":' + _meta_json(item.meta) + "}"


def _conversation_json(item: Conversation) -> str:
    turns = ",".join(map(_turn_json, item.turns))
    return '{"type":"conversation","turns":[' + turns + '],"meta":' + _meta_json(item.meta) + "}"


def _learning_json(item: Learning) -> str:
    text = (
        '{"type":"learning","text":'
        + _quote(item.text)
        + f',"kind":"{item.learning_kind.value}","confidence":{f32_json(item.confidence)}'
    )
    if item.evidence is not None:
        text += ',"evidence":' + _quote(item.evidence)
    return text + ',"meta":' + _meta_json(item.meta) + "}"


def canonical_text(item: StoreItem) -> str:
    """The JSON text the fingerprint hashes (see the module docstring)."""
    # Dispatch on the tag: importing the item classes here would be circular.
    kind = item.type
    if kind == "learning":
        return _learning_json(cast("Learning", item))
    if kind == "document":
        return _document_json(cast("Document", item))
    return _conversation_json(cast("Conversation", item))


def canonical_json(item: StoreItem) -> bytes:
    """The UTF-8 bytes the fingerprint hashes."""
    # surrogatepass keeps the function total for lone surrogates, which no wire item holds.
    return canonical_text(item).encode("utf-8", "surrogatepass")


def fingerprint(item: StoreItem) -> str:
    """The item's identity: the first 20 bytes of SHA-256 over ``canonical_json``, as 40
    lowercase hex characters. Storing an item with a known fingerprint is a replay."""
    return hashlib.sha256(canonical_json(item)).hexdigest()[: 2 * FINGERPRINT_BYTES]
