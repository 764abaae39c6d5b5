"""The gate that seats checks run at once, the still block, and the warm-up."""

from __future__ import annotations

import threading
import time

import pytest

from conformance.checks.gate import Gate, Pass
from conformance.checks.still import CallGate
from conformance.checks.warmup import Warmup


def _in_thread(fn: object) -> threading.Thread:
    thread = threading.Thread(target=fn, daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread


def _enter(gate: Gate, alone: bool) -> Pass:
    """Queue an entry and wait until it is seated."""
    seated: list[Pass] = []
    done = threading.Event()

    def on_seated(entry: Pass) -> None:
        seated.append(entry)
        done.set()

    gate.queue(alone, on_seated)
    assert done.wait(5)
    return seated[0]


def test_the_gate_seats_at_most_width_and_lets_the_next_in_as_one_leaves() -> None:
    gate = Gate(2)
    first, second = _enter(gate, False), _enter(gate, False)
    entered: list[str] = []
    waiter = _in_thread(lambda: entered.append(str(_enter(gate, False))))
    time.sleep(0.1)
    assert gate.inside == 2 and entered == []
    gate.leave(first)
    gate.leave(first)  # a second leave changes nothing
    waiter.join(2)
    assert len(entered) == 1 and gate.inside == 2
    gate.leave(second)
    assert gate.inside == 1


def test_an_alone_entry_waits_for_the_seated_and_keeps_later_ones_out() -> None:
    gate = Gate(4)
    seated = _enter(gate, False)
    order: list[str] = []
    passes = []

    def enter(name: str, alone: bool) -> None:
        passes.append(_enter(gate, alone))
        order.append(name)

    first = _in_thread(lambda: enter("alone", True))
    time.sleep(0.1)
    later = _in_thread(lambda: enter("later", False))
    time.sleep(0.1)
    # Room for three more shared entries, but the alone one came first and waits.
    assert order == []
    gate.leave(seated)
    first.join(2)
    time.sleep(0.1)
    assert order == ["alone"] and later.is_alive()
    gate.leave(passes[0])
    later.join(2)
    assert order == ["alone", "later"]


def test_a_running_entry_that_moves_goes_before_the_line() -> None:
    gate = Gate(1)
    running = _enter(gate, False)
    order: list[str] = []
    queued = _in_thread(lambda: order.append("queued") if _enter(gate, False) else None)
    time.sleep(0.1)
    moved = gate.move(running, True)  # the room it leaves is not the queued one's
    assert moved.alone and order == []
    gate.leave(moved)
    queued.join(2)
    assert order == ["queued"]


def _seated_order(width: int) -> list[str]:
    """The order in which queued entries get in, one leaving before the next enters."""
    gate = Gate(width)
    blocker = _enter(gate, True)  # holds every entry in line until all are queued
    seated: list[tuple[str, object]] = []
    for name, alone, cost, late in [
        ("cheap", False, 5, False),
        ("exports", False, 900, True),
        ("alone", True, 8, False),
        ("costly", False, 500, False),
        ("middling", False, 60, False),
        ("cheap too", False, 5, False),
    ]:
        gate.queue(alone, lambda e, n=name: seated.append((n, e)), cost=cost, late=late)
    assert seated == []
    gate.leave(blocker)
    done = 0
    while done < len(seated):
        gate.leave(seated[done][1])  # type: ignore[arg-type]
        done += 1
    return [name for name, _ in seated]


def test_alone_first_then_the_costliest_and_late_ones_last_or_one_at_a_time_in_order() -> None:
    assert _seated_order(4) == ["alone", "costly", "middling", "cheap", "cheap too", "exports"]
    assert _seated_order(1) == ["alone", "cheap", "exports", "costly", "middling", "cheap too"]


def test_queued_entries_get_in_as_room_frees_and_no_more_than_width() -> None:
    gate = Gate(2)
    seated: list[object] = []
    for _ in range(5):
        gate.queue(False, seated.append)
    assert len(seated) == 2 and gate.inside == 2 and gate.waiting == 3
    gate.leave(seated[0])  # type: ignore[arg-type]
    assert len(seated) == 3 and gate.inside == 2
    gate.resize(4)
    assert len(seated) == 5 and gate.inside == 4 and gate.waiting == 0


def test_a_still_block_waits_for_writes_under_way_and_holds_back_later_ones() -> None:
    calls = CallGate()
    events: list[str] = []
    writing = threading.Event()
    finish = threading.Event()

    def writer() -> None:
        with calls.write():
            writing.set()
            finish.wait(2)
            events.append("write ended")

    first = _in_thread(writer)
    writing.wait(2)

    def reader() -> None:
        with calls.still("provider"):
            events.append("still began")
            time.sleep(0.2)
            events.append("still ended")

    still = _in_thread(reader)
    time.sleep(0.1)
    assert events == []  # the write under way keeps the block waiting
    finish.set()
    first.join(2)
    time.sleep(0.05)
    late = _in_thread(lambda: calls.write().__enter__() and None)
    late.join(0.05)
    assert late.is_alive()  # a new write waits while the block runs
    still.join(2)
    late.join(2)
    assert events == ["write ended", "still began", "still ended"]
    assert not late.is_alive()


def test_still_blocks_that_only_read_share_and_one_that_writes_waits_for_them() -> None:
    calls = CallGate()
    events: list[str] = []
    reading = threading.Barrier(2, timeout=2)

    def reader(name: str) -> None:
        with calls.still("provider"):
            reading.wait()  # both inside at once, or the barrier breaks
            events.append(f"{name} read")
            time.sleep(0.1)

    readers = [_in_thread(lambda n=n: reader(n)) for n in ("a", "b")]  # type: ignore[misc]
    time.sleep(0.05)

    def writer() -> None:
        with calls.still("provider", writes=True):
            events.append("own writes")

    own = _in_thread(writer)
    for thread in [*readers, own]:
        thread.join(2)
    assert sorted(events[:2]) == ["a read", "b read"] and events[2] == "own writes"


def test_a_given_up_writer_no_longer_keeps_a_still_block_waiting() -> None:
    calls = CallGate()
    stuck = threading.Event()

    def hangs() -> None:
        with calls.write():
            stuck.wait(5)

    thread = threading.Thread(target=hangs, name="stuck-thread", daemon=True)
    thread.start()
    time.sleep(0.05)
    calls.forget("stuck-thread")
    with calls.still("provider"):
        pass
    stuck.set()


@pytest.mark.parametrize(
    ("serial", "wide", "width"),
    [(100, 160, 8), (100, 140, 1), (100, 95, 1), (10, 400, 8), (0, 5, 8)],
)
def test_the_warm_up_goes_on_at_once_only_when_that_answers_more_calls_a_second(
    serial: int, wide: int, width: int
) -> None:
    wall, calls = [0.0], [0]
    warmup = Warmup(
        8, lambda: calls[0], seconds=1.0, shortest=1.0, wall=lambda: wall[0], cpu=lambda: 0.0
    )
    wall[0], calls[0] = 0.5, serial // 2
    assert warmup.decided() is None  # still one at a time
    wall[0], calls[0] = 1.0, serial
    assert warmup.decided() == 8  # now several at once
    wall[0], calls[0] = 1.5, serial + wide // 2
    assert warmup.decided() is None
    wall[0], calls[0] = 2.0, serial + wide
    assert warmup.decided() == width
    because = warmup.serial_because()
    assert (because is None) == (width == 8)
    if because is not None:
        assert f"{wide / serial:.2f} times" in because and "GIL" in because


def test_load_beside_others_takes_the_result_alone_and_a_wrong_answer_does_not() -> None:
    from conformance.checks.beside_others import settle
    from conformance.checks.outcome import CheckResult

    passed = CheckResult("provider.x", "passed")
    strained = CheckResult("provider.x", "inconclusive", "stayed unavailable", strained=True)
    hung = CheckResult("provider.x", "inconclusive", "ran past the 60 s limit")
    wrong = CheckResult("provider.x", "failed", "expected 1; got 2")
    assert settle(strained, passed, 8, "pytest ...") is passed
    for beside in (hung, wrong):
        shown = settle(beside, passed, 8, "pytest ...")
        assert shown.outcome == "failed" and shown.concurrency_only
        assert f"{beside.outcome} only beside other checks" in shown.reason
    assert settle(wrong, wrong, 8, "pytest ...") is wrong


def test_a_still_block_holds_back_writes_to_its_store_only() -> None:
    calls = CallGate()
    inside = threading.Event()
    finish = threading.Event()

    def exporter() -> None:
        with calls.still("provider"):
            inside.set()
            finish.wait(2)

    block = _in_thread(exporter)
    assert inside.wait(2)
    with calls.write("engine"):
        pass  # an engine write goes on while the provider's store holds still
    held = [_in_thread(lambda s=s: calls.write(s).__enter__() and None) for s in ("provider", None)]  # type: ignore[misc]
    for thread in held:
        thread.join(0.1)
        assert thread.is_alive()  # a provider write, and one of no known store, wait
    finish.set()
    block.join(2)
    for thread in held:
        thread.join(2)
        assert not thread.is_alive()


def test_a_block_that_reads_waits_behind_one_that_writes_waiting_to_start() -> None:
    calls = CallGate()
    events: list[str] = []
    first_in = threading.Event()
    finish_first = threading.Event()

    def first_reader() -> None:
        with calls.still("provider"):
            first_in.set()
            finish_first.wait(2)
            events.append("first read")

    def writer() -> None:
        with calls.still("provider", writes=True):
            events.append("own writes")

    def second_reader() -> None:
        with calls.still("provider"):
            events.append("second read")

    threads = [_in_thread(first_reader)]
    assert first_in.wait(2)
    threads.append(_in_thread(writer))
    time.sleep(0.1)
    threads.append(_in_thread(second_reader))
    time.sleep(0.1)
    assert events == []  # the second reader does not overtake the writer waiting
    finish_first.set()
    for thread in threads:
        thread.join(2)
    assert events == ["first read", "own writes", "second read"]


def test_an_entry_withdrawn_before_it_got_in_never_gets_in() -> None:
    gate = Gate(1)
    seated: list[Pass] = []
    first, second, third = (gate.queue(False, seated.append) for _ in range(3))
    gate.withdraw(second)
    gate.leave(first)
    assert seated == [first, third] and gate.waiting == 0
    gate.withdraw(third)  # once in, withdrawing changes nothing: it leaves itself
    assert gate.inside == 1


def test_a_stretch_that_answered_enough_calls_ends_early_and_one_that_did_not_runs_out() -> None:
    wall, calls = [0.0], [0]
    warmup = Warmup(
        8,
        lambda: calls[0],
        seconds=0.5,
        shortest=0.15,
        enough=50,
        wall=lambda: wall[0],
        cpu=lambda: 0.0,
    )
    wall[0], calls[0] = 0.1, 60
    assert warmup.decided() is None  # enough calls, not yet the shortest stretch
    wall[0] = 0.15
    assert warmup.decided() == 8  # a quick store: measured after 0.15 s
    wall[0], calls[0] = 0.4, 70
    assert warmup.decided() is None  # 10 calls in 0.25 s: not enough, not yet 0.5 s
    wall[0] = 0.65
    assert warmup.decided() == 1  # 10 calls in 0.5 s, against 400 a second alone


@pytest.mark.parametrize(("cpu", "width"), [(0.1, 8), (0.6, 8), (0.7, 1), (1.0, 1)])
def test_a_process_busy_two_thirds_of_the_first_stretch_goes_on_one_check_at_a_time(
    cpu: float, width: int
) -> None:
    wall, calls, used = [0.0], [0], [0.0]
    warmup = Warmup(8, lambda: calls[0], seconds=1.0, wall=lambda: wall[0], cpu=lambda: used[0])
    wall[0], calls[0], used[0] = 1.0, 100, cpu
    assert warmup.decided() == width  # no second stretch when it could not gain 1.5 times
    because = warmup.serial_because()
    assert (because is None) == (width == 8)
    if because is not None:
        assert f"busy {cpu:.0%} of the time" in because and "(the GIL)" in because
        assert warmup.decided() == 1  # and it stays decided
