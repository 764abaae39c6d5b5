"""A vendor's path, end to end: `examples/vendor-driver` installed into a fresh environment."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "vendor-driver"


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def vendor_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding the kit and the vendor's driver, each from a wheel.

    Their dependencies (pydantic, pytest, ...) come from this interpreter's environment
    through a .pth file, so the test needs no registry; the two distributions under test
    are installed fresh, entry points and all.
    """
    base = tmp_path_factory.mktemp("vendor")
    wheels = base / "wheels"
    # setuptools builds in the source tree (build/, *.egg-info): two xdist workers building
    # at once would trip over each other, so the build is serialised across processes.
    with Path(tempfile.gettempdir(), "tinymemory-wheel-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = run(
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            wheels,
            ROOT,
            EXAMPLE,
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


def test_vendor_settings_alone_drive_the_run(vendor_env: Path, tmp_path: Path) -> None:
    project = tmp_path / "acme"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    result = run(vendor_env, "-m", "pytest", "-p", "no:cacheprovider", "-q", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (project / "conformance" / "report.md").exists()


def test_an_installed_kit_quotes_the_contract(vendor_env: Path, tmp_path: Path) -> None:
    """The contract pages ship inside the wheel: `explain` quotes a rule far from any
    checkout."""
    located = run(vendor_env, "-c", "import conformance; print(conformance.__file__)", cwd=tmp_path)
    assert not located.stdout.strip().startswith(str(ROOT)), located.stdout
    explained = run(vendor_env, "-m", "plugins.cli", "explain", "engine.replay", cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert "engine-operations.md#store-replay: An identical store is a replay" in explained.stdout
    assert "Storing an item whose fingerprint the engine already holds" in explained.stdout
