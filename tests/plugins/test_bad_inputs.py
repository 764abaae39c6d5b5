"""Bad input gets one line naming it and what is wanted, before any check runs; a project
that asks for no run is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

PYPROJECT = "pyproject.toml"


def assert_one_line_usage_error(result: pytest.RunResult, *fragments: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, result.stderr.str()
    assert lines[0].startswith("ERROR: tinymemory: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "passed" not in result.stdout.str()  # no check ran


MODULES = {
    "raises_on_import": "raise RuntimeError('no network at import time')\n",
    "does_not_parse": "def broken(:\n",
    "exits_on_import": "import sys\nsys.exit(3)\n",
    "not_a_driver": "SETTINGS = {'region': 'eu'}\n",
}


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        (
            "raises_on_import:Store",
            ["driver spec `raises_on_import:Store` failed to import: RuntimeError: no network"],
        ),
        ("does_not_parse:Store", ["failed to import: SyntaxError: ", "does_not_parse.py"]),
        ("exits_on_import:Store", ["failed to import: SystemExit: 3"]),
        (
            "not_a_driver:SETTINGS",
            ["`not_a_driver:SETTINGS` names a dict, not a driver: expected a conformance.Driver"],
        ),
    ],
)
def test_a_driver_spec_that_cannot_be_a_driver_is_one_line(
    pytester: pytest.Pytester, spec: str, fragments: list[str]
) -> None:
    pytester.makepyfile(**MODULES)
    pytester.syspathinsert()
    assert_one_line_usage_error(pytester.runpytest(f"--driver={spec}"), *fragments)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--waivers", "."], ["waiver file . is a directory; give the TOML file"]),
        (
            ["--conformance-report=r.md"],
            ["--conformance-report r.md: 'r.md' is a Markdown path, but the report is JSON"],
        ),
        (
            ["--conformance-report=r.html"],
            ["--conformance-report r.html: 'r.html' is an HTML path, but the report is JSON"],
        ),
        (
            ["--conformance-report=a-file.txt/r.json"],
            ["cannot write the report to a-file.txt/r.json: "],
        ),
        (["--driver-timeout=nan"], ["--driver-timeout nan: wanted a finite number of seconds"]),
        (["--driver-timeout=inf"], ["--driver-timeout inf: wanted a finite number of seconds"]),
        (["--driver-timeout=-1"], ["--driver-timeout -1: wanted a finite number of seconds >= 0"]),
        (["--driver-timeout=soon"], ["--driver-timeout soon: wanted a number, got 'soon'"]),
        (["--fuzz", "--fuzz-examples=0"], ["--fuzz-examples 0: wanted a whole number >= 1"]),
        (["--fuzz", "--fuzz-examples=-5"], ["--fuzz-examples -5: wanted a whole number >= 1"]),
        (["--driver-retries=-1"], ["--driver-retries -1: wanted a whole number >= 0"]),
        (["--conformance-repeat=0"], ["--conformance-repeat 0: wanted a whole number >= 1"]),
        (["--conformance-seed=x"], ["--conformance-seed x: wanted a whole number >= 0"]),
        (["--driver-option", "novalue"], ["--driver-option takes KEY=VALUE, got 'novalue'"]),
    ],
)
def test_a_bad_option_is_one_line_before_any_check(
    pytester: pytest.Pytester, args: list[str], fragments: list[str]
) -> None:
    pytester.makefile(".txt", **{"a-file": "not a folder"})
    result = pytester.runpytest("--driver=reference", *args)
    assert_one_line_usage_error(result, *fragments)
    assert not (pytester.path / "r.md").exists()


@pytest.mark.parametrize(
    ("table", "fragments"),
    [
        (
            "driver = 5",
            ["[tool.tinymemory] driver in ", "wanted a name, a module:attr spec", "got 5"],
        ),
        (
            'driver = "reference"\nconformance-report = 5',
            ["[tool.tinymemory] conformance-report in ", "got 5"],
        ),
        (
            'driver = "reference"\nfuzz = "no"',
            ["[tool.tinymemory] fuzz in ", "wanted true or false (a TOML boolean), got 'no'"],
        ),
        (
            'driver = "reference"\ndriver-timeout = true',
            ["[tool.tinymemory] driver-timeout in ", "wanted a number, got True"],
        ),
        (
            'driver = "reference"\nfuzz-examples = "ten"',
            ["[tool.tinymemory] fuzz-examples in ", "wanted a whole number >= 1, got 'ten'"],
        ),
        (
            'driver = "reference"\nprofile = "both"',
            ["[tool.tinymemory] profile in ", "wanted one of engine, provider, all"],
        ),
        (
            'driver = "reference"\ndriver-isolation = "thread"',
            ["[tool.tinymemory] driver-isolation in ", "wanted one of none, process"],
        ),
        (
            'driver = "reference"\ndriver-options = { region = ["eu"] }',
            ["[tool.tinymemory] driver-options in ", "region must be a string or a number"],
        ),
    ],
)
def test_a_bad_value_in_pyproject_is_one_line_naming_the_file(
    pytester: pytest.Pytester, table: str, fragments: list[str]
) -> None:
    pytester.makepyprojecttoml(f"[tool.tinymemory]\n{table}\n")
    result = pytester.runpytest()
    assert_one_line_usage_error(result, *fragments, str(pytester.path / PYPROJECT))


def test_a_markdown_report_path_never_overwrites_the_json(pytester: pytest.Pytester) -> None:
    notes = pytester.path / "r.md"
    notes.write_text("# my notes\n")
    pytester.runpytest("--driver=reference", "--conformance-report=r.md")
    assert notes.read_text() == "# my notes\n"


def test_an_html_report_path_never_overwrites_the_json(pytester: pytest.Pytester) -> None:
    # The page goes beside the JSON with `.html`: the same path, were the JSON there.
    page = pytester.path / "r.html"
    page.write_text("<p>mine</p>\n")
    pytester.runpytest("--driver=reference", "--conformance-report=r.html")
    assert page.read_text() == "<p>mine</p>\n"


# -- inert without a driver ------------------------------------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project with its own pytest.ini and one test, in a folder below `pytester.path`:
    pytest stops at its pytest.ini, so only the plugin could read a pyproject.toml above."""
    folder = pytester.mkdir("project")
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "test_own.py").write_text("def test_own():\n    assert True\n")
    monkeypatch.chdir(folder)
    return pytester


