"""Running a fuzz target against one driver: the API the pytest plugin calls.

``run_fuzz(target_id, driver)`` builds a fresh instance of the driver (see
`conformance.fuzz.subject`), probes whether it retains writes, picks the oracle (the
reference driver, or an empty store), narrows what it draws by the driver's declared
constraints (reporting each narrowing), and searches: ``examples`` programs of
``steps`` steps, every driver call under the run's time limit and retries, in shards of
10 programs on instances of their own (`conformance.fuzz.shards`: several at once under
`--conformance-concurrency`). The seed is chosen at random unless given or
``derandomize`` is set; it is printed and returned.

The search stops at its first failure (the first failing shard's). The failing program
is then replayed on a fresh instance; a failure that needs the instance's history is
replayed with the programs its shard ran before it; one that does not recur is reported
as such, with no regression file. A recurring failure is shrunk deterministically
(`conformance.fuzz.minimise`), replayed once more comparing the whole store after every
step (so the failure names the step whose operation went wrong), and written to
``repro_dir`` as a standalone regression test. A call past the time limit, or a driver
unavailable through every retry, makes the run inconclusive (`FuzzInconclusive`), never
failed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import run_state_machine_as_test

from conformance import clock
from conformance.checks.context import RunSettings
from conformance.checks.fan_out import each
from conformance.checks.outcome import ConformanceFailure, Inconclusive
from conformance.driver import Profile
from conformance.fuzz.config import EngineFuzzConfig, ProviderFuzzConfig
from conformance.fuzz.differential import Abandoned, FoundFailure, FuzzConfigError
from conformance.fuzz.engine_machine import engine_state_machine
from conformance.fuzz.minimise import Replayer, same_failure, shrink
from conformance.fuzz.narrowing import narrow_engine, narrow_provider
from conformance.fuzz.progress import ProgressMeter
from conformance.fuzz.provider_machine import provider_state_machine
from conformance.fuzz.repro import repro_source, write_repro
from conformance.fuzz.scale import run_scale
from conformance.fuzz.session import FuzzSession, SessionOptions
from conformance.fuzz.shards import Shard, Watermark, plan_shards
from conformance.fuzz.shared import Shared
from conformance.fuzz.stats import PAGED_READS, FuzzStats
from conformance.fuzz.steps import FailureSink, Step, program
from conformance.fuzz.storage import kit_storage
from conformance.fuzz.subject import Subject, subject_of
from conformance.fuzz_defaults import DEFAULT_EXAMPLES, DEFAULT_STEPS
from conformance.fuzz_targets import FUZZ_TARGETS, FuzzTarget

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_SHRINK_CALLS",
    "DEFAULT_STEPS",
    "FUZZ_TARGETS",
    "FuzzConfigError",
    "FuzzFailure",
    "FuzzInconclusive",
    "FuzzReport",
    "FuzzTarget",
    "fuzz_settings",
    "run_fuzz",
]

DEFAULT_SHRINK_CALLS: Final = 20_000
"""Driver calls the shrinker may make: a bound by work, never by the clock, so one seed
always gives the same minimal program."""


"""The fuzz targets by id."""


@dataclass
class FuzzReport:
    """What one fuzz run did."""

    target_id: str
    seed: int | None
    """The seed of the run; `None` when derandomized (hypothesis derives it)."""
    derandomized: bool
    examples: int
    """Examples asked for."""
    steps_per_example: int
    oracle: str = "none"
    """`reference`, `empty` (the driver retains nothing), `custom`, or `none` (no probe)."""
    narrowing: list[str] = field(default_factory=list)
    """How the driver's declared constraints (or its own configuration) narrowed what
    was drawn; empty when nothing was."""
    stats: FuzzStats = field(default_factory=FuzzStats, repr=False)
    duration: float = 0.0
    time_to_failure: float | None = None
    """Seconds from the start of the search to its first failure."""
    scale_seconds: float = 0.0
    """Seconds the scale phase took (0 when it did not run)."""
    passed: bool = True
    inconclusive: str | None = None
    failure: str | None = None
    program: list[str] = field(default_factory=list)
    """The shrunk failing programs, as the lines of a regression test's body."""
    repro_path: Path | None = None
    repro_refused: str | None = None
    """Why no regression file was written, when one was asked for and none was."""

    @property
    def runs(self) -> int:
        """Programs run by the search."""
        return self.stats.examples

    @property
    def steps(self) -> int:
        """Steps run by the search."""
        return self.stats.steps

    @property
    def calls(self) -> int:
        """Calls to the driver: search, probes, replays and shrinking together."""
        return self.stats.calls

    @property
    def retries(self) -> int:
        """Retries of transient errors (`Unavailable`), counted like `calls`."""
        return self.stats.retries

    def _programs_note(self) -> str:
        # Hypothesis counts only the draws it keeps toward the budget: one it discards
        # (too long for its buffer, say) ran all the same and is counted here.
        scale = 1 if self.scale_seconds > 0 else 0
        extra = self.runs - self.examples - scale
        note = f"{self.examples} asked"
        if extra > 0:
            note += f", {extra} more in place of draws hypothesis discarded"
        return note + (", 1 scale" if scale else "")

    def summary(self) -> str:
        """One line for the report: programs, steps, seed, oracle, cost, reach."""
        found = "derandomized" if self.seed is None else f"seed {self.seed}"
        median, most = self.stats.peak_sizes()
        crossed = ", ".join(f"{read} {self.stats.crossing_share(read):.0%}" for read in PAGED_READS)
        line = (
            f"{self.runs} programs ({self._programs_note()}), {self.steps} steps, {found}, "
            f"oracle {self.oracle}; "
            f"{self.calls} driver calls ({self.stats.calls_per_step():.2f} per step), "
            f"{self.retries} retries; store size median {median:g}, max {most}; "
            f"programs crossing a page: {crossed}"
        )
        if self.narrowing:
            line += "; narrowed by declared constraints: " + "; ".join(self.narrowing)
        if self.stats.named_refusals:
            line += "; refusals the contract names: " + ", ".join(self.stats.named_refusals)
        return line


