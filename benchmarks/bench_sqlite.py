"""Store, get, list and recall at 10k entries: the sqlite driver beside the in-memory reference.

Run: ``python benchmarks/bench_sqlite.py [ENTRIES]`` (default 10000). Both drivers get
the same entries (one namespace, 24 pseudo-words each) and the same one-word queries,
measured in the same run. The sqlite store is on disk in a temporary directory: every
store is its own fully synced transaction plus a Markdown file, so its store figure is
bounded by the disk's fsync latency. Recall is measured twice on the same database: with
FTS5 ``bm25`` and with the scan fallback (``use_fts=False``).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script from a checkout, the package may not be installed: use the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.provider import MemoryCategory, MemoryProvider, MemoryTaint, OwnedRecallOpts
from reference_driver.provider import ReferenceProvider
from reference_driver.sqlite import SqliteProvider

NAMESPACE = "learning:bench"
QUERIES = 200
GETS = 1000
WORDS_PER_ENTRY = 24
SYLLABLES = ("ka", "lo", "mi", "ren", "tu", "va", "zo", "pi", "sha", "gor", "nel", "qui")


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    """Distinct pseudo-words of two to four syllables."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def per_call(calls: int, action: Callable[[int], object]) -> float:
    """Seconds per call of `action(i)` for i in range(calls)."""
    start = time.perf_counter()
    for i in range(calls):
        action(i)
    return (time.perf_counter() - start) / calls


def measure(
    provider: MemoryProvider, contents: list[str], queries: list[str], *, store: bool
) -> dict[str, float]:
    """Seconds per call of each operation."""
    figures: dict[str, float] = {}
    if store:
        figures["store"] = per_call(
            len(contents),
            lambda i: provider.store(
                NAMESPACE, f"k{i:06d}", contents[i], MemoryCategory.CORE, None, MemoryTaint.INTERNAL
            ),
        )
    step = max(len(contents) // GETS, 1)
    figures["get"] = per_call(
        GETS, lambda i: provider.get(NAMESPACE, f"k{i * step % len(contents):06d}")
    )
    figures["list(namespace)"] = per_call(3, lambda _: provider.list(NAMESPACE, None, None))
    figures["list(None)"] = per_call(3, lambda _: provider.list(None, None, None))
    opts = OwnedRecallOpts(namespace=NAMESPACE)
    figures["recall"] = per_call(
        len(queries), lambda i: provider.recall(queries[i], 10, opts, None)
    )
    return figures


def show(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:9.2f} ms"
    return f"{seconds * 1e6:9.1f} us"


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(7)
    words = vocabulary(rng)
    contents = [" ".join(rng.choices(words, k=WORDS_PER_ENTRY)) for _ in range(entries)]
    queries = [rng.choice(words) for _ in range(QUERIES)]

    columns: dict[str, dict[str, float]] = {
        "reference": measure(ReferenceProvider(), contents, queries, store=True)
    }
    with tempfile.TemporaryDirectory(prefix="bench-sqlite-") as workspace:
        fts = SqliteProvider(workspace)
        columns["sqlite (fts5)"] = measure(fts, contents, queries, store=True)
        fts.shutdown()
        scan = SqliteProvider(workspace, use_fts=False)
        columns["sqlite (scan)"] = measure(scan, contents, queries, store=False)
        scan.shutdown()

    print(f"{entries} entries in one namespace; {QUERIES} one-word recall queries, limit 10")
    print(f"{'operation':<18}" + "".join(f"{name:>16}" for name in columns))
    for operation in ("store", "get", "list(namespace)", "list(None)", "recall"):
        cells = "".join(f"{show(figures.get(operation)):>16}" for figures in columns.values())
        print(f"{operation:<18}{cells}")


if __name__ == "__main__":
    main()
