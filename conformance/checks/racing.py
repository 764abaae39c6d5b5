"""Several threads making one call at once, released together: the race a store behind a
network meets when two agents write the same thing.

The threads run in copies of the check's context (its still blocks, its seeded nonces),
each call under the time limit on its own thread. While they run, the interpreter
switches threads as often as it can, so a store that checks and writes in two unguarded
steps is caught between them, as on a machine with many cores.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

from conformance.checks.context import CheckContext
from conformance.checks.outcome import CheckSkipped, ConformanceFailure, Inconclusive

__all__ = ["RACERS", "race", "require_thread_safe"]

T = TypeVar("T")

RACERS: Final = 8
"""Threads in one race."""

_SWITCH: Final = 1e-6
"""Seconds between two thread switches while a race runs (CPython's default is 5 ms)."""

_switching = threading.Lock()


def require_thread_safe(ctx: CheckContext) -> None:
    """Skip the check when the driver says it is not thread-safe: it is never called from
    two threads at once."""
    if not ctx.settings.thread_safe:
        raise CheckSkipped(
            "the driver is not thread-safe (`Driver.thread_safe` is False): the kit never "
            "calls it from two threads at once"
        )


def race(work: Callable[[], T], racers: int = RACERS) -> list[T]:
    """`work` on `racers` threads released together; each thread's answer, in thread
    order. The first check outcome a thread ends with (a failure, an inconclusive call)
    is raised here once all have ended."""
    barrier = threading.Barrier(racers)
    answers: list[Any] = [None] * racers
    endings: list[BaseException] = []

    def run(n: int) -> None:
        try:
            barrier.wait()
            answers[n] = work()
        except BaseException as exc:  # every ending is the check's, raised below
            endings.append(exc)

    threads = [
        threading.Thread(
            target=contextvars.copy_context().run,
            args=(run, n),
            name=f"{threading.current_thread().name}-racer-{n}",
            daemon=True,
        )
        for n in range(racers)
    ]
    with _switching:
        before = sys.getswitchinterval()
        sys.setswitchinterval(_SWITCH)
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            sys.setswitchinterval(before)
    outcomes = [e for e in endings if isinstance(e, ConformanceFailure | Inconclusive)]
    if outcomes or endings:
        raise (outcomes or endings)[0]
    return cast(list[T], answers)
