"""`QdrantEngine`: the engine profile over one Qdrant collection (qdrant-client local mode).

How the contract maps onto the store:

- an item is one point; its id is the item's fingerprint (40 hex digits), the point's
  id the UUID of its first 32. Storing a fingerprint already held is a replay: nothing
  is written, so the first store's observation time, actor and tool call id stay;
- every `MetaFilter` field is a Qdrant filter condition (`filters.py`, `payload.py`),
  evaluated by the store inside each search, scroll, count and delete;
- `fetch` asks Qdrant for the admitted points sharing a word (the sparse `words`
  vector) or a trigram (the dense `trigrams` vector) with the query, with their dot
  products, and ranks them by cosine (`vectors.py` says why the cosine is not
  Qdrant's): `keyword` by the words' cosine, `vector` by the trigrams' (at least 0.2),
  `hybrid` by the mean of the two; ties in point-id order. Its cursor is an offset into
  that ranking;
- `list` is a Qdrant scroll in point-id order; its cursor is the next point's id;
- `forget` deletes by point id or by the filter, counting what was there;
- `get`, `explore` and `recall` read through the above; `explore` is the contract's
  default (counting a listing), `recall` quotes the best hybrid hits.

Local mode keeps a deleted point's slot and tests every slot against every filter, so
a store that writes and forgets a lot gets slower with each point it ever held (the
suite's later checks ran 100 times slower than alone). Qdrant's server vacuums deleted
points; local mode does not, so the adapter does: when more than half of at least 512
slots are deleted, it writes the live points into a new collection.
"""

from __future__ import annotations

import builtins
import re
import threading
import uuid
from collections.abc import Sequence
from typing import Any, Final

from qdrant_client import QdrantClient, models

from conformance.engine import (
    Citation,
    EngineBase,
    EngineDescriptor,
    EngineHealth,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetIds,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ListPage,
    ListRequest,
    MetaFilter,
    Namespace,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    validate_many,
)
from tinymemory_qdrant.filters import to_qdrant
from tinymemory_qdrant.local import MEMORY, close_local, open_local
from tinymemory_qdrant.payload import payload
from tinymemory_qdrant.vectors import DIMENSIONS, VECTOR_HIT, dense, sparse

ENGINE_ID: Final = "qdrant"
COLLECTION: Final = "tinymemory"
NOTHING_ANSWERS: Final = "Nothing stored answers this question."

_FINGERPRINT: Final = re.compile(r"[0-9a-f]{40}")
_OFFSET: Final = re.compile(r"0|[1-9][0-9]{0,17}")
# Points read per scroll (a filtered forget's ids, a rebuild's points).
_SCROLL_PAGE: Final = 256
# Fewer slots than this are never worth a rebuild.
_REBUILD_FROM: Final = 512


def point_id(item_id: str) -> str | None:
    """The point id of an engine id, or `None` for an id this engine never issues."""
    if _FINGERPRINT.fullmatch(item_id) is None:
        return None
    return str(uuid.UUID(hex=item_id[:32]))


