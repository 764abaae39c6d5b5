"""The pytest plugin, driven through pytester: options, settings, outcomes, waivers, reports."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.catalogue import checks_for
from conformance.report import Report

PROVIDER_CHECKS = len(checks_for("provider"))
BROKEN = "tests.checks.broken_providers"
DRIVERS = "tests.plugins.plugin_drivers"


def report_of(path: Path) -> Report:
    return Report.model_validate(json.loads(path.read_text()))


def outcomes(report: Report) -> dict[str, str]:
    return {c.id: c.outcome for c in report.checks}


def test_without_driver_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_own():\n    assert True\n")
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1)
    assert "tinymemory" not in result.stdout.str()


def test_reference_provider_passes(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=reference", "--profile=provider", "-q", "--conformance-report=out/report.json"
    )
    result.assert_outcomes(passed=PROVIDER_CHECKS - 1, skipped=1)
    report = report_of(pytester.path / "out/report.json")
    assert report.summary.verdict == "pass"
    assert report.profiles["provider"].level == "full"
    assert report.profiles["provider"].capabilities == [
        "core",
        "recall",
        "documents",
        "portability",
    ]
    assert report.driver.distribution == "tinymemory-conformance"
    assert (pytester.path / "out/report.md").read_text().startswith("## TinyMemory conformance")


def test_null_provider_skips_storage_checks_with_the_reason(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=null", "--profile=provider", "-rs", "--conformance-report=r.json"
    )
    result.stdout.fnmatch_lines(
        ["*tinymemory/null::provider.taint_is_preserved: driver retains nothing*"]
    )
    report = report_of(pytester.path / "r.json")
    assert report.profiles["provider"].level == "shape-only"
    assert report.summary.verdict == "pass"


def test_broken_driver_fails_with_its_check_id(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={BROKEN}:RestampsTaint",
        "--profile=provider",
        "--conformance-report=r.json",
        "-q",
    )
    result.stdout.fnmatch_lines(["FAILED tinymemory/RestampsTaint::provider.taint_is_preserved*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = report_of(pytester.path / "r.json")
    assert outcomes(report)["provider.taint_is_preserved"] == "failed"
    assert report.summary.verdict == "fail"
    assert report.profiles["provider"].level == "none"


def test_k_selects_checks_by_id(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=reference", "--profile=provider", "-q", "-k", "taint or preserve_their_section"
    )
    result.assert_outcomes(passed=2)


def test_settings_come_from_pyproject_and_the_command_line_wins(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml(
        '[tool.tinymemory]\ndriver = "null"\nprofile = "provider"\n'
        'conformance-report = "from-file.json"\n'
    )
    result = pytester.runpytest("-q")
    assert (pytester.path / "from-file.json").exists()
    # The null provider passes the checks that need no storage, but the credential check
    # (it has no credential option).
    unstored = sum(1 for chk in checks_for("provider") if not chk.storage) - 1
    result.assert_outcomes(passed=unstored, skipped=PROVIDER_CHECKS - unstored)
    result = pytester.runpytest("-q", "--driver=reference")
    result.assert_outcomes(passed=PROVIDER_CHECKS - 1, skipped=1)


def test_unknown_setting_in_pyproject_is_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.tinymemory]\ndriver = "null"\ndrvier = "null"\n')
    result = pytester.runpytest("-q")
    result.stderr.fnmatch_lines(["*unknown key `drvier` (did you mean `driver`?); its keys are*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_unknown_setting_without_a_driver_is_a_warning(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.tinymemory]\ndrvier = "null"\n')
    pytester.makepyfile("def test_own():\n    assert True\n")
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*unknown key `drvier` (did you mean `driver`?), and no driver; no conformance run*"]
    )


def test_unknown_driver_is_one_paragraph_before_any_test(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--driver=nosuchdriver")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: tinymemory: cannot use driver `nosuchdriver`*no driver named "
            "`nosuchdriver`*known drivers:*`tinymemory-conformance drivers` lists them*",
        ]
    )
    assert len([line for line in result.stderr.lines if line.strip()]) == 1


def test_driver_that_fails_to_build_is_reported(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=tests.plugins.fake_drivers:exploding", "--conformance-report=r.json"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*failed to build: RuntimeError: cannot reach the store*"])
    # No hint about listing drivers: the driver was found, it did not build.
    assert "tinymemory-conformance drivers" not in result.stderr.str()
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "error"
    assert report.errors[0].kind == "build"
    assert "cannot reach the store" in report.errors[0].message
    markdown = (pytester.path / "r.md").read_text()
    assert markdown.split("\n")[2].startswith("**Verdict: error**, because:")
    assert "- build (main): " in markdown.split("\n")[3]


def test_driver_not_satisfying_the_protocol_is_reported(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--driver=tests.plugins.fake_drivers:builds_half")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*lacks the engine methods: health, store*"])


def test_async_driver_runs_every_check(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(f"--driver={DRIVERS}:AsyncReference", "--profile=provider", "-q")
    result.assert_outcomes(passed=PROVIDER_CHECKS - 1, skipped=1)


def test_a_call_past_the_timeout_is_inconclusive_and_the_run_goes_on(
    pytester: pytest.Pytester,
) -> None:
    started = dt.datetime.now()
    result = pytester.runpytest(
        f"--driver={DRIVERS}:SlowNamespaces",
        "--driver-timeout=0.5",
        "--conformance-report=r.json",
        "-q",
    )
    assert (dt.datetime.now() - started).total_seconds() < 20
    report = report_of(pytester.path / "r.json")
    got = outcomes(report)
    assert got["provider.list_filters_narrow"] == "inconclusive"
    entry = next(c for c in report.checks if c.id == "provider.list_filters_narrow")
    assert "namespaces()" in entry.reason and "0.5 s limit" in entry.reason
    assert got["provider.taint_is_preserved"] == "passed"  # the run went on
    assert report.summary.verdict == "inconclusive"
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # The terminal names each inconclusive check, not only a count.
    result.stdout.fnmatch_lines(
        [
            "*: inconclusive, the driver hangs (*",
            "  the driver hangs: namespaces() ran past the time limit in * checks, *",
            "  inconclusive provider.list_filters_narrow: *namespaces()*",
        ]
    )


def test_transient_errors_are_retried_and_counted(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--driver={DRIVERS}:Flaky", "--driver-retries=2", "--conformance-report=r.json", "-q"
    )
    report = report_of(pytester.path / "r.json")
    assert report.summary.verdict == "pass", report.summary
    assert sum(c.retries for c in report.checks) > 0
    result.stdout.fnmatch_lines(["*retries [1-9]*"])


def test_transient_errors_without_retries_are_inconclusive(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        f"--driver={DRIVERS}:Flaky", "--driver-retries=0", "--conformance-report=r.json", "-q"
    )
    report = report_of(pytester.path / "r.json")
    assert "inconclusive" in outcomes(report).values()
    assert "failed" not in outcomes(report).values()


def write_waivers(pytester: pytest.Pytester, check_id: str, expires: dt.date, *more: str) -> None:
    pytester.makefile(
        ".toml",
        waivers="".join(
            f'["{waived}"]\nreason = "known"\nissue = "https://example.test/1"\n'
            f"expires = {expires.isoformat()}\n"
            for waived in (check_id, *more)
        ),
    )


FUTURE = dt.date.today() + dt.timedelta(days=30)


def test_a_waived_failure_is_waived(pytester: pytest.Pytester) -> None:
    # A forget that always says True also fails the racing forgets: one fault, two checks.
    write_waivers(pytester, "provider.forget_is_idempotent", FUTURE, "provider.racing_writes")
    result = pytester.runpytest(
        f"--driver={BROKEN}:ForgetAlwaysTrue",
        "--waivers=waivers.toml",
        "--conformance-report=r.json",
        "-q",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = report_of(pytester.path / "r.json")
    assert outcomes(report)["provider.forget_is_idempotent"] == "waived"
    assert report.summary.verdict == "pass"
    assert report.profiles["provider"].level == "none"  # a waiver is not conformance
    result.stdout.fnmatch_lines(["*2 waived*"])


def test_an_unexpected_pass_fails_the_run(pytester: pytest.Pytester) -> None:
    write_waivers(pytester, "provider.taint_is_preserved", FUTURE)
    # The waived check alone: the other checks pass, and would only take time.
    result = pytester.runpytest(
        "--driver=reference", "--waivers=waivers.toml", "-q", "-k", "taint_is_preserved"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*unexpected pass*remove the waiver*"])


def test_an_expired_waiver_fails_the_run(pytester: pytest.Pytester) -> None:
    write_waivers(pytester, "provider.taint_is_preserved", dt.date.today() - dt.timedelta(1))
    result = pytester.runpytest(f"--driver={BROKEN}:RestampsTaint", "--waivers=waivers.toml", "-q")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*has expired*"])


def test_a_waiver_for_an_unknown_id_is_an_error(pytester: pytest.Pytester) -> None:
    write_waivers(pytester, "provider.no_such_check", FUTURE)
    result = pytester.runpytest("--driver=reference", "--waivers=waivers.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*`provider.no_such_check`, which is not a check id nor a fuzz target*"]
    )


def test_report_matches_its_published_schema(pytester: pytest.Pytester) -> None:
    # A check of each profile: every entry has the same keys, whatever its check.
    pytester.runpytest(
        "--driver=reference", "--conformance-report=r.json", "-q", "-k", "replay or taint"
    )
    data: dict[str, Any] = json.loads((pytester.path / "r.json").read_text())
    assert len(data["checks"]) >= 2
    assert data["schema"] == "tinymemory-conformance/report"
    assert data["schema_version"] == 2
    schema = json.loads(Path(__file__).parents[2].joinpath("docs/report.schema.json").read_text())
    assert schema == Report.model_json_schema(by_alias=True)
    check = data["checks"][0]
    assert set(check) == {
        "id",
        "profile",
        "outcome",
        "reason",
        "duration",
        "calls",
        "retries",
        "refusals",
        "named_refusals",
        "clause",
        "optional",
        "repeats",
        "trace",
        "precondition",
        "waived_by",
        "replay",
        "hang",
        "concurrency_only",
    }
    assert {"seed", "repeat", "errors", "concurrency"} <= set(data)


def test_credentials_are_redacted_and_a_leak_is_caught(pytester: pytest.Pytester) -> None:
    secret = "sk-live-conformance-0042"
    result = pytester.runpytest(
        f"--driver={BROKEN}:LeaksCredential",
        f"--driver-option=api_key={secret}",
        "--conformance-report=r.json",
        "-q",
    )
    assert secret not in result.stdout.str() + result.stderr.str()
    text = (pytester.path / "r.json").read_text() + (pytester.path / "r.md").read_text()
    assert secret not in text
    report = report_of(pytester.path / "r.json")
    assert report.driver.options == {"api_key": "[REDACTED]"}
    assert outcomes(report)["provider.no_credential_in_errors"] == "failed"


def test_memory_fixtures_serve_vendor_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from conformance.provider import MemoryCategory, MemoryTaint

        def test_vendor_extra(memory_driver, memory_provider):
            assert memory_driver.name == "reference"
            memory_provider.store("vendor", "k", "v", MemoryCategory.CORE, None,
                                  MemoryTaint.INTERNAL)
            assert memory_provider.get("vendor", "k").content == "v"
        """
    )
    result = pytester.runpytest("--driver=reference", "-q", "-k", "vendor_extra")
    result.assert_outcomes(passed=1)


