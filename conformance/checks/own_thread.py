"""Run a suite from a driver factory on threads of the kit's own, so a call the kit cannot
interrupt is given up and the suite goes on, on any thread.

On the main thread `SIGALRM` interrupts a call blocked in native code (`time.sleep`, a
socket read); on another thread only Python code can be interrupted, and a call stuck
in native code there holds its thread for good. Given a factory (a class, say) instead
of an instance, the kit builds the driver on a thread of its own and runs the checks
there; the caller's thread only waits. A call still running a grace period past its
limit is given up: its check is inconclusive, and the checks after it run on a fresh
thread with a fresh instance. A driver bound to its thread works: each instance is
built on the thread that calls it.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from conformance.bridge import as_sync
from conformance.checks.catalogue import Check, run_one
from conformance.checks.context import CheckContext, RunSettings, new_nonce, short_label
from conformance.checks.outcome import (
    RETAINS_NOTHING,
    CheckResult,
    ConformanceFailure,
    Inconclusive,
)
from conformance.driver import Profile
from conformance.report import Hang
from conformance.time_limit import HungCall, TimeLimitExceeded, run_within, set_abandon_handler

__all__ = ["is_factory", "run_on_own_threads"]

_names = itertools.count(1)


def is_factory(driver: Any) -> bool:
    """Whether `driver` makes drivers (a class, or a callable without the profiles'
    `store`) rather than being one."""
    return isinstance(driver, type) or (callable(driver) and not hasattr(driver, "store"))


def given_up(
    check_id: str,
    hung: HungCall,
    after: str = "the checks after it ran on a fresh instance of the driver",
) -> CheckResult:
    """The result of check `check_id`, whose call `hung` was given up; `after`: what the
    run did next."""
    reason = (
        f"the call ran past the {hung.limit:g} s limit and had not returned {hung.grace:g} s "
        f"later (it swallows the interrupt, or blocks in native code such as time.sleep): "
        f"it was given up, and {after}"
    )
    return CheckResult(
        id=check_id,
        outcome="inconclusive",
        reason=str(Inconclusive(check_id, hung.label, reason)),
        hang=Hang(call=short_label(hung.label)),
    )


class _Runner:
    """One thread of the kit's, with one instance of the driver, running checks in order
    until they are done or one of its calls is given up."""

    def __init__(
        self,
        profile: Profile,
        factory: Callable[[], Any],
        settings: RunSettings | None,
        nonce: str | None,
        probe: bool,
    ) -> None:
        self.profile = profile
        self.factory = factory
        self.settings = settings
        self.nonce = nonce
        self.probe = probe
        self.retains = True
        self.results: dict[str, CheckResult] = {}
        self.error: BaseException | None = None
        self.hung: HungCall | None = None
        self.current: str | None = None
        """What runs: `building`, `probe`, or the id of the check running."""
        self.hung_at: str | None = None
        """What ran when a call was given up."""
        self.stop = False
        self.lock = threading.Lock()
        """Guards `results` and `stop`: a given-up call that returns late adds nothing."""
        self.ended = threading.Event()
        self.thread = threading.Thread(
            target=self._run, name=f"tinymemory-suite-{next(_names)}", daemon=True
        )

    def run(self, checks: Sequence[Check]) -> None:
        self.checks = list(checks)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.current = "building"
            limit = self.settings.timeout if self.settings is not None else None
            made = run_within(limit, self.factory, label=f"building the {self.profile}")
            target = as_sync(made)
            if self.probe:
                self.current = "probe"
                self.retains = self._retains(target)
            for chk in self.checks:
                if self.stop:
                    return
                self.current = chk.id
                if chk.storage and not self.retains:
                    result = CheckResult(id=chk.id, outcome="skipped", reason=RETAINS_NOTHING)
                else:
                    result = run_one(chk, target, self.settings, self.nonce)
                with self.lock:
                    if self.stop:
                        return
                    self.results[chk.id] = result
        except BaseException as exc:
            self.error = exc
        finally:
            self.ended.set()

    def _retains(self, target: Any) -> bool:
        from conformance.checks.runner import retention

        seed = self.settings.seed if self.settings is not None else None
        nonce = new_nonce(seed, f"{self.profile}/probe") if seed is not None else self.nonce
        ctx = CheckContext(f"{self.profile}.retention_probe", self.settings, nonce)
        try:
            return retention(self.profile)(target, ctx)
        except (ConformanceFailure, Inconclusive):
            return True  # the probe's own check reports the fault


def run_on_own_threads(
    profile: Profile,
    factory: Callable[[], Any],
    checks: Sequence[Check],
    settings: RunSettings | None,
    nonce: str | None,
) -> dict[str, CheckResult]:
    """Every one of `checks` against instances `factory` builds, each on a thread of the
    kit's; one result per check, in order. A factory that raises, or cannot be built in
    time, raises here."""
    results: dict[str, CheckResult] = {}
    left = list(checks)
    runners: dict[str, _Runner] = {}
    probe = any(c.storage for c in checks)

    def abandon(hung: HungCall) -> None:
        runner = runners.get(hung.thread)
        if runner is None:
            previous(hung)
            return
        with runner.lock:
            runner.stop = True
            runner.hung, runner.hung_at = hung, runner.current
        runner.ended.set()

    previous = set_abandon_handler(abandon)
    try:
        while left:
            runner = _Runner(profile, factory, settings, nonce, probe)
            runners[runner.thread.name] = runner
            runner.run(left)
            try:
                runner.ended.wait()
            except BaseException:
                runner.stop = True
                raise
            with runner.lock:
                results.update(runner.results)
                hung, at = runner.hung, runner.hung_at
            left = [c for c in left if c.id not in results]
            if hung is None:
                if runner.error is not None:
                    raise runner.error
                break
            if at is None or at == "building":
                raise TimeLimitExceeded(f"{hung.label}: {hung.reason}")
            if at == "probe":
                probe = False  # the storage checks run, and the probe's own check says why
                continue
            # Whatever the given-up call did since, its check is inconclusive.
            results[at] = given_up(at, hung)
            left = [c for c in left if c.id != at]
    finally:
        set_abandon_handler(previous)
    return {c.id: results[c.id] for c in checks if c.id in results}
