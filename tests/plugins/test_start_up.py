"""What a process of the kit loads before it has work: pytest loads the kit's plugin for
every run once the kit is installed, and `serve` starts each process of a served or
isolated Python driver (a fresh one after every crash), so neither pays for what it does
not use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# The contract's models (pydantic), the suites and the fuzzer (hypothesis): hundreds of
# milliseconds of imports together.
HEAVY = (
    "pydantic",
    "hypothesis",
    "conformance.engine",
    "conformance.provider",
    "conformance.checks",
)
PYTEST = [sys.executable, "-m", "pytest"]
REPORT_HEAVY = """
import sys

HEAVY = {heavy!r}


def pytest_unconfigure(config):
    print("loaded:", sorted(m for m in sys.modules if m.startswith(HEAVY)))
"""


def loaded(output: str) -> str:
    line = next((x for x in output.splitlines() if x.startswith("loaded: ")), None)
    assert line is not None, output
    return line.removeprefix("loaded: ")


def test_a_pytest_run_without_a_driver_loads_none_of_the_contract(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(REPORT_HEAVY.format(heavy=HEAVY))
    (tmp_path / "test_own.py").write_text("def test_own():\n    pass\n")
    done = subprocess.run(
        # Hypothesis's own pytest plugin loads hypothesis: not the kit's doing.
        [*PYTEST, "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q", "-s"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert loaded(done.stdout) == "[]"


def test_serve_starts_without_pytest_the_suites_or_the_fuzzer(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from plugins.cli import main\n"
        "status = main(['serve', '--driver', 'reference'])\n"
        "print('loaded:', sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pytest', '_pytest', 'hypothesis') or m.startswith('conformance.checks')),"
        " file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        input="\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # A blank line for a hello: the server says so, having loaded what serving needs.
    assert '"the first message must be a hello' in done.stdout, done.stdout + done.stderr
    assert loaded(done.stderr) == "[]"
