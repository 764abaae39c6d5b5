"""`docs/compatibility.md`: the compatibility matrix of the bundled drivers and the example
stores, from runs of the bundled drivers and the reports recorded beside each store.

    python -m tests.compatibility > docs/compatibility.md

`test_compatibility.py` runs the same drivers and fails when the file differs from what
this prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from conformance.matrix import build_matrix
from conformance.matrix_markdown import to_markdown
from conformance.report import Report

ROOT: Final = Path(__file__).resolve().parents[1]
PAGE: Final = ROOT / "docs" / "compatibility.md"
BUNDLED: Final = ("reference", "null", "sqlite")
"""The bundled drivers, each run once over every profile it offers."""
SEED: Final = 1
"""The `--conformance-seed` of the bundled runs."""
STORES: Final = "examples/stores/*/report.json"
"""Where the example stores keep their recorded reports (same schema, volatile fields
normalised)."""

INTRO = """\
# Compatibility matrix

How the bundled drivers and the example adapters over real stores
([`examples/stores/`](../examples/stores/)) fare against the suite: one column per
driver, one row per check, the levels each reached first. A reason is a footnote; a
reason shared by many checks is written once. `not offered`: the driver does not offer
the check's profile; `—`: its report holds no such check (a fuzz target it was not run
with, say).

This page is generated: `python -m tests.compatibility > docs/compatibility.md`,
from runs of the bundled drivers ({bundled}; every profile each offers,
`--conformance-seed {seed}`) and from each store's recorded report,
`{stores}`. A test regenerates it and fails when it differs. The same
matrix as one self-contained web page, with each reason on hover and a filter by
outcome and profile:

    tinymemory-conformance report matrix REPORT.json... --html matrix.html

To add your store: write its adapter as a small distribution under
`examples/stores/NAME/` (declaring as constraints, or waiving with a reason, what the store
cannot do), record its report there as `report.json`
(`pytest --driver=NAME --conformance-report examples/stores/NAME/report.json`), and
regenerate this page.
"""


def run_arguments(driver: str, report: Path, workspace: Path) -> list[str]:
    """The pytest arguments of one bundled run, writing its report to `report`; the
    `sqlite` driver keeps its files in `workspace`."""
    args = [
        f"--driver={driver}",
        f"--conformance-seed={SEED}",
        f"--conformance-report={report}",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    if driver == "sqlite":
        args += ["--driver-option", f"path={workspace}"]
    return args


@contextmanager
def workspace() -> Iterator[Path]:
    """A folder for the `sqlite` driver's files: in memory (`/dev/shm`) where there is
    one, as the run then takes a quarter of the time it takes on disk."""
    shm = Path("/dev/shm")
    base = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="tinymemory-compat-", dir=base) as folder:
        yield Path(folder)


def read(path: Path) -> Report:
    """The report at `path`."""
    return Report.model_validate_json(path.read_text(encoding="utf-8"))


def normalised(report: Report) -> Report:
    """A bundled driver's report without what changes from run to run or release to
    release (its version is the kit's; its options hold a temporary folder)."""
    driver = report.driver.model_copy(update={"version": None, "options": {}})
    return report.model_copy(update={"driver": driver})


def stored_reports() -> list[tuple[str, Report]]:
    """The example stores' recorded reports, by path, in path order."""
    return [(str(p.relative_to(ROOT)), read(p)) for p in sorted(ROOT.glob(STORES))]


def render(reports: Sequence[tuple[str, Report]]) -> str:
    """The whole page, from `(source, report)` pairs: the bundled runs, then the stores."""
    intro = INTRO.format(
        bundled=", ".join(f"`{name}`" for name in BUNDLED), seed=SEED, stores=STORES
    )
    matrix = build_matrix([r for _, r in reports], [source for source, _ in reports])
    return f"{intro}\n{to_markdown(matrix)}"


def bundled_runs(folder: Path) -> list[tuple[str, Report]]:
    """Run each bundled driver in a pytest process of its own; their reports."""
    reports = []
    for driver in BUNDLED:
        path = folder / f"{driver}.json"
        with workspace() as files:
            subprocess.run(
                [sys.executable, "-m", "pytest", *run_arguments(driver, path, files)],
                cwd=folder,
                stdout=subprocess.DEVNULL,
                check=False,
            )
        reports.append((driver, normalised(read(path))))
    return reports


def main() -> None:
    """Print the page."""
    with tempfile.TemporaryDirectory(prefix="tinymemory-compat-") as folder:
        reports = bundled_runs(Path(folder))
    print(render([*reports, *stored_reports()]), end="")


if __name__ == "__main__":
    main()
