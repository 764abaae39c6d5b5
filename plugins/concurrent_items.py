"""Check items run ahead of pytest's loop, several at once (`--conformance-concurrency N`).

pytest still runs one item at a time and shows each with its own outcome; an item's
`runtest` takes the result of its check, which this pool started when an earlier item
ran, together with the items this process runs after it (those still to come in the
session without xdist, the worker's queue with it). Each check keeps its own seed, time
limit, call log and outcome, so a report, a replay command and `--conformance-seed`
mean what they mean serially. Fuzz targets run beside the checks and each other, first
(they are the longest), and their shards of programs several at once (cut by the budget
alone, so a seed names the same programs: `conformance.fuzz.shards`). What a driver
prints while checks run at once cannot be told apart between them: it is captured with
the item pytest is waiting for.
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import TYPE_CHECKING, Any

import pytest

from conformance.checks.concurrent import CheckPool, Job, Seat, Stopped
from conformance.checks.context import short_label
from conformance.checks.outcome import Inconclusive
from conformance.checks.typical_calls import FUZZ_TARGET_CALLS, typical_calls
from conformance.report import CheckEntry, Concurrency, Hang
from conformance.time_limit import HungCall
from plugins.abandon import left_behind_reason, rebuilt_line

if TYPE_CHECKING:
    from plugins.ledger import Ledger
    from plugins.run import KitRun

__all__ = ["ItemPool", "concurrency_of"]

Result = tuple[CheckEntry, str]


def concurrency_of(run: KitRun) -> Concurrency | None:
    """What the report says of concurrency before any check ran: None when one check at
    a time was asked for; the reason when the driver cannot be called from two threads."""
    asked = run.settings.concurrency
    if asked <= 1:
        return None
    if not run.driver.thread_safe:
        return Concurrency(
            asked=asked,
            used=1,
            serial_because=(
                f"driver `{run.driver.name}` is not thread-safe (`Driver.thread_safe` is "
                f"False, or its exec: handshake does not declare `concurrent`)"
            ),
        )
    return Concurrency(asked=asked, used=asked)


class ItemPool:
    """The check items of one process, run up to `width` at once against its driver."""

    def __init__(self, run: KitRun, session: pytest.Session, ledger: Ledger | None) -> None:
        self.run = run
        self.session = session
        self.ledger = ledger
        self.width = run.settings.concurrency
        self.pool = CheckPool(self.width, self._rebuild)
        self.jobs: dict[str, Job[Result]] = {}
        self._order: dict[str, int] = {}
        self._started: set[str] = set()
        self._entered = False

    def result(self, item: pytest.Item) -> Result:
        """The report entry and replay command of `item`'s check, once it has run."""
        if not self._entered:
            self.pool.__enter__()
            self._entered = True
        self._start_from(item)
        job = self.jobs.pop(item.nodeid)
        try:
            return self.pool.wait(job)
        except Stopped as stop:
            self.session.shouldstop = str(stop)
            return self._inconclusive(item, str(stop)), ""

    def close(self) -> Concurrency:
        """Stop handing out calls given up to the pool; what the report says of the run."""
        if self._entered:
            self.pool.__exit__(None, None, None)
            self._entered = False
        return Concurrency(
            asked=self.width, used=self.pool.used, serial_because=self.pool.serial_because()
        )

    # -- which items to start ------------------------------------------------------------

    def _start_from(self, item: pytest.Item) -> None:
        for upcoming in self._upcoming(item):
            if upcoming.nodeid not in self._started:
                self._started.add(upcoming.nodeid)
                self.jobs[upcoming.nodeid] = self.pool.start(self._job(upcoming))

    def _upcoming(self, item: pytest.Item) -> list[pytest.Item]:
        """`item`, then the kit's items this process runs after it, in order (as far as
        known: on an xdist worker, those already sent to it). All are queued at once: the
        gate picks which runs next (`conformance.checks.gate`)."""
        from plugins.pytest_items import CheckItem, FuzzItem

        items = self.session.items
        queued = _worker_queue(self.session.config)
        if queued is None:
            if not self._order:
                self._order = {it.nodeid: n for n, it in enumerate(items)}
            following = items[self._order.get(item.nodeid, len(items)) + 1 :]
        else:
            following = [items[i] for i in queued if 0 <= i < len(items)]
        return [item, *(it for it in following if isinstance(it, CheckItem | FuzzItem))]

    def _job(self, item: pytest.Item) -> Job[Result]:
        from plugins.pytest_items import CheckItem

        run = self.run
        if isinstance(item, CheckItem):
            chk, mode = item.check, item.fetch_mode

            def work(seat: Seat) -> Result:
                return run.run_check(chk, mode, seat)

            gave_up = partial(self._given_up, item)
            cost = typical_calls(chk.id)
            return Job(item.nodeid, work, gave_up, alone=chk.alone, cost=cost, late=chk.whole_store)
        target = item.target  # type: ignore[attr-defined]

        def fuzz(_: Seat) -> Result:
            return run.run_fuzz_target(target)

        # Beside the checks: the fuzzer builds instances of its own, compares only what
        # its programs wrote, and holds the provider still while it pages an export.
        return Job(item.nodeid, fuzz, partial(self._given_up, item), cost=FUZZ_TARGET_CALLS)

    # -- a call given up -----------------------------------------------------------------

    def _given_up(self, item: pytest.Item, hung: HungCall) -> Result:
        return self._inconclusive(item, left_behind_reason(hung), hung), ""

    def _inconclusive(self, item: pytest.Item, reason: str, hung: HungCall | None = None) -> Any:
        chk = getattr(item, "check", None) or getattr(item, "target", None)
        check_id = item.name.partition("[")[0]
        label = hung.label if hung is not None else "(the run)"
        return CheckEntry(
            id=item.name,
            profile=getattr(chk, "profile", "engine"),
            outcome="inconclusive",
            reason=str(Inconclusive(check_id, label, reason)),
            clause=getattr(chk, "clause", ""),
            hang=None if hung is None else Hang(call=short_label(hung.label)),
        )

    def _rebuild(self) -> None:
        key, hung = self.pool.left_behind[-1]
        if self.ledger is not None:
            self.ledger.rebuilt.append(rebuilt_line(key.rpartition("::")[2], hung))
        self.run.rebuild()


def _worker_queue(config: pytest.Config) -> list[int] | None:
    """The indices of the items an xdist worker has been sent and not yet run, in order;
    None without xdist (or an xdist whose queue cannot be read: no lookahead then)."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        queue = getattr(plugin, "torun", None)
        if queue is None or not hasattr(queue, "lock"):
            continue
        with contextlib.suppress(Exception), queue.lock() as pending:
            following = [i for i in pending if isinstance(i, int)]
            upcoming = getattr(plugin, "nextitem_index", None)
            return ([upcoming] if isinstance(upcoming, int) else []) + following
    return []
