"""Namespaces: the tree of memory nodes (``team:acme/agent:writer``) and ``Reach``.

Every item lives at one node. A reader names a ``Reach``: the node it reads at,
whether it also reads that node's ancestors (``inherit``), and whether it reads
the nodes below it (``descendants``). Siblings are never in reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from .blank import trim
from .errors import InvalidRequest
from .limits import MAX_DEPTH, MAX_SEGMENT_ID, ROOT_LABEL, SANITIZED_KEEP

_VALID_ID: Final = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_SEGMENT_ID}}}")
_ILLEGAL_ID_CHAR: Final = re.compile(r"[^A-Za-z0-9_-]")
_FNV_OFFSET: Final = 0x811C9DC5
_FNV_PRIME: Final = 0x01000193


class SegmentKind(StrEnum):
    """What a namespace segment names. The value is the enum's serde form; ``prefix``
    is how it is written inside a namespace string (``ws`` for a workspace)."""

    AGENT = "agent"
    TEAM = "team"
    USER = "user"
    WORKSPACE = "workspace"
    PROJECT = "project"
    SOURCE = "source"

    @property
    def prefix(self) -> str:
        """The kind as written in a namespace string."""
        return "ws" if self is SegmentKind.WORKSPACE else self.value

    @classmethod
    def from_prefix(cls, prefix: str) -> SegmentKind:
        """The kind written ``prefix`` in a namespace string.

        Raises ``InvalidRequest`` ("`<prefix>` is not a namespace segment kind").
        """
        kind = _KIND_BY_PREFIX.get(prefix)
        if kind is None:
            raise InvalidRequest(f"`{prefix}` is not a namespace segment kind")
        return kind


_KIND_BY_PREFIX: Final = {kind.prefix: kind for kind in SegmentKind}


def _fnv1a(raw: str) -> int:
    """32-bit FNV-1a over the UTF-8 bytes of ``raw``."""
    hashed = _FNV_OFFSET
    for byte in raw.encode("utf-8", "surrogatepass"):
        hashed = ((hashed ^ byte) * _FNV_PRIME) & 0xFFFF_FFFF
    return hashed


@dataclass(frozen=True, slots=True)
class Segment:
    """One step of a namespace path, ``kind:id``; the id is checked on construction."""

    kind: SegmentKind
    id: str

    def __post_init__(self) -> None:
        if not _VALID_ID.fullmatch(self.id):
            raise InvalidRequest(
                f"namespace id `{self.id}` must be 1 to {MAX_SEGMENT_ID} characters of "
                "A-Z, a-z, 0-9, `_` or `-`"
            )

    @classmethod
    def sanitized(cls, kind: SegmentKind, raw: str) -> Segment:
        """A segment for any host id: a valid id is kept; an empty one becomes ``_``;
        otherwise illegal characters become ``-``, the first 119 characters are kept
        and ``-`` plus the 8-hex FNV-1a of the original is appended."""
        if _VALID_ID.fullmatch(raw):
            return cls(kind, raw)
        if not raw:
            return cls(kind, "_")
        cleaned = _ILLEGAL_ID_CHAR.sub("-", raw[:SANITIZED_KEEP])
        return cls(kind, f"{cleaned}-{_fnv1a(raw):08x}")

    @classmethod
    def parse(cls, part: str) -> Segment:
        """The segment written ``kind:id`` (split at the first ``:``)."""
        kind, colon, segment_id = part.partition(":")
        if not colon:
            raise InvalidRequest(f"namespace segment `{part}` must be written kind:id")
        return cls(SegmentKind.from_prefix(kind), segment_id)

    def __str__(self) -> str:
        return f"{self.kind.prefix}:{self.id}"


class Namespace:
    """A node of the memory tree: the path of segments from the root.

    Written ``team:acme/agent:writer``; the root is the empty path, written ``root``.
    On the wire a namespace is that string. Immutable and hashable.
    """

    __slots__ = ("_segments", "_text")

    ROOT: ClassVar[Namespace]
    """The root: memory every agent shares."""

    _segments: tuple[Segment, ...]
    _text: str

    def __init__(self, segments: Iterable[Segment] = ()) -> None:
        path = tuple(segments)
        if len(path) > MAX_DEPTH:
            raise InvalidRequest(f"a namespace nests at most {MAX_DEPTH} deep")
        self._segments = path
        self._text = "/".join(map(str, path)) if path else ROOT_LABEL

    @classmethod
    def new(cls, segments: Iterable[Segment]) -> Namespace:
        """A namespace from its segments, root first; deeper than 8 is ``InvalidRequest``."""
        return cls(segments)

    @classmethod
    def parse(cls, text: str) -> Namespace:
        """Parses ``team:acme/agent:writer``; ``""`` and ``"root"`` (trimmed) are the root."""
        text = trim(text)
        if not text or text == ROOT_LABEL:
            return cls.ROOT
        return cls(Segment.parse(part) for part in text.split("/"))

    @classmethod
    def agent(cls, agent_id: str) -> Namespace:
        """The node of one agent directly under the root, its id sanitised."""
        return cls((Segment.sanitized(SegmentKind.AGENT, agent_id),))

    def child(self, segment: Segment) -> Namespace:
        """This node with ``segment`` appended; deeper than 8 is ``InvalidRequest``."""
        return Namespace((*self._segments, segment))

    @property
    def is_root(self) -> bool:
        """Whether this is the root."""
        return not self._segments

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The path's segments, root first."""
        return self._segments

    @property
    def depth(self) -> int:
        """How deep the node is; the root is 0."""
        return len(self._segments)

    @property
    def parent(self) -> Namespace | None:
        """The parent node; ``None`` for the root."""
        if not self._segments:
            return None
        return Namespace(self._segments[:-1])

    def ancestors_and_self(self) -> list[Namespace]:
        """The root, every ancestor, then this node."""
        return [Namespace(self._segments[:depth]) for depth in range(len(self._segments) + 1)]

    def is_within(self, other: Namespace) -> bool:
        """Whether this node is ``other`` or lies below it."""
        return self._segments[: len(other._segments)] == other._segments

    def shared_ancestor(self) -> Namespace:
        """The nearest node at or above this one whose last segment is not an agent."""
        keep = len(self._segments)
        while keep and self._segments[keep - 1].kind is SegmentKind.AGENT:
            keep -= 1
        return Namespace(self._segments[:keep])

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Namespace({self._text!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Namespace):
            return NotImplemented
        return self._segments == other._segments

    def __hash__(self) -> int:
        return hash(self._segments)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _namespace_from_wire,
            serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "description": "kind:id segments joined by /; root is `root`"}


