"""No secret anywhere: which options are credentials, and a run that greps every output it
makes for a key the driver does its best to leak."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import Driver
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.credentials import assert_engine_no_credential_in_errors
from conformance.checks.outcome import CheckSkipped, ConformanceFailure
from conformance.checks.runner import run_engine_suite
from conformance.driver import DriverError
from conformance.redaction import (
    REDACTED,
    Redactor,
    is_credential_key,
    redact_options,
    secret_values,
)
from conformance.report import Report
from plugins.run import KitRun
from plugins.settings import KitSettings
from reference_driver.engine import ReferenceEngine
from tests.checks.broken_engines import LeaksCredential

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "tests.plugins.hostile_drivers"
SECRET = "tm-hostile-key-5f1c9e"

# -- which options are credentials -------------------------------------------------

CREDENTIALS = [
    "api_key",
    "apiKey",
    "APIKey",
    "API_KEY",
    "x-api-key",
    "access_key",
    "secret_key",
    "private.key",
    "token",
    "auth_token",
    "authToken",
    "OAuthToken",
    "password",
    "db.password",
    "passwd",
    "passphrase",
    "secret",
    "client_secret",
    "credential",
    "credentials",
    "bearer",
    "auth",
    "dsn",
    "key",
]
NOT_CREDENTIALS = [
    "keyword",
    "keyspace",
    "sort_key",
    "sortKey",
    "author",
    "authority",
    "private_mode",
    "monkey",
    "tokenizer",
    "region",
    "path",
]


@pytest.mark.parametrize("name", CREDENTIALS)
def test_a_credential_word_in_the_name_makes_a_credential(name: str) -> None:
    assert is_credential_key(name)


@pytest.mark.parametrize("name", NOT_CREDENTIALS)
def test_a_word_that_merely_contains_one_is_not_a_credential(name: str) -> None:
    assert not is_credential_key(name)


def test_a_driver_may_declare_any_option_secret() -> None:
    assert is_credential_key("endpoint", declared={"endpoint"})
    driver = Driver(
        name="d",
        options={"endpoint": "https://u:pw@db", "region": "eu"},
        secret_options=frozenset({"endpoint"}),
    )
    assert "https://u:pw@db" not in repr(driver)
    assert "'region': 'eu'" in repr(driver)
    assert driver.redactor.found("failed at https://u:pw@db") == ["endpoint"]


def test_short_values_and_plain_settings_are_never_searched() -> None:
    options = {"api_key": "abc", "auth": "none", "token": "TRUE", "password": "hunter2"}
    assert secret_values(options) == ("hunter2",)
    assert redact_options(options) == dict.fromkeys(options, REDACTED)
    assert Redactor.from_options(options).text("level none, abc, TRUE") == "level none, abc, TRUE"


def test_keyword_all_is_not_a_credential_and_nothing_is_redacted() -> None:
    # Issue 17: `keyword=all` failed `engine.no_credential_in_errors` on "recall question
    # must not be empty", because "recall" contains "all".
    settings = KitRun(
        settings=KitSettings(driver="reference"),
        driver=Driver(name="reference", engine=ReferenceEngine, options={"keyword": "all"}),
        waivers={},
        seed=1,
    ).run_settings()
    assert settings.credentials == {}
    results = run_engine_suite(ReferenceEngine(), settings)
    entry = results["engine.no_credential_in_errors"]
    assert (entry.outcome, entry.reason) == ("skipped", "no credential option given to the driver")
    assert all(REDACTED not in r.reason for r in results.values())


def test_a_too_short_credential_says_why_the_check_skips() -> None:
    ctx = CheckContext("engine.no_credential_in_errors", RunSettings(credentials={"token": "ab"}))
    with pytest.raises(CheckSkipped, match="too short to search for"):
        assert_engine_no_credential_in_errors(ReferenceEngine(), ctx)


def test_a_leak_names_the_option_never_its_value() -> None:
    engine = LeaksCredential({"api_key": SECRET})
    ctx = CheckContext(
        "engine.no_credential_in_errors", RunSettings(credentials={"api_key": SECRET})
    )
    with pytest.raises(ConformanceFailure) as failure:
        assert_engine_no_credential_in_errors(engine, ctx)
    message = str(failure.value)
    assert "the credential option `api_key`" in message
    assert SECRET not in message


def test_the_kits_own_words_are_never_redacted() -> None:
    # A secret that is a piece of a call label: the label stays whole, the driver's
    # words do not carry the secret.
    ctx = CheckContext("engine.recall", RunSettings(credentials={"token": "recall"}))
    with pytest.raises(ConformanceFailure) as failure:
        ctx.fail("recall(blank)", "an answer", "the driver said: recall failed")
    assert failure.value.call == "recall(blank)"
    assert failure.value.got == f"the driver said: {REDACTED} failed"


# -- a run greps every output for the key ------------------------------------------

VENDOR_TESTS = """
def test_vendor_reads_namespaces(memory_provider):
    memory_provider.namespaces()


