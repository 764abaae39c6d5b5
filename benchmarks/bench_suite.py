"""Whole-suite cost against the reference: wall time, CPU time, check time, driver calls,
and a 5 ms-per-call engine.

    python benchmarks/bench_suite.py

Each figure is one pytest run in a subprocess (so start-up is included, as a vendor's CI
pays it); -n 2 runs use pytest-xdist's two workers. CPU time is the run's user and
system time, its workers' included (start-up too; on a loaded machine it is the figure
that stays put). Check time is the sum of the checks' own durations from the report (no
start-up), per profile; driver calls are counted per profile.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


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
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"run of {driver} failed:\n{done.stdout}\n{done.stderr}")
        data: dict[str, Any] = json.loads(report.read_text())
    return elapsed, data


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


def main() -> None:
    delayed = "benchmarks.delayed_drivers:delayed"
    rows = [
        ("reference", *run("reference")),
        ("reference, -n 2", *run("reference", "-n", "2")),
        ("5 ms per call", *run(delayed, "--driver-option", "delay_ms=5")),
        ("5 ms per call, -n 2", *run(delayed, "--driver-option", "delay_ms=5", "-n", "2")),
    ]
    print(
        f"{'run':<22} {'wall (s)':>9} {'CPU (s)':>8} {'check time engine + provider (s)':>33} "
        f"{'driver calls engine + provider':>31} verdict"
    )
    for name, wall, cpu, checks, called, _, verdict in rows:
        print(f"{name:<22} {wall:>9.2f} {cpu:>8.2f} {checks:>33} {called:>31} {verdict}")
    base, delayed_wall, delayed_n2 = rows[0][1], rows[2][1], rows[3][1]
    delayed_calls = rows[2][5]
    print(
        f"5 ms delay costs {delayed_wall - base:.2f} s for {delayed_calls} calls "
        f"({(delayed_wall - base) / delayed_calls * 1000:.1f} ms per call); "
        f"-n 2 speeds the delayed run up {delayed_wall / delayed_n2:.2f}x"
    )


if __name__ == "__main__":
    main()
