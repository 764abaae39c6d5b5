"""Queries drawn from what the store holds, and minimum scores from what it answered.

A query drawn from free text almost never matches a stored text, and a `min_score`
drawn from `[0, 1]` almost never falls between two scores a driver returned, so the
filters that matter never fire. The machines draw a number and a way instead, and
resolve them against the texts held and the scores seen *before* calling the
differential, which logs the concrete query or score: a regression test replays the
same call without the state that chose it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final, Literal

__all__ = ["QUERY_WAYS", "SCORE_WAYS", "QueryWay", "ScoreWay", "min_score_from", "query_from"]

QueryWay = Literal["word", "substring", "text", "free"]
QUERY_WAYS: Final[tuple[QueryWay, ...]] = ("word", "word", "substring", "text", "free")
"""How a query is made: a word of a held text (twice as likely), a substring of one, a
whole text, or the drawn free text."""

ScoreWay = Literal["at", "above", "below"]
SCORE_WAYS: Final[tuple[ScoreWay, ...]] = ("at", "above", "below")
"""Where a minimum score falls: on a score seen (a hit scoring exactly the minimum must be
kept), just above it (that hit must be dropped), or just below it."""

_WORD: Final = re.compile(r"\w+")


def query_from(texts: Sequence[str], pick: int, way: QueryWay, free: str) -> str:
    """A non-blank query: from the held text number `pick` (modulo their count) taken
    `way`, or `free` when nothing suitable is held."""
    usable = [text for text in texts if text.strip()]
    if way == "free" or not usable:
        return free
    text = usable[pick % len(usable)]
    if way == "text":
        return text
    if way == "word":
        words = _WORD.findall(text)
        return words[(pick // len(usable)) % len(words)] if words else free
    # A substring of at least two characters that is not blank.
    start = (pick // len(usable)) % max(1, len(text) - 1)
    piece = text[start : start + 2 + pick % 5]
    return piece if piece.strip() else free


def min_score_from(scores: Sequence[float], pick: int, way: ScoreWay) -> float | None:
    """A minimum score on, just above or just below the seen score number `pick`; `None`
    when no finite score has been seen."""
    finite = sorted({score for score in scores if math.isfinite(score)})
    if not finite:
        return None
    score = finite[pick % len(finite)]
    # A relative step wider than float32 resolution: a driver comparing in f32 must see
    # the same side of the bound as the kit does in f64.
    step = max(abs(score) * 1e-5, 1e-9)
    if way == "above":
        return score + step
    if way == "below":
        return score - step
    return score
