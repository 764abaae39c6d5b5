"""Drivers and tools the fuzz tests share: an async engine, spies, repro runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.async_wrappers import AsyncEngineOver

ROOT = Path(__file__).resolve().parents[2]


_CUT = re.compile(r"…<\d+ more characters>…")


def same_reason(reason: str, output: str) -> bool:
    """`reason` is in `output`, but where a long value was cut around its middle: the
    run root's length moves the cut by a few characters, so each piece is compared less
    16 characters on the side of the cut."""
    pieces = _CUT.split(reason)
    if len(pieces) == 1:
        return reason in output
    return all(
        piece[16 * (n > 0) : len(piece) - 16 * (n < len(pieces) - 1)] in output
        for n, piece in enumerate(pieces)
    )


class AsyncReferenceEngine(AsyncEngineOver):
    """The reference engine behind `async def` methods."""


def with_driver(repro: Path, spec: str, into: Path) -> Path:
    """A copy of the reproduction file `repro` (in `into`) that rebuilds driver `spec`."""
    text = repro.read_text(encoding="utf-8")
    swapped, count = re.subn(r"(?m)^DRIVER_SPEC: str = .*$", f"DRIVER_SPEC: str = {spec!r}", text)
    assert count == 1, "the reproduction file names its driver once"
    copy = into / f"{repro.stem}_{re.sub(r'[^A-Za-z0-9]', '_', spec)}.py"
    copy.write_text(swapped, encoding="utf-8")
    return copy


def run_pytest(paths: Sequence[Path], cwd: Path) -> tuple[dict[str, str], str]:
    """Run pytest alone on `paths` in a subprocess; each test's outcome by file stem, and
    the whole output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
            "-rA",
            "--tb=short",
            *map(str, paths),
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    outcomes: dict[str, str] = {}
    for line in output.splitlines():
        found = re.match(r"^(PASSED|FAILED|ERROR) (\S+?)\.py::", line)
        if found:
            outcomes[Path(found.group(2)).name] = found.group(1)
    return outcomes, output
