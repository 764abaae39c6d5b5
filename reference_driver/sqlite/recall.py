"""Keyword ranking: FTS5 `bm25` when the build has FTS5, else a scan with a simple score.

A query is reduced to its distinct words (letters and digits, case and diacritics
folded), so no query text ever reaches FTS5's query syntax. With FTS5 a row matches when
it holds any of the words, ranked by `bm25` (rarer words and denser matches first) and
scored `r / (1 + r)` for `r = -bm25`, a number in [0, 1) that orders exactly as `bm25`
does. FTS5 gives a word held by more than half of all rows an IDF of almost zero, so such
a word scores near 0. Without FTS5 the score is the share of the query's words the row
holds, and ties go by key. That fallback scans with a registered SQL function rather
than `LIKE`: `LIKE` folds neither non-ASCII case nor diacritics, and matches substrings,
so it would find other rows than FTS5 does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final, Literal

__all__ = [
    "COVERAGE_FUNCTION",
    "Columns",
    "bm25_score",
    "coverage",
    "fold",
    "fts_expression",
    "query_terms",
]

Columns = Literal["content", "title_and_content"]
"""What a search looks at: core recall ranks content; document queries add titles."""

COVERAGE_FUNCTION: Final = "tinymemory_coverage"
"""SQL name of `coverage`, registered on every connection for the scan fallback."""

TERM_SEPARATOR: Final = "\n"
"""Joins the terms passed to the SQL function (a word never holds one)."""

# Runs of letters and digits; `_` separates words, as it does for FTS5's unicode61.
_WORD: Final = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """`text` with diacritics removed and case folded, as unicode61 compares words."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def query_terms(query: str) -> list[str]:
    """The distinct folded words of `query`, in first-seen order (empty for a blank query)."""
    return list(dict.fromkeys(_WORD.findall(fold(query))))


def fts_expression(terms: Sequence[str], columns: Columns) -> str:
    """An FTS5 query matching any of `terms`, each a quoted string (never syntax)."""
    # Words hold no double quote, but doubling one is FTS5's escape should that change.
    alternatives = " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
    if columns == "content":
        return f"{{content}} : ({alternatives})"
    return alternatives


def bm25_score(bm25: float) -> float:
    """A relevance in [0, 1) from FTS5's `bm25` (negative; lower is better)."""
    strength = max(-bm25, 0.0)
    return strength / (1.0 + strength)


def coverage(text: str | None, joined_terms: str | None) -> float:
    """The share of the terms (joined by `TERM_SEPARATOR`) that are words of `text`."""
    if not text or not joined_terms:
        return 0.0
    # For ASCII text folding is lowercasing; NFKD over every row would dominate a scan.
    folded = text.casefold() if text.isascii() else fold(text)
    terms = joined_terms.split(TERM_SEPARATOR)
    # A word of the text is a substring of it: a cheap test that rejects most rows.
    present = [term for term in terms if term in folded]
    if not present:
        return 0.0
    words = set(_WORD.findall(folded))
    return sum(term in words for term in present) / len(terms)
