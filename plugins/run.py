"""One process's conformance run: the driver, its profile objects, waivers and results.

Every process of a run resolves the driver; only the processes that run checks (the
main process without xdist, each xdist worker with it) build its profile objects, so
the xdist controller never opens a store a worker needs.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance import clock
from conformance.bridge import as_sync
from conformance.checks.beside_others import ALONE_KEY, needs_alone_run, settle
from conformance.checks.catalogue import Check, all_checks, run_one
from conformance.checks.concurrent import GivenUp, Seat
from conformance.checks.context import CheckContext, RunSettings, new_nonce
from conformance.checks.outcome import (
    RETAINS_NOTHING,
    CheckResult,
    ConformanceFailure,
    Inconclusive,
)
from conformance.checks.runner import retention
from conformance.checks.seeds import derive_seed, seeded_nonces
from conformance.checks.traces import driver_error, driver_trace, full_trace
from conformance.driver import Driver, DriverError, Profile, ProfileNotOffered
from conformance.fuzz_targets import FUZZ_TARGETS, FuzzTarget
from conformance.interrupts import from_user
from conformance.redaction import Redactor, is_credential_key
from conformance.report import CheckEntry, Hang, Precondition, Repeats, not_offered_reason
from conformance.time_limit import HungCall, TimeLimitExceeded, run_within
from plugins.isolation import isolated_driver
from plugins.registry import resolve_driver
from plugins.replay import replay_command
from plugins.settings import KitSettings
from plugins.waivers import Waiver

FUZZ_SEED_BITS = 32
"""Hypothesis seeds are taken below 2**32, as the fuzzer prints them."""


def repeat_seeds(seed: int, repeat: int) -> list[int]:
    """The seed of each of `repeat` runs of a check: the run seed first, so a run without
    repeats and the first repeat are the same run, then one derived per repeat."""
    return [seed] + [derive_seed(seed, f"repeat/{n}") for n in range(1, repeat)]


@dataclass
class ProcessFacts:
    """What one process learnt of the driver: sent from each xdist worker to the controller."""

    worker: str
    build_error: str | None = None
    collection_errors: list[str] = field(default_factory=list)
    fetch_modes: list[str] | None = None
    capabilities: list[str] | None = None
    concurrency: dict[str, Any] | None = None
    """How many checks ran at once here (`Concurrency`, as JSON), when more were asked."""

    def to_wire(self) -> dict[str, Any]:
        """A plain dict, as xdist carries it between processes."""
        return dict(self.__dict__)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ProcessFacts:
        """The facts a worker sent."""
        return cls(**data)


@dataclass
class KitRun:
    """The state of one pytest process's conformance run (one per xdist worker)."""

    settings: KitSettings
    driver: Driver
    waivers: dict[str, Waiver]
    seed: int
    worker: str = "main"
    """`main` without xdist (and on the xdist controller), else the worker id (`gw0`)."""
    objects: dict[str, Any] = field(default_factory=dict)
    facts: ProcessFacts = field(init=False)
    today: dt.date = field(default_factory=dt.date.today)
    abandoned: HungCall | None = None
    """Set when a driver call could not be interrupted and the run was given up: the
    driver is never called again."""
    full_traces: dict[str, str] = field(default_factory=dict)
    """By item id: the whole traceback (kit frames too) of the driver's exception an
    outcome of this process came from, for `--full-trace`."""
    _retains: dict[str, bool] = field(default_factory=dict)
    _probing: threading.Lock = field(default_factory=threading.Lock)
    _facts_read: bool = False
    _closed: bool = False
    _release: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        self.facts = ProcessFacts(self.worker)
        self._release = self.driver.release

    @classmethod
    def resolve(
        cls, settings: KitSettings, waivers: dict[str, Waiver], seed: int, worker: str
    ) -> KitRun:
        """Resolve the driver (its `{worker}` options expanded); build nothing yet.

        A driver that offers none of the asked profiles is a `DriverError`.
        """
        assert settings.driver is not None
        options = settings.options_for(worker)
        if settings.isolation == "process":
            driver = isolated_driver(settings.driver, options)
        else:
            driver = resolve_driver(settings.driver, options)
        if not set(settings.profiles()) & driver.profiles:
            offered = ", ".join(sorted(driver.profiles)) or "none"
            raise DriverError(
                f"driver `{driver.name}` offers the profiles: {offered}; --profile "
                f"{settings.profile} asks for none of them"
            )
        return cls(settings=settings, driver=driver, waivers=waivers, seed=seed, worker=worker)

    def build(self) -> None:
        """Build each asked profile the driver offers, each under the time limit (a
        factory that hangs is an error); a failure is kept in `facts` and raised as
        `DriverError` naming this process."""
        try:
            for profile in self.settings.profiles():
                if profile in self.driver.profiles:
                    made = run_within(
                        self.settings.timeout,
                        self.driver.make,
                        (profile,),
                        label=f"building the {profile}",
                    )
                    self.objects[profile] = as_sync(made)
        except BaseException as exc:
            if from_user(exc):
                raise
            if isinstance(exc, TimeLimitExceeded):
                shown = f"driver `{self.driver.name}`: building: {exc.reason}"
            elif isinstance(exc, DriverError):
                shown = str(exc)
            else:
                shown = f"{type(exc).__name__}: {exc}"
            self.objects.clear()
            self.facts.build_error = self.redactor.text(shown)
            raise DriverError(self.facts.build_error) from exc

    def rebuild(self) -> None:
        """Build the driver again, as `build` did at the start: the instances in use are
        dropped unshut (a call on one could not be interrupted and is still running);
        `DriverError` if it cannot be built."""
        self.objects.clear()
        self.build()

    @property
    def redactor(self) -> Redactor:
        """The driver's credentials, kept out of every output of the run."""
        return self.driver.redactor

    def run_settings(self, seed: int | None = None) -> RunSettings:
        """How each driver call is made (with `seed`, the seed of one run of a check)."""
        s = self.settings
        declared = self.driver.secret_options
        return RunSettings(
            timeout=s.timeout,
            retries=s.retries,
            backoff=s.backoff,
            credentials={
                k: v for k, v in self.driver.options.items() if is_credential_key(k, declared)
            },
            constraints=self.driver.constraints,
            seed=self.seed if seed is None else seed,
            thread_safe=self.driver.thread_safe,
        )

    def checks(self) -> list[Check]:
        """The checks of the asked profiles, in catalogue order."""
        asked = set(self.settings.profiles())
        return [c for c in all_checks() if c.profile in asked]

    def fuzz_targets(self) -> list[FuzzTarget]:
        """The fuzz targets of the asked profiles."""
        asked = set(self.settings.profiles())
        return [t for t in FUZZ_TARGETS.values() if t.profile in asked]

    # -- what the driver declares, read once while checks are collected ------------------

    def read_facts(self) -> ProcessFacts:
        """Read the engine's fetch modes and the provider's capabilities, once.

        A driver error here is a collection-time error: it is kept in `facts` (the
        report lists it), never raised.
        """
        if self._facts_read or self.abandoned is not None:
            return self.facts
        self._facts_read = True
        engine, provider = self.objects.get("engine"), self.objects.get("provider")
        if engine is not None:
            modes = self._declared("engine", "descriptor", engine.descriptor)
            if modes is not None:
                self.facts.fetch_modes = [str(getattr(m, "value", m)) for m in modes.fetch_modes]
        if provider is not None:
            caps = self._declared("provider", "capabilities", provider.capabilities)
            if caps is not None:
                self.facts.capabilities = list(caps.to_wire())
        return self.facts

    def _declared(self, profile: str, method: str, call: Callable[[], Any]) -> Any:
        ctx = CheckContext(f"{profile}.collection", self.run_settings(), self._process_nonce())
        label = f"{method}()"
        try:
            return ctx.call(label, call, face=profile, method=method)
        except Exception as exc:
            detail = getattr(exc, "got", None) or getattr(exc, "reason", None) or str(exc)
            self.facts.collection_errors.append(
                self.redactor.text(
                    f"{profile}.{label} failed while the checks were collected: {detail}"
                )
            )
            return None

    def _process_nonce(self) -> str:
        # Per-process work has its own stream, keyed by the worker: workers never share it.
        return new_nonce(self.seed, f"process/{self.worker}")

    def close(self) -> list[CheckEntry]:
        """Shut the run's profile objects down, each under the time limit (once; never
        after the run was abandoned), then release the driver. An inconclusive entry
        (`provider.shutdown`) for each shutdown that ran past the limit; a shutdown that
        raises is not the verdict's business (`shutdown` is idempotent by contract)."""
        if self._closed or self.abandoned is not None:
            self.release()
            return []
        self._closed = True
        self.read_facts()  # the report asks for them after the driver is shut
        hung: list[CheckEntry] = []
        for profile, obj in self.objects.items():
            shutdown = getattr(obj, "shutdown", None)
            if not callable(shutdown):
                continue
            entry_id = f"{profile}.shutdown"
            try:
                run_within(self.settings.timeout, shutdown, label="shutdown()", check_id=entry_id)
            except TimeLimitExceeded as exc:
                reason = str(Inconclusive(entry_id, "shutdown()", exc.reason))
                hung.append(
                    CheckEntry(
                        id=entry_id,
                        profile="engine" if profile == "engine" else "provider",
                        outcome="inconclusive",
                        reason=reason,
                        calls=1,
                        clause="contract-reference A2 (shutdown releases resources)",
                        hang=Hang(call=exc.call or "shutdown()", loop_blocked=exc.loop_blocked),
                    )
                )
            except BaseException as exc:
                # A failing shutdown must not hide the verdict already reached.
                if from_user(exc):
                    raise
        self.release()
        return hung

    def release(self) -> None:
        """Let the driver stop what it started (`Driver.release`), once, under the time
        limit; also when the run is abandoned."""
        release, self._release = self._release, None
        if release is not None:
            try:
                run_within(self.settings.timeout, release, label="release()")
            except BaseException as exc:
                if from_user(exc):
                    raise

    def fetch_modes(self, chk: Check) -> list[str | None]:
        """The fetch modes a check runs once for: each declared one for a `per_mode` check
        of an engine that declares some, else a single unparametrised run."""
        if not chk.per_mode or "engine" not in self.objects:
            return [None]
        return list(self.read_facts().fetch_modes or []) or [None]

    # -- running ---------------------------------------------------------------------------

    def retains(self, profile: Profile) -> bool:
        """The retention probe's answer for `profile`, asked once per process (checks
        running at once wait for the one asking)."""
        with self._probing:
            return self._retention(profile)

    def _retention(self, profile: Profile) -> bool:
        if profile not in self._retains:
            ctx = CheckContext(
                f"{profile}.retention_probe", self.run_settings(), self._process_nonce()
            )
            try:
                self._retains[profile] = retention(profile)(self.objects[profile], ctx)
            except (ConformanceFailure, Inconclusive):
                # The probe's own check reports the fault; storage checks still run.
                self._retains[profile] = True
        return self._retains[profile]

    def _run_once(self, chk: Check, fetch_mode: str | None, seed: int) -> CheckResult:
        item_id = chk.id if fetch_mode is None else f"{chk.id}[{fetch_mode}]"
        if chk.profile not in self.objects:
            reason = not_offered_reason(self.driver.name, chk.profile)
            return CheckResult(id=item_id, outcome="skipped", reason=reason)
        if chk.storage and not self.retains(chk.profile):
            return CheckResult(id=item_id, outcome="skipped", reason=RETAINS_NOTHING)
        # The check's nonce, and any its code draws, come from the seed and the check's
        # id alone: the same whichever worker runs it, so `--conformance-seed` replays it.
        with seeded_nonces(seed, item_id):
            try:
                return run_one(
                    chk,
                    self.objects[chk.profile],
                    self.run_settings(seed),
                    new_nonce(seed, item_id),
                    fetch_mode,
                )
            except BaseException as exc:
                if from_user(exc) or isinstance(exc, GivenUp):
                    raise
                # Whatever escaped the check's own handling is still this check's outcome.
                return CheckResult(
                    id=item_id,
                    outcome="failed",
                    reason=f"conformance check `{chk.id}` ended with "
                    f"{type(exc).__qualname__}: {self.redactor.text(str(exc))}",
                )

    def run_check(
        self, chk: Check, fetch_mode: str | None = None, seat: Seat | None = None
    ) -> tuple[CheckEntry, str]:
        """Run one check (`--conformance-repeat` times) and apply its waiver; its report
        entry and the command that replays its (first) failure. With `seat`, the check
        ran beside others (`--conformance-concurrency`): one that does not pass is run
        again alone, and fails saying so when it passes there."""
        seeds = repeat_seeds(self.seed, self.settings.repeat)
        results = [self._run_once(chk, fetch_mode, s) for s in seeds]
        result, repeats = combine(results, seeds)
        if seat is not None and needs_alone_run(result):
            again = derive_seed(seeds[0], ALONE_KEY)
            with seat.alone():
                alone = self._run_once(chk, fetch_mode, again)
            serial = self.replay(result.id, seeds[0])
            result = settle(result, alone, self.settings.concurrency, serial)
        # The reason is redacted where the driver's words enter it, never as a whole:
        # the kit's own words (`recall(blank)`) stay as they are.
        result = self._waive(chk.id, result)
        entry = CheckEntry(
            id=result.id,
            profile=chk.profile,
            outcome=result.outcome,
            reason=result.reason,
            duration=round(result.duration, 6),
            calls=result.calls,
            retries=result.retries,
            refusals=len(result.refusals),
            named_refusals=result.named_refusals,
            clause=chk.clause,
            optional=chk.needs is not None,
            repeats=repeats,
            trace=result.trace,
            precondition=Precondition(owners=result.owners) if result.owners else None,
            waived_by=result.waived_by,
            hang=result.hang,
            concurrency_only=result.concurrency_only,
        )
        if result.full_trace is not None:
            self.full_traces[result.id] = result.full_trace
        replay_seed = repeats.failed_seeds[0] if repeats and repeats.failed_seeds else self.seed
        replay = self.replay(result.id, replay_seed)
        if result.concurrency_only:
            # Alone it passes: what shows the failure is the run beside the others.
            replay = replay_command(self.settings, result.id, replay_seed, beside=True)
        if entry.outcome in ("failed", "inconclusive"):
            entry.replay = replay
        return entry, replay

    def replay(self, item_id: str, seed: int, *, fuzz: bool = False) -> str:
        """The command that runs one item again with `seed`."""
        return replay_command(self.settings, item_id, seed, fuzz=fuzz)

    def _waive(self, check_id: str, result: CheckResult) -> CheckResult:
        """Apply the waiver of `check_id` (a check or a fuzz target): a failure or an
        inconclusive outcome is waived, a pass fails (waivers are strict), an expired
        waiver fails the item. Without one of its own, an item left inconclusive by a
        precondition is waived by a waiver of a check owning that operation."""
        waiver = self.waivers.get(check_id)
        if waiver is None:
            return self._waive_dependent(result)
        where = f"waiver for `{check_id}` ({waiver.issue}, expires {waiver.expires})"
        if waiver.expired(self.today):
            if result.outcome == "passed":
                result.reason = f"{where} has expired, and the check passed: remove the waiver"
            else:
                result.reason = (
                    f"{where} has expired: fix the driver or renew the waiver. "
                    f"The check {result.outcome}: {result.reason or 'no reason given'}"
                )
            result.outcome = "failed"
        elif result.outcome in ("failed", "inconclusive"):
            ended = "Failure" if result.outcome == "failed" else "Inconclusive"
            result.outcome = "waived"
            result.reason = f"{where}: {waiver.reason}. {ended}: {result.reason}"
        elif result.outcome == "passed":
            result.outcome = "failed"
            result.reason = (
                f"unexpected pass: the check is waived by the {where}, but "
                f"passed; remove the waiver (waivers are strict)"
            )
        return result

    def _waive_dependent(self, result: CheckResult) -> CheckResult:
        # The fault a waiver covers also covers what it leaves inconclusive elsewhere:
        # the first owner of the failed precondition with a waiver in force.
        if result.outcome != "inconclusive":
            return result
        for owner in result.owners:
            waiver = self.waivers.get(owner)
            if waiver is not None and not waiver.expired(self.today):
                result.outcome = "waived"
                result.waived_by = owner
                result.reason = (
                    f"waived by the waiver for `{owner}` ({waiver.issue}, expires "
                    f"{waiver.expires}): {waiver.reason}; this check follows from the fault "
                    f"it covers. Inconclusive: {result.reason}"
                )
                break
        return result

    def run_fuzz_target(self, target: FuzzTarget) -> tuple[CheckEntry, str]:
        """Fuzz fresh instances of the driver with one target, under the run's call rules;
        its report entry (the seed is in the reason; `calls` counts driver calls) and the
        command that replays it."""
        entry = CheckEntry(
            id=target.id, profile=target.profile, outcome="passed", clause=target.clause
        )
        replay = self.replay(target.id, self.seed, fuzz=True)
        if target.profile not in self.objects:
            entry.outcome = "skipped"
            entry.reason = not_offered_reason(self.driver.name, target.profile)
            return entry, replay
        # Imported here: a run without --fuzz never loads the fuzzer (nor hypothesis).
        from conformance.fuzz.runner import (
            FuzzConfigError,
            FuzzFailure,
            FuzzInconclusive,
            FuzzReport,
            run_fuzz,
        )

        s = self.settings
        seed = s.fuzz_seed
        if seed is None:
            seed = derive_seed(self.seed, target.id) % (1 << FUZZ_SEED_BITS)
        started = clock.perf_counter()
        report: FuzzReport | None = None
        with seeded_nonces(self.seed, target.id):
            try:
                # The Driver, not the suite's instance: the fuzzer builds instances of its own.
                report = run_fuzz(
                    target.id,
                    self.driver,
                    examples=s.fuzz_examples,
                    seed=seed,
                    repro_dir=s.fuzz_repro_dir,
                    driver_spec=s.driver,
                    driver_options=dict(self.driver.options),
                    settings=self.run_settings(seed),
                )
            except FuzzFailure as failure:
                # Its text carries the shrunk program, the seed and the regression test.
                entry.outcome, entry.reason, report = "failed", str(failure), failure.report
                self._trace(entry, failure.failure, failure)
            except FuzzInconclusive as stop:
                entry.outcome, entry.reason, report = "inconclusive", str(stop), stop.report
            except (ConformanceFailure, Inconclusive) as failure:
                entry.outcome = "inconclusive" if isinstance(failure, Inconclusive) else "failed"
                entry.reason = str(failure)
                self._trace(entry, failure)
            except BaseException as exc:
                if from_user(exc) or isinstance(exc, GivenUp):
                    raise
                # A fuzz target that could not run has not passed.
                shown = (
                    str(exc)
                    if isinstance(exc, FuzzConfigError | DriverError)
                    else f"{type(exc).__qualname__}: {exc}"
                )
                entry.outcome = "failed"
                entry.reason = f"fuzz target `{target.id}` could not run (seed {seed}): {shown}"
            else:
                entry.reason = report.summary()
        if report is not None:
            entry.calls, entry.retries = report.calls, report.retries
            entry.named_refusals = report.stats.named_refusals
        entry.duration = round(clock.perf_counter() - started, 6)
        entry.reason = self.redactor.text(entry.reason)
        if entry.outcome != "not run":  # always: the target ran
            waived = self._waive(target.id, CheckResult(target.id, entry.outcome, entry.reason))
            entry.outcome, entry.reason = waived.outcome, waived.reason
        if entry.outcome in ("failed", "inconclusive"):
            entry.replay = replay
        return entry, replay

    def _trace(self, entry: CheckEntry, *endings: BaseException) -> None:
        """Where the driver raised the exception the first of `endings` that came from one
        came from, on `entry` (its whole traceback kept for `--full-trace`)."""
        for ending in endings:
            error = driver_error(ending)
            trace = None if error is None else driver_trace(error, self.redactor.text)
            if error is not None and trace is not None:
                entry.trace = trace
                self.full_traces[entry.id] = full_trace(error, self.redactor.text)
                return

    def profile_object(self, profile: str) -> Any:
        """The run's engine or provider (sync face); `ProfileNotOffered` if there is none."""
        if profile not in self.objects:
            raise ProfileNotOffered(
                f"driver `{self.driver.name}` does not offer the {profile} "
                f"profile, or it was not asked for"
            )
        return self.objects[profile]


