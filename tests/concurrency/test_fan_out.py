"""A check's independent calls made several at once on seats no check waits for
(`conformance.checks.fan_out`): in order when run serially, never past the width asked,
the failure a serial run meets first, cleanups alike, a helper's hung call given up."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.checks.concurrent import CheckPool, Job, Seat
from conformance.checks.context import CheckContext
from conformance.checks.fan_out import each
from conformance.checks.outcome import ConformanceFailure
from conformance.time_limit import HungCall


class Meter:
    """Counts the calls under way at once, across every thread."""

    def __init__(self, pause: float = 0.02) -> None:
        self.pause = pause
        self.lock = threading.Lock()
        self.active = self.most = 0
        self.threads: set[str] = set()
        self.done: list[int] = []

    def call(self, item: int) -> None:
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
            self.threads.add(threading.current_thread().name)
        time.sleep(self.pause)
        with self.lock:
            self.active -= 1
            self.done.append(item)


def _gave_up(hung: HungCall) -> str:
    return f"gave up {hung.label}"


def _run_jobs(width: int, *works: Callable[[Seat], Any]) -> list[Any]:
    with CheckPool(width, warm_up=False) as pool:
        jobs = [pool.start(Job(f"job{n}", work, _gave_up)) for n, work in enumerate(works)]
        return [pool.wait(job) for job in jobs]


def test_serially_each_calls_in_order_on_the_calling_thread() -> None:
    meter = Meter(pause=0)
    each(meter.call, range(6))
    assert meter.done == list(range(6))
    assert meter.threads == {threading.current_thread().name}


def test_beside_spare_seats_the_calls_spread_up_to_the_width() -> None:
    meter = Meter()
    _run_jobs(4, lambda _: each(meter.call, range(24)))
    assert sorted(meter.done) == list(range(24))
    assert 1 < meter.most <= 4
    assert len(meter.threads) > 1


def test_helpers_never_take_the_run_past_its_width() -> None:
    meter = Meter()
    works = [lambda _, n=n: each(meter.call, range(n * 100, n * 100 + 12)) for n in range(3)]
    _run_jobs(3, *works)
    assert len(meter.done) == 36
    assert meter.most <= 3


class Deciding:
    """A warm-up that has not decided yet: the test widens the gate itself."""

    gain = None

    def decided(self) -> None:
        return None


@pytest.mark.parametrize("widens", [True, False])
def test_a_spread_begun_while_the_warm_up_runs_one_at_a_time_widens_with_it(widens: bool) -> None:
    # A fuzz target starts first, inside the warm-up's one-at-a-time stretch: its shards go
    # several at once once the warm-up widens the run, and stay in order if it never does.
    meter = Meter(pause=0.01)
    with CheckPool(4, warm_up=False) as pool:
        pool.warmup = Deciding()  # type: ignore[assignment]
        pool.gate.resize(1)
        job = pool.start(Job("spread", lambda _: each(meter.call, range(40)), _gave_up))
        time.sleep(0.05)
        if widens:
            pool.gate.resize(4)
        else:
            pool.warmup = None  # decided: one at a time
        pool.wait(job)
    assert sorted(meter.done) == list(range(40))
    if widens:
        assert 1 < meter.most <= 4
    else:
        assert meter.done == list(range(40)) and meter.most == 1


def test_one_check_at_a_time_makes_its_calls_in_order() -> None:
    meter = Meter(pause=0.001)
    _run_jobs(1, lambda _: each(meter.call, range(10)))
    assert meter.done == list(range(10))
    assert len(meter.threads) == 1


def test_the_failure_raised_is_the_first_in_the_items_order() -> None:
    def fails(item: int) -> None:
        if item == 3:
            time.sleep(0.1)  # fails after item 9 has failed
            raise ValueError("item 3")
        if item == 9:
            raise ValueError("item 9")
        time.sleep(0.01)

    def work(_: Seat) -> str:
        try:
            each(fails, range(16))
        except ValueError as exc:
            return str(exc)
        return "no failure"

    assert _run_jobs(4, work) == ["item 3"]


def test_independent_cleanups_run_at_once_and_report_the_first_serial_failure() -> None:
    meter = Meter()

    def work(_: Seat) -> object:
        ctx = CheckContext("provider.fan_out_cleanups")
        order: list[str] = []
        ctx.defer("dependent, runs last", lambda: order.append("last"))
        for n in range(12):
            ctx.defer(f"forget {n}", lambda n=n: meter.call(n), independent=True)

        def fails(n: int) -> None:
            meter.call(n)
            ctx.fail(f"forget {n}", "True", "False")

        ctx.defer("forget 20", lambda: fails(20), independent=True)
        ctx.defer("forget 21", lambda: fails(21), independent=True)
        failure = ctx.run_cleanups()
        return failure, order

    [(failure, order)] = _run_jobs(4, work)
    assert isinstance(failure, ConformanceFailure)
    assert "forget 21" in str(failure)  # registered last, so run first serially
    assert order == ["last"]
    assert sorted(meter.done) == [*range(12), 20, 21]
    assert meter.most > 1


def test_a_helper_call_given_up_ends_its_check_and_the_run_goes_on() -> None:
    release = threading.Event()
    stuck: list[str] = []

    def maybe_hangs(item: int) -> None:
        if item == 5:
            stuck.append(threading.current_thread().name)
            release.wait(10)
        time.sleep(0.01)

    with CheckPool(4, warm_up=False) as pool:
        job = pool.start(Job("hangs", lambda _: each(maybe_hangs, range(12)), _gave_up))
        deadline = time.monotonic() + 5
        while not stuck and time.monotonic() < deadline:
            time.sleep(0.01)
        pool._abandon(HungCall("store()", "hangs", 0.1, 0.1, stuck[0], main=False))
        assert pool.wait(job) == "gave up store()"
        after = pool.start(Job("after", lambda _: "ran", _gave_up))
        assert pool.wait(after) == "ran"
        release.set()
    assert pool.gate.inside == 0


@pytest.mark.parametrize("width", [2, 8])
def test_no_seat_is_lent_while_a_check_waits_alone(width: int) -> None:
    meter = Meter()
    with CheckPool(width, warm_up=False) as pool:
        alone = pool.start(
            Job("alone", lambda _: each(meter.call, range(10)), _gave_up, alone=True)
        )
        pool.wait(alone)
    assert len(meter.threads) == 1 and meter.done == list(range(10))


def test_a_check_unwound_because_its_helper_hung_is_neither_a_result_nor_run_again() -> None:
    from conformance import Driver
    from conformance.checks.concurrent import GivenUp
    from conformance.checks.registry import Check
    from plugins.run import KitRun
    from plugins.settings import KitSettings
    from reference_driver.provider import ReferenceProvider

    runs: list[str] = []

    def unwound(provider: object, ctx: object = None) -> None:
        runs.append("ran")
        raise GivenUp("provider.x")

    run = KitRun(
        settings=KitSettings(driver="reference"),
        driver=Driver(name="reference", provider=ReferenceProvider),
        waivers={},
        seed=1,
    )
    run.build()
    chk = Check(id="provider.x", title="x", profile="provider", clause="c", run=unwound)
    with CheckPool(2, warm_up=False) as pool:
        job = pool.start(Job("provider.x", lambda seat: run.run_check(chk, None, seat), _gave_up))
        with pytest.raises(GivenUp):
            pool.wait(job)  # the pool gives it no result of its own: its abandon handler does
    assert runs == ["ran"]  # not run again alone, as a failure beside others would be


def test_two_calls_of_one_check_given_up_make_one_result_and_one_rebuild() -> None:
    release = threading.Event()
    stuck: list[str] = []
    rebuilt: list[str] = []

    def hangs(item: int) -> None:
        if item in (2, 3):
            stuck.append(threading.current_thread().name)
            release.wait(10)
        time.sleep(0.01)

    with CheckPool(4, lambda: rebuilt.append("again"), warm_up=False) as pool:
        job = pool.start(Job("hangs", lambda _: each(hangs, range(12)), _gave_up))
        deadline = time.monotonic() + 5
        while len(stuck) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        for thread in stuck:
            pool._abandon(HungCall(f"store({thread})", "hangs", 0.1, 0.1, thread, main=False))
        assert pool.wait(job) == f"gave up store({stuck[0]})"
        assert pool.wait(pool.start(Job("after", lambda _: "ran", _gave_up))) == "ran"
        release.set()
    assert rebuilt == ["again"] and len(pool.left_behind) == 2
