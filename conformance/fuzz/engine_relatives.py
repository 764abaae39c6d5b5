"""Relatives of a held engine item: items and filters that almost agree with it.

`item_relative(item, field, how)` is the item with one field replaced by a relative of
its value (`conformance.relatives`); storing it must write a new item beside the
first (or replay it, when only `observed_at` moved: the fingerprint leaves it out).
`filter_relative(item, field, how)` is a filter naming a relative of the item's value
in one field: listing with it must admit exactly what the contract's matching says
(`MetaFilter.matches`), however close the relative is. Both answer `None` when the item
has no value there or the relative is not a value the field takes.
"""

from __future__ import annotations

from typing import Any, Final

from conformance.engine import (
    MAX_DEPTH,
    Conversation,
    Document,
    DocumentBody,
    Learning,
    MetaFilter,
    Namespace,
    Reach,
    Segment,
    SegmentKind,
    StoreItem,
    Timestamp,
    ToolCallRef,
)
from conformance.engine.blank import is_blank
from conformance.relatives import RELATIONS, relative, segment_relatives

__all__ = [
    "FILTER_FIELDS",
    "FILTER_RELATIONS_OF",
    "ITEM_FIELDS",
    "NUDGES",
    "RELATIONS_OF",
    "filter_relative",
    "item_relative",
]

NUDGES: Final[dict[str, int]] = {
    "-1s": -1_000_000_000,
    "-1ms": -1_000_000,
    "-1us": -1_000,
    "-1ns": -1,
    "+1ns": 1,
    "+1us": 1_000,
    "+1ms": 1_000_000,
    "+1s": 1_000_000_000,
}
"""How an observation time is moved: a nanosecond to a second either way (a store
keeping microseconds, or milliseconds, cannot tell some of them apart)."""

_STRINGS: Final = (
    "folder",
    "file_path",
    "language",
    "repo",
    "commit",
    "url",
    "thread_id",
    "agent_id",
)
_NAMESPACE_WAYS: Final = (
    "parent",
    "child",
    "prefix",
    "extension",
    "case-twin",
    "upper",
    "separator-twin",
)

_SCALARS: Final = (*_STRINGS, "source_id", "tag", "tool_call")

ITEM_FIELDS: Final = ("text", "namespace", *_SCALARS, "observed_at")
"""The fields `item_relative` moves."""

FILTER_FIELDS: Final = ("namespace", *_SCALARS, "observed_at")
"""The fields `filter_relative` names a relative in."""

RELATIONS_OF: Final[dict[str, tuple[str, ...]]] = {
    **{name: tuple(RELATIONS) for name in ("text", *_SCALARS)},
    "namespace": _NAMESPACE_WAYS,
    "observed_at": tuple(NUDGES),
}
"""The ways each field's relative is made for `item_relative`."""

FILTER_RELATIONS_OF: Final[dict[str, tuple[str, ...]]] = {
    **RELATIONS_OF,
    "observed_at": (*NUDGES, "at"),
}
"""The ways each field's relative is made for `filter_relative` (`at`: a window holding
the held time and nothing else)."""


def _text_of(item: StoreItem) -> str:
    if isinstance(item, Document):
        return item.body.text or ""
    if isinstance(item, Conversation):
        return item.turns[0].text
    assert isinstance(item, Learning)
    return item.text


def _with_text(item: StoreItem, text: str) -> StoreItem | None:
    if is_blank(text):
        return None
    if isinstance(item, Document):
        return item.model_copy(update={"body": DocumentBody(text=text)})
    if isinstance(item, Conversation):
        first = item.turns[0].model_copy(update={"text": text})
        return item.model_copy(update={"turns": [first, *item.turns[1:]]})
    return item.model_copy(update={"text": text})


def _node_relative(node: Namespace, how: str) -> Namespace | None:
    segments = node.segments
    if how == "parent":
        return node.parent if segments else None
    if how == "child":
        if len(segments) >= MAX_DEPTH:
            return None
        return node.child(Segment(SegmentKind.AGENT, "x"))
    if not segments:
        return None
    last = segments[-1]
    made = segment_relatives(last.id).get(how)
    return None if made is None else Namespace((*segments[:-1], Segment(last.kind, made)))


def _value(item: StoreItem, field: str) -> Any:
    meta = item.meta
    if field == "namespace":
        return meta.namespace
    if field == "source_id":
        return meta.source.id
    if field == "tag":
        return meta.tags[0] if meta.tags else None
    if field == "tool_call":
        return meta.tool_call.name if meta.tool_call else None
    if field == "text":
        return _text_of(item)
    return getattr(meta, field)


def _moved(value: Any, field: str, how: str) -> Any:
    """The relative of a field's value, or `None`."""
    if value is None:
        return None
    if field == "namespace":
        return _node_relative(value, how)
    if field == "observed_at":
        nanos = value.nanos + NUDGES[how]
        try:
            return Timestamp(nanos)
        except ValueError:
            return None
    return relative(value, how)


def item_relative(item: StoreItem, field: str, how: str) -> StoreItem | None:
    """`item` with `field` replaced by its relative made `how`, or `None`."""
    made = _moved(_value(item, field), field, how)
    if made is None:
        return None
    if field == "text":
        return _with_text(item, made)
    meta = item.meta
    update: dict[str, Any]
    if field == "source_id":
        update = {"source": meta.source.model_copy(update={"id": made})}
    elif field == "tag":
        update = {"tags": sorted({made, *meta.tags[1:]})}
    elif field == "tool_call":
        assert meta.tool_call is not None
        update = {"tool_call": ToolCallRef(name=made, id=meta.tool_call.id)}
    else:
        update = {field: made}
    return item.model_copy(update={"meta": meta.model_copy(update=update)})


def filter_relative(item: StoreItem, field: str, how: str) -> MetaFilter | None:
    """A filter naming, in `field`, the relative of `item`'s value made `how`, or `None`.
    A namespace relative is a reach at it (exact, inheriting, or with descendants, by the
    relative's depth); a time moved either way, a window just missing the held time (or,
    `at`, the window holding exactly it)."""
    value = _value(item, field)
    if field == "observed_at" and how == "at" and value is not None:
        try:
            end: Timestamp | None = Timestamp(value.nanos + 1)
        except ValueError:  # the last instant there is: no bound after it
            end = None
        return MetaFilter(observed_after=value, observed_before=end)
    made = _moved(value, field, how)
    if made is None:
        return None
    if field == "namespace":
        variant = len(made.segments) % 3
        reach = Reach(at=made, inherit=variant == 1, descendants=variant == 2)
        return MetaFilter(reach=reach)
    if field == "observed_at":
        # Just past the held time, either side: the window leaves the item out.
        if how.startswith("-"):
            return MetaFilter(observed_before=made)
        return MetaFilter(observed_after=made)
    if field == "tag":
        return MetaFilter(tags_any=[made])
    return MetaFilter.model_validate({field: made})
