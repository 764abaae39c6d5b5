"""Running a fuzz target against one driver: the API the pytest plugin calls.

``run_fuzz(target_id, driver)`` probes whether the driver retains writes, picks the
oracle (the reference driver, or an empty store), and runs the profile's state
machine under a settings profile: ``examples`` examples of up to ``steps`` steps,
no deadline, no example database (the reproduction file is the durable replay),
health checks off, one bug reported. The seed is chosen at random unless given or
``derandomize`` is set; it is printed and returned.

On failure it raises ``FuzzFailure`` carrying the shrunk program, and, when
``repro_dir`` is given, writes it there as a standalone pytest regression test.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

from hypothesis import HealthCheck, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import run_state_machine_as_test

from conformance.bridge import as_sync
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import engine_retains_writes
from conformance.checks.outcome import ConformanceFailure
from conformance.checks.provider_support import provider_retains_writes
from conformance.driver import Profile
from conformance.fuzz.config import EngineFuzzConfig, ProviderFuzzConfig
from conformance.fuzz.differential import Differential, FuzzConfigError, FuzzStats
from conformance.fuzz.engine_machine import (
    ENGINE_TARGET,
    EngineDifferential,
    engine_oracle,
    engine_state_machine,
)
from conformance.fuzz.minimise import minimise
from conformance.fuzz.provider_machine import (
    PROVIDER_TARGET,
    ProviderDifferential,
    provider_oracle,
    provider_state_machine,
)
from conformance.fuzz.repro import driver_spec_of, write_repro
from conformance.fuzz.steps import FailureSink, program

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_SHRINK_SECONDS",
    "DEFAULT_STEPS",
    "FUZZ_TARGETS",
    "FuzzFailure",
    "FuzzReport",
    "FuzzTarget",
    "fuzz_settings",
    "run_fuzz",
    "shrink_budget",
]

DEFAULT_EXAMPLES: Final = 100
"""Examples (programs) per run unless `examples` says otherwise."""

DEFAULT_STEPS: Final = 30
"""Most steps of one program."""

DEFAULT_SHRINK_SECONDS: Final = 20.0
"""How long each of the two shrinking phases (hypothesis's, then the kit's replay of the
log) may take before the smallest program so far is reported."""


@contextlib.contextmanager
def shrink_budget(seconds: float) -> Iterator[None]:
    """Cap how long hypothesis shrinks a failure, for the duration of the block.

    Hypothesis finds a failing program in well under a second here, then may shrink it
    for minutes (its own cap is 300 s); the cap is a module constant of its engine, read
    when a run starts. Left alone if a future hypothesis renames it.
    """
    from hypothesis.internal.conjecture import engine

    name = "MAX_SHRINKING_SECONDS"
    if not hasattr(engine, name):
        yield
        return
    saved = getattr(engine, name)
    setattr(engine, name, seconds)
    try:
        yield
    finally:
        setattr(engine, name, saved)


@dataclass(frozen=True)
class FuzzTarget:
    """One fuzz target: its stable id, the profile it drives, and what it enforces."""

    id: str
    profile: Profile
    title: str
    clause: str


FUZZ_TARGETS: Final[Mapping[str, FuzzTarget]] = {
    ENGINE_TARGET: FuzzTarget(
        ENGINE_TARGET,
        "engine",
        "Random operation sequences agree with the reference engine",
        (
            "items-and-fingerprints.md#fingerprint, "
            "engine-operations.md#store-replay, engine-operations.md#store-many, "
            "engine-operations.md#list, engine-operations.md#fetch, "
            "engine-operations.md#recall, engine-operations.md#get, "
            "engine-operations.md#explore, engine-operations.md#forget-ids, "
            "engine-operations.md#forget-filter, cursors.md#cursor-progress, "
            "errors.md#refusals-change-nothing, kit-choices.md#opaque-ids, "
            "kit-choices.md#retention-probe, kit-choices.md#isolation"
        ),
    ),
    PROVIDER_TARGET: FuzzTarget(
        PROVIDER_TARGET,
        "provider",
        "Random operation sequences agree with the reference provider",
        (
            "provider-families.md#core-store, provider-families.md#core-round-trip, "
            "provider-families.md#core-forget, provider-families.md#core-list, "
            "provider-families.md#core-namespaces, provider-families.md#recall, "
            "provider-families.md#taint, provider-families.md#portability-import, "
            "provider-families.md#sections-preserved, "
            "errors.md#refusals-change-nothing, kit-choices.md#namespace-none, "
            "kit-choices.md#retention-probe, kit-choices.md#isolation"
        ),
    ),
}
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
    oracle: str
    """`reference`, `empty` (the driver retains nothing) or `custom`."""
    runs: int = 0
    """Programs actually run, shrinking included."""
    steps: int = 0
    """Steps actually run."""
    duration: float = 0.0
    passed: bool = True
    failure: str | None = None
    program: list[str] = field(default_factory=list)
    """The shrunk failing program, one call per line."""
    repro_path: Path | None = None


class FuzzFailure(ConformanceFailure):
    """The fuzzer found a step sequence on which the driver and the oracle disagree.

    `check_id` is the target id; `call`, `expected` and `got` are those of the failing
    step; the message goes on with the shrunk program, the seed and the repro file.
    """

    def __init__(self, failure: ConformanceFailure, report: FuzzReport) -> None:
        super().__init__(failure.check_id, failure.call, failure.expected, failure.got)
        self.report = report
        self.seed = report.seed
        self.program = report.program
        self.repro_path = report.repro_path
        found = "derandomized" if report.seed is None else f"seed {report.seed}"
        lines = [str(failure), "", f"Minimal failing program ({found}; m is the differential):"]
        lines += [f"    {line}" for line in report.program]
        lines.append("    m.teardown()")
        if report.repro_path is not None:
            lines += ["", f"Reproduce with: pytest {report.repro_path}"]
        self.args = ("\n".join(lines),)

    def __str__(self) -> str:
        return str(self.args[0])


def fuzz_settings(examples: int, steps: int, derandomize: bool) -> settings:
    """The hypothesis settings of a fuzz run."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
    )


