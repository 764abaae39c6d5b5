"""`MetaFilter` as a Qdrant `Filter`: every field decided by the store, inside the search."""

from __future__ import annotations

from typing import Final

from qdrant_client import models

from conformance.engine import MetaFilter, Reach, Timestamp
from tinymemory_qdrant.payload import namespace_text

_EXACT: Final = (
    "workspace",
    "language",
    "repo",
    "commit",
    "url",
    "thread_id",
    "agent_id",
    "tool_call",
    "source_id",
)


def _is(key: str, value: str | int) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def _any(key: str, values: list[str]) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchAny(any=values))


def _reach(reach: Reach) -> models.Filter:
    at = namespace_text(reach.at)
    ways: list[models.Condition] = [
        _any("ns", [namespace_text(n) for n in reach.at.ancestors_and_self()])
        if reach.inherit
        else _is("ns", at)
    ]
    if reach.descendants:
        ways.append(_is("ns_up", at))
    return models.Filter(should=ways)


def _at_or_after(moment: Timestamp) -> models.Filter:
    seconds, nanos = divmod(moment.nanos, 1_000_000_000)
    return models.Filter(
        should=[
            models.FieldCondition(key="obs_s", range=models.Range(gt=seconds)),
            models.Filter(
                must=[
                    _is("obs_s", seconds),
                    models.FieldCondition(key="obs_n", range=models.Range(gte=nanos)),
                ]
            ),
        ]
    )


def _before(moment: Timestamp) -> models.Filter:
    seconds, nanos = divmod(moment.nanos, 1_000_000_000)
    return models.Filter(
        should=[
            models.FieldCondition(key="obs_s", range=models.Range(lt=seconds)),
            models.Filter(
                must=[
                    _is("obs_s", seconds),
                    models.FieldCondition(key="obs_n", range=models.Range(lt=nanos)),
                ]
            ),
        ]
    )


def to_qdrant(wanted: MetaFilter) -> models.Filter | None:
    """The Qdrant filter admitting exactly the points whose item `wanted` admits
    (`None` for the empty filter)."""
    must: list[models.Condition] = []
    if wanted.reach is not None:
        must.append(_reach(wanted.reach))
    for name in _EXACT:
        value = getattr(wanted, name)
        if value is not None:
            must.append(_is(name, value))
    if wanted.folder is not None:
        must.append(_any("folder_up", sorted({wanted.folder, wanted.folder.rstrip("/")})))
    if wanted.file_path is not None:
        must.append(_any("file_path_up", sorted({wanted.file_path, wanted.file_path.rstrip("/")})))
    if wanted.turns is not None:
        must.append(_is("turns", f"{wanted.turns.first}-{wanted.turns.last}"))
    if wanted.kinds:
        must.append(_any("kind", [kind.value for kind in wanted.kinds]))
    if wanted.sources:
        must.append(_any("source_kind", [source.value for source in wanted.sources]))
    if wanted.tags_any:
        must.append(_any("tags", list(wanted.tags_any)))
    if wanted.observed_after is not None:
        must.append(_at_or_after(wanted.observed_after))
    if wanted.observed_before is not None:
        must.append(_before(wanted.observed_before))
    return models.Filter(must=must) if must else None
