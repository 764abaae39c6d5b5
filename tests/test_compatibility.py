"""`docs/compatibility.md` is the matrix of today's bundled runs and recorded store reports,
and the README leads a vendor to it."""

from __future__ import annotations

import pytest

from tests.compatibility import (
    BUNDLED,
    PAGE,
    ROOT,
    normalised,
    read,
    render,
    run_arguments,
    stored_reports,
    workspace,
)


def test_the_page_is_generated_from_the_runs(pytester: pytest.Pytester) -> None:
    # In process: the three runs share this process's imports (about 10 s in all on
    # two cores, most of it the suite on `reference` and `sqlite`).
    reports = []
    for driver in BUNDLED:
        path = pytester.path / f"{driver}.json"
        with workspace() as files:
            pytester.runpytest(*run_arguments(driver, path, files))
        reports.append((driver, normalised(read(path))))
    written = PAGE.read_text(encoding="utf-8")
    assert written == render([*reports, *stored_reports()]), (
        "run: python -m tests.compatibility > docs/compatibility.md"
    )


def test_the_readme_links_the_matrix_and_says_how_to_join_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How stores compare\n", 1)[1].split("\n## ", 1)[0]
    assert "(docs/compatibility.md)" in section
    for step in ("examples/stores/", "report.json", "python -m tests.compatibility"):
        assert step in section, step
