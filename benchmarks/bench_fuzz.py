"""What the fuzzer reaches and what it costs, per profile, at the default budget.

    python benchmarks/bench_fuzz.py [--seeds 1,2,3] [--examples N] [--no-delay]

For each profile and seed it fuzzes the reference driver and prints:

- steps per second, and the share of wall time spent in the driver under test, the
  oracle, the kit's own comparisons and hypothesis (drawing programs);
- driver calls per step (target: at most 3 on average);
- the programs' peak store sizes: median and largest (targets: median at least 20,
  some programs above 100);
- the share of programs whose paged reads crossed a page boundary (list and fetch for
  an engine, export for a provider; target: at least half);

- the run's wall time, and the part of it the scale phase took (after a search that
  passed at the default budget: `conformance.fuzz.scale`);

then the wall time of the same run against the reference with every driver call
delayed 5 ms (`benchmarks/delayed_drivers.py`, a stand-in for a remote store; target:
under 60 s per profile).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script from a checkout, the package may not be installed: use the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.delayed_drivers import delayed
from conformance import Driver
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzReport, run_fuzz
from conformance.fuzz.differential import Differential
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider

PROFILES: dict[str, tuple[str, Callable[[], Any], tuple[str, ...]]] = {
    "engine": (ENGINE_TARGET, ReferenceEngine, ("list", "fetch")),
    "provider": (PROVIDER_TARGET, ReferenceProvider, ("export",)),
}


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
                answer = attr(*args, **kwargs)
            finally:
                clock[0] += time.perf_counter() - started
            # A family (`as_documents()`) is timed alike.
            return Timed(answer, clock) if name.startswith("as_") and answer is not None else answer

        return call


def measure(profile: str, seed: int, examples: int | None) -> tuple[FuzzReport, dict[str, float]]:
    """One run against the reference, with the time split by who spent it."""
    target, make, _ = PROFILES[profile]
    driver_clock, oracle_clock, step_clock = [0.0], [0.0], [0.0]
    guarded = Differential.guarded

    def timed_guarded(self: Differential, body: Callable[[], Any]) -> Any:
        # Every step, comparison and teardown of a differential runs through here.
        started = time.perf_counter()
        try:
            return guarded(self, body)
        finally:
            step_clock[0] += time.perf_counter() - started

    # Nested `guarded` calls (a comparison inside a step) must be timed once.
    depth = [0]

    def once(self: Differential, body: Callable[[], Any]) -> Any:
        depth[0] += 1
        try:
            return timed_guarded(self, body) if depth[0] == 1 else guarded(self, body)
        finally:
            depth[0] -= 1

    wrapped = Driver(name="timed-reference", **{profile: lambda: Timed(make(), driver_clock)})
    Differential.guarded = once  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        report = run_fuzz(
            target,
            wrapped,
            seed=seed,
            examples=examples,
            oracle_factory=lambda: Timed(make(), oracle_clock),
        )
        wall = time.perf_counter() - started
    finally:
        Differential.guarded = guarded  # type: ignore[method-assign]
    kit = step_clock[0] - driver_clock[0] - oracle_clock[0]
    return report, {
        "wall": wall,
        "driver": driver_clock[0] / wall,
        "oracle": oracle_clock[0] / wall,
        "kit": kit / wall,
        "hypothesis": (wall - step_clock[0]) / wall,
    }


def delayed_wall(profile: str, seed: int, examples: int | None) -> tuple[float, float, FuzzReport]:
    """Wall and CPU time of one run against the reference with every call delayed 5 ms."""
    target = PROFILES[profile][0]
    started, cpu = time.perf_counter(), time.process_time()
    report = run_fuzz(target, delayed({"delay_ms": "5"}), seed=seed, examples=examples)
    return time.perf_counter() - started, time.process_time() - cpu, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1", help="comma-separated seeds (default 1)")
    parser.add_argument("--examples", type=int, default=None, help="programs per run")
    parser.add_argument("--no-delay", action="store_true", help="skip the 5 ms-per-call runs")
    parser.add_argument("--profile", choices=[*PROFILES, "all"], default="all")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    profiles = list(PROFILES) if args.profile == "all" else [args.profile]
    rows: list[tuple[str, int, FuzzReport, dict[str, float]]] = []
    for profile in profiles:
        for seed in seeds:
            report, split = measure(profile, seed, args.examples)
            rows.append((profile, seed, report, split))
    print()
    print(
        f"{'profile':<9}{'seed':>5}{'programs':>9}{'steps':>7}{'steps/s':>8}{'calls/step':>11}"
        f"{'size med':>9}{'size max':>9}  {'crossing a page':<28}"
        f"{'driver':>7}{'oracle':>7}{'kit':>6}{'hyp.':>6}{'wall s':>8}{'scale s':>8}"
    )
    for profile, seed, report, split in rows:
        stats = report.stats
        median, most = stats.peak_sizes()
        reads = PROFILES[profile][2]
        crossed = ", ".join(f"{read} {stats.crossing_share(read):.0%}" for read in reads)
        print(
            f"{profile:<9}{seed:>5}{report.runs:>9}{report.steps:>7}"
            f"{report.steps / split['wall']:>8.0f}{stats.calls_per_step():>11.2f}"
            f"{median:>9g}{most:>9}  {crossed:<28}"
            f"{split['driver']:>7.0%}{split['oracle']:>7.0%}{split['kit']:>6.0%}"
            f"{split['hypothesis']:>6.0%}{split['wall']:>8.1f}{report.scale_seconds:>8.1f}"
        )
    if args.no_delay:
        return
    print()
    # On a loaded machine the wall time overstates the cost; the CPU time plus the calls'
    # own 5 ms is what an idle machine would take.
    print("every driver call delayed 5 ms (a remote store):")
    for profile in profiles:
        wall, cpu, report = delayed_wall(profile, seeds[0], args.examples)
        idle = cpu + report.calls * 0.005
        verdict = "under" if idle < 60 else "OVER"
        print(
            f"  {profile:<9} seed {seeds[0]}: {wall:6.1f} s wall ({cpu:.1f} s CPU + "
            f"{report.calls} calls x 5 ms = {idle:.1f} s on an idle machine, {verdict} the "
            f"60 s target), {report.runs} programs"
        )


if __name__ == "__main__":
    main()
