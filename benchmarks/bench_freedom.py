"""The freedom matrix's run time: the suite and the fuzz seed of every configuration.

    python benchmarks/bench_freedom.py             # per configuration, and the totals
    python benchmarks/bench_freedom.py --budgets   # the smallest fuzz budget of each
    python benchmarks/bench_freedom.py --pytest    # also time tests/freedom under pytest -n 2

Each configuration runs once, in this process, as `tests/freedom/test_matrix.py` runs it
(configurations the matrix runs through the plugin are timed directly here, without
their options). A fuzz seed the fuzzer fails is timed to its failure, shrinking
included, and marked FAILS. `--budgets` searches, for each configuration, the smallest
number of programs at which the fuzzer uses every freedom the configuration stands for
(with the draws pinned as the matrix pins them, `tests/freedom/determinism.py`).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

# Run as a script from a checkout, the package may not be installed: use the checkout.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.fuzz import FuzzFailure  # noqa: E402
from tests.freedom.matrix import (  # noqa: E402
    CONFIGURATIONS,
    FUZZ_ONLY,
    SUITE_ONLY,
    Configuration,
    used,
)
from tests.freedom.runs import fuzz_run, suite_run  # noqa: E402

BUDGETS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40)


def timed_fuzz(config: Configuration, examples: int | None = None) -> tuple[float, str, object]:
    """Seconds, `ok` or `FAILS`, and the driver of one fuzz seed."""
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            driver, _ = fuzz_run(config, examples)
        verdict = "ok"
    except FuzzFailure as failure:
        driver, verdict = None, f"FAILS at {failure.call[:60]}"
    return time.perf_counter() - started, verdict, driver


def times() -> None:
    cpu = time.process_time()
    wall = time.perf_counter()
    print(f"{'configuration':42} {'suite s':>8} {'fuzz s':>8} {'programs':>8}  fuzz")
    totals = {"engine": [0.0, 0.0], "provider": [0.0, 0.0]}
    for config in CONFIGURATIONS.values():
        started = time.perf_counter()
        suite_run(config)
        suite = time.perf_counter() - started
        fuzz, verdict, _ = timed_fuzz(config)
        totals[config.profile][0] += suite
        totals[config.profile][1] += fuzz
        print(f"{config.name:42} {suite:8.2f} {fuzz:8.2f} {config.fuzz_examples:8d}  {verdict}")
    for profile, (suite, fuzz) in totals.items():
        count = sum(c.profile == profile for c in CONFIGURATIONS.values())
        print(f"{profile} ({count} configurations): suite {suite:.1f} s, fuzz {fuzz:.1f} s")
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    print(
        f"total: {wall:.1f} s wall, {cpu:.1f} s CPU, for {len(CONFIGURATIONS)} "
        "configurations in one process (wall minus CPU is time spent waiting for the machine)"
    )


def budgets() -> None:
    for config in CONFIGURATIONS.values():
        # Through the plugin the suite shares the driver, and meets what the fuzzer cannot.
        shared = FUZZ_ONLY if config.via_plugin else frozenset[str]()
        wanted = [f for f in config.freedoms if f not in SUITE_ONLY | shared]
        found = "none up to 40"
        for examples in BUDGETS:
            seconds, verdict, driver = timed_fuzz(config, examples)
            if driver is None:
                found = f"{examples} ({verdict})"
                break
            if all(used(driver)[f] for f in wanted):
                found = f"{examples} ({seconds:.1f} s)"
                break
        print(f"{config.name:42} chosen {config.fuzz_examples:3d}, smallest {found}")


def under_pytest() -> None:
    started = time.perf_counter()
    command = ["-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", "tests/freedom/"]
    done = subprocess.run(
        [sys.executable, *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-200:]
    print(f"pytest -n 2 tests/freedom: {time.perf_counter() - started:.1f} s wall ({last})")


def main() -> None:
    if "--budgets" in sys.argv:
        budgets()
        return
    times()
    if "--pytest" in sys.argv:
        under_pytest()


if __name__ == "__main__":
    main()
