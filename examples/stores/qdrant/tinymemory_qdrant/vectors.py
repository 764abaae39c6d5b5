"""The two deterministic vectors each item carries, so no model or network is needed.

- `words`, a sparse vector for keyword fetch: one dimension per word (a lowercased run
  of letters and digits, hashed to 32 bits), holding its count;
- `trigrams`, a dense vector for vector fetch: the count of each character trigram of
  each word (`" w "` padded), hashed into `DIMENSIONS` dimensions; texts sharing parts
  of words (`lantern`, `lanternlight`) come close.

Both hold whole numbers and are compared by dot product, which Qdrant computes exactly
for them in any order of summation. The cosine is the dot product over the two norms,
each item's norm kept in its payload (`payload.py`). Qdrant's own cosine (vectors
normalised to 32-bit floats) differs by one unit in the last place from one call to the
next, which reorders ties and makes offset paging skip and repeat hits.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from typing import Final

from qdrant_client import models

DIMENSIONS: Final = 1024
VECTOR_HIT: Final = 0.2
"""The least trigram cosine a vector hit has (the reference engine's threshold)."""

_WORDS: Final = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lowercased runs of letters and digits, duplicates kept."""
    return [word.lower() for word in _WORDS.findall(text)]


def _hash(text: str, size: int) -> int:
    # `surrogatepass`: a lone surrogate is a character Python strings hold; it hashes.
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % size


def sparse(text: str) -> tuple[models.SparseVector, float]:
    """The text's `words` vector (empty for a text without words) and its norm."""
    counts: Counter[int] = Counter(_hash(word, 2**32) for word in words(text))
    indices = sorted(counts)
    values = [float(counts[i]) for i in indices]
    return models.SparseVector(indices=indices, values=values), _norm(values)


def dense(text: str) -> tuple[list[float], float]:
    """The text's `trigrams` vector and its norm."""
    vector = [0.0] * DIMENSIONS
    for word in words(text):
        padded = f" {word} "
        for i in range(len(padded) - 2):
            vector[_hash(padded[i : i + 3], DIMENSIONS)] += 1.0
    return vector, _norm(vector)


def _norm(values: list[float]) -> float:
    return math.sqrt(sum(v * v for v in values))
