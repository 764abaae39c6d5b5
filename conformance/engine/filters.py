"""``MetaFilter``: which items an operation applies to."""

from __future__ import annotations

from pydantic import Field

from conformance.timestamps import Timestamp

from .items import ItemKind
from .meta import MemoryMeta, SourceKind, TurnRange
from .namespace import Reach
from .wire import Omittable, OmittableList, WireModel


def _path_prefix(wanted: str | None, held: str | None) -> bool:
    """Equal, or ``held`` lies under ``wanted`` on a ``/`` boundary (``/a/b`` admits
    ``/a/b/c.rs``, not ``/a/bc``); a trailing ``/`` on ``wanted`` is ignored."""
    if wanted is None:
        return True
    if held is None:
        return False
    if held == wanted:
        return True
    base = wanted.rstrip("/")
    return held.startswith(base) and (len(held) == len(base) or held[len(base)] == "/")


def _exact(wanted: str | None, held: str | None) -> bool:
    return wanted is None or held == wanted


class MetaFilter(WireModel):
    """Which items an operation applies to; every set field must hold, ``{}`` admits all.

    Scalars match exactly, except ``folder`` and ``file_path`` (also a path prefix).
    ``tool_call`` matches the tool's name, ``source_id`` the source's id. ``kinds``
    and ``sources`` admit listed values, ``tags_any`` a shared tag; empty lists do not
    constrain. The window is ``observed_after <= observed_at < observed_before`` and
    needs an ``observed_at``. ``reach`` unset reads every namespace.
    """

    reach: Omittable[Reach] = None
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
    tool_call: Omittable[str] = None
    source_id: Omittable[str] = None
    kinds: OmittableList[ItemKind] = Field(default_factory=list)
    sources: OmittableList[SourceKind] = Field(default_factory=list)
    tags_any: OmittableList[str] = Field(default_factory=list)
    observed_after: Omittable[Timestamp] = None
    observed_before: Omittable[Timestamp] = None

    @classmethod
    def for_kinds(cls, *kinds: ItemKind) -> MetaFilter:
        """A filter admitting only these item kinds (Rust ``MetaFilter::kinds``)."""
        return cls(kinds=list(kinds))

    def is_empty(self) -> bool:
        """Whether the filter constrains nothing (one holding only a reach is not empty)."""
        return self == _EMPTY

    def admits_kind(self, kind: ItemKind) -> bool:
        """Whether the filter admits ``kind``, ignoring every metadata field."""
        return not self.kinds or kind in self.kinds

    def matches(self, kind: ItemKind, meta: MemoryMeta) -> bool:
        """Whether an item of ``kind`` carrying ``meta`` satisfies every set field."""
        tool_name = meta.tool_call.name if meta.tool_call is not None else None
        return (
            self.admits_kind(kind)
            and (self.reach is None or self.reach.admits(meta.namespace))
            and _exact(self.workspace, meta.workspace)
            and _path_prefix(self.folder, meta.folder)
            and _path_prefix(self.file_path, meta.file_path)
            and _exact(self.language, meta.language)
            and _exact(self.repo, meta.repo)
            and _exact(self.commit, meta.commit)
            and _exact(self.url, meta.url)
            and _exact(self.thread_id, meta.thread_id)
            and (self.turns is None or meta.turns == self.turns)
            and _exact(self.agent_id, meta.agent_id)
            and _exact(self.tool_call, tool_name)
            and _exact(self.source_id, meta.source.id)
            and (not self.sources or meta.source.kind in self.sources)
            and (not self.tags_any or any(tag in meta.tags for tag in self.tags_any))
            and self._in_window(meta.observed_at)
        )

    def _in_window(self, observed_at: Timestamp | None) -> bool:
        if self.observed_after is None and self.observed_before is None:
            return True
        if observed_at is None:
            return False
        return (self.observed_after is None or self.observed_after <= observed_at) and (
            self.observed_before is None or observed_at < self.observed_before
        )


_EMPTY = MetaFilter()
