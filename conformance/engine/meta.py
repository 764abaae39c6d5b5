"""``MemoryMeta``: where an item came from and what it is about."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from conformance.timestamps import Timestamp

from .namespace import Namespace, namespace_is_root
from .wire import Omittable, OmittableList, WireModel

U32 = Annotated[int, Field(ge=0, le=0xFFFF_FFFF)]


class SourceKind(StrEnum):
    """The kind of reader or producer an item came from (``agent`` by default)."""

    FOLDER = "folder"
    FILE = "file"
    CONVERSATION = "conversation"
    AGENT = "agent"
    IMPORT = "import"


class SourceRef(WireModel):
    """Which reader or producer supplied an item."""

    kind: SourceKind = SourceKind.AGENT
    id: Omittable[str] = None


class TurnRange(WireModel):
    """An inclusive, zero-based range of conversation turns."""

    first: U32
    last: U32


class ToolCallRef(WireModel):
    """A reference to one tool call; ``id`` when the producer assigned one."""

    name: str
    id: Omittable[str] = None


class ObservedActor(WireModel):
    """Who said or did what an item records (``id`` like ``user:priya@acme.com``)."""

    id: str
    name: Omittable[str] = None


class MemoryMeta(WireModel):
    """Where an item came from and what it is about. Every field is optional on input;
    the field order is the wire order, which the fingerprint depends on."""

    namespace: Annotated[Namespace, Field(exclude_if=namespace_is_root)] = Namespace.ROOT
    workspace: Omittable[str] = None
    folder: Omittable[str] = None
    file_path: Omittable[str] = None
    language: Omittable[str] = None
    repo: Omittable[str] = None
    commit: Omittable[str] = None
    url: Omittable[str] = None
    thread_id: Omittable[str] = None
    turns: Omittable[TurnRange] = None
    agent_id: Omittable[str] = None
    tool_call: Omittable[ToolCallRef] = None
    source: SourceRef = Field(default_factory=SourceRef)
    tags: OmittableList[str] = Field(default_factory=list)
    observed_at: Omittable[Timestamp] = None
    derive: Omittable[bool] = None
    observed_actor: Omittable[ObservedActor] = None

    @classmethod
    def from_source(cls, kind: SourceKind, id: str | None = None) -> MemoryMeta:
        """Metadata naming only its source."""
        return cls(source=SourceRef(kind=kind, id=id))
