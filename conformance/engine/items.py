"""The three kinds of item a host stores: documents, conversations and learnings.

``StoreItem`` is their union, tagged on the wire by ``"type"``. Each item checks
itself (``validate``), renders itself as one text (``render_text``, what a
``Hit`` carries) and names its identity (``fingerprint``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, model_validator

from conformance.timestamps import Timestamp

from .blank import is_blank
from .errors import InvalidRequest
from .fingerprint import fingerprint
from .floats import f32_display, to_f32
from .meta import MemoryMeta, ToolCallRef
from .wire import F32, Omittable, OmittableList, WireModel


class ItemKind(StrEnum):
    """Which of the three item kinds an item is."""

    DOCUMENT = "document"
    CONVERSATION = "conversation"
    LEARNING = "learning"


class Role(StrEnum):
    """Who spoke a conversation turn."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class LearningKind(StrEnum):
    """What kind of statement a learning is."""

    PREFERENCE = "preference"
    FACT = "fact"
    PROCEDURE = "procedure"
    CORRECTION = "correction"
    OTHER = "other"


class DocumentBody(WireModel):
    """A document's body, externally tagged: ``{"text": ...}`` or ``{"uri": ...}``.

    Exactly one of ``text`` and ``uri`` is set. A ``uri`` body must be resolved to
    text by a source before it reaches an engine.
    """

    model_config = ConfigDict(extra="forbid")

    text: Omittable[str] = None
    uri: Omittable[str] = None

    @model_validator(mode="after")
    def _exactly_one(self) -> DocumentBody:
        if (self.text is None) == (self.uri is None):
            raise ValueError('a document body is either {"text": ...} or {"uri": ...}')
        return self

    @property
    def content(self) -> str:
        """The text, or the URI of an unresolved body."""
        return self.text if self.text is not None else self.uri or ""


class Turn(WireModel):
    """One conversation turn."""

    role: Role
    text: str
    at: Omittable[Timestamp] = None
    tool_calls: OmittableList[ToolCallRef] = Field(default_factory=list)

    def render(self) -> str:
        """``role: text``, then `` [tools: name (id), name]`` when the turn made tool calls."""
        line = f"{self.role.value}: {self.text}"
        if not self.tool_calls:
            return line
        calls = ", ".join(
            call.name if call.id is None else f"{call.name} ({call.id})" for call in self.tool_calls
        )
        return f"{line} [tools: {calls}]"


class Document(WireModel):
    """A document: a file, a page, a payload converted to text."""

    kind: ClassVar[ItemKind] = ItemKind.DOCUMENT

    type: Literal["document"] = "document"
    title: Omittable[str] = None
    body: DocumentBody
    mime: Omittable[str] = None
    meta: MemoryMeta = Field(default_factory=MemoryMeta)

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for a blank text body or an unresolved URI body."""
        if self.body.uri is not None:
            raise InvalidRequest(
                "document body is an unresolved uri; resolve it through a source first"
            )
        if is_blank(self.body.text or ""):
            raise InvalidRequest("document body must not be empty")

    def render_text(self) -> str:
        """``# title`` + blank line + body when the title is not blank, else the body."""
        body = self.body.content
        if self.title is not None and not is_blank(self.title):
            return f"# {self.title}\n\n{body}"
        return body

    def fingerprint(self) -> str:
        """The item's identity: see ``conformance.engine.fingerprint``."""
        return fingerprint(self)


class Conversation(WireModel):
    """A conversation: an ordered list of turns."""

    kind: ClassVar[ItemKind] = ItemKind.CONVERSATION

    type: Literal["conversation"] = "conversation"
    turns: list[Turn]
    meta: MemoryMeta = Field(default_factory=MemoryMeta)

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for no turns or a blank turn."""
        if not self.turns:
            raise InvalidRequest("conversation must have at least one turn")
        if any(is_blank(turn.text) for turn in self.turns):
            raise InvalidRequest("conversation turns must not be empty")

    def render_text(self) -> str:
        """Each turn rendered, one per line."""
        return "\n".join(turn.render() for turn in self.turns)

    def fingerprint(self) -> str:
        """The item's identity: see ``conformance.engine.fingerprint``."""
        return fingerprint(self)


class Learning(WireModel):
    """A learning: one distilled statement about the user or the world.

    The wire field ``kind`` (a ``LearningKind``) is the attribute ``learning_kind``,
    because ``kind`` names the item kind on every item.
    """

    kind: ClassVar[ItemKind] = ItemKind.LEARNING

    type: Literal["learning"] = "learning"
    text: str
    learning_kind: LearningKind = Field(alias="kind")
    confidence: F32
    evidence: Omittable[str] = None
    meta: MemoryMeta = Field(default_factory=MemoryMeta)

    def validate(self) -> None:  # type: ignore[override]
        """Raises ``InvalidRequest`` for blank text or a confidence (as ``f32``) outside
        ``0.0..=1.0``, NaN included."""
        if is_blank(self.text):
            raise InvalidRequest("learning text must not be empty")
        confidence = to_f32(self.confidence)
        if not 0.0 <= confidence <= 1.0:
            raise InvalidRequest(
                f"learning confidence {f32_display(confidence)} is outside 0.0..=1.0"
            )

    def render_text(self) -> str:
        """The statement."""
        return self.text

    def fingerprint(self) -> str:
        """The item's identity: see ``conformance.engine.fingerprint``."""
        return fingerprint(self)


StoreItem = Annotated[Document | Conversation | Learning, Field(discriminator="type")]
"""One item to store, tagged on the wire by ``"type"``."""


def document(
    text: str,
    meta: MemoryMeta | None = None,
    *,
    title: str | None = None,
    mime: str | None = None,
) -> Document:
    """A text document (``StoreItem::document``, plus optional title and MIME type)."""
    return Document(
        title=title,
        body=DocumentBody(text=text),
        mime=mime,
        meta=meta if meta is not None else MemoryMeta(),
    )


def learning(
    text: str,
    kind: LearningKind,
    confidence: float,
    meta: MemoryMeta | None = None,
    *,
    evidence: str | None = None,
) -> Learning:
    """A learning (``StoreItem::learning``, plus optional evidence)."""
    return Learning(
        text=text,
        learning_kind=kind,
        confidence=confidence,
        evidence=evidence,
        meta=meta if meta is not None else MemoryMeta(),
    )


def conversation(turns: list[Turn], meta: MemoryMeta | None = None) -> Conversation:
    """A conversation of ``turns``."""
    return Conversation(turns=turns, meta=meta if meta is not None else MemoryMeta())