def test_vendor_looks_at_the_driver(memory_driver):
    assert memory_driver is None
"""


@pytest.fixture(scope="module")
def leaky_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, str], Report]:
    """One run of a driver that leaks its key every way it can, with every output on: the
    terminal, the JSON and Markdown report, JUnit XML with captured output, and the fuzz
    regression files."""
    folder = tmp_path_factory.mktemp("leaky")
    (folder / "test_vendor.py").write_text(VENDOR_TESTS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--driver={HOSTILE}:leaks_its_key",
            f"--driver-option=api_key={SECRET}",
            "--profile=provider",
            "--conformance-report=out/r.json",
            "--junitxml=out/j.xml",
            "-o",
            "junit_logging=all",
            "-rA",
            "-l",
            "--fuzz",
            "--fuzz-examples=20",
            "--fuzz-seed=1",
            "--fuzz-repro-dir=regressions",
        ],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    outputs = {
        "terminal": done.stdout + done.stderr,
        "json": (folder / "out/r.json").read_text(),
        "markdown": (folder / "out/r.md").read_text(),
        "html": (folder / "out/r.html").read_text(),
        "junit": (folder / "out/j.xml").read_text(),
    }
    regressions = {f"regression file {p.name}": p.read_text() for p in folder.glob("regressions/*")}
    report = Report.model_validate(json.loads(outputs["json"]))
    return done.stdout + done.stderr, {**outputs, **regressions}, report


def test_no_output_of_a_run_carries_the_key(
    leaky_run: tuple[str, dict[str, str], Report],
) -> None:
    terminal, outputs, report = leaky_run
    # The leaks happened: checks failed, the driver's output and tracebacks were shown.
    outcomes = {c.id: c.outcome for c in report.checks}
    assert outcomes["provider.taint_is_preserved"] == "failed"
    assert outcomes["provider.no_credential_in_errors"] == "failed"
    assert "the credential option `api_key`" in outputs["json"]
    assert f"GET with api key {REDACTED}" in terminal and f"Bearer {REDACTED}" in terminal
    assert f"GET with api key {REDACTED}" in outputs["junit"]
    assert f"the backend refused key {REDACTED}" in terminal  # a raw traceback, with -l
    assert "options={'api_key': '[REDACTED]'}" in terminal  # the kit's Driver, by repr
    assert report.driver.options == {"api_key": REDACTED}
    for where, text in outputs.items():
        if not where.startswith("regression file"):
            assert SECRET not in text, f"the key leaked into the {where}"


def test_no_regression_file_carries_the_key(
    leaky_run: tuple[str, dict[str, str], Report],
) -> None:
    _, outputs, _ = leaky_run
    files = {k: v for k, v in outputs.items() if k.startswith("regression file")}
    assert files, "the fuzzer wrote no regression file"
    for where, text in files.items():
        assert SECRET not in text, f"the key leaked into the {where}"


def test_a_driver_that_fails_to_build_does_not_quote_its_key(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        f"--driver={HOSTILE}:fails_to_build", f"--driver-option=api_key={SECRET}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"failed to build its provider: ConnectionError: 401 for key {REDACTED}" in (
        result.stderr.str()
    )
    assert SECRET not in result.stdout.str() + result.stderr.str()


def test_a_build_error_raised_directly_is_redacted_too() -> None:
    from plugins.registry import resolve_driver

    with pytest.raises(DriverError) as error:
        resolve_driver(f"{HOSTILE}:fails_to_build", {"api_key": SECRET}).make("provider")
    assert SECRET not in str(error.value) and error.value.__cause__ is None


def test_the_kits_objects_do_not_show_the_key() -> None:
    settings = KitSettings(driver="x", driver_options={"api_key": SECRET, "region": "eu"})
    run_settings = RunSettings(credentials={"api_key": SECRET}, secrets=(SECRET,))
    for shown in (repr(settings), repr(run_settings)):
        assert SECRET not in shown
    assert "'region': 'eu'" in repr(settings)