class FuzzFailure(ConformanceFailure):
    """The fuzzer found a step sequence on which the driver and the oracle disagree.

    `check_id` is the target id; `call`, `expected` and `got` are those of the failing
    step; the message goes on with the shrunk program, the seed and the regression file
    (or why none was written).
    """

    def __init__(self, failure: ConformanceFailure, report: FuzzReport) -> None:
        super().__init__(failure.check_id, failure.call, failure.expected, failure.got)
        self.failure = failure
        """The failing step's own failure (a `DriverRaised` when the driver raised)."""
        self.report = report
        self.seed = report.seed
        self.program = report.program
        self.repro_path = report.repro_path
        found = "derandomized" if report.seed is None else f"seed {report.seed}"
        lines = [str(failure)]
        if report.program:
            lines += ["", f"Minimal failing program ({found}; fuzz is a FuzzSession):"]
            lines += [f"    {line}" for line in report.program]
        if report.repro_path is not None:
            lines += ["", f"Reproduce with: pytest {report.repro_path}"]
        elif report.repro_refused is not None:
            lines += ["", f"No regression file: {report.repro_refused}"]
        self.args = ("\n".join(lines),)

    def __str__(self) -> str:
        return str(self.args[0])


class FuzzInconclusive(Inconclusive):
    """A fuzz run that could not reach a verdict: a driver call ran past the time limit,
    or the driver stayed unavailable through every retry."""

    def __init__(self, reason: Inconclusive, report: FuzzReport) -> None:
        super().__init__(report.target_id, reason.call, reason.reason)
        self.report = report


