"""Where a driver raised: the trace of its own frames, whichever way the kit called it;
and which owner an inconclusive check names once every check has run."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from conformance.checks.blame import base_outcomes, blame
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import DriverRaised
from conformance.checks.runner import run_provider_suite
from conformance.checks.traces import driver_trace
from conformance.provider import MemoryCategory, MemoryEntry
from reference_driver.provider import ReferenceProvider
from tests.async_wrappers import AsyncOver

FAST = RunSettings(timeout=10.0, retries=0)
CHECK = "provider.list_filters_narrow"


class AsyncListCallsTheCategory(AsyncOver):
    """An `async def` provider whose `list` calls an entry's category."""

    def __init__(self) -> None:
        super().__init__(ReferenceProvider())

    async def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        rows = await super().list(namespace, category, session_id)
        return [r for r in rows if r.category()]  # type: ignore[operator]


def test_an_async_drivers_trace_starts_at_its_own_coroutine() -> None:
    result = run_provider_suite(AsyncListCallsTheCategory(), FAST, only=[CHECK])[CHECK]
    assert result.outcome == "failed"
    assert result.trace is not None
    files = [line for line in result.trace.splitlines() if line.startswith('  File "')]
    # The event loop and the kit's bridge to it are not where the driver raised.
    assert files and all(Path(__file__).name in line for line in files)
    assert result.trace.endswith("TypeError: 'MemoryCategory' object is not callable\n")
    assert result.full_trace is not None and "conformance/bridge.py" in result.full_trace


def test_an_error_with_no_frame_of_the_drivers_has_no_trace() -> None:
    # As a driver process's error arriving over the driver protocol, raised where no
    # Python frame is the driver's (here a builtin the kit calls): no trace to show.
    ctx = CheckContext(CHECK, FAST)
    with pytest.raises(DriverRaised) as raised:
        ctx.call("int('x')", int, ("x",))
    assert driver_trace(raised.value.error, str) is None


def test_blame_names_only_an_owner_that_failed() -> None:
    owners = ["provider.list_filters_narrow", "provider.listing_holds_at_volume"]
    ran = {"provider.list_filters_narrow": "passed", "provider.listing_holds_at_volume": "failed"}
    assert blame(owners, ran) == "(see provider.listing_holds_at_volume)"
    assert blame(owners, {"provider.list_filters_narrow": "passed"}) == (
        "(no check testing this operation failed: provider.list_filters_narrow passed, "
        "provider.listing_holds_at_volume did not run)"
    )
    assert blame(owners[:1], {}) == (
        "(provider.list_filters_narrow, which tests this operation, did not run)"
    )


def test_a_check_run_per_mode_fails_if_any_mode_failed() -> None:
    merged = base_outcomes(
        {"engine.cursor_progress[vector]": "failed", "engine.cursor_progress[keyword]": "passed"}
    )
    assert merged == {"engine.cursor_progress": "failed"}
