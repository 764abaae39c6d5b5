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

import pytest

from conformance.driver import Driver
from conformance.engine import LearningKind, learning
from conformance.protocol import ProtocolError
from conformance.protocol.client import exec_driver, hello
from conformance.protocol.codec import encode
from conformance.protocol.lines import LineReader
from conformance.protocol.pipeline import Pipeline, reply_id
from conformance.protocol.server import serve
from conformance.time_limit import CallExpired, TimeLimitExceeded, run_within
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


@pytest.mark.parametrize("first", ["limited", "patient"])
def test_a_call_past_its_limit_is_dropped_and_spares_the_others(first: str) -> None:
    # `hold-*` stores are answered only when another call comes: `hold-a` overruns its
    # limit while `hold-b` waits on; the process must serve on, and the late answer to
    # `hold-a` must go to no one. The call made first reads the answers for both (the
    # other waits), so both orders are run: the reader interrupted, and the waiter.
    with running(scripted("hold")) as driver:
        engine = driver.make_engine()
        process = pid(engine)
        outcomes: dict[str, Any] = {}

        def limited() -> None:
            try:
                outcomes["a"] = run_within(0.5, store(engine, "hold-a"), label="store()")
            except TimeLimitExceeded as exc:
                outcomes["a"] = exc

        def patient() -> None:
            outcomes["b"] = store(engine, "hold-b")()

        threads = {
            "limited": threading.Thread(target=limited),
            "patient": threading.Thread(target=patient),
        }
        for name in sorted(threads, key=lambda name: name != first):
            threads[name].start()
            time.sleep(0.1)  # its request is written before the other's
        threads["limited"].join(5)
        assert isinstance(outcomes["a"], TimeLimitExceeded)
        assert "b" not in outcomes  # still waiting, undisturbed
        assert store(engine, "go")().id == "go"
        threads["patient"].join(5)
        assert outcomes["b"].id == "hold-b"
        assert pid(engine) == process


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


class CutProcess:
    """A process stand-in whose every read is cut by the time limit after bytes left the
    pipe (as `LineReader.fill` is, between `os.read` and the buffer)."""

    command = "cut"

    def __init__(self) -> None:
        self.stdout = LineReader(0)

    def send(self, data: bytes) -> None:
        pass

    def read_line(self, timeout: float | None = None, awaited: Any = "") -> bytes:
        self.stdout.in_hand = True
        raise CallExpired


def test_a_reader_cut_mid_read_fails_every_waiting_caller() -> None:
    # The bytes cut off may have held the others' answers, or half a line: no answer
    # read afterwards could be trusted.
    pipeline = Pipeline(CutProcess(), lambda line, request_id, open_slots: ProtocolError())
    reader = pipeline.send(lambda request_id: b"", "engine.store")
    waiter = pipeline.send(lambda request_id: b"", "engine.list")
    assert reader.direct and not waiter.direct
    with pytest.raises(CallExpired):
        pipeline.wait(reader)
    with pytest.raises(
        ProtocolError, match="interrupted while reading from the driver process cut"
    ):
        pipeline.wait(waiter)
    with pytest.raises(ProtocolError, match="interrupted while reading"):
        pipeline.send(lambda request_id: b"", "engine.health")


def test_an_answer_is_matched_by_its_top_level_id_wherever_it_stands() -> None:
    assert reply_id(b'{"type":"result","id":7,"result":{"id":"n1","replayed":false}}\n') == 7
    assert reply_id(b'{ "type": "error", "id": 12, "error": {} }\n') == 12
    # Written in another key order, with an `id` inside the result before its own.
    assert reply_id(b'{"result":{"id":3},"id":9,"type":"result"}\n') == 9
    assert reply_id(b'{"type":"result","id":"9","result":null}\n') is None
    assert reply_id(b"this is not json\n") is None
