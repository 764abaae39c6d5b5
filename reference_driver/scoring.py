"""The reference engine's scoring (contract-reference B11), written to be read.

Python's `str.isalnum`/`str.lower` follow Unicode closely but not exactly as Rust's
`is_alphanumeric`/`to_lowercase` do (combining marks with the Alphabetic property, a
few multi-character lowercase mappings); ASCII text scores bit for bit alike.
"""

from __future__ import annotations

import functools
import math
import re
from array import array
from dataclasses import dataclass

DIMENSIONS = 64
VECTOR_THRESHOLD = 0.2
_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193
# Runs of letters and digits; `\w` also admits `_`, which the contract splits on.
_WORD = re.compile(r"[^\W_]+")


def f32(value: float) -> float:
    """`value` narrowed to a 32-bit float, as the Rust engine computes scores."""
    return array("f", [value])[0]


_THRESHOLD_F32 = f32(VECTOR_THRESHOLD)


def words(text: str) -> list[str]:
    """Lowercased runs of alphanumeric characters, in order, duplicates kept."""
    return [w.lower() for w in _WORD.findall(text)]


def fnv1a_code_points(window: str) -> int:
    """32-bit FNV-1a over the code points (not the bytes) of `window`."""
    h = _FNV_OFFSET
    for ch in window:
        h = ((h ^ ord(ch)) * _FNV_PRIME) & 0xFFFFFFFF
    return h


@functools.lru_cache(maxsize=1 << 16)
def _buckets(word: str) -> tuple[int, ...]:
    """The dimension of each 3-character window of `" " + word + " "`, in order.

    Cached: a run's marker, and common words, recur in nearly every text it scores."""
    padded = f" {word} "
    return tuple(fnv1a_code_points(padded[i : i + 3]) % DIMENSIONS for i in range(len(padded) - 2))


def embed(text_words: list[str]) -> tuple[float, ...]:
    """The 64-dimension trigram vector of the words, L2-normalised (all zeros if empty)."""
    vector = [0.0] * DIMENSIONS
    for word in text_words:
        for dimension in _buckets(word):
            vector[dimension] += 1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        return tuple(vector)
    # Zeros stay the one shared `0.0` rather than 64 fresh floats: a stored item's
    # profile is then a few hundred bytes, not two kilobytes.
    return tuple(v / norm if v else 0.0 for v in vector)


@dataclass(frozen=True)
class Profile:
    """What scoring needs of a text, computed once per stored item."""

    word_set: frozenset[str]
    vector: tuple[float, ...]

    @classmethod
    def of(cls, text: str) -> Profile:
        """The scoring profile of `text`."""
        ws = words(text)
        return cls(frozenset(ws), embed(ws))


def keyword_share(query: Profile, text: Profile) -> float:
    """The share of the query's distinct words present in the text (0 for a wordless query)."""
    if not query.word_set:
        return 0.0
    return len(query.word_set & text.word_set) / len(query.word_set)


def semantic(query: Profile, text: Profile) -> float:
    """The dot product of the two unit vectors, as a 32-bit float."""
    return f32(sum(a * b for a, b in zip(query.vector, text.vector, strict=True)))


def score(mode: str, query: Profile, text: Profile) -> float | None:
    """The text's score for `query` in fetch `mode`, or None when it is not a hit."""
    if mode == "keyword":
        share = f32(keyword_share(query, text))
        return share if share > 0.0 else None
    if mode == "vector":
        sim = semantic(query, text)
        return sim if sim >= _THRESHOLD_F32 else None
    if mode == "hybrid":
        share = f32(keyword_share(query, text))
        sim = semantic(query, text)
        if share > 0.0 or sim >= _THRESHOLD_F32:
            return f32((share + sim) / 2.0)
        return None
    raise ValueError(f"unknown fetch mode {mode!r}")