def combine(results: list[CheckResult], seeds: list[int]) -> tuple[CheckResult, Repeats | None]:
    """One result from the repeats of a check: failed if any run failed (naming how many
    and which seeds), else inconclusive if any was, else the first run's outcome."""
    first = results[0]
    if len(results) == 1:
        return first, None
    failed = [(s, r) for s, r in zip(seeds, results, strict=True) if r.outcome == "failed"]
    unsure = [(s, r) for s, r in zip(seeds, results, strict=True) if r.outcome == "inconclusive"]
    passed = sum(1 for r in results if r.outcome == "passed")
    repeats = Repeats(
        runs=len(results),
        failed=len(failed),
        inconclusive=len(unsure),
        failed_seeds=[s for s, _ in failed],
        flaky=bool(failed) and passed > 0,
    )
    combined = CheckResult(
        id=first.id,
        outcome=first.outcome,
        reason=first.reason,
        duration=sum(r.duration for r in results),
        calls=sum(r.calls for r in results),
        retries=sum(r.retries for r in results),
        call_log=first.call_log,
        refusals=[label for r in results for label in r.refusals],
        named_refusals=list(dict.fromkeys(n for r in results for n in r.named_refusals)),
        trace=first.trace,
        full_trace=first.full_trace,
        owners=first.owners,
        hang=first.hang,
    )
    # A failure outweighs an inconclusive run: the first kind present names the result.
    hits = failed or unsure
    if hits:
        seed, shown = hits[0]
        kind = " (flaky: it passed the other runs)" if repeats.flaky else ""
        seeds_text = ", ".join(str(s) for s, _ in hits)
        combined.outcome = shown.outcome
        combined.trace, combined.full_trace = shown.trace, shown.full_trace
        combined.owners, combined.hang = shown.owners, shown.hang
        combined.reason = (
            f"{shown.outcome} {len(hits)} of {len(results)} runs{kind}; seeds {seeds_text}. "
            f"First (seed {seed}): {shown.reason}"
        )
    return combined, repeats
