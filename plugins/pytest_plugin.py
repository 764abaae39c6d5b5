"""The pytest plugin: `pytest --driver=NAME` adds one test item per conformance check.

Without `--driver` (on the command line or in `[tool.tinymemory]`) it does nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from plugins.settings import SettingsError, merge, parse_option_pairs, read_pyproject

if TYPE_CHECKING:
    from plugins.run import KitRun

# The suites load only when a driver is asked for: a project that merely has the kit
# installed pays for this module, not for the contract's models.
KIT: pytest.StashKey[KitRun] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tinymemory", "TinyMemory conformance")
    group.addoption(
        "--driver",
        help="driver to hold to the contract: an entry-point name of "
        "the group tinymemory.drivers, package.module:attr, or exec:COMMAND (a process "
        "speaking the driver protocol, docs/protocol.md)",
    )
    group.addoption(
        "--driver-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option for the driver (repeatable)",
    )
    group.addoption(
        "--profile",
        choices=("engine", "provider", "all"),
        help="which profile's checks to run (default: all the driver offers)",
    )
    group.addoption(
        "--conformance-report",
        metavar="PATH",
        help="write the JSON report here, and a Markdown summary beside it",
    )
    group.addoption("--waivers", metavar="PATH", help="TOML file of waived check ids")
    group.addoption(
        "--driver-timeout",
        type=float,
        metavar="SECONDS",
        help="per-call time limit; a call past it makes its check inconclusive "
        "(default 60; 0 disables)",
    )
    group.addoption(
        "--driver-retries",
        type=int,
        metavar="N",
        help="retries of a transient (Unavailable) error, with backoff (default 3)",
    )
    group.addoption(
        "--fuzz",
        action="store_true",
        default=None,
        help="also run the property-based fuzzing items",
    )
    group.addoption(
        "--fuzz-examples", type=int, metavar="N", help="programs per fuzz target (default 100)"
    )
    group.addoption(
        "--fuzz-seed",
        type=int,
        metavar="N",
        help="seed of the fuzz run (default: random, printed; derandomised when CI is set)",
    )
    group.addoption(
        "--fuzz-repro-dir",
        metavar="DIR",
        help="write each fuzz failure here as a standalone pytest regression test",
    )


def _usage_error(what: str, exc: Exception, hint: str) -> pytest.UsageError:
    return pytest.UsageError(f"tinymemory: {what}: {exc}\n{hint}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tinymemory: a TinyMemory conformance check")
    try:
        cli = {
            "driver": config.getoption("driver"),
            "driver-options": parse_option_pairs(config.getoption("driver_option") or []),
            "profile": config.getoption("profile"),
            "conformance-report": config.getoption("conformance_report"),
            "waivers": config.getoption("waivers"),
            "driver-timeout": config.getoption("driver_timeout"),
            "driver-retries": config.getoption("driver_retries"),
            "fuzz": config.getoption("fuzz"),
            "fuzz-examples": config.getoption("fuzz_examples"),
            "fuzz-seed": config.getoption("fuzz_seed"),
            "fuzz-repro-dir": config.getoption("fuzz_repro_dir"),
        }
        table, folder = read_pyproject(Path(config.invocation_params.dir))
        settings = merge(table, cli, folder)
    except (SettingsError, ValueError) as exc:
        raise _usage_error("bad settings", exc, "Fix the option or [tool.tinymemory].") from exc
    if not settings.driver:
        return
    from conformance.checks.catalogue import all_checks
    from conformance.driver import DriverError
    from conformance.report import redact_options
    from plugins.pytest_items import RunHooks
    from plugins.run import KitRun
    from plugins.waivers import WaiverError, load_waivers

    known = {c.id for c in all_checks()}
    try:
        waivers = load_waivers(settings.waivers, known) if settings.waivers else {}
    except WaiverError as exc:
        raise _usage_error("bad waivers", exc, "Fix the waiver file, then run again.") from exc
    try:
        run = KitRun.start(settings, waivers)
    except DriverError as exc:
        shown = redact_options(settings.driver_options)
        raise _usage_error(
            f"cannot use driver `{settings.driver}` (options {shown})",
            exc,
            "`tinymemory-conformance drivers` lists the installed drivers; a driver is "
            "announced by an entry point in the group tinymemory.drivers, or named as "
            "--driver=package.module:attr.",
        ) from exc
    config.stash[KIT] = run
    config.pluginmanager.register(RunHooks(run, config), "tinymemory-run")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    run = config.stash.get(KIT, None)
    if run is None:
        return
    from plugins.pytest_items import add_items

    add_items(session, run, items)


def _run_or_skip(request: pytest.FixtureRequest) -> KitRun:
    run = request.config.stash.get(KIT, None)
    if run is None:
        pytest.skip("no --driver given")
    return run


def _profile_or_skip(request: pytest.FixtureRequest, profile: str) -> Any:
    from conformance.driver import ProfileNotOffered

    try:
        return _run_or_skip(request).profile_object(profile)
    except ProfileNotOffered as exc:
        pytest.skip(str(exc))


@pytest.fixture
def memory_driver(request: pytest.FixtureRequest) -> Any:
    """The `conformance.Driver` named by `--driver` (skips when none was given)."""
    return _run_or_skip(request).driver


@pytest.fixture
def memory_engine(request: pytest.FixtureRequest) -> Any:
    """The run's engine, behind a synchronous face (skips when the driver offers none)."""
    return _profile_or_skip(request, "engine")


@pytest.fixture
def memory_provider(request: pytest.FixtureRequest) -> Any:
    """The run's provider, behind a synchronous face (skips when the driver offers none)."""
    return _profile_or_skip(request, "provider")
