"""Several checks at once against one driver instance (`--conformance-concurrency`).

Each check runs on a thread of its own, in a copy of the caller's context (its seeded
nonces, the progress listener); the caller decides how many run at once and waits for
each result in its own order. While a check reads what needs a store nobody else writes
to, the others' calls wait (`still`). A call past its time limit is interrupted as on
any thread; one still stuck a grace period later is given up: its check's result is
made at once from the `HungCall`, its thread is left behind, and the driver is built
again (alone, before any check starts after it), as a serial run does. After
`MAX_GIVEN_UP` calls left behind, no check starts any more: `stopped` says why. A check's
independent calls may go several at once, on helper threads that queue at the gate as
checks do (`fan_out`); a helper's call given up ends its check as its own would.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from conformance.checks.fan_out import lending
from conformance.checks.gate import Gate, Pass
from conformance.checks.still import CallGate, holding_still, using
from conformance.checks.warmup import Warmup
from conformance.time_limit import HungCall, set_abandon_handler

__all__ = ["MAX_GIVEN_UP", "CheckPool", "GivenUp", "Job", "Seat", "Stopped"]

T = TypeVar("T")

MAX_GIVEN_UP: Final = 8
"""Calls a run leaves behind (each on a thread that may go on spending the CPU) before it
starts no more checks."""

_WAIT: Final = 0.05
"""Seconds a wait lasts between two chances to be interrupted (Ctrl-C, the time limit)."""


class Stopped(Exception):
    """No check may start: the pool gave up on the driver (`CheckPool.stopped` says why)."""


class GivenUp(BaseException):
    """Unwinds a check whose helper's call was given up (its result is made already): a
    BaseException, so no handler of the check's makes more calls on the way out; a runner
    catching everything a check may raise lets this one through."""


class Seat:
    """A running job's place at the gate, shared or alone."""

    def __init__(self, gate: Gate, entry: Pass) -> None:
        self._gate = gate
        self.entry = entry

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        """The block runs while no other check does. The shared seat is left first, so
        the checks beside this one can finish; it is taken again after."""
        if self.entry.alone:
            yield
            return
        self._move(alone=True)
        try:
            yield
        finally:
            self._move(alone=False)

    def _move(self, alone: bool) -> None:
        self.entry = self._gate.move(self.entry, alone)


@dataclass(eq=False)
class Job(Generic[T]):
    """One check to run: `work` gets the job's seat; `gave_up` makes its result when a
    call of it is given up. An `alone` job runs while no other does; an `urgent` one goes
    before every job not yet running; `cost` (driver calls expected) orders the rest, and
    `late` ones come after them (`gate`)."""

    key: str
    work: Callable[[Seat], T]
    gave_up: Callable[[HungCall], T]
    alone: bool = False
    urgent: bool = False
    cost: int = 0
    late: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    result: T | None = None
    error: BaseException | None = None
    seat: Seat | None = None
    given_up: HungCall | None = None
    borrowed: list[Pass] = field(default_factory=list)
    """Seats lent to the job's helper threads (`fan_out`), left when each helper ends."""