def test_a_malformed_pyproject_of_an_unrelated_project_is_never_read(
    project: pytest.Pytester,
) -> None:
    (project.path / PYPROJECT).write_text("[project\nname = 'unrelated'\n")
    result = project.runpytest("-q", "-W", "error")
    result.assert_outcomes(passed=1)


def test_a_malformed_pyproject_that_mentions_the_kit_is_a_warning_without_a_driver(
    project: pytest.Pytester,
) -> None:
    broken = project.path / PYPROJECT
    broken.write_text("[tool.tinymemory\ndriver = 'reference'\n")
    result = project.runpytest("-q")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines([f"*tinymemory: {broken} is not valid TOML*no conformance run"])
    # Asked for a run, the same file is an error naming it.
    assert_one_line_usage_error(
        project.runpytest("--driver=reference"), f"{broken} is not valid TOML"
    )


def test_settings_without_a_driver_are_not_checked(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.tinymemory]\nfuzz = "no"\ndriver-timeout = "soon"\n')
    pytester.makepyfile("def test_own():\n    assert True\n")
    result = pytester.runpytest("-q", "-W", "error")
    result.assert_outcomes(passed=1)
    assert "tinymemory" not in result.stdout.str() + result.stderr.str()


def test_an_empty_driver_name_is_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--driver=")
    assert_one_line_usage_error(result, "--driver: the driver name is empty")


def test_run_with_an_empty_driver_name_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from plugins.cli import main

    assert main(["run", "--driver", ""]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "tinymemory-conformance run: the driver name is empty; give an entry-point name "
        "(see `tinymemory-conformance drivers`), package.module:attr, or exec:COMMAND"
    ]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("not json at all", "is not JSON"),
        ('{"kit_version": 3}', "is JSON but not a conformance report"),
        (None, "cannot read"),
    ],
)
def test_report_diff_names_the_file_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, why: str
) -> None:
    from plugins.cli import main

    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    assert main(["report", "diff", str(bad), str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tinymemory-conformance report diff: ")
    assert f"{bad}" in err[0] and why in err[0], err[0]