def fuzz_settings(examples: int, steps: int, derandomize: bool) -> settings:
    """The hypothesis settings of a fuzz run: generation only (the kit shrinks)."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        derandomize=derandomize,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
    )


def _configure(
    profile: Profile,
    subject: Subject,
    config: EngineFuzzConfig | ProviderFuzzConfig | None,
    run: RunSettings,
) -> tuple[Any, SessionOptions, list[str]]:
    notes: list[str] = []
    chosen = config if config is not None else subject.config
    if config is None and subject.config is not None:
        notes.append(f"the driver's own {profile} fuzz configuration")
    constraints = run.constraints if run.constraints.declared else subject.constraints
    if profile == "engine":
        engine_cfg = chosen if isinstance(chosen, EngineFuzzConfig) else EngineFuzzConfig()
        engine = narrow_engine(engine_cfg, constraints)
        options = SessionOptions(
            settings=run,
            full_every=engine.config.full_every,
            full_page=engine.config.full_page,
            max_pages=engine.config.max_pages,
            fit=engine.fit,
            fit_item=engine.fit_item,
        )
        return engine.config, options, notes + engine.notes
    provider_cfg = chosen if isinstance(chosen, ProviderFuzzConfig) else ProviderFuzzConfig()
    provider = narrow_provider(provider_cfg, constraints)
    options = SessionOptions(
        settings=run,
        full_every=provider.config.full_every,
        fit=provider.fit,
        documents=provider.config.documents,
    )
    return provider.config, options, notes + provider.notes


def run_fuzz(
    target_id: str,
    driver: Any,
    *,
    examples: int | None = None,
    steps: int | None = None,
    seed: int | None = None,
    derandomize: bool = False,
    repro_dir: Path | None = None,
    driver_spec: str | None = None,
    driver_options: Mapping[str, str] | None = None,
    settings: RunSettings | None = None,
    config: EngineFuzzConfig | ProviderFuzzConfig | None = None,
    oracle_factory: Callable[[], Any] | None = None,
    shrink_calls: int | None = None,
) -> FuzzReport:
    """Fuzz `driver` with the target's machine; the report, `FuzzFailure` (with the shrunk
    program, and a regression test in `repro_dir`) or `FuzzInconclusive`.

    `driver` is a `conformance.Driver` (preferred: every instance comes from its
    factory), a zero-argument factory of an engine or provider (a class, say), or an
    engine or provider object (sync or async); anything else is a `TypeError` saying so.
    `settings` are the run's call rules (time limit, retries, credentials to redact,
    declared constraints); `examples` is the programs asked for (default
    `DEFAULT_EXAMPLES`); `steps` caps the steps of one program (default `DEFAULT_STEPS`);
    `shrink_calls` bounds the driver calls made while shrinking (default 20,000).

    `driver_spec`/`driver_options` name how the regression test rebuilds the driver
    (`plugins.registry.resolve_driver`; options whose values are among the settings'
    secrets are read from the environment there); without a spec it is named by its
    class when that takes no arguments. `config` narrows what is generated; an
    `oracle_factory` replaces the reference driver as the oracle (never the empty store
    used for a driver that retains nothing).
    """
    target = FUZZ_TARGETS.get(target_id)
    if target is None:
        known = ", ".join(FUZZ_TARGETS)
        raise ValueError(f"no fuzz target `{target_id}` (known targets: {known})")
    run = settings if settings is not None else RunSettings()
    count = DEFAULT_EXAMPLES if examples is None else examples
    length = DEFAULT_STEPS if steps is None else steps
    if count < 1 or length < 1:
        raise ValueError(
            f"a fuzz run needs at least one example of one step (got {count} x {length})"
        )
    chosen = seed
    if chosen is None and not derandomize:
        chosen = random.SystemRandom().getrandbits(32)
    report = FuzzReport(
        target_id=target_id,
        seed=chosen,
        derandomized=chosen is None,
        examples=count,
        steps_per_example=length,
    )
    subject = subject_of(driver, target.profile, driver_spec)
    cfg, options, report.narrowing = _configure(target.profile, subject, config, run)
    options = dataclasses.replace(options, oracle=oracle_factory)
    started = clock.perf_counter()
    shards = plan_shards(target_id, count, chosen)
    sessions: list[FuzzSession] = []
    try:
        try:
            sessions = _sessions(target_id, subject, options, report, len(shards))
        except ConformanceFailure as probe:
            # A probe that errs is a fault of the driver, not "retains nothing".
            report.passed, report.failure = False, str(probe)
            raise FuzzFailure(
                ConformanceFailure(
                    target_id, f"retention probe: {probe.call}", probe.expected, probe.got
                ),
                report,
            ) from probe
        except Inconclusive as stop:
            report.passed, report.inconclusive = False, str(stop)
            raise FuzzInconclusive(stop, report) from stop
        report.oracle = sessions[0].oracle_name
        _announce(report)
        found = _search(sessions, shards, target.profile, cfg, length, derandomize, report)
        # A budget cut below the default is a quick run: it leaves the scale phase out.
        if found is None and count >= DEFAULT_EXAMPLES:
            scaled = _scale(sessions[0], cfg, chosen, report)
            found = None if scaled is None else (sessions[0], scaled)
        if found is not None:
            report.time_to_failure = clock.perf_counter() - started
            failure = _settle(
                report,
                *found,
                subject,
                options,
                shrink_calls if shrink_calls is not None else DEFAULT_SHRINK_CALLS,
                repro_dir,
                driver_options or {},
                # Every credential value: options holding one are read from the environment.
                (*run.credentials.values(), *run.secrets),
            )
            raise failure
    finally:
        report.duration = clock.perf_counter() - started
        for number, built in enumerate(sessions):
            if number > 0 or subject.built_first:
                built.shutdown()
    return report


def _sessions(
    target_id: str, subject: Subject, options: SessionOptions, report: FuzzReport, shards: int
) -> list[FuzzSession]:
    """One session per shard, each over an instance of its own (the first over the instance
    built first), so a shard's programs meet only its own history, run serially or at
    once; a single session for every shard when the instance was handed over (its class
    may build others otherwise configured), or no fresh one can be built beside it."""
    own = subject.fresh is not None and subject.built_first
    sessions: list[FuzzSession] = []
    for number in range(shards if own else 1):
        instance = subject.first if number == 0 else subject.fresh()  # type: ignore[misc]
        try:
            session = FuzzSession(
                target_id, instance, options, stats=report.stats, sink=FailureSink(), shard=number
            )
        except BaseException:
            for made in sessions[1:]:
                made.shutdown()
            raise
        session.escape = True
        sessions.append(session)
    return sessions


@contextlib.contextmanager
def _patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    # Left alone if a future hypothesis renames what is patched (or what replaces it).
    saved = getattr(owner, name, None)
    if saved is None or value is None:
        yield
        return
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


@contextlib.contextmanager
def _finally(then: Callable[[], None]) -> Iterator[None]:
    try:
        yield
    finally:
        then()


@contextlib.contextmanager
def pinned_generation() -> Iterator[None]:
    """Make a search a function of its seed alone, and every program a fresh draw.

    - Hypothesis mixes literals found in the source of every local module loaded so far
      into what it draws, so one seed drew other programs after the kit imported one
      more module of its own; during a search it draws from its fixed constants only.
    - Between fresh examples hypothesis runs up to five copies of the last one with one
      part duplicated: cheap for a unit test, but every program here costs seconds of a
      remote store's time, and a run of 40 came back as a few families of near-identical
      programs.
    """
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.conjecture.engine import ConjectureRunner

    cache = getattr(providers, "CONSTANTS_CACHE", None)
    clear = getattr(getattr(cache, "cache", None), "clear", lambda: None)
    clear()
    with (
        _patched(providers, "_get_local_constants", getattr(providers, "Constants", None)),
        _patched(ConjectureRunner, "generate_mutations_from", lambda self, data: None),
    ):
        try:
            yield
        finally:
            clear()


def _announce(report: FuzzReport) -> None:
    found = "derandomized" if report.seed is None else f"seed {report.seed}"
    print(
        f"[tinymemory fuzz] {report.target_id}: {found}, {report.examples} examples x "
        f"{report.steps_per_example} steps, oracle {report.oracle}"
    )
    for note in report.narrowing:
        print(f"[tinymemory fuzz]   narrowed: {note}")


def _scale(
    session: FuzzSession, cfg: Any, chosen: int | None, report: FuzzReport
) -> ConformanceFailure | None:
    """The scale phase (`conformance.fuzz.scale`) after a search that passed: its
    failure, or `None`."""
    size = getattr(cfg, "scale_items", None) or getattr(cfg, "scale_rows", None) or 0
    if size <= 0 or not session.retains:
        return None
    started = clock.perf_counter()
    meter = ProgressMeter(report.target_id, "scale", size)
    meter.tick(0)
    try:
        with session.program() as program, _finally(lambda: meter.tick(0, final=True)):
            run_scale(program, size, (chosen or 0) % 2**16)
    except FoundFailure as found:
        return found.failure
    except Abandoned as abandoned:
        report.passed, report.inconclusive = False, str(abandoned.reason)
        raise FuzzInconclusive(abandoned.reason, report) from None
    finally:
        report.scale_seconds = clock.perf_counter() - started
    return None


class _Outranked(BaseException):
    """Ends a shard's search once a shard before it has ended with a verdict."""


