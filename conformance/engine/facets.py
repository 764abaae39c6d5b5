"""``Facet``: the metadata dimensions ``explore`` groups items by, and drilling down."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Final

from .blank import is_blank
from .errors import InvalidRequest
from .filters import MetaFilter
from .items import ItemKind
from .meta import MemoryMeta, SourceKind
from .namespace import Namespace, Reach


def _one(value: str | None) -> list[str]:
    return [] if value is None else [value]


class Facet(StrEnum):
    """A metadata dimension fixed by the contract, so one explorer works on every engine."""

    KIND = "kind"
    SOURCE = "source"
    SOURCE_ID = "source_id"
    WORKSPACE = "workspace"
    FOLDER = "folder"
    FILE_PATH = "file_path"
    LANGUAGE = "language"
    REPO = "repo"
    URL = "url"
    THREAD = "thread"
    AGENT = "agent"
    TOOL_CALL = "tool_call"
    TAG = "tag"
    NAMESPACE = "namespace"

    def values(self, kind: ItemKind, meta: MemoryMeta) -> list[str]:
        """The item's values for this facet: none when the field is unset, several only
        for ``TAG``; ``NAMESPACE`` gives the namespace string (``root`` for the root)."""
        return _VALUES[self](kind, meta)

    def narrow(self, filter: MetaFilter, value: str) -> None:
        """Narrows ``filter`` in place to items whose value for this facet is ``value``.

        Replaces only the targeted field: a list field becomes ``[value]``, ``NAMESPACE``
        sets ``reach = Reach.exact(...)``. ``FOLDER`` and ``FILE_PATH`` match by prefix.
        Raises ``InvalidRequest`` for a blank value, an unknown item or source kind, or
        a namespace that does not parse.
        """
        if is_blank(value):
            raise InvalidRequest(f"a `{self.value}` value must not be blank")
        if self is Facet.KIND:
            filter.kinds = [_parse_item_kind(value)]
        elif self is Facet.SOURCE:
            filter.sources = [_parse_source_kind(value)]
        elif self is Facet.TAG:
            filter.tags_any = [value]
        elif self is Facet.NAMESPACE:
            filter.reach = Reach.exact(Namespace.parse(value))
        else:
            setattr(filter, _SCALAR_FIELD[self], value)


def _parse_item_kind(value: str) -> ItemKind:
    try:
        return ItemKind(value)
    except ValueError:
        raise InvalidRequest(f"`{value}` is not an item kind") from None


def _parse_source_kind(value: str) -> SourceKind:
    try:
        return SourceKind(value)
    except ValueError:
        raise InvalidRequest(f"`{value}` is not a source kind") from None


_VALUES: Final[dict[Facet, Callable[[ItemKind, MemoryMeta], list[str]]]] = {
    Facet.KIND: lambda kind, meta: [kind.value],
    Facet.SOURCE: lambda kind, meta: [meta.source.kind.value],
    Facet.SOURCE_ID: lambda kind, meta: _one(meta.source.id),
    Facet.WORKSPACE: lambda kind, meta: _one(meta.workspace),
    Facet.FOLDER: lambda kind, meta: _one(meta.folder),
    Facet.FILE_PATH: lambda kind, meta: _one(meta.file_path),
    Facet.LANGUAGE: lambda kind, meta: _one(meta.language),
    Facet.REPO: lambda kind, meta: _one(meta.repo),
    Facet.URL: lambda kind, meta: _one(meta.url),
    Facet.THREAD: lambda kind, meta: _one(meta.thread_id),
    Facet.AGENT: lambda kind, meta: _one(meta.agent_id),
    Facet.TOOL_CALL: lambda kind, meta: _one(
        meta.tool_call.name if meta.tool_call is not None else None
    ),
    Facet.TAG: lambda kind, meta: list(meta.tags),
    Facet.NAMESPACE: lambda kind, meta: [str(meta.namespace)],
}

_SCALAR_FIELD: Final = {
    Facet.SOURCE_ID: "source_id",
    Facet.WORKSPACE: "workspace",
    Facet.FOLDER: "folder",
    Facet.FILE_PATH: "file_path",
    Facet.LANGUAGE: "language",
    Facet.REPO: "repo",
    Facet.URL: "url",
    Facet.THREAD: "thread_id",
    Facet.AGENT: "agent_id",
    Facet.TOOL_CALL: "tool_call",
}