def _retains(profile: Profile, driver: Any, target_id: str) -> bool:
    ctx = CheckContext(f"{target_id}.retention_probe")
    if profile == "engine":
        return engine_retains_writes(driver, ctx)
    return provider_retains_writes(driver, ctx)


def run_fuzz(
    target_id: str,
    driver_object: Any,
    *,
    examples: int | None = None,
    seed: int | None = None,
    derandomize: bool = False,
    repro_dir: Path | None = None,
    driver_spec: str | None = None,
    driver_options: dict[str, str] | None = None,
    steps: int | None = None,
    shrink_seconds: float | None = None,
    config: EngineFuzzConfig | ProviderFuzzConfig | None = None,
    oracle_factory: Callable[[], Any] | None = None,
) -> FuzzReport:
    """Fuzz `driver_object` (sync or async) with the target's machine; the report, or
    `FuzzFailure` (with the shrunk program, and a regression test in `repro_dir`).

    `steps` caps the steps of one program (default 30); `shrink_seconds` how long a
    failure is shrunk (default 30 s).

    `driver_spec`/`driver_options` name how the regression test rebuilds the driver
    (`plugins.registry.resolve_driver`); without them it is named by its class when that
    is importable and takes no arguments. `config` narrows what is generated; an
    `oracle_factory` replaces the reference driver as the oracle (never the empty store
    used for a driver that retains nothing).
    """
    target = FUZZ_TARGETS.get(target_id)
    if target is None:
        known = ", ".join(FUZZ_TARGETS)
        raise ValueError(f"no fuzz target `{target_id}` (known targets: {known})")
    driver = as_sync(driver_object)
    count = DEFAULT_EXAMPLES if examples is None else examples
    length = DEFAULT_STEPS if steps is None else steps
    chosen = seed
    if chosen is None and not derandomize:
        chosen = random.SystemRandom().getrandbits(32)
    try:
        retains = _retains(target.profile, driver, target_id)
    except ConformanceFailure as probe:
        # A probe that errs is a fault of the driver, not "retains nothing".
        failed = FuzzReport(
            target_id=target_id,
            seed=chosen,
            derandomized=chosen is None,
            examples=count,
            steps_per_example=length,
            oracle="none",
            passed=False,
            failure=str(probe),
        )
        raise FuzzFailure(
            ConformanceFailure(
                target_id, f"retention probe: {probe.call}", probe.expected, probe.got
            ),
            failed,
        ) from probe
    if not retains:
        make_oracle: Callable[[], Any] = lambda: (  # noqa: E731
            engine_oracle(False) if target.profile == "engine" else provider_oracle(False)
        )
        oracle_name = "empty"
    elif oracle_factory is not None:
        make_oracle, oracle_name = oracle_factory, "custom"
    else:
        make_oracle = lambda: (  # noqa: E731
            engine_oracle(True) if target.profile == "engine" else provider_oracle(True)
        )
        oracle_name = "reference"
    report = FuzzReport(
        target_id=target_id,
        seed=chosen,
        derandomized=chosen is None,
        examples=count,
        steps_per_example=length,
        oracle=oracle_name,
    )
    print(
        f"[tinymemory fuzz] {target_id}: "
        f"{'derandomized' if chosen is None else f'seed {chosen}'}, "
        f"{count} examples x {length} steps, oracle {oracle_name}"
    )
    sink = FailureSink()
    stats = FuzzStats()
    make, machine = _differentials(target.profile, driver, make_oracle, retains, config)

    def factory() -> Any:
        return machine(make(sink, stats))

    if chosen is not None:
        factory = hypothesis_seed(chosen)(factory)
    budget = DEFAULT_SHRINK_SECONDS if shrink_seconds is None else shrink_seconds
    started = time.perf_counter()
    try:
        with shrink_budget(budget):
            # Any callable returning a machine will do, as hypothesis documents; its stub
            # asks for a class.
            run_state_machine_as_test(
                cast(Any, factory), settings=fuzz_settings(count, length, derandomize)
            )
    except FuzzConfigError:
        raise
    except Exception as exc:
        report.runs, report.steps, report.passed = stats.examples, stats.steps, False
        failure = _failure(
            target,
            report,
            sink,
            exc,
            lambda: make(None, None),
            budget,
            repro_dir,
            driver_spec or driver_spec_of(driver_object),
            driver_options,
        )
        report.duration = time.perf_counter() - started
        raise failure from exc
    report.duration = time.perf_counter() - started
    report.runs, report.steps = stats.examples, stats.steps
    return report