class _ShardEnded(Exception):
    """A shard's failure, carried through `each` (which raises the first shard's)."""

    def __init__(self, session: FuzzSession, failure: ConformanceFailure) -> None:
        super().__init__(failure)
        self.session, self.failure = session, failure


def _search(
    sessions: list[FuzzSession],
    shards: list[Shard],
    profile: Profile,
    cfg: Any,
    length: int,
    derandomize: bool,
    report: FuzzReport,
) -> tuple[FuzzSession, ConformanceFailure] | None:
    """Run the search, shard by shard or several at once (`conformance.fuzz.shards`); the
    first failing shard's session and failure, or `None` when every program passed."""
    meter = ProgressMeter(report.target_id, "search", report.examples)
    ended = Watermark()
    # Each shard has a session of its own, or one serves them all, one shard at a time.
    own = len(sessions) == len(shards)

    def one(shard: Shard) -> None:
        session = sessions[shard.index if own else 0]
        try:
            failure = _search_shard(session, profile, cfg, shard, length, derandomize, meter, ended)
        except BaseException:
            ended.lower(shard.index)
            raise
        if failure is not None:
            ended.lower(shard.index)
            raise _ShardEnded(session, failure)

    with (
        _SEARCHING.entered(),
        _finally(lambda: meter.tick(report.stats.examples, report.stats.steps, final=True)),
    ):
        try:
            if own:
                # Ranked as the calls its programs typically make (a couple a step).
                each(one, shards, cost=2 * report.examples * length)
            else:
                for shard in shards:
                    one(shard)
        except _ShardEnded as first:
            return first.session, first.failure
        except Abandoned as abandoned:
            report.passed, report.inconclusive = False, str(abandoned.reason)
            raise FuzzInconclusive(abandoned.reason, report) from None
        except FuzzConfigError:
            raise
        except Exception as exc:
            # Hypothesis itself gave up (or the kit broke) before any step failed.
            report.passed = False
            failure = ConformanceFailure(
                report.target_id,
                "the fuzz run",
                "a completed run",
                f"{type(exc).__qualname__}: {exc}",
            )
            report.failure = str(failure)
            raise FuzzFailure(failure, report) from exc
    return None


