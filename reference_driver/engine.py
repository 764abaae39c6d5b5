"""`ReferenceEngine`: the in-memory reference engine of the engine profile (contract B11).

Items live in one list in insertion order, each under its fingerprint, behind one
lock. Everything it answers can be checked by reading this file; the kit uses it as
the oracle other engines are compared with.
"""

from __future__ import annotations

import builtins
import heapq
import re
import threading
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Final

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
    ItemKind,
    Learning,
    ListPage,
    ListRequest,
    MetaFilter,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)
from reference_driver.scoring import Profile, score

__all__ = ["ENGINE_ID", "NOTHING_ANSWERS", "ReferenceEngine", "parse_cursor"]

ENGINE_ID: Final = "reference"
"""The reference engine's descriptor id."""

NOTHING_ANSWERS: Final = "Nothing stored answers this question."
"""The recall answer when no stored item is a hit."""

_DESCRIPTION: Final = (
    "Keeps items in memory in insertion order under their fingerprints; "
    "keyword, vector and hybrid fetch by the contract's reference scoring"
)

# The only cursors this engine issues: canonical decimal integers ("0", "17", never "017").
_CURSOR: Final = re.compile(r"0|[1-9][0-9]*")
# Longer decimals lie past any position this process can reach; `int()` is not asked to
# read them (it refuses more than 4300 digits).
_CURSOR_DIGITS: Final = 18
_PAST_THE_END: Final = 10**_CURSOR_DIGITS


def parse_cursor(cursor: str | None) -> int:
    """The position a cursor names (0 for none); anything but a canonical non-negative
    decimal integer raises `InvalidRequest("unknown cursor `<c>`")`."""
    if cursor is None:
        return 0
    if _CURSOR.fullmatch(cursor) is None:
        raise InvalidRequest(f"unknown cursor `{cursor}`")
    if len(cursor) > _CURSOR_DIGITS:
        return _PAST_THE_END
    return int(cursor)


@dataclass(frozen=True, slots=True)
class _Entry:
    """One held item and what reads need of it, computed once at store time.

    `item` is the engine's own copy and never leaves the engine. Reads validate their
    hits afresh from `hit_data` (plain data), so a caller editing a hit cannot edit the
    store; one validation per hit is also the cheapest way to build one.
    """

    seq: int
    id: str
    kind: ItemKind
    item: StoreItem
    text: str
    profile: Profile
    hit_data: dict[str, Any]
    """`Hit` fields but the score: id, kind, text, meta (dumped), confidence."""

    def hit(self, score: float) -> Hit:
        """The entry as a read returns it."""
        return Hit.model_validate({**self.hit_data, "score": score})

    def citation(self, score: float) -> Citation:
        """The entry as a recall cites it: its text is the snippet."""
        return Citation.model_validate(
            {
                "id": self.id,
                "kind": self.kind,
                "snippet": self.text,
                "meta": self.hit_data["meta"],
                "score": score,
            }
        )


def _entry(item_id: str, item: StoreItem) -> _Entry:
    """The entry for `item`, numbered -1 until the store assigns its sequence number."""
    # A dump-and-validate round trip is a deep copy (3 to 8 times cheaper than
    # `model_copy(deep=True)`); the caller keeps its item and may change it later.
    own = type(item).model_validate(item.model_dump())
    text = own.render_text()
    return _Entry(
        seq=-1,
        id=item_id,
        kind=own.kind,
        item=own,
        text=text,
        profile=Profile.of(text),
        hit_data={
            "id": item_id,
            "kind": own.kind,
            "text": text,
            "meta": own.meta.model_dump(),
            "confidence": own.confidence if isinstance(own, Learning) else None,
        },
    )