class CheckPool:
    """Threads running jobs against one driver, and what is done when a call hangs.

    Use as a context manager: inside it, the pool handles calls given up on its own
    threads and passes every other to the handler it found installed.
    """

    def __init__(
        self, width: int, rebuild: Callable[[], None] | None = None, *, warm_up: bool = True
    ) -> None:
        """`width`: how many jobs may run at once; `rebuild`: builds the driver again after
        a call was given up (None: the jobs after it go on with the same instance);
        `warm_up`: run one job at a time first, then `width`, and go on at once only if
        that answered many more driver calls a second (`warmup`)."""
        self.width = width
        self.calls = CallGate()
        self.warmup = Warmup(width, lambda: self.calls.calls) if warm_up and width > 1 else None
        self.gate = Gate(width) if self.warmup is None else Gate(1, by_cost=False)
        self.rebuild = rebuild
        self.stopped: str | None = None
        self.left_behind: list[tuple[str, HungCall]] = []
        """The key of each job whose call was given up, and the call."""
        self.rebuild_errors: list[str] = []
        self._lock = threading.Lock()
        self._running: dict[str, Job[Any]] = {}
        self._names = itertools.count(1)
        self._previous: Callable[[HungCall], None] | None = None
        self._deciding = threading.Lock()
        if self.warmup is not None:
            self.calls.on_call = self._widen

    def __enter__(self) -> CheckPool:
        self._previous = set_abandon_handler(self._abandon)
        return self

    def __exit__(self, *_: object) -> None:
        set_abandon_handler(self._previous)

    def start(self, job: Job[T]) -> Job[T]:
        """Queue `job`: once the gate lets it in, it runs on a thread of its own (in a copy
        of this context), so only the jobs running hold a thread."""
        context = contextvars.copy_context()

        def seated(entry: Pass) -> None:
            name = f"tinymemory-check-{next(self._names)}"
            job.seat = Seat(self.gate, entry)
            thread = threading.Thread(
                target=context.run, args=(self._run, job, name), name=name, daemon=True
            )
            with self._lock:
                self._running[name] = job
            thread.start()

        self.gate.queue(job.alone, seated, cost=job.cost, first=job.urgent, late=job.late)
        return job

    def wait(self, job: Job[T]) -> T:
        """The result of `job`, once it has one (or its error, raised here)."""
        while not job.done.wait(_WAIT):
            pass
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]

    def _run(self, job: Job[T], name: str) -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            using(self.calls)
            lending(_Lender(self, job))
            seat = job.seat
            assert seat is not None
            try:
                if self.stopped is not None:
                    raise Stopped(self.stopped)
                result = job.work(seat)
            finally:
                self.gate.leave(seat.entry)
        except BaseException as exc:
            error = exc
        with self._lock:
            self._running.pop(name, None)
            if job.given_up is not None:
                return  # the result was made when the call was given up
            job.result, job.error = result, error
        self._widen()
        job.done.set()

    def spread(
        self, job: Job[Any], fn: Callable[[T], object], items: Sequence[T], cost: int
    ) -> bool:
        """`fn` on every item, on `job`'s thread and on helpers (`fan_out.each`): each
        helper queues at the gate as a check of `cost` calls, and starts when it gets a
        seat. False, nothing called, when checks run one at a time (asked, or decided by
        the warm-up), or the job runs alone or holds a still block (its helpers' writes
        would wait). While the warm-up runs one check at a time, the helpers wait in line
        and the job's thread takes the items: a long spread (a fuzz target's shards) still
        widens once the warm-up does."""
        seat = job.seat
        deciding = self.warmup is not None and self.warmup.gain is None
        one_at_a_time = self.width <= 1 or (self.gate.width <= 1 and not deciding)
        if one_at_a_time or seat is None or seat.entry.alone or holding_still():
            return False
        lock = threading.Lock()
        todo = iter(enumerate(items))
        failed: dict[int, BaseException] = {}

        def work() -> None:
            while True:
                with lock:
                    # Once a call of the job is given up, its result is made: no more calls.
                    done = failed or job.given_up is not None
                    following = None if done else next(todo, None)
                if following is None:
                    return
                at, item = following
                try:
                    fn(item)
                except BaseException as exc:
                    with lock:
                        failed[at] = exc
                    return

        started: list[threading.Event] = []
        context = contextvars.copy_context()
        context.run(lending, None)

        def seated(entry: Pass) -> None:
            name = f"{threading.current_thread().name}-helper-{next(self._names)}"
            done = threading.Event()
            started.append(done)

            def helper() -> None:
                try:
                    work()
                finally:
                    with self._lock:
                        self._running.pop(name, None)
                    self.gate.leave(entry)
                    done.set()

            with self._lock:
                self._running[name] = job
                job.borrowed.append(entry)
            thread = threading.Thread(target=context.copy().run, args=(helper,), name=name)
            thread.daemon = True
            thread.start()

        # A helper is ranked as a check of the spread's calls: before the checks not yet
        # running that cost fewer, after those that cost more (a long check not started
        # yet would end the run later than a spread cut short).
        helpers = min(len(items), self.width) - 1
        asked = [self.gate.queue(False, seated, cost=cost) for _ in range(helpers)]
        try:
            work()
        finally:
            for entry in asked:
                self.gate.withdraw(entry)
        for done in list(started):
            while not done.wait(_WAIT):
                if job.given_up is not None:
                    raise GivenUp(job.key)
        if failed:
            raise failed[min(failed)]
        return True

    def _widen(self) -> None:
        """Resize the gate as the warm-up decides: asked at every driver call and at the end
        of every job, so a long check does not stretch the warm-up."""
        if self.warmup is None or not self._deciding.acquire(blocking=False):
            return
        try:
            width = self.warmup.decided()
            # Both stretches take checks in the runner's order, so the calls a second they
            # compare come from alike checks; once decided, the costliest go first.
            by_cost = self.warmup.gain is not None
            if width is not None and (width, by_cost) != (self.gate.width, self.gate.by_cost):
                self.gate.resize(width, by_cost=by_cost)
            if self.warmup.gain is not None:
                self.calls.on_call = None
        finally:
            self._deciding.release()

    @property
    def used(self) -> int:
        """How many jobs could run at once once warmed up (1 while warming up)."""
        return self.gate.width

    def serial_because(self) -> str | None:
        """Why the jobs ran one at a time though more were allowed, if they did."""
        if self.width <= 1 or self.gate.width > 1:
            return None
        if self.warmup is not None and self.warmup.gain is None:
            return (
                "the checks ended within the warm-up, in which they run one at a time to "
                "measure the driver"
            )
        return None if self.warmup is None else self.warmup.serial_because()

    def _abandon(self, hung: HungCall) -> None:
        with self._lock:
            job = self._running.pop(hung.thread, None)
            first = job is not None and job.given_up is None
            if job is not None and first:
                job.given_up = hung
        if job is None:
            if self._previous is not None:
                self._previous(hung)
            return
        if first:
            try:
                job.result = job.gave_up(hung)
            except BaseException as exc:
                job.error = exc
            if job.seat is not None:
                self.gate.leave(job.seat.entry)
        # Another of the job's helpers may hang after the first: its seat is left too, but
        # the check has its result and the driver is built again once.
        for entry in job.borrowed:
            self.gate.leave(entry)
        self.calls.forget(hung.thread)
        self.left_behind.append((job.key, hung))
        if len(self.left_behind) >= MAX_GIVEN_UP:
            self.stopped = (
                f"{len(self.left_behind)} driver calls could not be interrupted and were left "
                f"behind; the run starts no more checks"
            )
        elif self.rebuild is not None and first:
            rebuild = Job(f"rebuild after {job.key}", self._rebuild, _no_result, True, True)
            self.start(rebuild)
        job.done.set()

    def _rebuild(self, _: Seat) -> None:
        assert self.rebuild is not None
        try:
            self.rebuild()
        except Exception as exc:
            self.rebuild_errors.append(str(exc))
            self.stopped = f"the driver could not be built again: {exc}"


class _Lender:
    """Lends the seats of `pool` to the helpers of one job (`fan_out.Lender`)."""

    def __init__(self, pool: CheckPool, job: Job[Any]) -> None:
        self._pool, self._job = pool, job

    def spread(self, fn: Callable[[T], object], items: Sequence[T], cost: int) -> bool:
        return self._pool.spread(self._job, fn, items, cost)


def _no_result(hung: HungCall) -> None:
    raise Stopped(f"building the driver again hung: {hung.label}")
