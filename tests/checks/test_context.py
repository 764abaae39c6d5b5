"""The run context: time limits, retries, and where a driver's calls run."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from typing import Any

import pytest

from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import DriverRaised, Inconclusive
from conformance.engine import Unavailable


class ThreadBound:
    """Holds an sqlite3 connection, which refuses use from any thread but its creator's."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:")

    def answer(self) -> int:
        return int(self.conn.execute("SELECT 42").fetchone()[0])


def test_calls_run_on_the_calling_thread_so_thread_bound_drivers_work() -> None:
    ctx = CheckContext("engine.health", RunSettings(timeout=5.0))
    assert ctx.bind(ThreadBound()).answer() == 42


class Sleeper:
    def nap(self, seconds: float) -> str:
        time.sleep(seconds)
        return "rested"

    def busy(self, seconds: float) -> str:
        # A driver that swallows ordinary exceptions still cannot swallow the time limit.
        try:
            time.sleep(seconds)
        except Exception:
            return "swallowed"
        return "rested"


@pytest.mark.parametrize("method", ["nap", "busy"])
def test_a_call_past_its_limit_is_inconclusive(method: str) -> None:
    ctx = CheckContext("engine.health", RunSettings(timeout=0.2))
    started = time.monotonic()
    with pytest.raises(Inconclusive, match=rf"{method}\(5\).*0\.2 s limit"):
        getattr(ctx.bind(Sleeper()), method)(5)
    assert time.monotonic() - started < 2


def test_the_limit_works_off_the_main_thread_too() -> None:
    ctx = CheckContext("engine.health", RunSettings(timeout=0.2))
    caught: list[BaseException] = []

    def run() -> None:
        try:
            ctx.bind(Sleeper()).nap(5)
        except BaseException as exc:
            caught.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(3)
    assert not worker.is_alive()
    assert [type(e) for e in caught] == [Inconclusive]


def test_a_timer_already_running_is_put_back() -> None:
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        ctx = CheckContext("engine.health", RunSettings(timeout=5.0))
        assert ctx.bind(Sleeper()).nap(0.05) == "rested"
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0.2 < remaining <= 0.5
        time.sleep(0.6)
        assert fired == [1]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Flaky:
    def __init__(self, failures: int) -> None:
        self.failures = failures

    def get(self) -> str:
        if self.failures:
            self.failures -= 1
            raise Unavailable("rate limited")
        return "ok"


def test_transient_errors_are_retried_and_counted() -> None:
    ctx = CheckContext("engine.get", RunSettings(retries=3, backoff=0.001))
    assert ctx.bind(Flaky(2)).get() == "ok"
    assert (ctx.retries, ctx.calls) == (2, 3)


def test_a_driver_that_stays_unavailable_is_inconclusive() -> None:
    ctx = CheckContext("engine.get", RunSettings(retries=2, backoff=0.001))
    with pytest.raises(Inconclusive, match="stayed unavailable after 2 retries"):
        ctx.bind(Flaky(10)).get()


def test_a_driver_exception_names_the_check_and_the_call() -> None:
    class Broken:
        def list(self, *args: Any) -> None:
            raise KeyError("boom")

    ctx = CheckContext("provider.list_filters_narrow")
    with pytest.raises(DriverRaised) as raised:
        ctx.bind(Broken()).list("ns", None)
    message = str(raised.value)
    assert "`provider.list_filters_narrow`" in message
    assert "list('ns', None)" in message and "KeyError" in message
    assert isinstance(raised.value.error, KeyError)


class Refuser:
    def ask(self) -> None:
        from conformance.provider import Invalid

        raise Invalid("source scope is not applied by this driver")


def test_a_refusal_the_check_accepts_as_an_answer_is_not_counted() -> None:
    ctx = CheckContext("provider.recall_respects_source_scope", RunSettings(timeout=5.0))
    driver = ctx.bind(Refuser())
    with pytest.raises(DriverRaised), ctx.answer_or_refusal():
        driver.ask()
    assert ctx.refusals == []
    with pytest.raises(DriverRaised):
        driver.ask()
    assert ctx.refusals == ["ask()"]
