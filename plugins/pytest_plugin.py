"""The pytest plugin: `pytest --driver=NAME` adds one test item per conformance check.

Without `--driver` on the command line it reads only the nearest pyproject.toml that
mentions `tinymemory`, to learn whether `[tool.tinymemory]` sets `driver`; unless it
does, the plugin does nothing (an unreadable file, or a table with unknown keys, is a
warning, never an error).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from plugins.settings import (
    SETTINGS,
    SettingsError,
    add_flags,
    driver_asked,
    inert_note,
    merge,
    parse_option_pairs,
    read_pyproject,
)

if TYPE_CHECKING:
    from plugins.run import KitRun

# The suites load only when a driver is asked for: a project that merely has the kit
# installed pays for this module, not for the contract's models.
KIT: pytest.StashKey[KitRun] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tinymemory", "TinyMemory conformance")
    add_flags(group.addoption)


def _cli_values(config: pytest.Config) -> dict[str, Any]:
    values = {s.key: config.getoption(s.dest) for s in SETTINGS if not s.repeatable}
    values["driver-options"] = config.getoption("driver_option") or []
    return values


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tinymemory: a TinyMemory conformance check")
    cli = _cli_values(config)
    file = read_pyproject(Path(config.invocation_params.dir))
    if not driver_asked(cli, file):
        note = inert_note(file)
        if note is not None:
            # Not asked for, so not in the way: the project's pytest runs as it would
            # without the kit, and only hears what it may have meant.
            config.issue_config_time_warning(
                pytest.PytestConfigWarning(f"tinymemory: {note}; no conformance run"),
                stacklevel=2,
            )
        return
    try:
        cli["driver-options"] = parse_option_pairs(cli["driver-options"])
        settings = merge(file, cli)
    except SettingsError as exc:
        raise pytest.UsageError(f"tinymemory: {exc}") from exc
    from plugins.session import start_run

    start_run(config, settings)


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
