"""What an answer may be where the contract leaves a choice: the tolerance, in one place.

The fuzzer's differentials and the suite's checks compare answers field by field; where the contract
grants a freedom (ids, order, score scales, page sizes, cursor formats, how a paged read
behaves when the store changes under it, how an explore that stops early counts), the
comparison must accept every reading the contract allows and nothing else. Each function
here states one such reading as a predicate or a bound, and answers what is wrong (a
message) or `None`; the differentials turn a message into a failure.

See `docs/contract/cursors.md#writes-between-pages` and `docs/freedoms.md`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "PagedRead",
    "best_first",
    "between_pages_victim",
    "contains_word",
    "exact_match_leads",
    "explore_reading",
    "first_rise",
    "matchable",
    "one_word",
    "word_count",
]


def first_rise(scores: Sequence[float]) -> int | None:
    """The index of the first score that breaks best-first order (higher than the one
    before it, or NaN, which orders nothing), or `None`. Any scale or sign."""
    for position, score in enumerate(scores):
        if math.isnan(score) or (position and score > scores[position - 1]):
            return position
    return None


def best_first(scores: Sequence[float]) -> str | None:
    """Scores of a ranking, in the order answered: never increasing, never NaN. Any
    scale or sign: higher is better."""
    position = first_rise(scores)
    if position is None:
        return None
    score = scores[position]
    if math.isnan(score):
        return f"a NaN score at position {position + 1}"
    return (
        f"score {score!r} at position {position + 1} above {scores[position - 1]!r} "
        "before it (best first means never increasing)"
    )


_WORD: Final = re.compile(r"[^\W_]")


def matchable(query: str) -> bool:
    """Whether a query holds a word (a letter or digit): a text without one matches
    nothing in the reference's scoring, so no reading owes it a hit, even itself."""
    return _WORD.search(query) is not None


_ASCII_WORD: Final = re.compile(r"[A-Za-z0-9]+")
_WORDS: Final = re.compile(r"[^\W_]+")


def one_word(query: str) -> bool:
    """Whether a query is one ASCII word: the query every reading of recall agrees on
    (case and Unicode folding differ between stores; ASCII letters and digits do not)."""
    return _ASCII_WORD.fullmatch(query) is not None


def word_count(text: str, word: str) -> int:
    """How often `text` holds `word` as a whole word, letter case aside."""
    wanted = word.lower()
    return sum(1 for found in _WORDS.findall(text) if found.lower() == wanted)


def contains_word(text: str, word: str) -> bool:
    """Whether `text` holds `word` as a whole word, letter case aside."""
    return word_count(text, word) > 0


def exact_match_leads(
    scores: Sequence[float | None], exact: Sequence[bool], once: Sequence[bool], limit: int
) -> str | None:
    """An answer to a one-word query that some held text is, itself: that text is a hit
    (unless the answer is full, and a tie or a denser match may leave it out), and it
    scores at least as well as every hit holding the word just once (`once`). A hit
    holding the word more often may outrank it, as term frequency does in BM25."""
    if not scores:
        return None if limit < 1 else "no hits, though a held text is the query itself"
    found = [s for s, is_exact in zip(scores, exact, strict=True) if is_exact]
    if not found:
        if len(scores) < limit:
            return (
                f"{len(scores)} hits (of {limit} allowed) and none of them the one whose "
                "text is the query itself"
            )
        return None
    best = max((s for s in found if s is not None), default=None)
    if best is None:
        return None  # no scores: only its presence can be held
    beaten = [
        s for s, single in zip(scores, once, strict=True) if single and s is not None and s > best
    ]
    if beaten:
        return (
            f"the exact match scoring {best!r}, below {beaten[0]!r} of a hit holding the "
            "word just once"
        )
    return None


