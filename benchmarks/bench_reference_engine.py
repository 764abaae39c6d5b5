"""How the reference engine scales from 10k to 100k items.

Run: ``python benchmarks/bench_reference_engine.py``. For each size it prints the store
throughput and the time of one keyword fetch (best of three), the time to list every
item through cursors with pages of 200 (best of seven), and the 100k/10k ratio of the
listing times. Listing is linear when the ratio stays near 10; the goal is at most 12.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

# Run as a script from a checkout, the package may not be installed: use the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.engine import (
    FetchMode,
    FetchRequest,
    LearningKind,
    ListRequest,
    MemoryMeta,
    StoreItem,
    document,
    learning,
)
from reference_driver.engine import ReferenceEngine

SIZES = (10_000, 100_000)
PAGE = 200
GOAL_RATIO = 12.0
TOPICS = 50
LIST_RUNS = 7


def item(i: int) -> StoreItem:
    """Item `i`: mostly documents, every tenth a learning, spread over `TOPICS` topics."""
    meta = MemoryMeta(workspace=f"/bench/ws{i % 7}", tags=[f"topic{i % TOPICS}"])
    if i % 10 == 9:
        return learning(f"learning {i} about topic{i % TOPICS}", LearningKind.FACT, 0.5, meta)
    return document(f"note {i} on topic{i % TOPICS} with a few more words", meta)


def fill(engine: ReferenceEngine, size: int) -> float:
    """Stores `size` items one at a time; the seconds spent in `store`."""
    spent = 0.0
    # Items are made a thousand at a time, outside the timing, so the benchmark does not
    # hold a second copy of every item.
    for first in range(0, size, 1000):
        items = [item(i) for i in range(first, min(first + 1000, size))]
        started = time.perf_counter()
        for each in items:
            engine.store(each)
        spent += time.perf_counter() - started
    return spent


def list_everything(engine: ReferenceEngine) -> tuple[int, float]:
    """Follows list cursors with pages of `PAGE`; the items seen and the seconds taken."""
    gc.collect()  # so that no collection owed by the stores lands in the timing
    seen = 0
    cursor: str | None = None
    started = time.perf_counter()
    while True:
        page = engine.list(ListRequest(limit=PAGE, cursor=cursor))
        seen += len(page.items)
        if page.next_cursor is None:
            return seen, time.perf_counter() - started
        cursor = page.next_cursor


def keyword_fetch(engine: ReferenceEngine) -> float:
    """The seconds of one keyword fetch (10 hits) over every item."""
    started = time.perf_counter()
    page = engine.fetch(FetchRequest(query="topic7 learning", mode=FetchMode.KEYWORD, limit=10))
    elapsed = time.perf_counter() - started
    assert len(page.hits) == 10
    return elapsed


def main() -> int:
    """Runs the benchmark; exit status 1 when the listing ratio misses the goal."""
    engines: dict[int, ReferenceEngine] = {}
    for size in SIZES:
        engines[size] = engine = ReferenceEngine()
        stored = fill(engine, size)
        assert len(engine) == size
        fetched = min(keyword_fetch(engine) for _ in range(3))
        print(
            f"{size:>7} items: store {size / stored:>8.0f} items/s, keyword fetch {fetched:6.3f} s"
        )
    # Listing rounds alternate between the sizes so that both meet the same load on a
    # shared machine; each size keeps its best round, as `timeit` does.
    best = dict.fromkeys(SIZES, float("inf"))
    for _ in range(LIST_RUNS):
        for size, engine in engines.items():
            seen, seconds = list_everything(engine)
            assert seen == size
            best[size] = min(best[size], seconds)
    for size in SIZES:
        print(f"{size:>7} items: list all (pages of {PAGE}) {best[size]:6.3f} s")
    small, large = SIZES
    ratio = best[large] / best[small]
    verdict = "ok" if ratio <= GOAL_RATIO else "MISSED"
    print(f"list time ratio {large}/{small}: {ratio:.2f} (goal <= {GOAL_RATIO:g}) {verdict}")
    return 0 if ratio <= GOAL_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