def _search_shard(
    session: FuzzSession,
    profile: Profile,
    cfg: Any,
    shard: Shard,
    length: int,
    derandomize: bool,
    meter: ProgressMeter,
    ended: Watermark,
) -> ConformanceFailure | None:
    """Run one shard's search; its first failure, or `None` when every program passed."""
    machine = engine_state_machine(cfg) if profile == "engine" else provider_state_machine(cfg)
    stats = session.stats

    def factory() -> Any:
        # Called once per program: the programs opened so far have run.
        if ended.outranks(shard.index):
            raise _Outranked
        meter.tick(stats.examples, stats.steps)
        if shard.index > 0 and not shard.rehearsed:
            # Hypothesis draws the simplest program first, in every search alike.
            shard.rehearsed = True
            return machine(cast(Any, session.rehearsal()))
        return machine(cast(Any, session.open()))

    if shard.seed is not None:
        factory = hypothesis_seed(shard.seed)(factory)
    try:
        # Any callable returning a machine will do, as hypothesis documents; its stub
        # asks for a class.
        run_state_machine_as_test(
            cast(Any, factory),
            settings=fuzz_settings(shard.examples, length, derandomize and shard.seed is None),
        )
    except _Outranked:
        return None
    except FoundFailure as found:
        return found.failure
    return None


