"""A driver that hangs: each hung call is inconclusive, nothing fails on its account, and
the verdict says the driver hangs, in the terminal and in both reports."""

from __future__ import annotations

import functools
import threading
import time

import pytest

from conformance import bridge
from conformance.checks.context import RunSettings
from conformance.checks.outcome import CheckResult
from conformance.checks.runner import run_provider_suite
from conformance.report import Report
from conformance.time_limit import ABANDONED_EXIT
from reference_driver.provider import ReferenceProvider
from tests.plugins.hostile_drivers import StoreBlocksItsLoop, StoreSleeps, thread_bound
from tests.plugins.test_hostile_drivers import HOSTILE, ROOT, report_of

TWO_CHECKS = "provider.store_get_round_trip or provider.list_filters_narrow"


def hung_run(pytester: pytest.Pytester, driver: str) -> tuple[pytest.RunResult, Report, str]:
    """Two storing checks of `driver` with a 0.2 s limit, in this process (the kit's event
    loop is interrupted, never lost): the result, the JSON report and the Markdown one."""
    result = pytester.runpytest(
        f"--driver={HOSTILE}:{driver}",
        "--profile=provider",
        "--driver-timeout=0.2",
        "--conformance-report=r.json",
        "-k",
        TWO_CHECKS,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    report = report_of(pytester.path / "r.json")
    markdown = (pytester.path / "r.md").read_text()
    assert report.summary.verdict == "inconclusive"
    assert "**Verdict: inconclusive**, because:" in markdown
    assert report.summary.failed == 0
    outcomes = {c.id: c.outcome for c in report.checks}
    for check_id in TWO_CHECKS.split(" or "):
        assert outcomes[check_id] == "inconclusive"
    return result, report, markdown


def test_a_call_awaiting_for_ever_is_inconclusive_and_the_verdict_says_the_driver_hangs(
    pytester: pytest.Pytester,
) -> None:
    result, report, markdown = hung_run(pytester, "StoreAwaitsForEver")
    for entry in report.checks:
        if entry.outcome == "inconclusive":
            assert entry.hang is not None and entry.hang.call == "store()"
            assert not entry.hang.loop_blocked
            assert "at store(" in entry.reason and "ran past the 0.2 s limit" in entry.reason
    said = (
        "the driver hangs: store() ran past the time limit in 2 checks, inconclusive on its "
        "account (provider.store_get_round_trip, provider.list_filters_narrow)"
    )
    assert f"- {said}" in markdown
    result.stdout.fnmatch_lines(
        [
            "tinymemory conformance of `StoreAwaitsForEver`: inconclusive, the driver hangs (*",
            f"  {said}",
        ]
    )


def test_a_call_blocking_its_event_loop_says_the_loop_did_not_come_back(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run gets an event loop of its own, blocked for the whole run (and left to sleep
    # it off): the process's own loop stays free for the tests after this one.
    monkeypatch.setattr(StoreBlocksItsLoop, "seconds", 30.0)
    monkeypatch.setattr(bridge, "_loop", None)
    monkeypatch.setattr(bridge, "_blocked_by", None)
    result, report, markdown = hung_run(pytester, "StoreBlocksItsLoop")
    hung = [c for c in report.checks if c.outcome == "inconclusive"]
    for entry in hung:
        assert entry.hang is not None and entry.hang.call == "store()" and entry.hang.loop_blocked
        # Each says the loop's thread did not come back, not that a call was slow.
        assert "event loop" in entry.reason and "not come back" in entry.reason
    said = (
        "the driver hangs: store() blocked its event loop, whose thread did not come back, "
        "in 3 checks"
    )
    assert f"- {said}" in markdown
    result.stdout.fnmatch_lines(["*: inconclusive, the driver hangs (*", f"  {said}*"])


OFF_THE_MAIN_THREAD = """
import threading
from conformance import run_provider_suite
from conformance.checks.context import RunSettings
from tests.plugins.hostile_drivers import StoreSleeps

settings = RunSettings(timeout=0.2, grace=0.3)
worker = threading.Thread(
    target=run_provider_suite, args=(StoreSleeps(), settings, ["provider.health"]), name="vendor"
)
worker.start()
worker.join()
print("returned")
"""


def test_a_call_blocking_off_the_main_thread_says_why_it_cannot_be_interrupted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Off the main thread the kit interrupts Python code only: a call blocked in native
    # code there cannot be given up without ending the process, which says why.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    script = pytester.makepyfile(off_main=OFF_THE_MAIN_THREAD)
    result = pytester.runpython(script)
    assert result.ret == ABANDONED_EXIT
    assert "returned" not in result.stdout.str()
    said = " ".join(result.stderr.lines)
    assert "provider.health: store(" in said and "ran past the 0.2 s limit" in said
    assert "on thread `vendor`, not the main thread, the kit cannot interrupt" in said
    assert "give run_provider_suite the driver's class (a factory)" in said


SOME_CHECKS = ["provider.health", "provider.store_get_round_trip", "provider.capability_audit"]


def outcomes_of(results: dict[str, CheckResult]) -> dict[str, str]:
    return {check_id: r.outcome for check_id, r in results.items()}


def test_a_factory_gets_the_main_threads_outcomes_on_any_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stuck calls are left to sleep it off on the kit's threads, 2 s at most.
    monkeypatch.setattr(StoreSleeps, "seconds", 2.0)
    settings = RunSettings(timeout=0.2, grace=0.2)
    on_main = run_provider_suite(StoreSleeps(), settings, SOME_CHECKS)
    off_main: list[dict[str, CheckResult]] = []
    worker = threading.Thread(
        target=lambda: off_main.append(run_provider_suite(StoreSleeps, settings, SOME_CHECKS))
    )
    started = time.monotonic()
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - started < 5
    assert (
        outcomes_of(off_main[0])
        == outcomes_of(on_main)
        == {
            "provider.health": "inconclusive",
            "provider.store_get_round_trip": "inconclusive",
            "provider.capability_audit": "passed",
        }
    )
    given_up = off_main[0]["provider.health"]
    assert given_up.hang is not None and given_up.hang.call == "store()"
    assert "at store(" in given_up.reason and "ran past the 0.2 s limit" in given_up.reason
    assert "given up, and the checks after it ran on a fresh instance" in given_up.reason


def test_a_thread_bound_driver_from_a_factory_works_off_the_main_thread() -> None:
    # Each instance is built on the thread that calls it.
    got: list[dict[str, CheckResult]] = []
    make = functools.partial(thread_bound, ReferenceProvider)
    worker = threading.Thread(
        target=lambda: got.append(run_provider_suite(make, RunSettings(timeout=10.0), SOME_CHECKS))
    )
    worker.start()
    worker.join(30)
    assert set(outcomes_of(got[0]).values()) == {"passed"}


def test_an_alarm_during_a_garbage_collector_callback_waits_for_the_next_nudge() -> None:
    # hypothesis times the collector with a callback: an interrupt raised inside one is
    # dropped by Python ("Exception ignored in gc_callback"); the kit lets it pass and
    # interrupts the call at the next nudge instead.
    import gc
    import sys

    from conformance.time_limit import TimeLimitExceeded, run_within

    calls = {"n": 0}

    def slow_first(phase: str, info: dict[str, int]) -> None:
        # The first collection's callback runs past the limit (0.05 s) and the first nudge
        # (0.15 s): both alarms land inside it; later ones land in the loop.
        calls["n"] += 1
        if phase == "start" and calls["n"] == 1:
            deadline = time.perf_counter() + 0.2
            while time.perf_counter() < deadline:
                pass

    def collects_for_ever() -> None:
        # The youngest generation only: a full collection of a big heap (a worker late in
        # the suite) would take most of the loop, and every nudge would land inside it.
        while True:
            gc.collect(0)
            time.sleep(0.01)

    # Only the drops in this callback: a weakref callback run by the same collections (left
    # by earlier tests) may drop one too, which no frame tells apart from a plain call.
    dropped: list[BaseException | None] = []
    previous_hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: (
        dropped.append(unraisable.exc_value) if unraisable.object is slow_first else None
    )
    gc.callbacks.append(slow_first)
    try:
        with pytest.raises(TimeLimitExceeded):
            run_within(0.05, collects_for_ever, label="collects_for_ever()", grace=5.0)
    finally:
        gc.callbacks.remove(slow_first)
        sys.unraisablehook = previous_hook
    assert calls["n"] > 1
    assert dropped == []  # no interrupt spent in the collector's callback


def test_an_alarm_during_a_finalizer_the_collector_runs_is_not_lost() -> None:
    # The collector runs finalizers (and weakref callbacks) between its callbacks: an
    # interrupt raised in one is dropped too ("Exception ignored in ... __del__"); the kit
    # tells it by its own callback and lets it pass to the next nudge.
    import gc
    import sys

    from conformance.time_limit import TimeLimitExceeded, run_within

    finalized = {"n": 0}

    class Cycle:
        def __init__(self) -> None:
            self.me = self  # only the collector frees it

        def __del__(self) -> None:
            # The first two run past the limit and a nudge: alarms land inside them.
            finalized["n"] += 1
            if finalized["n"] <= 2:
                deadline = time.perf_counter() + 0.2
                while time.perf_counter() < deadline:
                    pass

    def frees_for_ever() -> None:
        while True:
            Cycle()
            gc.collect(0)
            time.sleep(0.01)

    dropped: list[BaseException | None] = []
    previous_hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: (
        dropped.append(unraisable.exc_value)
        if getattr(unraisable.object, "__qualname__", "").endswith("Cycle.__del__")
        else None
    )
    try:
        with pytest.raises(TimeLimitExceeded):
            run_within(0.05, frees_for_ever, label="frees_for_ever()", grace=5.0)
    finally:
        sys.unraisablehook = previous_hook
    assert finalized["n"] >= 2
    assert dropped == []  # no interrupt spent in a finalizer
