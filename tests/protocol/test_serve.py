"""The protocol proven both ways: the reference driver served over `exec:` passes the
suite and the fuzzer exactly as it does in process, and the Section API works on it."""

from __future__ import annotations

import io
import json
import shlex
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import Inconclusive
from conformance.driver import DriverError
from conformance.engine import InvalidRequest, LearningKind, learning
from conformance.protocol.client import exec_driver, hello, parse_command
from conformance.protocol.codec import encode
from conformance.protocol.server import serve
from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    OwnedRecallOpts,
)
from conformance.sections import Sections
from plugins.registry import resolve_driver
from plugins.settings import FileTable, SettingsError, exec_spec, merge

SERVE = [sys.executable, "-m", "plugins.cli", "serve", "--driver", "reference"]
SERVE_SPEC = "exec:" + shlex.join(SERVE)
FAULT_DRIVER = Path(__file__).with_name("fault_driver.py")

# What may differ between two runs of the same checks: when and how long.
TIMING = {"duration", "created_at"}


PARTS = {
    "suite": [],
    "fuzz": ["--fuzz", "--fuzz-examples=15", "--fuzz-seed=20260401", "-k", "fuzz"],
}
"""The suite and the fuzzer compared in two tests, not one: `-n 2` runs them side by side."""
FUZZED = {"suite": set(), "fuzz": {"fuzz.engine.differential", "fuzz.provider.differential"}}


def report_of(pytester: pytest.Pytester, spec: str, name: str, part: str) -> dict[str, Any]:
    result = pytester.runpytest(
        f"--driver={spec}",
        *PARTS[part],
        # One run seed for both: the same markers, so check by check the same calls.
        "--conformance-seed=20260401",
        f"--conformance-report={name}.json",
        "-q",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    data: dict[str, Any] = json.loads((pytester.path / f"{name}.json").read_text())
    return data


def untimed(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key not in TIMING}


@pytest.mark.parametrize("part", list(PARTS))
def test_served_reference_reports_exactly_as_in_process(
    pytester: pytest.Pytester, part: str
) -> None:
    local = report_of(pytester, "reference", "local", part)
    served = report_of(pytester, SERVE_SPEC, "served", part)
    assert [c["id"] for c in served["checks"]] == [c["id"] for c in local["checks"]]
    for here, there in zip(local["checks"], served["checks"], strict=True):
        assert untimed(there) == untimed(here), here["id"]
    assert {c["id"] for c in served["checks"] if c["id"].startswith("fuzz.")} == FUZZED[part]
    assert served["profiles"] == local["profiles"]
    assert served["summary"] == local["summary"]
    # The driver is the same one, named by its handshake; only where it came from differs.
    assert served["driver"]["name"] == local["driver"]["name"] == "reference"
    assert served["driver"]["version"] == local["driver"]["version"]
    assert served["driver"]["command"] == shlex.join(SERVE)
    assert local["driver"]["command"] is None


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


def converse(*lines: dict[str, Any] | bytes) -> tuple[int, list[dict[str, Any]]]:
    """Run the server over in-memory pipes; its exit status and every answer."""
    raw = b"".join(line if isinstance(line, bytes) else encode(line) for line in lines)
    out = io.BytesIO()
    status = serve("reference", {}, io.BytesIO(raw), out, resolve_driver)
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_server_answers_each_message_and_ends_on_shutdown() -> None:
    status, answers = converse(
        hello({}).model_dump(mode="json"),
        {"type": "call", "id": 1, "op": "provider.get", "args": {"namespace": "g", "key": "k"}},
        {"type": "call", "id": 2, "op": "engine.teleport", "args": {}},
        b"not json\n",
        {"type": "call", "id": 3, "op": "engine.list", "args": {"req": {"limit": 0}}},
        {"type": "shutdown", "id": 4},
        {"type": "call", "id": 5, "op": "engine.health", "args": {}},
    )
    assert status == 0
    assert answers[0]["type"] == "handshake"
    assert answers[0]["profiles"] == ["engine", "provider"]
    # The reference is thread-safe: its calls run at once, each answered when done.
    assert answers[0]["concurrent"] is True
    not_json, found, unknown, refused = sorted(answers[1:5], key=lambda answer: answer["id"])
    assert found == {"type": "result", "id": 1, "result": None}
    assert unknown["error"]["name"] == "Unsupported"
    assert unknown["error"]["message"].startswith("no operation `engine.teleport`")
    assert not_json["error"]["name"] == "Protocol"
    assert refused["error"] == {
        "name": "InvalidRequest",
        "message": "list limit must be positive",
    }
    assert answers[5] == {"type": "result", "id": 4, "result": None}
    assert len(answers) == 6  # nothing after the shutdown


def test_the_server_refuses_a_kit_of_another_contract() -> None:
    kit = hello({}).model_dump(mode="json")
    kit["contract_version"] = {"major": 3, "minor": 0}
    status, answers = converse(kit)
    assert status == 1
    assert answers == [
        {
            "type": "error",
            "id": 0,
            "error": {
                "name": "Incompatible",
                "message": "this driver implements contract 2.2; the kit holds drivers to 3.0",
            },
        }
    ]


def test_a_command_is_a_string_or_an_argument_list() -> None:
    assert parse_command("node 'my driver.js' --fast") == ["node", "my driver.js", "--fast"]
    assert exec_spec(["node", "my driver.js"]) == "exec:node 'my driver.js'"
    assert parse_command(exec_spec(["node", "my driver.js"])[5:]) == ["node", "my driver.js"]
    with pytest.raises(DriverError, match="the exec: driver command is empty"):
        parse_command("  ")
    with pytest.raises(SettingsError, match="a non-empty list of strings"):
        merge(FileTable({"driver": ["node", 3]}, Path(".")), {})
    assert merge(FileTable({"driver": ["node", "d.js"]}, Path(".")), {}).driver == "exec:node d.js"