@dataclass
class PagedRead:
    """One paged read with writes between its pages: what it may answer.

    The contract says what following cursors yields over a store that holds still
    (every admitted item exactly once). With writes between pages it is silent, and
    stores differ: a snapshot, a keyset cursor, an offset into a ranking or a listing
    recomputed on every page. Each is allowed; what all of them share is held:

    - no phantom: every hit was admitted and held at some moment of the read;
    - an item held and admitted throughout is missed at most once per item that left
      the admitted set during the read (an offset shifts by one per removal);
    - an item is answered twice at most once per item that entered the admitted set
      during the read (an offset shifts back by one per insertion ahead of it);
    - with no write between pages, exactly once each (`cursors.md#cursor-progress`).
    """

    before: set[str]
    """What the read admits when it starts."""
    entered: set[str]
    """What entered the admitted set during the read (stored, or stored again)."""
    left: set[str]
    """What left it during the read (forgotten)."""
    complete: bool = True
    """Whether the read answers everything admitted (a listing), or the engine chooses
    which admitted items are hits (a fetch): then misses are its own business."""

    def judge(self, answered: Iterable[str]) -> str | None:
        """What is wrong with the keys `answered`, in order, or `None`."""
        counts = Counter(answered)
        could = self.before | self.entered
        phantoms = sorted(k for k in counts if k not in could)
        if phantoms:
            return f"{len(phantoms)} never held during the read: {', '.join(phantoms[:4])}"
        throughout = self.before - self.left
        missed = sorted(throughout - set(counts)) if self.complete else []
        if len(missed) > len(self.left):
            return (
                f"{len(missed)} held throughout missed ({', '.join(missed[:4])}), where "
                f"{len(self.left)} left the read while it ran"
            )
        twice = sum(n - 1 for n in counts.values())
        if twice > len(self.entered):
            again = sorted(k for k, n in counts.items() if n > 1)
            return (
                f"{twice} answered again ({', '.join(again[:4])}), where {len(self.entered)} "
                "entered the read while it ran"
            )
        return None


def between_pages_victim(order: Sequence[str], answered: Sequence[str], page: int) -> str:
    """What a paged read's `page`-th write forgets among the items held in `order` (oldest
    first): the last one answered (a reader working through a queue; the oldest before
    any), the oldest, the newest or one in the middle, in turn."""
    last = order.index(answered[-1]) if answered and answered[-1] in order else 0
    return order[(last, 0, -1, len(order) // 2)[page % 4]]


def explore_reading(
    *,
    exact_total: int,
    exact_missing: int,
    exact_counts: dict[str, int],
    scan_limit: int,
    limit: int,
    total: int,
    missing: int,
    buckets: Sequence[tuple[str, int]],
    more_buckets: int,
    truncated: bool,
) -> str | None:
    """An explore page beside the exact counts over everything the filter admits.

    Not truncated, it is exact. Truncated (the scan stopped at `scan_limit` with a cursor
    pending: `explore_by_listing` over the engine's own listing order), it counted a part
    of the admitted items: at least `scan_limit` and fewer than all of them (or all of
    them, when they are exactly `scan_limit` and the pending page is empty), no value
    more often than it occurs, and its buckets still ordered and cut as any page is.
    A server-side count may ignore `scan_limit` and be exact.
    """
    order = [(-count, value) for value, count in buckets]
    if order != sorted(order):
        return f"buckets {list(buckets)} not ordered by count descending, then value"
    if len(buckets) > limit:
        return f"{len(buckets)} buckets where the limit is {limit}"
    if len(set(v for v, _ in buckets)) != len(buckets):
        return "a value in two buckets"
    if not truncated:
        want = sorted(exact_counts.items(), key=lambda vc: (-vc[1], vc[0]))
        if (total, missing) != (exact_total, exact_missing):
            return (
                f"total={total}, missing={missing} where every admitted item counted gives "
                f"total={exact_total}, missing={exact_missing}"
            )
        if list(buckets) != want[:limit] or more_buckets != max(0, len(want) - limit):
            return (
                f"buckets {list(buckets)} (more_buckets={more_buckets}) where every admitted "
                f"item counted gives {want[:limit]} (more_buckets={max(0, len(want) - limit)})"
            )
        return None
    # Stopped at scan_limit with a cursor pending: the pending page may prove empty (a
    # listing that ends on a full page hands out one more cursor), so a scan that read
    # exactly scan_limit items may have read them all.
    if not (scan_limit <= total < exact_total or total == scan_limit == exact_total):
        return (
            f"truncated with total={total}: a scan stopped at scan_limit {scan_limit} "
            f"reads at least that many and no more than the {exact_total} admitted (all "
            "of them only when they are exactly scan_limit)"
        )
    if missing > exact_missing:
        return f"missing={missing}, more than the {exact_missing} admitted items without a value"
    over = [(v, c) for v, c in buckets if c > exact_counts.get(v, 0)]
    if over:
        return f"buckets {over} counting more than the admitted items hold"
    if len(buckets) < limit and more_buckets:
        return f"more_buckets={more_buckets} with only {len(buckets)} of {limit} buckets used"
    return None