def _differentials(
    profile: Profile,
    driver: Any,
    make_oracle: Callable[[], Any],
    retains: bool,
    config: EngineFuzzConfig | ProviderFuzzConfig | None,
) -> tuple[Callable[[FailureSink | None, FuzzStats | None], Differential], type[Any]]:
    """How to make a fresh differential (with or without a sink), and the machine class."""
    if profile == "engine":
        engine_cfg = config if isinstance(config, EngineFuzzConfig) else EngineFuzzConfig()

        def engine(sink: FailureSink | None, stats: FuzzStats | None) -> Differential:
            return EngineDifferential(
                driver,
                make_oracle(),
                retains=retains,
                list_page=engine_cfg.list_page,
                ctx=CheckContext(ENGINE_TARGET),
                sink=sink,
                stats=stats,
            )

        return engine, engine_state_machine(engine_cfg)
    provider_cfg = config if isinstance(config, ProviderFuzzConfig) else ProviderFuzzConfig()

    def provider(sink: FailureSink | None, stats: FuzzStats | None) -> Differential:
        return ProviderDifferential(
            driver,
            make_oracle(),
            retains=retains,
            export_page=provider_cfg.export_page,
            ctx=CheckContext(PROVIDER_TARGET),
            sink=sink,
            stats=stats,
        )

    return provider, provider_state_machine(provider_cfg)


def _failure(
    target: FuzzTarget,
    report: FuzzReport,
    sink: FailureSink,
    exc: Exception,
    make: Callable[[], Differential],
    budget: float,
    repro_dir: Path | None,
    driver_spec: str | None,
    driver_options: Mapping[str, str] | None,
) -> FuzzFailure:
    recorded = sink.failure()
    if recorded is None:
        # Hypothesis itself gave up (or the kit broke) before any step failed.
        failure = ConformanceFailure(
            target.id, "the fuzz run", "a completed run", f"{type(exc).__qualname__}: {exc}"
        )
        steps: list[Any] = []
    else:
        steps, failure = recorded
        if sink.final is None:
            failure = ConformanceFailure(
                failure.check_id,
                failure.call,
                failure.expected,
                f"{failure.got} (unreliable: the shrunk example did not fail again)",
            )
        else:
            steps, failure = minimise(make, steps, failure, seconds=budget)
    report.failure = str(failure)
    report.program = program(steps)
    if repro_dir is not None and recorded is not None:
        report.repro_path = write_repro(
            repro_dir,
            target.id,
            target.profile,
            steps,
            failure,
            seed=report.seed,
            driver_spec=driver_spec,
            driver_options=driver_options,
        )
    return FuzzFailure(failure, report)
