"""One seed, one set of programs, whichever modules a test run happens to have imported."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def pinned_constants() -> Iterator[None]:
    """Draw with hypothesis's own constants only, for the duration of the block.

    Hypothesis mixes into its draws the literals of every local module loaded so far, so a
    fixed seed draws other programs in a whole test run (every test module imported, and
    whatever the tests before it loaded) than in a run of one file; the fuzz budgets of the
    matrix are chosen for the programs a seed draws. Left alone (the draws merely vary) if
    a future hypothesis renames what this replaces.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without the module
        yield
        return
    local = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    make = getattr(providers, "Constants", None)
    if local is None or cache is None or make is None:
        yield
        return
    none = make()
    providers._get_local_constants = lambda: none
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = local
        cache.clear()
