"""The newcomer's path: the command's flags and version, the CI script, and the vendor
workflow publishing the verdict truthfully whatever went wrong."""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

import conformance
from plugins.cli import main
from plugins.settings import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "vendor-driver" / ".github" / "workflows" / "conformance.yml"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"tinymemory-conformance {conformance.__version__}\n"


def test_run_help_lists_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = capsys.readouterr().out
    for setting in SETTINGS:
        assert setting.option in shown, setting.option


def test_every_plugin_option_is_a_run_option_and_documented(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    section = result.stdout.str().split("TinyMemory conformance:")[1].split("\n\n")[0]
    plugin_flags = set(re.findall(r"^\s+(--[a-z-]+)", section, re.M))
    assert plugin_flags == {s.option for s in SETTINGS}
    readme = (ROOT / "README.md").read_text()
    for flag in plugin_flags:
        assert f"`{flag}" in readme, f"{flag} is not in the README's table"


def test_run_writes_the_report_it_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(
        [
            "run",
            "--driver",
            "reference",
            "--profile",
            "provider",
            "--conformance-report",
            "out/r.json",
            "--conformance-seed",
            "9",
            "-q",
        ]
    )
    assert code == 0
    report = json.loads((tmp_path / "out" / "r.json").read_text())
    assert (report["summary"]["verdict"], report["seed"]) == ("pass", 9)
    assert (tmp_path / "out" / "r.md").exists()


def test_ci_script_removes_the_environment_it_made(tmp_path: Path) -> None:
    # A python3 that makes the environment's folder and then fails, as a broken install
    # would: the script stops there, and must still leave nothing behind.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(
        '#!/bin/sh\nmkdir -p "$3/lib"\nhead -c 1000000 /dev/zero > "$3/lib/big"\nexit 1\n'
    )
    fake.chmod(0o755)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "TMPDIR": str(scratch)}
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert list(scratch.iterdir()) == []


# -- the vendor workflow publishes the verdict truthfully ---------------------------------


def workflow_step(name: str) -> str:
    """The shell script of the workflow step called `name`."""
    lines = WORKFLOW.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- name: {name}")
    run_at = next(i for i in range(start, len(lines)) if lines[i].strip() == "run: |")
    indent = len(lines[run_at]) - len(lines[run_at].lstrip())
    body = []
    for line in lines[run_at + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return textwrap.dedent("\n".join(body)) + "\n"


def publish(folder: Path) -> tuple[str, int]:
    """What the job page shows, and whether the gate passes, for the reports in `folder`."""
    summary = folder / "summary.md"
    summary.write_text("")
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    for step in ("Publish the verdict", "Gate on the verdict"):
        done = subprocess.run(
            ["bash", "-e", "-c", workflow_step(step)],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    return summary.read_text(), done.returncode


REPORT = "--conformance-report=conformance/report.json"


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--driver=reference", "-k", "taint"], "**Verdict: pass**"),
        (["--driver=reference", "-k", "nothing_is_called_this"], "- nothing selected: "),
        (
            ["--driver=tests.plugins.verdict_drivers:ExitsInExport", "--profile=provider"],
            "**Verdict: fail**",
        ),
        (["--driver=tests.plugins.fake_drivers:exploding"], "- build (main): "),
        (["--driver=reference", "--driver-timeout=nan"], "the run wrote no report"),
        (
            ["--driver=tests.plugins.verdict_drivers:DescriptorRaises", "--profile=engine"],
            "- collection (main): ",
        ),
    ],
)
def test_the_workflow_publishes_the_verdict_truthfully(
    pytester: pytest.Pytester, args: list[str], shown: str
) -> None:
    pytester.runpytest(*args, REPORT)
    page, gate = publish(pytester.path)
    assert shown in page, page
    assert gate == (0 if "pass" in shown else 1)


def test_the_workflow_says_when_a_run_was_killed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.runpytest_subprocess(
        "--driver=tests.plugins.verdict_drivers:DiesInExport", "--profile=provider", REPORT
    )
    page, gate = publish(pytester.path)
    assert "**Verdict: error**, because:\n- unfinished: the run started but did not finish" in page
    assert gate == 1