def test_xdist_runs_the_suite_and_merges_every_worker(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        "--driver=reference", "-n", "2", "-q", "--conformance-report=r.json"
    )
    report = report_of(pytester.path / "r.json")
    ran = {c.id.partition("[")[0] for c in report.checks}
    assert ran == {c.id for c in checks_for("provider") + checks_for("engine")}
    # The per-mode checks (cursor_progress, ranking, fetch_filters) run once per declared
    # fetch mode (3 each).
    per_mode = [c for c in checks_for("engine") if c.per_mode]
    assert len(report.checks) == len(ran) + 2 * len(per_mode)
    assert report.summary.verdict == "pass", result.stdout.str()


def test_two_distributions_announcing_one_name_stop_the_run(pytester: pytest.Pytester) -> None:
    # The conftest loads before the plugin's configure hook, so the environment it fakes
    # (two distributions announcing `dup`) is the one the plugin resolves against.
    pytester.makeconftest(
        """
        from importlib.metadata import EntryPoint
        from plugins import registry

        POINTS = [
            EntryPoint("dup", "reference_driver.plugin", "tinymemory.drivers"),
            EntryPoint("dup", "null_driver.plugin", "tinymemory.drivers"),
        ]
        DISTS = {"reference_driver.plugin": "acme-memory", "null_driver.plugin": "zeta-memory"}
        registry.entry_points = lambda group, name=None: [
            ep for ep in POINTS if name in (None, ep.name)
        ]
        registry._distribution = lambda ep: (DISTS[ep.value], "1.0")
        """
    )
    # In a subprocess: the conftest's patch must not outlive this test.
    result = pytester.runpytest_subprocess("--driver=dup")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*two distributions announce a driver named `dup`: acme-memory*zeta-memory*"]
    )


