"""How fast the fuzzer finds faults that need a large store, a near-miss or a tie, and
that it reports nothing against drivers that keep the contract.

    python benchmarks/bench_fuzz_faults.py [--seeds 1,2,3,4,5] [--only NAME,...] [--no-clean]

Each broken driver of `tests/fuzz/engine_faults.py` and `tests/fuzz/provider_faults.py`
(a list capped at 50, a reach or folder matched as a string prefix, an inclusive window
end, explore ties in the wrong order, overlapping fetch pages, a `get` that repeats ids,
an export cursor that skips at a page boundary, a namespace or key matched as a prefix,
`min_score` ignored, taint lost after 20 writes), and of `tests/fuzz/oracle_faults.py`
(issue 21: a whole fetch worst first, list cursors that restart or lose their place when
written between pages, explores that misreport a scan limit, health down past a size, a
recall silent on a held text, worst first, repeating a hit, ignoring a session, holding
`min_score` to another scale, stopping at five, answering a blank query; ids, keys and
texts folded by case, prefix, whitespace or normal form; namespaces sharing an address;
imports that count silently; an export that restarts after a write) is fuzzed at
the default budget under each seed; the table gives the time to the first failure (the
search alone, before replaying and shrinking) and the program it came in (`2.1s/3`), or
`MISSED`, with the median time per driver. Then the reference,
null, sqlite and async drivers are fuzzed under the same seeds: each must pass.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script from a checkout, the package may not be installed: use the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzFailure, run_fuzz
from null_driver.engine import NullEngine
from null_driver.provider import NullProvider
from plugins.registry import resolve_driver
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncEngineOver
from tests.fuzz.engine_faults import ISSUE_13_ENGINE_FAULTS
from tests.fuzz.oracle_faults import (
    ORACLE_ENGINE_FAULTS,
    ORACLE_PROVIDER_FAULTS,
    PORTABILITY_FAULTS,
    RELATIVE_ENGINE_FAULTS,
    RELATIVE_PROVIDER_FAULTS,
)
from tests.fuzz.provider_faults import ISSUE_13_PROVIDER_FAULTS
from tests.plugins.plugin_drivers import AsyncReference


def _sqlite() -> Any:
    return resolve_driver("sqlite", {"path": tempfile.mkdtemp(prefix="bench-fuzz-")})


CLEAN: dict[str, tuple[str, Callable[[], Any]]] = {
    "reference engine": (ENGINE_TARGET, lambda: ReferenceEngine),
    "null engine": (ENGINE_TARGET, lambda: NullEngine),
    "async engine": (ENGINE_TARGET, lambda: AsyncEngineOver),
    "reference provider": (PROVIDER_TARGET, lambda: ReferenceProvider),
    "null provider": (PROVIDER_TARGET, lambda: NullProvider),
    "async provider": (PROVIDER_TARGET, lambda: AsyncReference),
    "sqlite provider": (PROVIDER_TARGET, _sqlite),
}


def first_failure(target: str, driver: Any, seed: int) -> tuple[float | None, int, str]:
    """Seconds the search took to its first failure (`None` if it passed), the program
    it failed in, and the failure's first line."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            run_fuzz(target, driver, seed=seed, shrink_calls=0)
    except FuzzFailure as failure:
        report = failure.report
        return report.time_to_failure, report.runs, str(failure).splitlines()[0]
    return None, 0, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--only", default="", help="comma-separated driver names")
    parser.add_argument("--no-clean", action="store_true", help="skip the clean drivers")
    parser.add_argument("--verbose", action="store_true", help="print each failure")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    only = {name for name in args.only.split(",") if name}
    engine = (*ISSUE_13_ENGINE_FAULTS, *ORACLE_ENGINE_FAULTS, *RELATIVE_ENGINE_FAULTS)
    provider = (
        *ISSUE_13_PROVIDER_FAULTS,
        *ORACLE_PROVIDER_FAULTS,
        *RELATIVE_PROVIDER_FAULTS,
        *PORTABILITY_FAULTS,
    )
    faults = [(ENGINE_TARGET, f) for f in engine] + [(PROVIDER_TARGET, f) for f in provider]
    missed = 0
    print(
        f"{'broken driver':<30}{'profile':<9}"
        + "".join(f"{f'seed {s}':>9}" for s in seeds)
        + f"{'median':>9}"
    )
    for target, fault in faults:
        if only and fault.__name__ not in only:
            continue
        times: list[float] = []
        cells: list[str] = []
        for seed in seeds:
            found, program, message = first_failure(target, fault, seed)
            if found is None:
                missed += 1
                cells.append("MISSED")
            else:
                times.append(found)
                cells.append(f"{found:.1f}s/{program}")
            if args.verbose and message:
                print(f"    {fault.__name__} seed {seed}: {message}", file=sys.stderr)
        median = f"{statistics.median(times):.1f}s" if times else "-"
        profile = "engine" if target == ENGINE_TARGET else "provider"
        print(
            f"{fault.__name__:<30}{profile:<9}" + "".join(f"{c:>9}" for c in cells) + f"{median:>9}"
        )
    print(f"missed: {missed}")
    if args.no_clean:
        return
    print()
    print(f"{'correct driver':<30}" + "".join(f"{f'seed {s}':>9}" for s in seeds))
    for name, (target, make) in CLEAN.items():
        if only and name not in only:
            continue
        cells = []
        for seed in seeds:
            started = time.perf_counter()
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    run_fuzz(target, make(), seed=seed)
                cells.append(f"{time.perf_counter() - started:.0f}s ok")
            except FuzzFailure as failure:
                cells.append("FAILED")
                print(f"    {name} seed {seed}: {failure}", file=sys.stderr)
        print(f"{name:<30}" + "".join(f"{c:>9}" for c in cells))


if __name__ == "__main__":
    main()
