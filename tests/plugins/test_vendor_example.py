"""A vendor's path, end to end: `examples/vendor-driver` installed into a fresh environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "vendor-driver"
WORKFLOW = EXAMPLE / ".github" / "workflows" / "conformance.yml"


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # Without PYTHONPATH: set to a checkout (as the test instructions have it), it would put
    # that checkout's kit before the installed wheel in the vendor's environment.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def copy_of_checkout(kit: Path) -> Path:
    """The checkout's files (tracked, and new ones not ignored) copied to `kit`."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (kit / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, kit / name)
    return kit


@pytest.fixture(scope="module")
def vendor_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding the kit and the vendor's driver, each from a wheel.

    Their dependencies (pydantic, pytest, ...) come from this interpreter's environment
    through a .pth file, so the test needs no registry; the two distributions under test
    are installed fresh, entry points and all.
    """
    base = tmp_path_factory.mktemp("vendor")
    wheels = base / "wheels"
    # setuptools builds in the source tree (build/, *.egg-info): built in the checkout, an
    # egg-info there would make every later pytest run of this session take the kit's
    # modules for a plugin's, to rewrite again at each in-process run.
    kit = copy_of_checkout(base / "kit")
    built = run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "-w",
        wheels,
        kit,
        kit / EXAMPLE.relative_to(ROOT),
        cwd=base,
    )
    assert built.returncode == 0, built.stderr
    env = base / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    site = run(
        python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=base
    ).stdout.strip()
    Path(site, "kit-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = run(
        python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        *sorted(wheels.glob("*.whl")),
        cwd=base,
    )
    assert installed.returncode == 0, installed.stderr
    return python


def test_vendor_driver_runs_through_pytest_driver_flag(vendor_env: Path, tmp_path: Path) -> None:
    project = tmp_path / "acme"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    result = run(
        vendor_env,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--driver=acme",
        "--driver-option",
        "api_key=acme-secret-1234",
        cwd=project,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "acme-secret-1234" not in result.stdout + result.stderr
    report = json.loads((project / "conformance" / "report.json").read_text())
    assert report["driver"]["distribution"] == "acme-memory"
    assert report["driver"]["version"] == "1.4.0"
    assert report["driver"]["options"] == {"api_key": "[REDACTED]"}
    assert report["profiles"]["provider"]["level"] == "core"
    by_id = {c["id"]: c["outcome"] for c in report["checks"]}
    assert by_id["provider.no_credential_in_errors"] == "passed"
    assert by_id["provider.namespace_none_semantics"] == "passed"


def test_an_installed_kit_quotes_the_contract(vendor_env: Path, tmp_path: Path) -> None:
    """The contract pages ship inside the wheel: `explain` quotes a rule far from any
    checkout."""
    located = run(vendor_env, "-c", "import conformance; print(conformance.__file__)", cwd=tmp_path)
    assert not located.stdout.strip().startswith(str(ROOT)), located.stdout
    explained = run(vendor_env, "-m", "plugins.cli", "explain", "engine.replay", cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert "engine-operations.md#store-replay: An identical store is a replay" in explained.stdout
    assert "Storing an item whose fingerprint the engine already holds" in explained.stdout


def readme_commands(path: Path) -> list[str]:
    """The commands a README shows (its lines indented as code)."""
    return [line.strip() for line in path.read_text().splitlines() if line.startswith("    ")]


def workflow_install(path: Path) -> str:
    """The workflow's `pip install` line."""
    return next(
        line.strip().removeprefix("- run: ")
        for line in path.read_text().splitlines()
        if line.strip().startswith("- run: pip install")
    )


def test_the_readmes_install_commands_work_as_written(tmp_path: Path) -> None:
    """A fresh virtual environment, the commands exactly as the vendor README and the
    workflow write them, packages from the configured index: each reaches a verdict."""
    kit = copy_of_checkout(tmp_path / "kit")
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    shell_env = {**os.environ, "PATH": f"{env_dir / 'bin'}:{os.environ['PATH']}"}
    shell_env.pop("PYTHONPATH", None)
    shell_env.pop("VIRTUAL_ENV", None)

    from_checkout, in_own_repo = readme_commands(EXAMPLE / "README.md")[:2]
    assert from_checkout == "pip install ../.. -e . && pytest"
    vendor = kit / "examples" / "vendor-driver"
    done = subprocess.run(
        ["bash", "-c", from_checkout], cwd=vendor, env=shell_env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((vendor / "conformance" / "report.json").read_text())
    assert report["summary"]["verdict"] == "pass"

    # The vendor's own repository, the kit a submodule in it, as the workflow has it: the
    # kit's own tests there must not be collected as the vendor's.
    own = tmp_path / "acme"
    shutil.copytree(vendor, own, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    shutil.copytree(kit, own / "tinymemory-conformance")
    assert in_own_repo == "pip install ./tinymemory-conformance -e . && pytest"
    assert workflow_install(WORKFLOW) == "pip install ./tinymemory-conformance . pytest-xdist"
    done = subprocess.run(
        ["bash", "-c", in_own_repo], cwd=own, env=shell_env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((own / "conformance" / "report.json").read_text())
    assert report["summary"]["verdict"] == "pass"


def test_a_vendor_goes_from_a_red_run_to_the_fix(vendor_env: Path, tmp_path: Path) -> None:
    """The README's walkthrough with a planted fault: a red run names the failing check,
    its replay and explain commands and where both reports are; `explain` says what the
    check holds; the fix turns the run green."""
    project = tmp_path / "acme"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    store = project / "acme_memory" / "store.py"
    correct = store.read_text()
    assert correct.count("session_id=session_id,") == 1
    store.write_text(correct.replace("session_id=session_id,", "session_id=None,"))

    red = run(vendor_env, "-m", "pytest", "-p", "no:cacheprovider", cwd=project)
    out = red.stdout + red.stderr
    assert red.returncode == 1, out
    check = "provider.store_get_round_trip"
    assert f"conformance check `{check}` failed at " in out
    assert "replay: pytest " in out and f"-k {check}" in out
    assert f"explain: tinymemory-conformance explain {check}" in out
    shown = re.search(r"report: (\S+) \(JSON\), (\S+) \(Markdown\)", out)
    assert shown is not None, out
    assert shown.group(1).endswith("conformance/report.json"), shown.group(0)
    assert shown.group(2).endswith("conformance/report.md"), shown.group(0)
    markdown = (project / "conformance" / "report.md").read_text()
    assert markdown.index("fail") < markdown.index("### Failures") < markdown.index(check)

    explained = run(vendor_env, "-m", "plugins.cli", "explain", check, cwd=project)
    assert explained.returncode == 0 and "session" in explained.stdout, explained.stdout

    # The fix; the settings of [tool.tinymemory] alone drive the run.
    store.write_text(correct)
    green = run(vendor_env, "-m", "pytest", "-p", "no:cacheprovider", "-q", cwd=project)
    assert green.returncode == 0, green.stdout + green.stderr
    assert (project / "conformance" / "report.md").exists()
    report = json.loads((project / "conformance" / "report.json").read_text())
    assert report["summary"]["verdict"] == "pass"