def test_fuzz_items_run_with_a_printed_seed(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=reference",
        "--fuzz",
        "--fuzz-examples=5",
        "--fuzz-seed=7",
        "-k",
        "fuzz",
        "-q",
        "--conformance-report=r.json",
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*fuzz.engine.differential: * seed 7, oracle reference*"])
    by_id = {c.id: c for c in report_of(pytester.path / "r.json").checks}
    assert by_id["fuzz.provider.differential"].outcome == "passed"
    assert by_id["fuzz.provider.differential"].calls > 0


def test_fuzz_seed_derives_from_the_run_seed(pytester: pytest.Pytester) -> None:
    def fuzz_seed(run_seed: int) -> str:
        result = pytester.runpytest(
            "--driver=null",
            "--profile=provider",
            "--fuzz",
            "--fuzz-examples=5",
            f"--conformance-seed={run_seed}",
            "-k",
            "fuzz",
            "-q",
        )
        result.assert_outcomes(passed=1)
        line = next(x for x in result.outlines if "fuzz.provider.differential: " in x)
        return line.split(", seed ")[1].split(",")[0]

    assert fuzz_seed(11) == fuzz_seed(11)
    assert fuzz_seed(11) != fuzz_seed(12)


def test_fuzz_failure_names_the_target_and_writes_a_regression_test(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest(
        "--driver=tests.fuzz.deep_faults:ThirdWriteDuplicates",
        "--fuzz",
        "--fuzz-seed=1",
        "--fuzz-repro-dir=repro",
        "-k",
        "fuzz",
        "-q",
        "--conformance-report=r.json",
    )
    result.stdout.fnmatch_lines(
        [
            "FAILED tinymemory/ThirdWriteDuplicates::fuzz.provider.differential*",
        ]
    )
    written = sorted((pytester.path / "repro").glob("test_*.py"))
    assert len(written) == 1
    rerun = pytester.runpytest_subprocess(str(written[0]), "-q", "-p", "no:cacheprovider")
    rerun.assert_outcomes(failed=1)