class QdrantEngine(EngineBase):
    """The engine profile over a `QdrantClient` in local mode: `":memory:"` or a folder."""

    def __init__(self, location: str = MEMORY) -> None:
        self._local = open_local(location)
        self._closed = False
        with self._local.lock:
            if not self._client.collection_exists(COLLECTION):
                self._create()
                self._local.slots = 0
            elif self._local.holders == 1:
                self._local.slots = self._client.count(COLLECTION, exact=True).count

    @property
    def _client(self) -> QdrantClient:
        return self._local.client

    @property
    def _lock(self) -> threading.Lock:
        # Replay is a read then a write: one lock per store makes it one step.
        return self._local.lock

    @property
    def _slots(self) -> int:
        return self._local.slots

    @_slots.setter
    def _slots(self, slots: int) -> None:
        self._local.slots = slots

    def _create(self) -> None:
        self._client.create_collection(
            COLLECTION,
            vectors_config={
                "trigrams": models.VectorParams(size=DIMENSIONS, distance=models.Distance.DOT)
            },
            sparse_vectors_config={"words": models.SparseVectorParams()},
        )

    def _rebuild_when_mostly_deleted(self) -> None:
        if self._slots < _REBUILD_FROM:
            return
        live = self._client.count(COLLECTION, exact=True).count
        if 2 * live >= self._slots:
            return
        points: builtins.list[models.PointStruct] = []
        offset: Any = None
        while True:
            page, offset = self._client.scroll(
                COLLECTION, limit=_SCROLL_PAGE, offset=offset, with_payload=True, with_vectors=True
            )
            points.extend(
                models.PointStruct(id=p.id, vector=p.vector or {}, payload=p.payload) for p in page
            )
            if offset is None:
                break
        self._client.delete_collection(COLLECTION)
        self._create()
        for start in range(0, len(points), _SCROLL_PAGE):
            self._client.upsert(COLLECTION, points=points[start : start + _SCROLL_PAGE])
        self._slots = len(points)

    def descriptor(self) -> EngineDescriptor:
        return EngineDescriptor(
            id=ENGINE_ID,
            label="Qdrant (local mode)",
            description=(
                "One Qdrant collection; keyword fetch on a sparse bag of words, vector "
                "fetch on hashed character trigrams, hybrid on both"
            ),
            hosted=False,
            needs_endpoint=False,
            needs_key=False,
            fetch_modes=builtins.list(FetchMode),
        )

    def health(self) -> EngineHealth:
        return EngineHealth.ok()

    def shutdown(self) -> None:
        """Lets go of the client (the last engine on a folder closes it); idempotent."""
        if not self._closed:
            self._closed = True
            close_local(self._local)

    # writes

    def store(self, item: StoreItem) -> StoreReceipt:
        return self.store_many([item])[0]

    def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        validate_many(items)
        ids = [item.fingerprint() for item in items]
        with self._lock:
            held = self._held([pid for i in ids if (pid := point_id(i)) is not None])
            fresh: dict[str, models.PointStruct] = {}
            receipts = []
            for item_id, item in zip(ids, items, strict=True):
                pid = point_id(item_id)
                assert pid is not None  # a fingerprint is 40 hex digits
                if pid in held or pid in fresh:
                    receipts.append(StoreReceipt(id=item_id, replayed=True))
                    continue
                text = item.render_text()
                (trigrams, trigram_norm), (words, word_norm) = dense(text), sparse(text)
                fresh[pid] = models.PointStruct(
                    id=pid,
                    vector={"trigrams": trigrams, "words": words},
                    payload=payload(item_id, item, word_norm, trigram_norm),
                )
                receipts.append(StoreReceipt(id=item_id, replayed=False))
            if fresh:
                self._client.upsert(COLLECTION, points=builtins.list(fresh.values()))
                self._slots += len(fresh)
        return receipts

    def _held(self, point_ids: Sequence[str]) -> set[str]:
        if not point_ids:
            return set()
        found = self._client.retrieve(
            COLLECTION, ids=builtins.list(point_ids), with_payload=False, with_vectors=False
        )
        return {str(point.id) for point in found}

    def forget(self, target: ForgetTarget) -> ForgetReport:
        target.validate()
        with self._lock:
            if isinstance(target, ForgetIds):
                wanted = {pid for i in target.ids if (pid := point_id(i)) is not None}
                doomed = builtins.list(self._held(sorted(wanted)))
            else:
                doomed = self._matching(target.filter)
            if doomed:
                self._client.delete(COLLECTION, points_selector=models.PointIdsList(points=doomed))
                self._rebuild_when_mostly_deleted()
        return ForgetReport(forgotten=len(doomed))

    def _matching(self, wanted: MetaFilter) -> builtins.list[str]:
        found: builtins.list[str] = []
        offset: Any = None
        while True:
            points, offset = self._client.scroll(
                COLLECTION,
                scroll_filter=to_qdrant(wanted),
                limit=_SCROLL_PAGE,
                offset=offset,
                with_payload=False,
            )
            found.extend(str(point.id) for point in points)
            if offset is None:
                return found

    # reads

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        start: str | None = None
        if req.cursor is not None:
            try:
                start = str(uuid.UUID(req.cursor))
            except ValueError:
                raise InvalidRequest(f"unknown cursor `{req.cursor}`") from None
        points, after = self._client.scroll(
            COLLECTION,
            scroll_filter=to_qdrant(req.filter),
            limit=req.limit,
            offset=start,
            with_payload=True,
        )
        return ListPage(
            items=[_hit(point.payload, 0.0) for point in points],
            next_cursor=None if after is None else str(after),
        )

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        req.validate()
        asked = builtins.list(dict.fromkeys(req.ids))
        pids = [pid for i in asked if (pid := point_id(i)) is not None]
        found = self._client.retrieve(COLLECTION, ids=pids, with_payload=True) if pids else []
        by_id = {point.payload["id"]: point.payload for point in found if point.payload}
        hits = []
        for item_id in asked:
            held = by_id.get(item_id)
            if held is None:
                continue
            if req.reach is not None and not req.reach.admits(Namespace.parse(held["ns"])):
                continue
            hits.append(_hit(held, 0.0))
        return hits

    def fetch(self, req: FetchRequest) -> FetchPage:
        self.descriptor().ensure_mode(req.mode)
        req.validate()
        start = _offset(req.cursor)
        # One more than the page: whether it exists says whether a next page does.
        ranked = self._rank(req.query, req.mode, req.filter, start, req.limit + 1)
        page = ranked[: req.limit]
        return FetchPage(
            hits=[_hit(held, score) for score, held in page],
            next_cursor=str(start + req.limit) if len(ranked) > req.limit else None,
        )

    def recall(self, req: RecallRequest) -> RecallAnswer:
        req.validate()
        ranked = self._rank(req.question, FetchMode.HYBRID, req.filter, 0, req.limit)
        if not ranked:
            return RecallAnswer(answer=NOTHING_ANSWERS, citations=[], model=ENGINE_ID)
        citations = [
            Citation(
                id=held["id"],
                kind=held["kind"],
                snippet=held["text"],
                meta=held["meta"],
                score=score,
            )
            for score, held in ranked
        ]
        answer = f"From {len(citations)} stored items: " + " | ".join(
            citation.snippet for citation in citations
        )
        return RecallAnswer(answer=answer, citations=citations, model=ENGINE_ID)

    def _rank(
        self, query: str, mode: FetchMode, wanted: MetaFilter, offset: int, limit: int
    ) -> builtins.list[tuple[float, dict[str, Any]]]:
        """Hits `offset` to `offset + limit` of the ranking, with their scores.

        Every admitted point is asked for (Qdrant scores them all anyway), with its
        dot products and norms only; the page's payloads are read last."""
        qfilter = to_qdrant(wanted)
        # No point is left out: the collection holds at most `_slots` (local mode tests
        # every slot against the filter in Python, so a `count` first would double that).
        every = max(self._slots, 1)
        keyword: dict[str, float] = {}
        vector: dict[str, float] = {}
        if mode is not FetchMode.VECTOR:
            words, norm = sparse(query)
            if words.indices:
                keyword = self._cosines("words", words, norm, qfilter, every)
        if mode is not FetchMode.KEYWORD:
            trigrams, norm = dense(query)
            if norm:
                vector = self._cosines("trigrams", trigrams, norm, qfilter, every)
        if mode is FetchMode.KEYWORD:
            scores = keyword
        elif mode is FetchMode.VECTOR:
            scores = {pid: cos for pid, cos in vector.items() if cos >= VECTOR_HIT}
        else:
            hits = set(keyword) | {pid for pid, cos in vector.items() if cos >= VECTOR_HIT}
            scores = {pid: (keyword.get(pid, 0.0) + vector.get(pid, 0.0)) / 2 for pid in hits}
        ranking = sorted(((score, pid) for pid, score in scores.items()), key=_best)
        page = ranking[offset : offset + limit]
        if not page:
            return []
        found = self._client.retrieve(COLLECTION, ids=[pid for _, pid in page], with_payload=True)
        held = {str(point.id): point.payload for point in found if point.payload}
        return [(score, held[pid]) for score, pid in page if pid in held]

    def _cosines(
        self,
        using: str,
        query: Any,
        norm: float,
        qfilter: models.Filter | None,
        every: int,
    ) -> dict[str, float]:
        """The cosine with the query of each admitted point sharing a dimension with it."""
        norm_field = "word_norm" if using == "words" else "trigram_norm"
        answer = self._client.query_points(
            COLLECTION,
            query=query,
            using=using,
            query_filter=qfilter,
            # Dot products of whole numbers: at least 1 when one dimension is shared.
            score_threshold=0.5,
            limit=every,
            with_payload=[norm_field],
        )
        return {
            str(point.id): point.score / (norm * point.payload[norm_field])
            for point in answer.points
            if point.payload and point.payload[norm_field]
        }


def _best(scored: tuple[float, str]) -> tuple[float, str]:
    return (-scored[0], scored[1])


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if _OFFSET.fullmatch(cursor) is None:
        raise InvalidRequest(f"unknown cursor `{cursor}`")
    return int(cursor)


def _hit(held: dict[str, Any] | None, score: float) -> Hit:
    assert held is not None  # every point is written with its payload
    return Hit.model_validate(
        {
            "id": held["id"],
            "kind": held["kind"],
            "text": held["text"],
            "meta": held["meta"],
            "score": score,
            "confidence": held["confidence"],
        }
    )
