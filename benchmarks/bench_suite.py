"""Whole-suite cost against the reference: wall time, check time, driver calls, and a
5 ms-per-call engine.

    python benchmarks/bench_suite.py

Each figure is one pytest run in a subprocess (so start-up is included, as a vendor's CI
pays it); -n 2 runs use pytest-xdist's two workers. Check time is the sum of the checks'
own durations from the report (no start-up), per profile.
"""

from __future__ import annotations

import json
import os
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


def run(driver: str, *extra: str) -> tuple[float, str, int, str]:
    """Wall time, check time per profile, driver calls and verdict of one run."""
    elapsed, data = run_report(driver, *extra)
    calls = sum(c["calls"] for c in data["checks"])
    per_profile = {
        profile: sum(c["duration"] for c in data["checks"] if c["profile"] == profile)
        for profile in ("engine", "provider")
    }
    checks = " + ".join(f"{per_profile[p]:.2f}" for p in ("engine", "provider"))
    return elapsed, checks, calls, data["summary"]["verdict"]


def main() -> None:
    delayed = "benchmarks.delayed_drivers:delayed"
    rows = [
        ("reference", *run("reference")),
        ("reference, -n 2", *run("reference", "-n", "2")),
        ("5 ms per call", *run(delayed, "--driver-option", "delay_ms=5")),
        ("5 ms per call, -n 2", *run(delayed, "--driver-option", "delay_ms=5", "-n", "2")),
    ]
    print(
        f"{'run':<22} {'wall (s)':>9} {'check time engine + provider (s)':>33} "
        f"{'driver calls':>13} verdict"
    )
    for name, wall, checks, calls, verdict in rows:
        print(f"{name:<22} {wall:>9.2f} {checks:>33} {calls:>13} {verdict}")
    base, delayed_wall, delayed_n2 = rows[0][1], rows[2][1], rows[3][1]
    print(
        f"5 ms delay costs {delayed_wall - base:.2f} s for {rows[2][3]} calls "
        f"({(delayed_wall - base) / rows[2][3] * 1000:.1f} ms per call); "
        f"-n 2 speeds the delayed run up {delayed_wall / delayed_n2:.2f}x"
    )


if __name__ == "__main__":
    main()
