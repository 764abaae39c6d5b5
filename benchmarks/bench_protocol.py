"""What the driver protocol costs: per call, and over the whole suite.

    python benchmarks/bench_protocol.py

Per call: the same operation in process and over `exec:tinymemory-conformance serve`, on
a driver that answers a repeated call from memory (`benchmarks/canned_drivers.py`), so
the driver's own work (the reference's time is shown beside) neither adds to the figure
nor blurs it; the difference is the protocol's cost: encode, pipe, decode, on both sides.
Each figure is the best of several batches (the one least disturbed by other work), with
the median batch beside it. The floor is a bare line echoed by a Python process: what the pipe
alone costs here.

Suite: the check time (the report's durations summed) and the wall time of one pytest run
in process, over `exec:` to the Python server, and over `exec:` to the Node.js example.

Pipelining (`--pipelining` runs this table alone): N threads each making M calls (a
provider store and get) at once on one object, against a driver process that says
`concurrent` (its calls in flight together, answered by id) and against the same driver
served one call at a time; for the reference, the reference with every call delayed
5 ms, and the Node.js example with `delay_ms=5`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_suite import run_report  # noqa: E402
from conformance.engine import (  # noqa: E402
    FetchMode,
    FetchRequest,
    GetRequest,
    LearningKind,
    ListRequest,
    learning,
)
from conformance.protocol.client import exec_driver  # noqa: E402
from conformance.provider import MemoryCategory, MemoryTaint, OwnedRecallOpts  # noqa: E402
from plugins.registry import resolve_driver  # noqa: E402

SERVE = [sys.executable, "-m", "plugins.cli", "serve", "--driver", "reference"]
CANNED = "benchmarks.canned_drivers:canned"
SERVE_CANNED = [sys.executable, "-m", "plugins.cli", "serve", "--driver", CANNED]
SERVE_DELAYED = [sys.executable, "-m", "plugins.cli", "serve", "--driver"]
SERVE_DELAYED.append("benchmarks.delayed_drivers:delayed")
THREADS = 8
CALLS_PER_THREAD = 50
NODE_DRIVER = ROOT / "examples" / "node-driver" / "driver.js"
BATCH = 400
BATCHES = 9
TARGET_US = 100.0


def per_call(fn: Callable[[], Any]) -> tuple[float, float]:
    """Microseconds per call of `fn`: the best and the median of `BATCHES` batches of
    `BATCH` calls. The best batch is the one least disturbed by other work (timeit's
    rule); the median shows what a busy moment costs."""
    for _ in range(50):
        fn()
    samples = []
    for _ in range(BATCHES):
        started = time.perf_counter()
        for _ in range(BATCH):
            fn()
        samples.append((time.perf_counter() - started) / BATCH * 1e6)
    return min(samples), statistics.median(samples)


def pipe_floor() -> float:
    """Microseconds for one line to a Python process and back."""
    echo = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n"
    echo += "    sys.stdout.buffer.flush()\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", echo], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin and proc.stdout
    line = b'{"type":"call","id":1,"op":"engine.health","args":{}}\n'

    def once() -> None:
        proc.stdin.write(line)  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        proc.stdout.readline()  # type: ignore[union-attr]

    try:
        return per_call(once)[0]
    finally:
        proc.stdin.close()
        proc.wait()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_call(engine: Any, calls: int = 3000) -> tuple[float, float]:
    """CPU microseconds per `engine.health` call spent by the kit and by the driver
    process, their polling for each other's lines included (docs/protocol.md, Latency)."""
    pid = engine._connection._current().process.pid
    kit_before, driver_before = time.process_time(), cpu_seconds(pid)
    for _ in range(calls):
        engine.health()
    kit = (time.process_time() - kit_before) / calls * 1e6
    return kit, (cpu_seconds(pid) - driver_before) / calls * 1e6


def operations(engine: Any, provider: Any) -> dict[str, Callable[[], Any]]:
    """Representative calls, on a store holding 200 items and 200 entries."""
    for i in range(200):
        engine.store(learning(f"fact {i} about tabs and spaces", LearningKind.FACT, 0.5))
        provider.store("global", f"k{i}", f"entry {i}", MemoryCategory.CORE, None, "internal")
    item = learning("prefers tabs", LearningKind.PREFERENCE, 0.8)
    receipt = engine.store(item)
    opts = OwnedRecallOpts()
    return {
        "engine.health": engine.health,
        "engine.store (replay)": lambda: engine.store(item),
        "engine.get (1 id)": lambda: engine.get(GetRequest(ids=[receipt.id])),
        "engine.list (10 hits)": lambda: engine.list(ListRequest(limit=10)),
        "engine.fetch (10 hits)": lambda: engine.fetch(
            FetchRequest(query="tabs", mode=FetchMode.KEYWORD, limit=10)
        ),
        "provider.get": lambda: provider.get("global", "k7"),
        "provider.store": lambda: provider.store(
            "global", "k7", "entry 7", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
        ),
        "provider.recall (10 hits)": lambda: provider.recall("entry 1", 10, opts, None),
    }


