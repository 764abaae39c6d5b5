"""Starting a run inside pytest: everything that can be refused is refused here, in one
line and before any check runs; a driver that cannot be built still leaves a report."""

from __future__ import annotations

import contextlib
import dataclasses
import sys

import pytest

from conformance.checks.catalogue import all_checks
from conformance.checks.seeds import new_seed
from conformance.driver import Driver, DriverError
from conformance.fuzz_targets import FUZZ_TARGETS
from conformance.interrupts import InterruptWatch
from conformance.redaction import Redactor
from conformance.report import redact_text, secret_values
from plugins.driver_output import Captured, OutputLog, captured_descriptors, log_path, trimmed
from plugins.hypothesis_summary import SparesHypothesisSummary
from plugins.ledger import Ledger
from plugins.pytest_items import RunHooks, suite_nodeid
from plugins.report_file import write_report
from plugins.run import KitRun, ProcessFacts
from plugins.run_pace import ControllerPace, RunPace
from plugins.settings import KitSettings
from plugins.waivers import Waiver, WaiverError, load_waivers
from plugins.xdist_support import (
    ControllerHooks,
    Role,
    role_of,
    seed_from_controller,
    worker_id,
)


def _refuse(message: str, settings: KitSettings) -> pytest.UsageError:
    return pytest.UsageError(
        f"tinymemory: {redact_text(message, secret_values(settings.driver_options))}"
    )


def _write_error(ledger: Ledger, facts: ProcessFacts) -> None:
    """Leave a report saying the driver could not be used (the CI job publishes it)."""
    ledger.facts.append(facts)
    if ledger.settings.report is None:
        return
    # The usage error that follows says what went wrong; the report is a courtesy.
    with contextlib.suppress(OSError):
        write_report(ledger.settings.report, ledger.report())


def _prepare(
    settings: KitSettings, waivers: dict[str, Waiver], seed: int, role: Role, worker: str
) -> tuple[KitRun, Ledger]:
    """Resolve the driver, write the first report, and build the driver where checks run."""
    try:
        run = KitRun.resolve(settings, waivers, seed, worker)
    except DriverError as exc:
        assert settings.driver is not None
        ledger = Ledger(settings, Driver(name=settings.driver), seed)
        if role != "worker":
            _write_error(ledger, ProcessFacts(worker, build_error=str(exc)))
        raise _refuse(f"cannot use driver `{settings.driver}`: {exc}", settings) from exc
    ledger = Ledger(settings, run.driver, seed)
    if role != "worker" and settings.report is not None:
        # Written now, so an unwritable path is refused before any check runs, and a run
        # killed half-way leaves a report that says it never finished.
        try:
            write_report(settings.report, ledger.report(finished=False))
        except OSError as exc:
            raise _refuse(
                f"cannot write the report to {settings.report}: {exc.strerror or exc}", settings
            ) from exc
    if role != "controller":
        try:
            run.build()
        except DriverError as exc:
            if role == "main":
                run.close()
                _write_error(ledger, run.facts)
                raise _refuse(f"{exc} (on {worker})", settings) from exc
            # On an xdist worker the collection reports it, and the controller's verdict
            # is `error`, naming the worker.
    return run, ledger


def _show_build_output(output: Captured, redactor: Redactor, log: OutputLog, name: str) -> None:
    """Keep what the driver wrote while it was loaded and built in the log, and say so in
    one line (with its first and last lines when no log keeps it)."""
    for stream, text in (("stdout", output.out), ("stderr", output.err)):
        if not text:
            continue
        shown = redactor.text(text)
        log.append(f"driver `{name}`, while it was loaded and built: {stream}", shown)
        lines = len(shown.splitlines())
        kept = f"kept whole in {log.path}" if log.path is not None else "its start and end:"
        print(
            f"tinymemory: driver `{name}` wrote {lines} lines ({len(shown)} characters) on "
            f"{stream} while it was loaded and built; {kept}",
            file=sys.stderr,
        )
        if log.path is None:
            sys.stderr.write(trimmed(shown, None))
        sys.stderr.flush()


def start_run(config: pytest.Config, settings: KitSettings) -> None:
    """Check the settings, resolve the driver and (where checks run) build it, then
    register the run's hooks; `pytest.UsageError` for anything that makes a run pointless."""
    from plugins.pytest_plugin import KIT

    if config.getoption("collectonly", False):
        settings = dataclasses.replace(settings, report=None)
    role = role_of(config)
    worker = worker_id(config)
    try:
        waivers = (
            load_waivers(settings.waivers, {c.id for c in all_checks()} | set(FUZZ_TARGETS))
            if settings.waivers
            else {}
        )
    except WaiverError as exc:
        raise _refuse(str(exc), settings) from exc
    seed = seed_from_controller(config)
    if seed is None:
        seed = settings.seed if settings.seed is not None else new_seed()
    # What the driver writes while it is imported and built goes to the run's log, not
    # to the terminal (an xdist worker's output is xdist's to handle).
    log = OutputLog(None if settings.report is None else log_path(settings.report))
    capture = captured_descriptors() if role != "worker" else contextlib.nullcontext(Captured())
    output = Captured()
    redactor = Redactor.from_options(dict(settings.driver_options))
    name = settings.driver or ""
    try:
        with capture as output:
            run, ledger = _prepare(settings, waivers, seed, role, worker)
            redactor, name = run.redactor, run.driver.name
    finally:
        if role != "worker":
            log.start()
            _show_build_output(output, redactor, log, name)
    watch = InterruptWatch()
    watch.start()
    config.stash[KIT] = run
    config.pluginmanager.register(RunHooks(run, ledger, config, role, watch), "tinymemory-run")
    config.pluginmanager.register(SparesHypothesisSummary(), "tinymemory-no-hypothesis-summary")
    if role == "controller":
        config.pluginmanager.register(
            ControllerHooks(ledger, suite_nodeid(run)), "tinymemory-controller"
        )
    if role != "worker":
        pace = ControllerPace if role == "controller" else RunPace
        config.pluginmanager.register(pace(config, suite_nodeid(run)), "tinymemory-pace")
