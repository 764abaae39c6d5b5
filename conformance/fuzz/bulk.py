"""Bulk writes from a few drawn numbers: tens or hundreds of items per step, cheaply.

Hypothesis draws every value of a step, and a program stops growing once it has drawn
a few thousand choices, so a store grown item by item stays small. A bulk step draws
only a size and a salt; the items (engine) or entries (provider) follow from them
deterministically, spread over the near-miss pools (`conformance.fuzz.pools`). The step
log records the two numbers, so a regression test replays the same bulk, and shrinking
a bulk is shrinking its size.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple, TypeVar

from conformance.engine import (
    Conversation,
    Document,
    DocumentBody,
    Learning,
    LearningKind,
    MemoryMeta,
    Namespace,
    Role,
    SourceKind,
    SourceRef,
    StoreItem,
    ToolCallRef,
    Turn,
)
from conformance.fuzz import pools
from conformance.fuzz.strategies import WORDS
from conformance.provider import MemoryCategory, MemoryTaint, NamespaceDocumentInput

__all__ = ["BulkEntry", "bulk_documents", "bulk_entries", "bulk_items"]

T = TypeVar("T")

_CONFIDENCES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
_CATEGORIES: Final = (
    MemoryCategory.CORE,
    MemoryCategory.DAILY,
    MemoryCategory.CONVERSATION,
    MemoryCategory.custom("x"),
)


class _Draw:
    """Deterministic choices for element `index` of the bulk `salt`."""

    def __init__(self, salt: int, index: int) -> None:
        self.salt = salt
        self.index = index

    def number(self, field: str, below: int) -> int:
        digest = hashlib.blake2b(
            f"{self.salt}:{self.index}:{field}".encode(), digest_size=4
        ).digest()
        return int.from_bytes(digest, "big") % below

    def pick(self, field: str, pool: Sequence[T]) -> T:
        return pool[self.number(field, len(pool))]

    def chance(self, field: str, percent: int) -> bool:
        return self.number(field, 100) < percent

    def words(self, field: str, count: int) -> str:
        return " ".join(self.pick(f"{field}{n}", WORDS) for n in range(count))


def _meta(draw: _Draw, nodes: Sequence[Namespace]) -> MemoryMeta:
    fields: dict[str, object] = {
        "namespace": draw.pick("namespace", nodes),
        "tags": sorted({draw.pick(f"tag{n}", pools.TAGS) for n in range(draw.number("tags", 3))}),
        "source": SourceRef(
            kind=draw.pick("source", list(SourceKind)),
            id=draw.pick("source_id", pools.SOURCE_IDS) if draw.chance("has_source", 30) else None,
        ),
    }
    if draw.chance("has_folder", 50):
        fields["folder"] = draw.pick("folder", pools.FOLDERS)
    if draw.chance("has_file", 30):
        fields["file_path"] = draw.pick("file_path", pools.FILE_PATHS)
    if draw.chance("has_moment", 60):
        fields["observed_at"] = draw.pick("moment", pools.MOMENTS)
    for name, percent in (("language", 30), ("agent_id", 20), ("repo", 10)):
        if draw.chance(f"has_{name}", percent):
            fields[name] = draw.pick(name, pools.VALUES)
    if draw.chance("has_tool", 10):
        fields["tool_call"] = ToolCallRef(name=draw.pick("tool", pools.VALUES))
    return MemoryMeta.model_validate(fields)


def bulk_items(
    count: int,
    salt: int,
    *,
    nodes: Sequence[Namespace] = pools.ENGINE_NODES,
    fit: Callable[[str], str] = lambda text: text,
    fit_item: Callable[[StoreItem], StoreItem] = lambda item: item,
) -> list[StoreItem]:
    """`count` distinct valid items (no workspace set) for the bulk `salt`.

    Kinds, nodes, folders, file paths, tags, sources and observation times come from the
    pools; texts share words (so fetch and recall hit many items at once) and end in a
    token unique to the item (`<salt>n<index>`). `fit` narrows each text to what the
    driver declares it takes, then `fit_item` each item (its rendered text).
    """
    items: list[StoreItem] = []
    for index in range(count):
        draw = _Draw(salt, index)
        text = fit(f"{draw.words('w', 1 + draw.number('nwords', 3))} {salt}n{index}")
        meta = _meta(draw, nodes)
        kind = draw.number("kind", 10)
        if kind < 5:
            items.append(Document(body=DocumentBody(text=text), meta=meta))
        elif kind < 8:
            items.append(
                Learning(
                    text=text,
                    learning_kind=draw.pick("lkind", list(LearningKind)),
                    confidence=draw.pick("confidence", _CONFIDENCES),
                    meta=meta,
                )
            )
        else:
            meta = meta.model_copy(
                update={
                    "thread_id": draw.pick("thread", pools.VALUES),
                    "turns": draw.pick("turns", pools.TURNS),
                }
            )
            turns = [Turn(role=Role.USER, text=text)]
            if draw.chance("answered", 50):
                turns.append(Turn(role=Role.ASSISTANT, text=fit(draw.words("answer", 2))))
            items.append(Conversation(turns=turns, meta=meta))
    return [fit_item(item) for item in items]


class BulkEntry(NamedTuple):
    """The arguments of one provider `store` of a bulk, after its namespace."""

    key: str
    content: str
    category: MemoryCategory
    session_id: str | None
    taint: MemoryTaint


def bulk_entries(
    prefix: str, count: int, salt: int, *, fit: Callable[[str], str] = lambda text: text
) -> list[BulkEntry]:
    """`count` entries keyed `<prefix>0` to `<prefix><count-1>` for the bulk `salt`.

    Keys of one prefix are string prefixes of each other (`k1`, `k10`); contents share
    words and differ in length, so one query recalls many rows at distinct scores; both
    taints, several categories and sessions appear. `fit` narrows each content.
    """
    entries: list[BulkEntry] = []
    for index in range(count):
        draw = _Draw(salt, index)
        words = draw.words("w", 1 + draw.number("nwords", 4))
        entries.append(
            BulkEntry(
                key=f"{prefix}{index}",
                content=fit(f"{words} {index}" if draw.chance("numbered", 70) else words),
                category=draw.pick("category", _CATEGORIES),
                session_id=draw.pick("session", (None, "s1", "s2")),
                taint=draw.pick("taint", list(MemoryTaint)),
            )
        )
    return entries


def bulk_documents(
    namespace: str,
    prefix: str,
    count: int,
    salt: int,
    *,
    fit: Callable[[str], str] = lambda text: text,
) -> list[NamespaceDocumentInput]:
    """`count` documents of `namespace` keyed `<prefix>0` to `<prefix><count-1>` for the
    bulk `salt` (no id given).

    Keys are string prefixes of each other, as in `bulk_entries`; titles, source types,
    priorities, tags and metadata come from the document pools (case twins among them);
    one content in four is upper-cased, so contents differ only in case. `fit` narrows
    each title and content.
    """
    documents: list[NamespaceDocumentInput] = []
    for index in range(count):
        draw = _Draw(salt, index)
        words = f"{draw.words('w', 1 + draw.number('nwords', 4))} {index}"
        documents.append(
            NamespaceDocumentInput(
                namespace=namespace,
                key=f"{prefix}{index}",
                title=fit(draw.pick("title", pools.DOCUMENT_TITLES)),
                content=fit(words.upper() if draw.chance("upper", 25) else words),
                source_type=draw.pick("source_type", pools.DOCUMENT_SOURCE_TYPES),
                priority=draw.pick("priority", pools.DOCUMENT_PRIORITIES),
                tags=sorted({draw.pick(f"tag{n}", pools.TAGS) for n in range(draw.number("n", 3))}),
                metadata=json.loads(draw.pick("metadata", pools.DOCUMENT_METADATA)),
                category=str(draw.pick("category", _CATEGORIES)),
                session_id=draw.pick("session", (None, "s1", "s2")),
                taint=draw.pick("taint", list(MemoryTaint)),
            )
        )
    return documents
