"""`FreeEngine`: a correct engine over the reference that uses the freedoms it is told to.

Each field of `EngineFreedoms` selects one freedom the contract leaves to an engine
(`freedoms.py` names them and quotes the sentence granting each). The reference
engine keeps the items and decides what matches and how it ranks; this wrapper
answers with its own ids, order, pages, cursors, scores, modes, explore, timestamps,
health and recall, which hits a mode answers, and what input it takes, as an
independent engine would. `used` counts each freedom every time it changed an answer,
so a test can tell a run met it.
"""

from __future__ import annotations

import builtins
import hashlib
import itertools
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from conformance.constraints import Constraints
from conformance.engine import (
    EngineDescriptor,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
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
    MemoryMeta,
    MetaFilter,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    Unavailable,
    explore_by_listing,
    explore_page_of,
    in_request_order,
    validate_many,
)
from reference_driver.engine import ReferenceEngine
from tests.freedom.clock import at_offset
from tests.freedom.cursors import CursorBook, CursorRefused, CursorStyle, binding_of
from tests.freedom.options import count_options
from tests.freedom.paging import Key, PageShape, cut
from tests.freedom.serial import serialized
from tests.freedom.throttle import Throttle

IdScheme = Literal["fingerprint", "uuid", "counter"]
Order = Literal["insertion", "newest", "shuffled", "by-id"]
Scores = Literal["reference", "scaled", "negative"]

ENGINE_ID: Final = "freedom"
WHOLE: Final = 1_000_000
"""A limit past anything a test stores: the reference is read in one page."""

CURSOR_NAMES: Final = {
    "format": "cursor-format",
    "single_use": "single-use-cursors",
    "bound": "bound-cursors",
}
SHAPE_NAMES: Final = {
    "short": "short-pages",
    "empty": "empty-pages",
    "trailing": "trailing-empty-page",
}


@dataclass(frozen=True)
class EngineFreedoms:
    """The freedoms an engine uses; the defaults answer as the reference does, with cursors
    of this wrapper's own (signed base64 JSON)."""

    ids: IdScheme = "fingerprint"
    """`uuid`: random ids; `counter`: `m1`, `m2`, ... (`m1` is a prefix of `m10`)."""
    order: Order = "insertion"
    """The listing order; fetch ties are broken the same way."""
    pages: PageShape = field(default_factory=PageShape)
    cursors: CursorStyle = field(default_factory=CursorStyle)
    scores: Scores = "reference"
    """`scaled`: ×1000 + 5; `negative`: − 10 (every score below zero). Order is kept."""
    fetch_modes: tuple[FetchMode, ...] = tuple(FetchMode)
    server_explore: bool = False
    """Count every admitted item server-side, ignoring `scan_limit`; never truncated."""
    utc_offset_minutes: int | None = None
    """Write `observed_at` back at this UTC offset (the same instant, every digit kept)."""
    degraded: bool = False
    terse_recall: bool = False
    """Cite only the best item, answer in a sentence of its own, give no citation score."""
    unavailable_every: int | None = None
    """Answer `Unavailable` on every n-th data call (before doing anything)."""
    keyword_every_word: bool = False
    """Keyword fetch hits only items holding every word of the query (implicit AND, as
    SQLite FTS5 and Postgres `plainto_tsquery` read a query)."""
    similarity_floor: float | None = None
    """Vector fetch hits only items at least this similar to the query (the reference's
    floor is 0.2)."""
    offset_cursors: bool = False
    """Cursors hold a position only: each page ranks everything again (ties oldest first
    under the insertion order) and skips what earlier pages answered."""
    constraints: Constraints | None = None
    """Refuse, as `InvalidRequest`, every item these constraints do not admit (its
    rendered text, and every text of it); the configuration declares them."""


@dataclass
class _Held:
    """What this engine keeps beside the reference for one item."""

    id: str
    ref_id: str
    seq: int


_Scored = tuple[Hit, _Held, float]
"""A reference hit, what this engine holds for it, and the score it will answer."""


