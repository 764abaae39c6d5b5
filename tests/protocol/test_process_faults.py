"""Faults of a driver process are outcomes of the check that met them, never crashes of
the kit: each is named in the failure, and a fresh process serves the next check."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

FAULT_DRIVER = Path(__file__).with_name("fault_driver.py")
# The checks every run here selects: the first to explore meets the fault, and the others
# show that a fresh process served them.
SELECTED = ("engine.namespaces", "engine.explore", "engine.round_trip", "engine.health")
SECRET = "s3cr3t-value-9f1c"


def fault_spec(fault: str, op: str = "", once: Path | None = None) -> str:
    argv = [sys.executable, str(FAULT_DRIVER), fault, op, str(once or "")]
    return "exec:" + shlex.join(argv)


def run_engine(pytester: pytest.Pytester, spec: str, *extra: str) -> tuple[Any, dict[str, Any]]:
    result = pytester.runpytest(
        f"--driver={spec}",
        "--profile=engine",
        "--driver-timeout=6",
        f"--driver-option=api_key={SECRET}",
        "--driver-option=region=eu-west-1",
        "--conformance-report=r.json",
        "-q",
        "-k",
        # `explore` alone would select `explore_filters` too.
        f"({' or '.join(check_id.partition('.')[2] for check_id in SELECTED)}) "
        "and not explore_filters",
        *extra,
    )
    return result, json.loads((pytester.path / "r.json").read_text())


def the_one_fault(report: dict[str, Any]) -> dict[str, Any]:
    """The one check that met the fault; every other check passed (a fresh process served
    it), so the report names the fault exactly once."""
    bad = [c for c in report["checks"] if c["outcome"] not in ("passed", "skipped")]
    assert len(bad) == 1, [(c["id"], c["outcome"], c["reason"]) for c in bad]
    assert {c["id"] for c in report["checks"]} == set(SELECTED)
    assert SECRET not in json.dumps(report)
    return bad[0]


def test_a_hang_makes_the_check_inconclusive(pytester: pytest.Pytester) -> None:
    result, report = run_engine(pytester, fault_spec("hang", "engine.explore", pytester.path / "x"))
    check = the_one_fault(report)
    assert check["outcome"] == "inconclusive"
    assert "explore(" in check["reason"]
    assert "the call ran past the 6 s limit" in check["reason"]
    assert report["summary"]["verdict"] == "inconclusive"
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_an_exit_fails_the_check_with_status_and_redacted_stderr(
    pytester: pytest.Pytester,
) -> None:
    _, report = run_engine(pytester, fault_spec("exit", "engine.explore", pytester.path / "x"))
    check = the_one_fault(report)
    assert check["outcome"] == "failed"
    reason = check["reason"]
    assert "driver raised ProtocolError: the driver process" in reason
    assert "exited with status 3 before answering engine.explore (request" in reason
    # The options reached the process in the hello; the kit shows the credential redacted.
    assert (
        "its stderr ended:\n    dying with options "
        "{'api_key': '[REDACTED]', 'region': 'eu-west-1'}" in reason
    )
    assert report["driver"]["options"] == {"api_key": "[REDACTED]", "region": "eu-west-1"}


def test_garbage_on_stdout_is_named(pytester: pytest.Pytester) -> None:
    _, report = run_engine(pytester, fault_spec("garbage", "engine.explore", pytester.path / "x"))
    reason = the_one_fault(report)["reason"]
    assert "wrote a line that is not JSON while the kit awaited the answer to engine.explore" in (
        reason
    )
    assert "b'this is not json\\n' (Expecting value: line 1 column 1 (char 0))" in reason


def test_an_answer_to_another_request_is_named(pytester: pytest.Pytester) -> None:
    _, report = run_engine(pytester, fault_spec("wrong-id", "engine.explore", pytester.path / "x"))
    reason = the_one_fault(report)["reason"]
    assert "but the kit awaited the answer to engine.explore (request" in reason
    assert "and no other request was open" in reason


def test_a_message_of_the_wrong_shape_is_named(pytester: pytest.Pytester) -> None:
    _, report = run_engine(
        pytester, fault_spec("wrong-shape", "engine.explore", pytester.path / "x")
    )
    reason = the_one_fault(report)["reason"]
    assert "with {'id': " in reason
    assert "which is not a protocol response (its `type` is None, not `result` or `error`)" in (
        reason
    )


def test_a_result_of_the_wrong_shape_names_the_type_and_fields(pytester: pytest.Pytester) -> None:
    _, report = run_engine(
        pytester, fault_spec("bad-result", "engine.explore", pytester.path / "x")
    )
    reason = the_one_fault(report)["reason"]
    assert "answered engine.explore with a result that is not ExplorePage: facet: Field " in (
        reason
    )
    assert "buckets: Input should be a valid list" in reason


def test_unavailable_is_retried_as_in_process(pytester: pytest.Pytester) -> None:
    _, report = run_engine(
        pytester, fault_spec("unavailable", "engine.explore", pytester.path / "x")
    )
    assert all(c["outcome"] == "passed" for c in report["checks"])
    assert sum(c["retries"] for c in report["checks"]) == 1


def test_a_fault_on_every_call_fails_only_the_checks_that_call_it(
    pytester: pytest.Pytester,
) -> None:
    _, report = run_engine(pytester, fault_spec("exit", "engine.explore"))
    failed = {c["id"] for c in report["checks"] if c["outcome"] == "failed"}
    # The checks that never explore still pass: each fault cost one process, not the run.
    assert failed
    assert "engine.round_trip" not in failed
    assert all(c["outcome"] == "passed" for c in report["checks"] if c["id"] not in failed)


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (
            "old-contract",
            "implements the TinyMemory contract 3.0, but tinymemory-conformance * holds "
            "drivers to contract 2.x; the major versions must match",
        ),
        ("new-protocol", "speaks protocol 2.1, but tinymemory-conformance * speaks protocol 1.x"),
        (
            "bad-constraints",
            "declares `constraints` in its handshake that the kit cannot read: constraint "
            "max_key_length must be an integer, not 'forty'",
        ),
        (
            "bad-descriptor",
            "offers the engine profile, but its handshake's `engine` is not an "
            "EngineDescriptor: label: Field required*",
        ),
        # fnmatch: `?` stands for each bracket of `[REDACTED]`.
        (
            "refuse",
            "refused the handshake: Busy: come back later (options {'token': '?REDACTED?'})",
        ),
    ],
)
def test_an_incompatible_driver_is_refused_before_any_check(
    pytester: pytest.Pytester, fault: str, message: str
) -> None:
    result = pytester.runpytest(
        f"--driver={fault_spec(fault)}", f"--driver-option=token={SECRET}", "-q"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])
    assert SECRET not in result.stderr.str()


def test_a_command_that_cannot_start_is_named(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--driver=exec:no-such-driver-binary --flag", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*the driver command no-such-driver-binary --flag could not be started*"]
    )


def test_a_driver_that_exits_at_once_shows_its_status(pytester: pytest.Pytester) -> None:
    spec = "exec:" + shlex.join([sys.executable, "-c", "import sys; sys.exit('no config')"])
    result = pytester.runpytest(f"--driver={spec}", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*exited with status 1 before answering the hello; its stderr ended:*", "*no config*"]
    )
