"""A deterministic embedding for the store's vector index: hashed bag of words.

LangGraph's stores rank `search(query=...)` by the cosine of embeddings they ask an
embedding function for. A hosted model would need the network and differ run to run,
so the adapter brings its own: each word (a lowercased run of letters and digits, as
the kit reads words) adds 1 to one of `DIMENSIONS` dimensions picked by a hash of it.
Texts sharing no word have cosine 0 (unless two words collide, about 1 in 4096 per
pair of words); the text equal to a one-word query has cosine 1.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Final

DIMENSIONS: Final = 4096
# A constant first dimension keeps every vector non-zero (a text without a word, `""`
# or an emoji, has a vector too, which sqlite-vec's cosine needs); its weight is so
# small that it moves a score by less than `BIAS**2`, far below any shared word.
BIAS: Final = 1e-4
HIT: Final = 1e-6
"""The least cosine that counts as a hit: one shared word scores far above it, a text
sharing no word scores below it."""

_WORDS: Final = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lowercased runs of letters and digits, duplicates kept."""
    return [word.lower() for word in _WORDS.findall(text)]


def _dimension(word: str) -> int:
    # `surrogatepass`: a lone surrogate is a character Python strings hold; it hashes.
    digest = hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return 1 + int.from_bytes(digest, "big") % (DIMENSIONS - 1)


def embed(text: str) -> list[float]:
    """The text's vector (not normalised: the stores take the cosine)."""
    vector = [0.0] * DIMENSIONS
    vector[0] = BIAS
    for word in words(text):
        vector[_dimension(word)] += 1.0
    return vector


class HashedWords:
    """The embedding function LangGraph's `index={"embed": ...}` takes: texts to vectors."""

    dims: Final = DIMENSIONS

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        return [embed(text) for text in texts]
