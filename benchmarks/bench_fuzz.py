"""How fast the fuzzer steps, and where its time goes.

    python benchmarks/bench_fuzz.py [EXAMPLES]

For each profile it fuzzes the reference driver (seed fixed, default budget unless
EXAMPLES is given) with both the driver under test and the oracle wrapped in a
timing proxy, and prints steps per second and the share of wall time spent in the
driver under test, in the oracle, in the kit's own comparisons and in hypothesis
(drawing and shrinking programs).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script from a checkout, the package may not be installed: use the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, run_fuzz
from conformance.fuzz.differential import Differential
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider

SEED = 1


class Timed:
    """Forwards every call to `target`, adding its duration to `clock[0]`."""

    def __init__(self, target: Any, clock: list[float]) -> None:
        self._target = target
        self._clock = clock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr
        clock = self._clock

        def call(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                clock[0] += time.perf_counter() - started

        return call


def measure(target: str, make: Callable[[], Any], examples: int | None) -> dict[str, float]:
    driver_clock, oracle_clock, step_clock = [0.0], [0.0], [0.0]
    guarded = Differential.guarded

    def timed_guarded(self: Differential, body: Callable[[], Any]) -> Any:
        # Every step, invariant check and teardown of a differential runs through here.
        started = time.perf_counter()
        try:
            return guarded(self, body)
        finally:
            step_clock[0] += time.perf_counter() - started

    Differential.guarded = timed_guarded  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        report = run_fuzz(
            target,
            Timed(make(), driver_clock),
            seed=SEED,
            examples=examples,
            oracle_factory=lambda: Timed(make(), oracle_clock),
        )
        wall = time.perf_counter() - started
    finally:
        Differential.guarded = guarded  # type: ignore[method-assign]
    kit = step_clock[0] - driver_clock[0] - oracle_clock[0]
    return {
        "programs": report.runs,
        "steps": report.steps,
        "wall": wall,
        "steps/s": report.steps / wall,
        "driver": driver_clock[0] / wall,
        "oracle": oracle_clock[0] / wall,
        "kit": kit / wall,
        "hypothesis": (wall - step_clock[0]) / wall,
    }


def main() -> None:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else None
    rows = [
        ("provider", measure(PROVIDER_TARGET, ReferenceProvider, examples)),
        ("engine", measure(ENGINE_TARGET, ReferenceEngine, examples)),
    ]
    print()
    print(
        f"{'profile':<10}{'programs':>9}{'steps':>7}{'wall s':>8}{'steps/s':>9}"
        f"{'driver':>8}{'oracle':>8}{'kit':>7}{'hypothesis':>11}"
    )
    for name, row in rows:
        print(
            f"{name:<10}{row['programs']:>9.0f}{row['steps']:>7.0f}{row['wall']:>8.2f}"
            f"{row['steps/s']:>9.0f}{row['driver']:>8.0%}{row['oracle']:>8.0%}"
            f"{row['kit']:>7.0%}{row['hypothesis']:>11.0%}"
        )


if __name__ == "__main__":
    main()
