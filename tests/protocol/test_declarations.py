"""What a Python driver declares beside its profiles (constraints on valid input, options
that are credentials) reaches the kit over the protocol, and the report names the
process that served the run."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.protocol.client import exec_driver
from plugins.registry import resolve_driver
from tests.protocol.declaring_driver import CONSTRAINTS

DECLARING_DRIVER = Path(__file__).with_name("declaring_driver.py")
SECRET = "k-7d2e91c4aa"
ENDPOINT = f"https://{SECRET}@memory.example"


def command(which: str) -> list[str]:
    return [sys.executable, str(DECLARING_DRIVER), which]


def run(pytester: pytest.Pytester, which: str) -> tuple[Any, dict[str, Any]]:
    result = pytester.runpytest(
        f"--driver=exec:{shlex.join(command(which))}",
        f"--driver-option=endpoint={ENDPOINT}",
        "--conformance-report=report.json",
        "-k",
        "accepts_valid_input",
        "-q",
    )
    report: dict[str, Any] = json.loads((pytester.path / "report.json").read_text())
    return result, report


def test_the_handshake_carries_constraints_and_secret_option_names() -> None:
    driver = exec_driver(command("declared"), {"endpoint": ENDPOINT})
    try:
        assert driver.constraints.to_wire() == {
            "empty_or_dot_segments": False,
            "reason": "the store maps `/` onto directories",
        }
        assert driver.secret_options == frozenset({"endpoint"})
        assert driver.command == tuple(command("declared"))
        # The secret is known from the handshake on: the process's stderr is redacted.
        provider: Any = driver.make_provider()
        assert provider.get("global", "k") is None
        process = provider._connection._current().process
        # The line is read by the kit's drain thread, which may not have reached it yet.
        deadline = time.monotonic() + 10
        while "connecting" not in (tail := process.stderr_tail()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "connecting to [REDACTED]" in tail, tail
        assert SECRET not in tail
    finally:
        assert driver.release is not None
        driver.release()


def test_a_driver_in_process_has_no_command() -> None:
    assert resolve_driver("reference").command is None


def test_a_declared_constraint_narrows_the_suite_over_the_protocol(
    pytester: pytest.Pytester,
) -> None:
    result, report = run(pytester, "declared")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    [check] = [c for c in report["checks"] if c["id"] == "provider.accepts_valid_input"]
    assert check["outcome"] == "passed"
    assert report["profiles"]["provider"]["constraints"] == CONSTRAINTS.describe()
    assert report["driver"]["options"] == {"endpoint": "[REDACTED]"}
    served_by = shlex.join(command("declared"))
    assert report["driver"]["command"] == served_by
    markdown = (pytester.path / "report.md").read_text()
    assert f"Served over the driver protocol by `{served_by}`." in markdown
    shown = (pytester.path / "report.json").read_text() + markdown + result.stdout.str()
    assert SECRET not in shown + result.stderr.str()


def test_without_the_declaration_the_refusal_fails_the_check(pytester: pytest.Pytester) -> None:
    result, report = run(pytester, "undeclared")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    [check] = [c for c in report["checks"] if c["id"] == "provider.accepts_valid_input"]
    assert check["outcome"] == "failed"
    assert "namespace segment cannot be a directory name" in check["reason"]
    assert report["profiles"]["provider"]["constraints"] == []
