"""Run a whole suite without pytest: every applicable check, one result per id."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from conformance.bridge import as_sync
from conformance.checks.beside_others import ALONE_KEY, needs_alone_run, settle
from conformance.checks.blame import base_outcomes, blame
from conformance.checks.catalogue import Check, checks_for, run_one
from conformance.checks.concurrent import CheckPool, Job, Seat
from conformance.checks.context import CheckContext, RunSettings, new_nonce
from conformance.checks.outcome import (
    RETAINS_NOTHING,
    CheckResult,
    ConformanceFailure,
    Inconclusive,
)
from conformance.checks.own_thread import given_up, is_factory, run_on_own_threads
from conformance.checks.typical_calls import typical_calls
from conformance.driver import Profile
from conformance.engine.requests import FetchMode
from conformance.interrupts import InterruptWatch
from conformance.time_limit import HungCall


def retention(profile: Profile) -> Callable[[Any, CheckContext | None], bool]:
    """The retention probe of a profile: does the driver give back what it was given?"""
    if profile == "engine":
        from conformance.checks.engine_suite import engine_retains_writes

        return engine_retains_writes
    from conformance.checks.provider_suite import provider_retains_writes

    return provider_retains_writes


def run_suite(
    profile: Profile,
    driver: Any,
    settings: RunSettings | None = None,
    only: Iterable[str] | None = None,
    concurrency: int = 1,
    *,
    warm_up: bool = True,
) -> dict[str, CheckResult]:
    """Run every check of `profile` (or those in `only`) against `driver`, in catalogue order.

    Storage checks are skipped with the reason "driver retains nothing" when the
    retention probe finds that the driver keeps nothing. With `settings.seed` set, each
    check's nonce derives from the seed and its id, so the same seed repeats the run's
    markers exactly; without it the run draws a nonce of its own. A check left
    inconclusive by a failed precondition names the check testing that operation that
    failed, if one did (`conformance.checks.blame`).

    `driver` is an instance, whose calls run on this thread, or a factory (its class,
    say), whose instances the kit builds and calls on threads of its own: then a call
    the kit cannot interrupt (off the main thread, one blocked in native code) is given
    up, its check inconclusive, and the checks after it run on a fresh instance
    (`conformance.checks.own_thread`).

    With `concurrency` above 1, up to that many checks run at once against the one
    instance (`conformance.checks.concurrent`); a check that does not pass beside the
    others runs again alone, and fails saying so when it passes there
    (`conformance.checks.beside_others`). With `warm_up`, the first half second of checks
    runs one at a time, and the rest too if the driver kept the CPU busy
    (`conformance.checks.warmup`).
    """
    wanted = set(only) if only is not None else None
    checks: list[Check] = [c for c in checks_for(profile) if wanted is None or c.id in wanted]
    seed = settings.seed if settings is not None else None
    # Seeded, every context derives its own nonce (None here); else one nonce for the run.
    nonce = None if seed is not None else new_nonce()
    if is_factory(driver):
        results = run_on_own_threads(profile, driver, checks, settings, nonce)
    else:
        target = as_sync(driver)
        results = _run_here(profile, target, checks, settings, nonce, concurrency, warm_up)
    outcomes = base_outcomes({k: r.outcome for k, r in results.items()})
    for result in results.values():
        if result.outcome == "inconclusive" and result.owners:
            result.reason = f"{result.reason} {blame(result.owners, outcomes)}"
    return results


def _run_here(
    profile: Profile,
    target: Any,
    checks: list[Check],
    settings: RunSettings | None,
    nonce: str | None,
    concurrency: int = 1,
    warm_up: bool = True,
) -> dict[str, CheckResult]:
    """The checks against one instance: on this thread, or up to `concurrency` at once."""
    seed = settings.seed if settings is not None else None
    retains = True
    if any(c.storage for c in checks):
        probe_nonce = new_nonce(seed, f"{profile}/probe") if seed is not None else nonce
        try:
            retains = retention(profile)(
                target, CheckContext(f"{profile}.retention_probe", settings, probe_nonce)
            )
        except (ConformanceFailure, Inconclusive):
            # A probe that errs is a fault, not "retains nothing": the storage checks run
            # and report it, and so does the `retention_probe` check itself.
            retains = True
    results: dict[str, CheckResult] = {}
    # A KeyboardInterrupt the driver raises ends its check; the user's Ctrl-C, the run.
    watch = InterruptWatch()
    watch.start()
    try:
        runnable = []
        for chk in checks:
            if chk.storage and not retains:
                results[chk.id] = CheckResult(id=chk.id, outcome="skipped", reason=RETAINS_NOTHING)
            elif concurrency <= 1:
                results[chk.id] = run_one(chk, target, settings, nonce)
            else:
                runnable.append(chk)
        if runnable:
            results.update(run_at_once(runnable, target, settings, nonce, concurrency, warm_up))
    finally:
        watch.stop()
    return {c.id: results[c.id] for c in checks}


def run_at_once(
    checks: list[Check],
    target: Any,
    settings: RunSettings | None,
    nonce: str | None,
    width: int,
    warm_up: bool = True,
) -> dict[str, CheckResult]:
    """`checks` against `target`, up to `width` at once (after a warm-up, with `warm_up`)."""
    seed = settings.seed if settings is not None else None

    def job(chk: Check) -> Job[CheckResult]:
        def work(seat: Seat) -> CheckResult:
            beside = run_one(chk, target, settings, nonce)
            if not needs_alone_run(beside):
                return beside
            again = new_nonce(seed, f"{chk.id}/{ALONE_KEY}") if seed is not None else new_nonce()
            with seat.alone():
                alone = run_one(chk, target, settings, again)
            return settle(beside, alone, width, f"run_suite(..., only=[{chk.id!r}])")

        # A per-mode check runs every mode here: it costs them all.
        cost = typical_calls(chk.id) * (len(FetchMode) if chk.per_mode else 1)
        gave_up = partial(left_behind, chk.id)
        return Job(chk.id, work, gave_up, alone=chk.alone, cost=cost, late=chk.whole_store)

    with CheckPool(width, warm_up=warm_up) as pool:
        jobs = [pool.start(job(chk)) for chk in checks]
        return {j.key: pool.wait(j) for j in jobs}


def left_behind(check_id: str, hung: HungCall) -> CheckResult:
    """The result of check `check_id` run beside others, whose call `hung` was given up."""
    return given_up(check_id, hung, "its thread was left behind while the other checks went on")


def run_engine_suite(
    engine: Any,
    settings: RunSettings | None = None,
    only: Iterable[str] | None = None,
    concurrency: int = 1,
) -> dict[str, CheckResult]:
    """Run the engine suite against a sync or async `MemoryEngine` (or a factory of them,
    see `run_suite`)."""
    return run_suite("engine", engine, settings, only, concurrency)


def run_provider_suite(
    provider: Any,
    settings: RunSettings | None = None,
    only: Iterable[str] | None = None,
    concurrency: int = 1,
) -> dict[str, CheckResult]:
    """Run the provider suite against a sync or async `MemoryProvider` (or a factory of
    them, see `run_suite`)."""
    return run_suite("provider", provider, settings, only, concurrency)