def per_call_table() -> None:
    reference = resolve_driver("reference")
    local = resolve_driver(CANNED)
    served = exec_driver(SERVE_CANNED)
    driver_alone = operations(reference.make_engine(), reference.make_provider())
    in_process = operations(local.make_engine(), local.make_provider())
    over_pipe = operations(served.make_engine(), served.make_provider())
    floor = pipe_floor()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} cores (other work inflates every figure)")
    print(f"pipe floor (a line echoed by a Python process): {floor:.1f} µs\n")
    print(
        f"{'operation':<26} {'reference':>10} {'in process':>11} {'exec:':>9} "
        f"{'protocol cost':>14} {'(median batch)':>15}"
    )
    best, busy = [], []
    for name, call in in_process.items():
        alone = per_call(driver_alone[name])[0]
        here, there = per_call(call), per_call(over_pipe[name])
        best.append(there[0] - here[0])
        busy.append(there[1] - here[1])
        print(
            f"{name:<26} {alone:>8.1f}µs {here[0]:>9.1f}µs {there[0]:>7.1f}µs "
            f"{best[-1]:>12.1f}µs {busy[-1]:>13.1f}µs"
        )
    median = statistics.median(best)
    verdict = "within" if median < TARGET_US else "over"
    print(
        f"\nmedian protocol cost per call: {median:.1f} µs ({verdict} the {TARGET_US:.0f} µs "
        f"target), {statistics.median(busy):.1f} µs in median batches; "
        f"{median / floor:.1f}× the pipe floor"
    )
    kit, driver = cpu_per_call(served.make_engine())
    print(f"CPU per engine.health over exec: kit {kit:.1f} µs + driver process {driver:.1f} µs")
    assert served.release is not None
    served.release()


def suite(driver: str) -> tuple[float, float, int, str]:
    """Check time (summed durations), wall time, driver calls and verdict of one run."""
    wall, data = run_report(driver)
    checks = sum(c["duration"] for c in data["checks"])
    calls = sum(c["calls"] for c in data["checks"])
    return checks, wall, calls, data["summary"]["verdict"]


def suite_table() -> None:
    runs = [
        ("reference, in process", "reference"),
        ("reference, exec: serve", "exec:" + shlex.join(SERVE)),
    ]
    node = shutil.which("node")
    if node is not None:
        runs.append(("Node.js example, exec:", "exec:" + shlex.join([node, str(NODE_DRIVER)])))
    print(f"\n{'suite run':<24} {'checks (s)':>11} {'wall (s)':>9} {'calls':>7} verdict")
    for name, spec in runs:
        checks, wall, calls, verdict = suite(spec)
        print(f"{name:<24} {checks:>11.2f} {wall:>9.2f} {calls:>7} {verdict}")
    if node is None:
        print("(node is not installed: the Node.js example was not run)")


def threads_at_once(provider: Any, threads: int, calls: int) -> float:
    """Seconds for `threads` threads to make `calls` calls each on `provider` at once."""

    def work(thread: int) -> None:
        for i in range(calls // 2):
            key = f"t{thread}-{i}"
            provider.store("global", key, f"entry {i}", "core", None, "internal")
            provider.get("global", key)

    with ThreadPoolExecutor(threads) as pool:
        started = time.perf_counter()
        list(pool.map(work, range(threads)))
        return time.perf_counter() - started


def pipelining_row(name: str, argv: list[str], options: dict[str, str]) -> None:
    """One driver: 1 thread, then `THREADS` threads pipelined and served one at a time."""
    figures = []
    for threads, serial in ((1, False), (THREADS, False), (THREADS, True)):
        driver = exec_driver(argv, {**options, **({"thread_safe": "false"} if serial else {})})
        assert driver.thread_safe is not serial
        provider = driver.make_provider()
        threads_at_once(provider, 1, 20)  # warm: the process and the kit's code
        took = threads_at_once(provider, threads, CALLS_PER_THREAD)
        figures.append((took, threads * CALLS_PER_THREAD))
        assert driver.release is not None
        driver.release()
    (one, one_n), (piped, n), (serial, _) = figures
    print(
        f"{name:<26} {one / one_n * 1e6:>9.0f}µs {n / piped:>10.0f}/s {n / serial:>10.0f}/s "
        f"{serial / piped:>8.1f}x"
    )


def pipelining_table() -> None:
    print(
        f"\n{THREADS} threads × {CALLS_PER_THREAD} calls on one provider over exec: "
        f"(load {', '.join(f'{x:.1f}' for x in os.getloadavg())})"
    )
    print(f"{'driver':<26} {'1 thread':>11} {'pipelined':>12} {'one at a time':>12} {'speedup':>8}")
    pipelining_row("reference", SERVE_DELAYED, {"delay_ms": "0"})
    pipelining_row("reference, 5 ms a call", SERVE_DELAYED, {"delay_ms": "5"})
    node = shutil.which("node")
    if node is None:
        print("(node is not installed: the Node.js example was not run)")
        return
    # The Node.js example always says `concurrent`; one at a time is the kit's turn-taking
    # stood in for by a single thread making every call.
    argv = [node, str(NODE_DRIVER)]
    figures = []
    for threads in (1, THREADS):
        driver = exec_driver(argv, {"delay_ms": "5"})
        provider = driver.make_provider()
        threads_at_once(provider, 1, 20)
        total = threads * CALLS_PER_THREAD
        figures.append((threads_at_once(provider, threads, CALLS_PER_THREAD), total))
        assert driver.release is not None
        driver.release()
    (one, one_n), (piped, n) = figures
    serial_rate = one_n / one
    print(
        f"{'Node.js, 5 ms a call':<26} {one / one_n * 1e6:>9.0f}µs {n / piped:>10.0f}/s "
        f"{serial_rate:>10.0f}/s {n / piped / serial_rate:>8.1f}x"
    )


if __name__ == "__main__":
    if "--pipelining" in sys.argv[1:]:
        pipelining_table()
    else:
        per_call_table()
        suite_table()
        pipelining_table()
