"""A driver in another language: the Node.js example passes the suite and the fuzzer over
the protocol. Runs where `node` is installed; skipped, saying so, where it is not."""

from __future__ import annotations

import json
import shlex
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.protocol.client import exec_driver

ROOT = Path(__file__).resolve().parents[2]
NODE_DRIVER = ROOT / "examples" / "node-driver" / "driver.js"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the Node.js example driver cannot run"
)

# Enough programs to exercise every rule of both state machines, few enough for CI.
FUZZ_EXAMPLES = 30


def node_spec() -> str:
    assert NODE is not None
    return "exec:" + shlex.join([NODE, str(NODE_DRIVER)])


def test_the_node_driver_passes_the_suite_and_the_fuzzer(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={node_spec()}",
        "--fuzz",
        f"--fuzz-examples={FUZZ_EXAMPLES}",
        "--conformance-report=node.json",
        "-q",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = json.loads((pytester.path / "node.json").read_text())
    assert report["driver"] == {
        "name": "node-memory",
        "distribution": None,
        "version": "0.1.0",
        "options": {},
        "command": node_spec().removeprefix("exec:"),
        "rebuilt": [],
    }
    assert report["summary"]["verdict"] == "pass"
    # Keyword fetch alone: every required check passes, but `full` needs every fetch mode.
    assert report["profiles"]["engine"]["level"] == "core"
    assert report["profiles"]["engine"]["fetch_modes"] == ["keyword"]
    assert report["profiles"]["engine"]["features"] == ["keyword"]
    assert report["profiles"]["provider"]["level"] == "core"
    fuzzed = {c["id"]: c for c in report["checks"] if c["id"].startswith("fuzz.")}
    assert set(fuzzed) == {"fuzz.engine.differential", "fuzz.provider.differential"}
    assert all(c["outcome"] == "passed" and c["calls"] > 0 for c in fuzzed.values())


def test_the_node_driver_runs_from_pyproject_as_an_argument_list(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml(
        "[tool.tinymemory]\n"
        f"driver = {json.dumps([NODE, str(NODE_DRIVER)])}\n"
        'profile = "provider"\n'
    )
    result = pytester.runpytest("-q", "-k", "taint")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*tinymemory conformance of `node-memory`: pass*"])


def test_the_node_driver_answers_calls_at_once_in_the_order_they_finish() -> None:
    # With `delay_ms` each operation answers 150 ms after it came, without holding up the
    # others: eight calls made at once take about 150 ms, not 1.2 s.
    assert NODE is not None
    driver = exec_driver([NODE, str(NODE_DRIVER)], {"delay_ms": "150"})
    try:
        assert driver.thread_safe
        provider = driver.make_provider()

        def store_and_get(i: int) -> str:
            provider.store("global", f"k{i}", f"entry {i}", "core", None, "internal")
            return str(provider.get("global", f"k{i}").content)

        started = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            contents = list(pool.map(store_and_get, range(8)))
        took = time.perf_counter() - started
        assert contents == [f"entry {i}" for i in range(8)]
        assert took < 1.2, took  # one call after another: 2.4 s
    finally:
        assert driver.release is not None
        driver.release()
