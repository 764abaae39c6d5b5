"""The run seed: every random choice of a run (nonces, markers, fuzz seeds) derives from it.

A run draws one seed (or is given one) and derives everything else by hashing the seed
with a key naming the use: a check's nonce from the seed and the check's item id, so a
check writes under the same root whichever xdist worker runs it and a replay with the
same seed repeats it exactly; per-process work (the retention probe) from the seed and
the worker id, so workers never share a root.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

SEED_BITS = 48
"""Seeds are drawn below 2**48: short enough to type, far too many to collide by chance."""


def new_seed() -> int:
    """A fresh random run seed."""
    return secrets.randbits(SEED_BITS)


def _digest(seed: int, key: str) -> bytes:
    return hashlib.blake2b(f"{seed}\x00{key}".encode(), digest_size=16).digest()


def derive_seed(seed: int, key: str) -> int:
    """A seed for the use `key`, derived from `seed` (below 2**48, like a run seed)."""
    return int.from_bytes(_digest(seed, key)[:8], "big") % (1 << SEED_BITS)


def nonce_for(seed: int, key: str) -> str:
    """The nonce of the use `key` under `seed`: 16 lowercase hex digits."""
    return _digest(seed, f"nonce/{key}").hex()[:16]


@dataclass
class NonceStream:
    """Nonces drawn in order from one seed and key: the n-th draw is always the same."""

    seed: int
    key: str
    drawn: int = field(default=0)

    def draw(self) -> str:
        """The next nonce of the stream (the first is `nonce_for(seed, key)`)."""
        n, self.drawn = self.drawn, self.drawn + 1
        return nonce_for(self.seed, self.key if n == 0 else f"{self.key}#{n}")


_stream: ContextVar[NonceStream | None] = ContextVar("tinymemory_nonce_stream", default=None)


@contextlib.contextmanager
def seeded_nonces(seed: int, key: str) -> Iterator[NonceStream]:
    """Within the block, every nonce asked for without one (`new_nonce()`) comes from
    the stream of `seed` and `key`, so code the caller does not control is seeded too."""
    token = _stream.set(NonceStream(seed, key))
    try:
        stream = _stream.get()
        assert stream is not None
        yield stream
    finally:
        _stream.reset(token)


def seeded_nonce() -> str | None:
    """The next nonce of the current seeded stream, or None outside `seeded_nonces`."""
    stream = _stream.get()
    return None if stream is None else stream.draw()
