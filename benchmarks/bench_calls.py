"""What one driver call costs the kit: the time limit, the private copies of the arguments,
the edit check and the return-type check, against a bare call.

    python benchmarks/bench_calls.py

Each figure is the median of five timings of 20,000 calls, in microseconds per call.
"""

from __future__ import annotations

import copy
import statistics
import timeit
from collections.abc import Callable

from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.copies import private_copy
from conformance.engine import (
    LearningKind,
    ListRequest,
    MetaFilter,
    StoreItem,
    StoreReceipt,
    learning,
)
from conformance.time_limit import run_within

CALLS = 20_000


class Echo:
    """An engine `store` that does nothing but answer."""

    def store(self, item: StoreItem) -> StoreReceipt:
        return StoreReceipt(id="x", replayed=False)


def per_call(fn: Callable[[], object]) -> float:
    runs = timeit.repeat(fn, number=CALLS, repeat=5)
    return statistics.median(runs) / CALLS * 1e6


def main() -> None:
    item = learning("prefers tabs", LearningKind.PREFERENCE, 0.8)
    request = ListRequest(filter=MetaFilter(workspace="w"), limit=10)
    echo = Echo()
    bound = CheckContext("engine.round_trip", RunSettings(timeout=60.0)).bind(echo)
    unlimited = CheckContext("engine.round_trip", RunSettings(timeout=None)).bind(echo)
    rows = [
        ("bare call", per_call(lambda: echo.store(item))),
        ("time limit only (run_within)", per_call(lambda: run_within(60.0, echo.store, (item,)))),
        ("copy of the item (private_copy)", per_call(lambda: private_copy(item))),
        ("copy of the item (copy.deepcopy)", per_call(lambda: copy.deepcopy(item))),
        ("copy of a ListRequest (private_copy)", per_call(lambda: private_copy(request))),
        ("kit call, no time limit", per_call(lambda: unlimited.store(item))),
        ("kit call (limit, copy, edit and type checks)", per_call(lambda: bound.store(item))),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"{'what':<{width}}  µs per call")
    for name, micros in rows:
        print(f"{name:<{width}}  {micros:>10.1f}")


if __name__ == "__main__":
    main()
