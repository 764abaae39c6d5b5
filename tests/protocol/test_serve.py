"""The protocol proven both ways: the reference driver served over `exec:` passes the
suite and the fuzzer exactly as it does in process, and the Section API works on it."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import Inconclusive
from conformance.engine import InvalidRequest, LearningKind, learning
from conformance.protocol.client import exec_driver
from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    OwnedRecallOpts,
)
from conformance.sections import Sections

SERVE = [sys.executable, "-m", "plugins.cli", "serve", "--driver", "reference"]
SERVE_SPEC = "exec:" + shlex.join(SERVE)
FAULT_DRIVER = Path(__file__).with_name("fault_driver.py")

# What may differ between two runs of the same checks: when and how long.
TIMING = {"duration", "created_at"}


def report_of(pytester: pytest.Pytester, spec: str, name: str) -> dict[str, Any]:
    result = pytester.runpytest(
        f"--driver={spec}",
        "--fuzz",
        "--fuzz-examples=15",
        "--fuzz-seed=20260401",
        f"--conformance-report={name}.json",
        "-q",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    data: dict[str, Any] = json.loads((pytester.path / f"{name}.json").read_text())
    return data


def untimed(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key not in TIMING}


def test_served_reference_reports_exactly_as_in_process(pytester: pytest.Pytester) -> None:
    local = report_of(pytester, "reference", "local")
    served = report_of(pytester, SERVE_SPEC, "served")
    assert [c["id"] for c in served["checks"]] == [c["id"] for c in local["checks"]]
    for here, there in zip(local["checks"], served["checks"], strict=True):
        assert untimed(there) == untimed(here), here["id"]
    assert any(c["id"] == "fuzz.engine.differential" for c in served["checks"])
    assert served["profiles"] == local["profiles"]
    assert served["summary"] == local["summary"]
    # The driver is the same one, named by its handshake; only where it came from differs.
    assert served["driver"]["name"] == local["driver"]["name"] == "reference"
    assert served["driver"]["version"] == local["driver"]["version"]


def test_the_section_api_works_over_the_protocol() -> None:
    driver = exec_driver(SERVE)
    try:
        sections = Sections(driver.make_provider())
        internal = MemoryTaint.INTERNAL
        sections.learnings().put(
            "rust", "tip-1", "async needs a runtime", MemoryCategory.CORE, None, internal
        )
        [scope] = sections.learnings().scopes()
        assert (str(scope.namespace), scope.entries) == ("learning:rust", 1)
        hits = sections.recall().across_section(
            MemorySection.LEARNING, "async", 10, OwnedRecallOpts(), None
        )
        assert [hit.key for hit in hits.hits] == ["tip-1"]
    finally:
        assert driver.release is not None
        driver.release()


def test_an_async_driver_is_served_through_its_sync_face() -> None:
    argv = [*SERVE[:-1], "tests.fuzz.helpers:AsyncReferenceEngine"]
    driver = exec_driver(argv)
    try:
        engine = driver.make_engine()
        receipt = engine.store(learning("prefers tabs", LearningKind.PREFERENCE, 0.8))
        assert engine.store(learning("prefers tabs", LearningKind.PREFERENCE, 0.8)) == (
            receipt.model_copy(update={"replayed": True})
        )
        assert driver.profiles == {"engine"}
    finally:
        assert driver.release is not None
        driver.release()


def test_contract_errors_come_back_as_the_profiles_classes() -> None:
    driver = exec_driver(SERVE)
    try:
        engine, provider = driver.make_engine(), driver.make_provider()
        with pytest.raises(InvalidRequest, match="learning confidence NaN is outside"):
            engine.store(learning("unsure", LearningKind.FACT, float("nan")))
        with pytest.raises(Invalid, match="export page limit must be greater than zero"):
            provider.export_page(None, 0)
    finally:
        assert driver.release is not None
        driver.release()


def test_a_call_abandoned_on_another_thread_gives_way_to_a_fresh_process(
    tmp_path: Path,
) -> None:
    # Off the main thread the time limit cannot interrupt the read: the kit stops waiting
    # and the reader stays blocked. The next call must not read that stale answer.
    once = tmp_path / "fired"
    driver = exec_driver([sys.executable, str(FAULT_DRIVER), "hang", "engine.health", str(once)])
    try:
        engine = driver.make_engine()
        ctx = CheckContext("engine.health", RunSettings(timeout=1.0))
        box: dict[str, BaseException] = {}

        def hung() -> None:
            try:
                ctx.invoke("health()", engine.health)
            except BaseException as exc:
                box["error"] = exc

        worker = threading.Thread(target=hung)
        worker.start()
        worker.join(30)
        assert isinstance(box.get("error"), Inconclusive)
        assert once.exists()
        assert engine.health().state == "ok"
    finally:
        assert driver.release is not None
        driver.release()
