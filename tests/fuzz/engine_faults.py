"""Reference engines with one fault each of the kind real adapters have, each showing only
in a state the fuzzer must reach: a store over 50 items, a prefix sibling beside a node
or folder, an item exactly on a window bound, tied explore buckets cut by a limit, a
fetch read past its first page, the same id asked twice.

Each is a plain class taking no arguments, so a regression file rebuilds it from its
`module:Class` spec, and each fault is a function of what was written (never of a
process-wide counter), so a failing program fails the same way every time.
"""

from __future__ import annotations

import builtins
from typing import Any

from conformance.engine import (
    ExplorePage,
    ExploreRequest,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ItemKind,
    ListPage,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Namespace,
    RecallAnswer,
    RecallRequest,
)
from conformance.engine.limits import MAX_BUCKETS
from reference_driver.engine import ReferenceEngine


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise InvalidRequest(f"unknown cursor `{cursor}`")
    return int(cursor)


class ListCappedAt50(ReferenceEngine):
    """The backend answers at most 50 rows per query and the adapter forgot to page it:
    listings (and `get` and `explore`, built on them) stop at 50 items."""

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        capped = super().list(ListRequest(filter=req.filter, limit=50)).items
        start = _offset(req.cursor)
        page = capped[start : start + req.limit]
        end = start + len(page)
        return ListPage(items=page, next_cursor=str(end) if end < len(capped) else None)


class _WrongFilter(MetaFilter):
    """A filter matched with one rule wrong (subclasses say which)."""

    def matches(self, kind: ItemKind, meta: MemoryMeta) -> bool:  # pragma: no cover
        raise NotImplementedError


class _FilterFault(ReferenceEngine):
    """Every read and forget matches filters with `wrong`'s rule."""

    wrong: type[_WrongFilter]

    def _swap(self, req: Any) -> Any:
        filter = self.wrong.model_validate(req.filter.model_dump())
        return req.model_copy(update={"filter": filter})

    def list(self, req: ListRequest) -> ListPage:
        return super().list(self._swap(req))

    def fetch(self, req: FetchRequest) -> FetchPage:
        return super().fetch(self._swap(req))

    def recall(self, req: RecallRequest) -> RecallAnswer:
        return super().recall(self._swap(req))

    def forget(self, target: ForgetTarget) -> ForgetReport:
        if hasattr(target, "filter"):
            return super().forget(self._swap(target))
        return super().forget(target)


def _within_as_text(node: Namespace, at: Namespace) -> bool:
    # The bug: a subtree by string prefix, so `agent:ab` lies "under" `agent:a`.
    return True if at.is_root else str(node).startswith(str(at))


class _ReachAsPrefix(_WrongFilter):
    def matches(self, kind: ItemKind, meta: MemoryMeta) -> bool:
        reach = self.reach
        rest = MetaFilter.model_validate({**self.model_dump(), "reach": None})
        if not rest.matches(kind, meta):
            return False
        if reach is None:
            return True
        node = meta.namespace
        return (
            node == reach.at
            or (reach.inherit and node in reach.at.ancestors_and_self())
            or (reach.descendants and _within_as_text(node, reach.at))
        )


class ReachAsStringPrefix(_FilterFault):
    """A reach's descendants are found by string prefix: `agent:ab` is taken for a child
    of `agent:a`."""

    wrong = _ReachAsPrefix


class _FolderAsPrefix(_WrongFilter):
    def matches(self, kind: ItemKind, meta: MemoryMeta) -> bool:
        folder = self.folder
        rest = MetaFilter.model_validate({**self.model_dump(), "folder": None})
        if not rest.matches(kind, meta):
            return False
        return folder is None or (meta.folder or "\0").startswith(folder.rstrip("/"))


class FolderAsStringPrefix(_FilterFault):
    """A folder filter matches by string prefix: `/a/b` admits `/a/bc`."""

    wrong = _FolderAsPrefix


class _BeforeInclusive(_WrongFilter):
    def matches(self, kind: ItemKind, meta: MemoryMeta) -> bool:
        before = self.observed_before
        rest = MetaFilter.model_validate({**self.model_dump(), "observed_before": None})
        if not rest.matches(kind, meta):
            return False
        return before is None or (meta.observed_at is not None and meta.observed_at <= before)


class WindowEndInclusive(_FilterFault):
    """`observed_before` is taken as inclusive: an item observed exactly at the bound is
    admitted."""

    wrong = _BeforeInclusive


class ExploreTiesByValueDescending(ReferenceEngine):
    """Buckets of equal count come in descending value order, so a limit cuts the wrong
    ones."""

    def explore(self, req: ExploreRequest) -> ExplorePage:
        whole = super().explore(req.model_copy(update={"limit": MAX_BUCKETS}))
        by_value = sorted(whole.buckets, key=lambda bucket: bucket.value, reverse=True)
        ordered = sorted(by_value, key=lambda bucket: -bucket.count)
        return whole.model_copy(
            update={
                "buckets": ordered[: req.limit],
                "more_buckets": max(0, len(ordered) - req.limit),
            }
        )


class FetchPagesOverlap(ReferenceEngine):
    """Each fetch page after the first starts one hit early (an offset off by one), so the
    last hit of a page comes again on the next."""

    def fetch(self, req: FetchRequest) -> FetchPage:
        if req.cursor is None or not req.cursor.isdigit() or int(req.cursor) == 0:
            return super().fetch(req)
        return super().fetch(req.model_copy(update={"cursor": str(int(req.cursor) - 1)}))


class GetRepeatsIds(ReferenceEngine):
    """`get` answers once per id asked, so an id asked twice comes back twice."""

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        found = {
            hit.id: hit
            for hit in super().get(req.model_copy(update={"ids": list(dict.fromkeys(req.ids))}))
        }
        return [found[i] for i in req.ids if i in found]


ISSUE_13_ENGINE_FAULTS = (
    ListCappedAt50,
    ReachAsStringPrefix,
    FolderAsStringPrefix,
    WindowEndInclusive,
    ExploreTiesByValueDescending,
    FetchPagesOverlap,
    GetRepeatsIds,
)
"""Engine faults the fuzzer must find at its default budget under every seed."""