Namespace.ROOT = Namespace()


def _namespace_from_wire(value: object) -> Namespace:
    if isinstance(value, Namespace):
        return value
    if not isinstance(value, str):
        raise ValueError("a namespace is written as a string")
    try:
        return Namespace.parse(value)
    except InvalidRequest as error:
        # pydantic reports ValueError as a validation error; keep the contract's words.
        raise ValueError(error.message) from error


def namespace_is_root(namespace: Namespace) -> bool:
    """Whether ``namespace`` is the root (the skip rule for ``meta.namespace``)."""
    return namespace.is_root


class Reach(BaseModel):
    """How far a reader reaches: ``at``, its ancestors when ``inherit``, the nodes
    below it when ``descendants``. Never a sibling."""

    model_config = ConfigDict(frozen=True)

    at: Namespace = Namespace.ROOT
    inherit: bool = True
    descendants: bool = False

    @classmethod
    def of(cls, at: Namespace) -> Reach:
        """An agent's ordinary reach: ``at`` and its ancestors."""
        return cls(at=at, inherit=True, descendants=False)

    @classmethod
    def exact(cls, at: Namespace) -> Reach:
        """Exactly one node."""
        return cls(at=at, inherit=False, descendants=False)

    @classmethod
    def subtree(cls, at: Namespace) -> Reach:
        """A node and everything below it, without its ancestors."""
        return cls(at=at, inherit=False, descendants=True)

    @classmethod
    def default(cls) -> Reach:
        """``of(ROOT)``: only the root."""
        return cls.of(Namespace.ROOT)

    def admits(self, namespace: Namespace) -> bool:
        """Whether an item at ``namespace`` is in reach."""
        return (
            namespace == self.at
            or (self.inherit and self.at.is_within(namespace))
            or (self.descendants and namespace.is_within(self.at))
        )

    def nodes(self) -> list[Namespace]:
        """The nodes read exactly, root first: ``at`` and, when ``inherit``, its ancestors."""
        if self.inherit:
            return self.at.ancestors_and_self()
        return [self.at]