@serialized
class FreeEngine:
    """A synchronous engine answering as `freedoms` says; every answer is the reference's
    under the engine's own presentation. Options: `api_key` (a credential it needs and
    never repeats), `keyword` (`all`, `none` or a comma list: the fetch modes it declares)."""

    def __init__(
        self, freedoms: EngineFreedoms | None = None, options: Mapping[str, str] | None = None
    ) -> None:
        self.freedoms = freedoms or EngineFreedoms()
        self.options = dict(options or {})
        self.used: Counter[str] = Counter()
        self.ref = ReferenceEngine()
        self._modes = _modes(self.options.get("keyword"), self.freedoms.fetch_modes)
        count_options(self.options, self.used)
        self.throttle = Throttle(self.freedoms.unavailable_every, self.used, Unavailable)
        self._cursors = CursorBook(self.freedoms.cursors, self.used, CURSOR_NAMES)
        self._by_ref: dict[str, _Held] = {}
        self._by_id: dict[str, _Held] = {}
        self._seq = itertools.count(1)
        self._orders: dict[tuple[str, ...], builtins.list[tuple[Key, _Scored]]] = {}
        """Each read's whole answer in this engine's order, until the next write changes
        what is held: paging through n items then reads the reference once, not n/limit
        times (the answers are the same; the matrix runs in a fraction of the time)."""

    def preload(self, items: Sequence[StoreItem]) -> None:
        """Store data of another writer (no rate limit), as a live store holds."""
        for item in items:
            self._store(item, preloaded=True)

    # -- descriptor and health -------------------------------------------------------

    def descriptor(self) -> EngineDescriptor:
        """`freedom`, with the declared modes; it needs a key when given one."""
        return EngineDescriptor(
            id=ENGINE_ID,
            label="Freedom matrix engine",
            description="The reference engine's items under freedoms the contract leaves",
            hosted=False,
            needs_endpoint=False,
            needs_key="api_key" in self.options,
            fetch_modes=builtins.list(self._modes),
        )

    def health(self) -> EngineHealth:
        """Ok, or degraded (still serving)."""
        if self.freedoms.degraded:
            self.used["degraded-health"] += 1
            return EngineHealth.degraded("replica lagging; serving from the primary")
        return EngineHealth.ok()

    # -- writes -----------------------------------------------------------------------

    def store(self, item: StoreItem) -> StoreReceipt:
        """The reference's store, answered with this engine's id."""
        self.throttle.gate("store")
        return self._store(item)

    def store_many(self, items: Sequence[StoreItem]) -> builtins.list[StoreReceipt]:
        """Validates the whole batch first, then stores in order."""
        self.throttle.gate("store_many")
        validate_many(items)
        for item in items:
            self._admit(item)
        return [self._store(item) for item in items]

    def _admit(self, item: StoreItem) -> None:
        """Refuse an item the declared constraints do not admit (after validating it)."""
        declared = self.freedoms.constraints
        if declared is None:
            return
        item.validate()
        self.used["declared-constraints"] += 1
        if not declared.admits_item(item):
            raise InvalidRequest(
                f"this engine takes item texts of at most {declared.max_content_length} "
                "characters, without control characters or non-ASCII"
            )

    def _store(self, item: StoreItem, *, preloaded: bool = False) -> StoreReceipt:
        if not preloaded:
            self._admit(item)
        receipt = self.ref.store(item)
        if not receipt.replayed:
            self._orders.clear()
        held = self._by_ref.get(receipt.id)
        if receipt.replayed and held is not None:
            return StoreReceipt(id=held.id, replayed=True)
        held = _Held(self._new_id(receipt.id), receipt.id, next(self._seq))
        if held.id != held.ref_id:
            self.used["opaque-ids"] += 1
        self._by_ref[held.ref_id] = held
        self._by_id[held.id] = held
        return StoreReceipt(id=held.id, replayed=receipt.replayed)

    def _new_id(self, ref_id: str) -> str:
        if self.freedoms.ids == "uuid":
            return str(uuid.uuid4())
        if self.freedoms.ids == "counter":
            return f"m{len(self._by_id) + 1}"
        return ref_id

    def forget(self, target: ForgetTarget) -> ForgetReport:
        """Validates, then forgets this engine's ids (unknown ones skipped) or a filter."""
        self.throttle.gate("forget")
        target.validate()
        if isinstance(target, ForgetIds):
            known = [held.ref_id for held in self._current(target.ids)]
            if not known:
                return ForgetReport(forgotten=0)
            report = self.ref.forget(ForgetIds(ids=known))
        else:
            report = self.ref.forget(target)
        if report.forgotten:
            self._orders.clear()
        return report

    def _current(self, ids: Sequence[str]) -> builtins.list[_Held]:
        """The items `ids` name that this engine still answers for (first mention only)."""
        found: builtins.list[_Held] = []
        for item_id in dict.fromkeys(ids):
            held = self._by_id.get(item_id)
            if held is not None and self._by_ref.get(held.ref_id) is held:
                found.append(held)
        return found

    # -- reads ------------------------------------------------------------------------

    def list(self, req: ListRequest) -> ListPage:
        """Every admitted item in this engine's order, paged its own way."""
        self.throttle.gate("list")
        req.validate()
        binding = binding_of("list", req.filter.model_dump(mode="json"))
        read = ("list", req.filter.model_dump_json())
        keyed = self._orders.get(read)
        if keyed is None:
            keyed = [(self._key(held), (hit, held, 0.0)) for hit, held in self._all(req.filter)]
            keyed.sort(key=lambda pair: pair[0])
            self._orders[read] = keyed
        items, cursor = self._page(keyed, req.cursor, req.limit, binding)
        return ListPage(items=items, next_cursor=cursor)

    def fetch(self, req: FetchRequest) -> FetchPage:
        """Checks the mode, validates, then the reference's ranking under this engine's
        scores (best first: higher first), ties in this engine's order."""
        self.throttle.gate("fetch")
        if req.mode not in self._modes:
            self.used["fetch-modes"] += 1
        self.descriptor().ensure_mode(req.mode)
        req.validate()
        binding = binding_of("fetch", req.query, req.mode.value, req.filter.model_dump(mode="json"))
        read = ("fetch", req.query, req.mode.value, req.filter.model_dump_json())
        keyed = self._orders.get(read)
        if keyed is None:
            keyed = self._ranked(req)
            self._orders[read] = keyed
        hits, cursor = self._page(keyed, req.cursor, req.limit, binding)
        return FetchPage(hits=hits, next_cursor=cursor)

    def _ranked(self, req: FetchRequest) -> builtins.list[tuple[Key, _Scored]]:
        """The reference's whole ranking, under this engine's hits, scores and ties."""
        whole = self.ref.fetch(req.model_copy(update={"limit": WHOLE, "cursor": None}))
        keyed: builtins.list[tuple[Key, _Scored]] = []
        for hit in whole.hits:
            if not self._hits(req, hit):
                continue
            held = self._by_ref[hit.id]
            score = self._score(hit.score)
            keyed.append(([-score, *self._key(held)], (hit, held, score)))
        keyed.sort(key=lambda pair: pair[0])
        return keyed

    def _hits(self, req: FetchRequest, hit: Hit) -> bool:
        """Whether a hit of the reference is a hit here: keyword fetch needing every
        query word (a reference keyword score of 1), vector fetch above a floor."""
        if req.mode is FetchMode.KEYWORD and self.freedoms.keyword_every_word and hit.score < 1:
            self.used["keyword-every-word"] += 1
            return False
        floor = self.freedoms.similarity_floor
        if req.mode is FetchMode.VECTOR and floor is not None and hit.score < floor:
            self.used["similarity-floor"] += 1
            return False
        return True

    def recall(self, req: RecallRequest) -> RecallAnswer:
        """The reference's citations under this engine's ids (and scores); terse recall
        cites only the best one, unscored, in words of its own."""
        self.throttle.gate("recall")
        answer = self.ref.recall(req)
        citations = []
        for citation in answer.citations:
            held = self._by_ref[citation.id]
            score = None if citation.score is None else self._score(citation.score)
            meta = self._meta(citation.meta)
            citations.append(
                citation.model_copy(update={"id": held.id, "score": score, "meta": meta})
            )
        if not self.freedoms.terse_recall or not citations:
            return answer.model_copy(update={"citations": citations})
        self.used["recall-shape"] += 1
        best = citations[0].model_copy(update={"score": None})
        return RecallAnswer(answer=f"Best match: {best.snippet}", citations=[best], model=None)

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        """Looks the ids up directly; in the order asked, each once."""
        self.throttle.gate("get")
        req.validate()
        held = self._current(req.ids)
        if not held:
            return []
        by_ref = {h.ref_id: h for h in held}
        hits = self.ref.get(GetRequest(ids=builtins.list(by_ref), reach=req.reach))
        mine = [self._hit(hit, by_ref[hit.id], 0.0) for hit in hits]
        return in_request_order(req.ids, mine)

    def explore(self, req: ExploreRequest) -> ExplorePage:
        """Server-side counts over everything admitted, or the contract's default over
        this engine's own listing."""
        if not self.freedoms.server_explore:
            return explore_by_listing(self, req)
        self.throttle.gate("explore")
        req.validate()
        self.used["server-explore"] += 1
        counts: Counter[str] = Counter()
        total = missing = 0
        for hit, _ in self._all(req.filter):
            total += 1
            values = req.facet.values(hit.kind, hit.meta)
            missing += 0 if values else 1
            counts.update(values)
        return explore_page_of(req.facet, counts, req.limit, total, missing, truncated=False)

    # -- presentation -----------------------------------------------------------------

    def _all(self, filter: MetaFilter) -> builtins.list[tuple[Hit, _Held]]:
        """Every item `filter` admits, as the reference lists it, with what this engine holds."""
        hits: builtins.list[Hit] = []
        cursor: str | None = None
        while True:
            page = self.ref.list(ListRequest(filter=filter, limit=WHOLE, cursor=cursor))
            hits.extend(page.items)
            if page.next_cursor is None:
                return [(hit, self._by_ref[hit.id]) for hit in hits]
            cursor = page.next_cursor

    def _key(self, held: _Held) -> Key:
        order = self.freedoms.order
        if order == "newest":
            return [-held.seq, held.seq]
        if order == "shuffled":
            return [hashlib.sha256(held.id.encode()).hexdigest(), held.seq]
        if order == "by-id":
            return [held.id, held.seq]
        return [held.seq, held.seq]

    def _page(
        self,
        keyed: builtins.list[tuple[Key, _Scored]],
        cursor: str | None,
        limit: int,
        binding: str,
    ) -> tuple[builtins.list[Hit], str | None]:
        """One page of `keyed` (sorted), from the position `cursor` names, with the cursor
        of the next page; only the page's own hits are presented."""
        after: Key | None = None
        number = 0
        if cursor is not None:
            try:
                state = self._cursors.redeem(cursor, binding)
            except CursorRefused:
                raise InvalidRequest(f"unknown cursor `{cursor}`") from None
            after, number = state["after"], state["page"]
        if self.freedoms.offset_cursors:
            # A position only: this request ranked everything again; resume past the place
            # the last page ended at, whatever now stands there.
            if after is not None:
                self.used["offset-cursors"] += 1
            keyed = [([place], pair[1]) for place, pair in enumerate(keyed, 1)]
        page = cut(keyed, after, number, limit, self.freedoms.pages)
        if self.freedoms.order != "insertion" and len(page.items) > 1:
            self.used["list-order"] += 1
        for shape in page.shapes:
            self.used[SHAPE_NAMES[shape]] += 1
        hits = [self._hit(hit, held, score) for hit, held, score in page.items]
        if not page.more:
            return hits, None
        return hits, self._cursors.issue({"after": page.after, "page": number + 1}, binding)

    def _hit(self, hit: Hit, held: _Held, score: float) -> Hit:
        return hit.model_copy(update={"id": held.id, "score": score, "meta": self._meta(hit.meta)})

    def _meta(self, meta: MemoryMeta) -> MemoryMeta:
        minutes = self.freedoms.utc_offset_minutes
        if minutes is None or meta.observed_at is None:
            return meta
        self.used["offset-timestamps"] += 1
        # Read back as a driver speaking JSON would send it: the same instant at an offset.
        wire = meta.model_dump(mode="json")
        wire["observed_at"] = at_offset(meta.observed_at, minutes)
        return MemoryMeta.model_validate(wire)

    def _score(self, score: float) -> float:
        if self.freedoms.scores == "reference":
            return score
        self.used["score-scale"] += 1
        return score * 1000 + 5 if self.freedoms.scores == "scaled" else score - 10


def _modes(keyword: str | None, declared: tuple[FetchMode, ...]) -> tuple[FetchMode, ...]:
    """The fetch modes the `keyword` option names (`all`, `none`, or a comma list), else
    the declared ones."""
    if keyword is None:
        return declared
    if keyword == "all":
        return tuple(FetchMode)
    if keyword == "none":
        return ()
    try:
        return tuple(FetchMode(part.strip()) for part in keyword.split(","))
    except ValueError:
        raise ValueError("option `keyword` takes all, none or fetch modes") from None