@contextlib.contextmanager
def _search_setting() -> Iterator[None]:
    with pinned_generation(), kit_storage():
        yield


_SEARCHING = Shared(_search_setting)
"""Hypothesis as every search runs it, shared by searches on several threads at once."""


def _render(programs: list[list[Step]]) -> list[str]:
    lines: list[str] = []
    history = len(programs) - 1
    for number, steps in enumerate(programs, start=1):
        note = f"  # history: program {number} of {history}" if number <= history else ""
        lines.append(f"with fuzz.program() as m:{note}")
        lines += [f"    {line}" for line in program(steps) or ["pass"]]
    return lines


def _settle(
    report: FuzzReport,
    session: FuzzSession,
    found: ConformanceFailure,
    subject: Subject,
    options: SessionOptions,
    budget: int,
    repro_dir: Path | None,
    driver_options: Mapping[str, str],
    secrets: Collection[str],
) -> FuzzFailure:
    """Replay, shrink, attribute and write the failure `session` found; the `FuzzFailure`."""
    report.passed = False
    sink = session.sink
    recorded = sink.failure() if sink is not None else None
    steps: list[Step] = recorded[0] if recorded is not None else []
    history = session.history[: max(sink.index, 0)] if sink is not None else []
    programs: list[list[Step]] = [steps]
    failure = found
    every = options.full_every
    refused: str | None = None
    if subject.fresh is None:
        refused = (
            "the fuzzer cannot build a fresh instance of the driver (it was handed an "
            "object whose class takes arguments), so the failure was neither replayed nor "
            "shrunk; pass a conformance.Driver or a factory to run_fuzz"
        )
    else:
        meter = ProgressMeter(report.target_id, "shrink", budget)
        replayer = Replayer(
            report.target_id,
            subject.fresh,
            options,
            report.stats,
            budget,
            progress=lambda left: meter.tick(budget - left),
        )

        again = replayer.run(programs)
        if not (again.failure is not None and same_failure(again.failure, found)):
            again = replayer.run([*history, steps]) if history else again
            if again.failure is not None and same_failure(again.failure, found):
                programs = [*history, steps]
            else:
                refused = _unreliable(len(history), again.failure, again.inconclusive)
                failure = ConformanceFailure(
                    found.check_id,
                    found.call,
                    found.expected,
                    f"{found.got} (unreliable: it did not fail again on a fresh instance)",
                )
        if refused is None:
            meter.tick(0)
            with _finally(lambda: meter.tick(budget - max(replayer.budget, 0), final=True)):
                programs, failure = shrink(replayer, programs, found)
            attributed = replayer.run(programs, full_every=1)
            if attributed.failure is not None:
                failure, every = attributed.failure, 1
    report.failure = str(failure)
    report.program = _render(programs)
    if repro_dir is not None and refused is None:
        if subject.spec is None:
            refused = (
                "the fuzzer cannot name the driver for a regression file: pass a "
                "driver_spec (an entry point name or module:attr) to run_fuzz"
            )
        else:
            name, source = repro_source(
                report.target_id,
                programs,
                str(failure),
                seed=report.seed,
                driver_spec=subject.spec,
                driver_options=driver_options,
                secrets=secrets,
                full_every=every,
            )
            report.repro_path = write_repro(repro_dir, name, source)
    report.repro_refused = refused
    return FuzzFailure(failure, report)


def _unreliable(history: int, failure: ConformanceFailure | None, stop: Inconclusive | None) -> str:
    earlier = (
        f", even after replaying the {history} programs the fuzzer ran before it on the "
        "same instance"
        if history
        else ""
    )
    how = "it passed"
    if failure is not None:
        how = f"it failed otherwise, at {failure.call}"
    elif stop is not None:
        how = f"the replay was inconclusive: {stop.reason}"
    return (
        f"the program did not fail again on a fresh instance{earlier} ({how}); the fault "
        "depends on something the fuzzer does not record (time, randomness, state outside "
        "the instance), so a regression test would pass against the broken driver"
    )