class ReferenceEngine(EngineBase):
    """In-memory engine serving every operation and all three fetch modes; thread-safe.

    - Ids are fingerprints; storing a held fingerprint is a replay (nothing written).
    - `list` answers matching items in insertion order. Its cursor is the decimal
      sequence number of the next held item to examine; every stored item gets the
      next number and keeps it, so a page resumes where the last stopped (listing
      everything is linear) and a forget between pages skips nothing still held.
    - `fetch` ranks admitted items by `scoring.score` (best first, ties by insertion
      order), re-ranking on every page; its cursor is a decimal offset into that
      ranking, so a store or forget between pages may shift it.
    - `recall` cites the first `limit` hybrid hits of the question and quotes them;
      `instructions` are ignored.
    - `get` looks each id up, in the order named, each once; `store_many` and
      `explore` are the contract defaults.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: builtins.list[_Entry] = []  # ascending `seq` = insertion order
        self._by_id: dict[str, _Entry] = {}
        self._next_seq = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def descriptor(self) -> EngineDescriptor:
        """`reference`, "Reference (in-memory)", every fetch mode, nothing to configure."""
        return EngineDescriptor(
            id=ENGINE_ID,
            label="Reference (in-memory)",
            description=_DESCRIPTION,
            hosted=False,
            needs_endpoint=False,
            needs_key=False,
            fetch_modes=builtins.list(FetchMode),
        )

    def health(self) -> EngineHealth:
        """Always ok: nothing outside the process can fail."""
        return EngineHealth.ok()

    def store(self, item: StoreItem) -> StoreReceipt:
        """Validates, then appends the item, or replays it when its fingerprint is held."""
        item.validate()
        item_id = item.fingerprint()
        with self._lock:
            if item_id in self._by_id:
                return StoreReceipt(id=item_id, replayed=True)
        # Copying and profiling are the slow part of a store; done outside the lock, then
        # the lookup is repeated, so of two racing stores of one item exactly one writes.
        fresh = _entry(item_id, item)
        with self._lock:
            if item_id in self._by_id:
                return StoreReceipt(id=item_id, replayed=True)
            entry = replace(fresh, seq=self._next_seq)
            self._next_seq += 1
            self._entries.append(entry)
            self._by_id[item_id] = entry
        return StoreReceipt(id=item_id, replayed=False)

    def forget(self, target: ForgetTarget) -> ForgetReport:
        """Validates, then removes the named ids (unknown ones skipped) or every item the
        filter admits; reports how many were removed."""
        target.validate()
        with self._lock:
            if isinstance(target, ForgetIds):
                removed = self._forget_ids(target.ids)
            else:
                removed = self._forget_matching(target.filter)
        return ForgetReport(forgotten=removed)

    def _forget_ids(self, ids: Iterable[str]) -> int:
        removed = 0
        for item_id in ids:
            entry = self._by_id.pop(item_id, None)
            if entry is None:
                continue  # unknown, or named twice in this request
            del self._entries[bisect_left(self._entries, entry.seq, key=_seq)]
            removed += 1
        return removed

    def _forget_matching(self, filter: MetaFilter) -> int:
        kept: builtins.list[_Entry] = []
        for entry in self._entries:
            if filter.matches(entry.kind, entry.item.meta):
                del self._by_id[entry.id]
            else:
                kept.append(entry)
        removed = len(self._entries) - len(kept)
        self._entries = kept
        return removed

    def list(self, req: ListRequest) -> ListPage:
        """Validates, then up to `limit` admitted items in insertion order, each with score
        0.0, from the cursor's position on."""
        req.validate()
        start = parse_cursor(req.cursor)
        # Matching costs microseconds per item even for `{}`; listing everything skips it.
        admits_all = req.filter.is_empty()
        page: builtins.list[_Entry] = []
        next_cursor: str | None = None
        with self._lock:
            entries = self._entries
            # Indexing, not slicing: a slice would copy the tail on every page.
            for index in range(bisect_left(entries, start, key=_seq), len(entries)):
                entry = entries[index]
                if not (admits_all or req.filter.matches(entry.kind, entry.item.meta)):
                    continue
                if len(page) == req.limit:
                    # The page is full and another item matches: resume exactly there.
                    next_cursor = str(entry.seq)
                    break
                page.append(entry)
        return ListPage(items=[entry.hit(0.0) for entry in page], next_cursor=next_cursor)

    def get(self, req: GetRequest) -> builtins.list[Hit]:
        """Validates, then the held items the ids name, in the order first named, each
        once; an unknown id, or an item outside `reach`, is left out."""
        req.validate()
        found: dict[str, _Entry] = {}
        with self._lock:
            for item_id in req.ids:
                entry = self._by_id.get(item_id)
                if entry is None or item_id in found:
                    continue
                if req.reach is None or req.reach.admits(entry.item.meta.namespace):
                    found[item_id] = entry
        return [entry.hit(0.0) for entry in found.values()]

    def fetch(self, req: FetchRequest) -> FetchPage:
        """Checks the mode, validates, then up to `limit` ranked hits from the cursor's
        offset into the ranking."""
        self.descriptor().ensure_mode(req.mode)
        req.validate()
        start = parse_cursor(req.cursor)
        ranked, total = self._rank(req.query, req.mode, req.filter, start + req.limit)
        page = ranked[start:]
        end = start + len(page)
        return FetchPage(
            hits=[entry.hit(hit_score) for hit_score, entry in page],
            next_cursor=str(end) if end < total else None,
        )

    def recall(self, req: RecallRequest) -> RecallAnswer:
        """Validates, then cites the first `limit` hybrid hits of the question and
        answers with their texts."""
        req.validate()
        ranked, _ = self._rank(req.question, FetchMode.HYBRID, req.filter, req.limit)
        if not ranked:
            return RecallAnswer(answer=NOTHING_ANSWERS, citations=[], model=ENGINE_ID)
        citations = [entry.citation(hit_score) for hit_score, entry in ranked]
        answer = f"From {len(citations)} stored items: " + " | ".join(
            citation.snippet for citation in citations
        )
        return RecallAnswer(answer=answer, citations=citations, model=ENGINE_ID)

    def _rank(
        self, query: str, mode: FetchMode, filter: MetaFilter, keep: int
    ) -> tuple[builtins.list[tuple[float, _Entry]], int]:
        """The best `keep` hits (score descending, ties by insertion order) of the items
        `filter` admits, and how many hits there are in all."""
        with self._lock:
            # Entries never change once made, so scoring can run on a snapshot unlocked.
            entries = builtins.list(self._entries)
        wanted = Profile.of(query)
        admits_all = filter.is_empty()
        hits: builtins.list[tuple[float, _Entry]] = []
        for entry in entries:
            if not (admits_all or filter.matches(entry.kind, entry.item.meta)):
                continue
            hit_score = score(mode.value, wanted, entry.profile)
            if hit_score is not None:
                hits.append((hit_score, entry))
        # `nsmallest` keeps the input order among equal keys, as a stable sort does.
        best = heapq.nsmallest(keep, hits, key=lambda hit: -hit[0])
        return best, len(hits)


def _seq(entry: _Entry) -> int:
    return entry.seq
