"""Request pipelining (docs/protocol.md, `concurrent`): several threads call one driver
process at once, each gets the answer to its own request whatever order they come in,
the time limit of one call leaves the others alone, a fault of the stream fails them all,
and a driver that does not say `concurrent` is called one call at a time."""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conformance.driver import Driver
from conformance.engine import LearningKind, learning
from conformance.protocol import ProtocolError
from conformance.protocol.client import exec_driver, hello
from conformance.protocol.codec import encode
from conformance.protocol.server import serve
from conformance.time_limit import TimeLimitExceeded, run_within
from reference_driver import ReferenceEngine

SCRIPTED = Path(__file__).with_name("scripted_driver.py")
SERVE = [sys.executable, "-m", "plugins.cli", "serve", "--driver", "reference"]


@contextmanager
def running(argv: list[str]) -> Iterator[Driver]:
    driver = exec_driver(argv)
    try:
        yield driver
    finally:
        assert driver.release is not None
        driver.release()


def scripted(mode: str, *args: object) -> list[str]:
    return [sys.executable, str(SCRIPTED), mode, *map(str, args)]


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Each call on a thread of its own, all started together; each one's result, or the
    exception it raised."""
    start = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = calls[index]()
        except BaseException as exc:
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    return results


def store(engine: Any, text: str) -> Callable[[], Any]:
    return lambda: engine.store(learning(text, LearningKind.FACT, 0.5))


def pid(engine: Any) -> int:
    return int(engine._connection._current().process.pid)


def test_answers_in_reverse_order_reach_their_own_callers() -> None:
    # The driver answers the four calls only once all four are open, last first: a kit
    # matching answers to callers by order (or calling one at a time) would fail here.
    with running(scripted("reverse", 4)) as driver:
        assert driver.thread_safe
        engine = driver.make_engine()
        first = pid(engine)
        texts = [f"t{i}" for i in range(4)]
        receipts = at_once(*(store(engine, text) for text in texts))
        assert [receipt.id for receipt in receipts] == texts
        assert engine.store(learning("after", LearningKind.FACT, 0.5)).id == "after"
        assert pid(engine) == first


def test_threads_share_one_served_reference() -> None:
    # `serve` declares `concurrent` for a thread-safe driver and runs the calls at once.
    with running(SERVE) as driver:
        assert driver.thread_safe
        provider = driver.make_provider()

        def own(i: int) -> Callable[[], Any]:
            def calls() -> Any:
                provider.store("global", f"k{i}", f"entry {i}", "core", None, "internal")
                return provider.get("global", f"k{i}").content

            return calls

        assert at_once(*(own(i) for i in range(8))) == [f"entry {i}" for i in range(8)]
        assert len(provider.list("global", None, None)) == 8


def test_a_call_past_its_limit_is_dropped_and_spares_the_others() -> None:
    # `hold-*` stores are answered only when another call comes: `hold-a` overruns its
    # limit while `hold-b` waits on; the process must serve on, and the late answer to
    # `hold-a` must go to no one.
    with running(scripted("hold")) as driver:
        engine = driver.make_engine()
        first = pid(engine)

        def limited() -> Any:
            return run_within(0.3, store(engine, "hold-a"), label="store()")

        box: list[Any] = []
        patient = threading.Thread(target=lambda: box.append(store(engine, "hold-b")()))
        patient.start()
        [expired] = at_once(limited)
        assert isinstance(expired, TimeLimitExceeded)
        assert patient.is_alive()  # still waiting, undisturbed
        assert store(engine, "go")().id == "go"
        patient.join(5)
        assert [receipt.id for receipt in box] == ["hold-b"]
        assert pid(engine) == first


def test_a_fault_of_the_stream_fails_every_waiting_caller(tmp_path: Path) -> None:
    with running(scripted("garbage", 2, tmp_path / "fired")) as driver:
        engine = driver.make_engine()
        first = pid(engine)
        faults = at_once(store(engine, "a"), store(engine, "b"))
        assert all(isinstance(fault, ProtocolError) for fault in faults), faults
        message = (
            "wrote a line that is not JSON while the kit awaited the answers to "
            "engine.store (request 1), engine.store (request 2): b'this is not json\\n'"
        )
        assert all(message in str(fault) for fault in faults), faults
        # A fresh process serves the next call.
        assert store(engine, "c")().id == "c"
        assert pid(engine) != first


def test_a_driver_without_concurrent_is_called_one_call_at_a_time() -> None:
    # A driver written before pipelining: its handshake has no `concurrent`, and it
    # answers `overlap` if a call comes while another is open.
    with running(scripted("serial")) as driver:
        assert not driver.thread_safe
        engine = driver.make_engine()
        first = pid(engine)
        receipts = at_once(*(store(engine, f"s{i}") for i in range(4)))
        assert [receipt.id for receipt in receipts] == ["s0", "s1", "s2", "s3"]
        assert pid(engine) == first


class SlowEngine(ReferenceEngine):
    """The reference engine, its `health` taking 150 ms."""

    def health(self) -> Any:
        time.sleep(0.15)
        return super().health()


def converse(thread_safe: bool, calls: int) -> tuple[float, list[dict[str, Any]]]:
    """`calls` health calls and a shutdown, all sent at once to `serve` over in-memory
    pipes; the seconds it took and every answer."""

    def resolve(spec: str, options: Any) -> Driver:
        return Driver(name="slow", engine=SlowEngine, thread_safe=thread_safe)

    lines = [encode(hello({}).model_dump(mode="json"))]
    lines += [
        encode({"type": "call", "id": i, "op": "engine.health", "args": {}})
        for i in range(1, calls + 1)
    ]
    lines.append(encode({"type": "shutdown", "id": calls + 1}))
    out = io.BytesIO()
    started = time.perf_counter()
    assert serve("slow", {}, io.BytesIO(b"".join(lines)), out, resolve) == 0
    took = time.perf_counter() - started
    return took, [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_runs_the_calls_of_a_thread_safe_driver_at_once() -> None:
    took, answers = converse(thread_safe=True, calls=6)
    assert answers[0]["type"] == "handshake"
    assert answers[0]["concurrent"] is True
    # Every call answered, by id, before the shutdown; together, not one after another.
    assert sorted(a["id"] for a in answers[1:-1]) == [1, 2, 3, 4, 5, 6]
    assert all(a["result"] == {"state": "ok"} for a in answers[1:-1])
    assert answers[-1] == {"type": "result", "id": 7, "result": None}
    assert took < 0.6, took  # one after another: 0.9 s


def test_serve_answers_a_driver_that_is_not_thread_safe_in_order() -> None:
    took, answers = converse(thread_safe=False, calls=2)
    assert answers[0]["concurrent"] is False
    assert [a["id"] for a in answers[1:]] == [1, 2, 3]
    assert took >= 0.3
