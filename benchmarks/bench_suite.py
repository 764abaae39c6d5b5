"""Whole-suite cost against the reference and against the reference with every call
delayed (5 ms and 50 ms: a store across a network), serially, with 8 checks at once
(`--conformance-concurrency 8`), with two xdist workers, and with both: wall time, CPU
time, check time, driver calls.

    python benchmarks/bench_suite.py [DELAY_MS ...]
    python benchmarks/bench_suite.py --fuzz [DELAY_MS]

Each figure is one pytest run in a subprocess (so start-up is included, as a vendor's CI
pays it, byte code cached); -n 2 runs use pytest-xdist's two workers. CPU time is the run's user and
system time, its workers' included (start-up too; on a loaded machine it is the figure
that stays put). Check time is the sum of the checks' own durations from the report (no
start-up), per profile; driver calls are counted per profile.

With `--fuzz`, the suite and both fuzz targets at the default budget against the driver
delayed by DELAY_MS (default 5), one seed, serially and with 8 at once: the wall times,
and whether the two reports agree check by check (outcome and reason; a fuzz summary's
count of driver calls aside, a cost like the time: at once, the programs' exports page
through the rows of the programs beside them in the one store).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


_CALLS = re.compile(r"\d+ driver calls \([\d.]+ per step\)")
"""A fuzz summary's cost in calls."""

FUZZ_SEED = "1"
"""The run seed of the `--fuzz` comparison (its fuzz seeds derive from it)."""


def run_report(driver: str, *extra: str) -> tuple[float, dict[str, Any]]:
    """Wall time and JSON report of one pytest run of the suite against `driver`."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--ignore-glob=*",
                f"--driver={driver}",
                f"--conformance-report={report}",
                *extra,
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            env=_environment(),
        )
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"run of {driver} failed:\n{done.stdout}\n{done.stderr}")
        data: dict[str, Any] = json.loads(report.read_text())
    return elapsed, data


def _environment() -> dict[str, str]:
    """This checkout on the path, and byte code cached as a vendor's CI caches it: with
    PYTHONDONTWRITEBYTECODE set, every run (and every xdist worker) would compile the kit
    from source again, a second of start-up that no CI pays twice."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT)}


def cpu_of_children() -> float:
    """User and system seconds of every finished child process (their children too)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(driver: str, *extra: str) -> tuple[float, float, str, str, int, str]:
    """Wall time, CPU time, check time and driver calls per profile, all calls, and the
    verdict of one run."""
    cpu_before = cpu_of_children()
    elapsed, data = run_report(driver, *extra)
    cpu = cpu_of_children() - cpu_before
    profiles = ("engine", "provider")
    durations = [sum(c["duration"] for c in data["checks"] if c["profile"] == p) for p in profiles]
    calls = [sum(c["calls"] for c in data["checks"] if c["profile"] == p) for p in profiles]
    checks = " + ".join(f"{d:.2f}" for d in durations)
    called = " + ".join(str(n) for n in calls)
    return elapsed, cpu, checks, called, sum(calls), data["summary"]["verdict"]


MODES: dict[str, tuple[str, ...]] = {
    "serial": (),
    "concurrency 8": ("--conformance-concurrency", "8"),
    "-n 2": ("-n", "2"),
    "-n 2, concurrency 8": ("-n", "2", "--conformance-concurrency", "8"),
}
"""How each driver is run: one check at a time, 8 at once, two xdist workers, both."""


def drivers(delays: list[str]) -> dict[str, tuple[str, ...]]:
    """The reference, then the reference with each delay (ms) on every call."""
    delayed = "benchmarks.delayed_drivers:delayed"
    found: dict[str, tuple[str, ...]] = {"reference": ("reference",)}
    for ms in delays:
        found[f"{ms} ms per call"] = (delayed, "--driver-option", f"delay_ms={ms}")
    return found


def fuzz_comparison(delay: str) -> None:
    """The suite with `--fuzz` against the `delay` ms driver, serially and 8 at once."""
    flags = ("--driver-option", f"delay_ms={delay}", "--fuzz", "--conformance-seed", FUZZ_SEED)
    driver = "benchmarks.delayed_drivers:delayed"
    reports: list[dict[str, tuple[str, str]]] = []
    walls = []
    for mode in ("serial", "concurrency 8"):
        wall, data = run_report(driver, *flags, *MODES[mode])
        walls.append(wall)
        reports.append({c["id"]: (c["outcome"], c["reason"]) for c in data["checks"]})
        print(f"{delay} ms per call, --fuzz, {mode:<14} {wall:>9.2f} s", flush=True)
    serial, at_once = reports

    def differ(costs: bool) -> list[str]:
        def seen(report: dict[str, tuple[str, str]], key: str) -> object:
            outcome, reason = report.get(key, ("", ""))
            return outcome, reason if costs else _CALLS.sub("<calls>", reason)

        return sorted(
            k for k in serial.keys() | at_once.keys() if seen(serial, k) != seen(at_once, k)
        )

    verdicts = differ(costs=False)
    print(
        f"speed-up {walls[0] / walls[1]:.2f}x; {len(serial)} report entries, {len(verdicts)} "
        f"differ ({len(differ(costs=True))} counting the fuzz summaries' driver calls)"
    )
    for key in differ(costs=True):
        print(f"  {key}:\n    serial:  {serial.get(key)}\n    at once: {at_once.get(key)}")


def main() -> None:
    """`bench_suite.py [DELAY_MS ...]` (default 5 50): every driver in every mode, one run
    each, then each mode's speed-up over the serial run of the same driver;
    `bench_suite.py --fuzz [DELAY_MS]`: `fuzz_comparison`."""
    if sys.argv[1:2] == ["--fuzz"]:
        fuzz_comparison((sys.argv[2:] or ["5"])[0])
        return
    delays = sys.argv[1:] or ["5", "50"]
    print(
        f"{'run':<36} {'wall (s)':>9} {'CPU (s)':>8} {'check time engine + provider (s)':>33} "
        f"{'driver calls engine + provider':>31} verdict"
    )
    walls: dict[tuple[str, str], float] = {}
    for name, (driver, *options) in drivers(delays).items():
        for mode, flags in MODES.items():
            wall, cpu, checks, called, _, verdict = run(driver, *options, *flags)
            walls[name, mode] = wall
            label = f"{name}, {mode}"
            print(
                f"{label:<36} {wall:>9.2f} {cpu:>8.2f} {checks:>33} {called:>31} {verdict}",
                flush=True,
            )
    print()
    print(f"{'speed-up over serial':<22}" + "".join(f"{m:>22}" for m in MODES))
    for name in drivers(delays):
        serial = walls[name, "serial"]
        print(f"{name:<22}" + "".join(f"{serial / walls[name, m]:>21.2f}x" for m in MODES))


if __name__ == "__main__":
    main()
