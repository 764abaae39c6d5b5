"""A fuzz target says how far it has got while it runs, on the terminal only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.fuzz.progress import FuzzProgress, ProgressMeter, listening

SEARCH_DONE = re.compile(
    r"\[tinymemory fuzz\] fuzz\.provider\.differential: 3/3 programs, \d+ steps, "
    r"\d+\.\d steps/s, \d+\.\d s"
)


def fuzz(pytester: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--driver=reference",
        "--profile=provider",
        "--fuzz",
        "--fuzz-examples=3",
        "--fuzz-seed=5",
        "-k",
        "fuzz",
        "--conformance-report=r.json",
        *extra,
    )


def test_a_fuzz_target_shows_its_progress_on_the_terminal(pytester: pytest.Pytester) -> None:
    result = fuzz(pytester)
    assert result.ret == 0
    lines = [line for line in result.outlines if SEARCH_DONE.fullmatch(line)]
    assert len(lines) == 1, result.stdout.str()
    # Where it started, too: none of the programs had run then.
    assert any("fuzz.provider.differential: 0/3 programs" in line for line in result.outlines)
    # A terminal matter: the report holds none of it.
    assert "steps/s" not in (pytester.path / "r.json").read_text(encoding="utf-8")


def test_quiet_silences_the_progress(pytester: pytest.Pytester) -> None:
    result = fuzz(pytester, "-q")
    assert result.ret == 0
    assert "steps/s" not in result.stdout.str()


def test_a_failing_target_says_it_is_shrinking(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=tests.fuzz.provider_faults:ForgetsKeyPrefix",
        "--fuzz",
        "--fuzz-seed=2",
        "-k",
        "fuzz",
    )
    assert result.ret != 0
    assert any(
        re.fullmatch(
            r"\[tinymemory fuzz\] fuzz\.provider\.differential: shrunk, \d+ of at most "
            r"\d+ driver calls, \d+\.\d s",
            line,
        )
        for line in result.outlines
    ), result.stdout.str()


def test_progress_is_sent_at_most_once_an_interval() -> None:
    now = [0.0]
    seen: list[FuzzProgress] = []
    with listening(seen.append, interval=2.0):
        meter = ProgressMeter("fuzz.engine.differential", "search", 10, now=lambda: now[0])
    for done, at in enumerate([0.0, 0.5, 1.9, 2.0, 2.1, 4.5]):
        now[0] = at
        meter.tick(done, steps=10 * done)
    meter.tick(6, steps=60, final=True)  # the last always passes
    assert [(p.done, p.elapsed, p.final) for p in seen] == [
        (0, 0.0, False),
        (3, 2.0, False),
        (5, 4.5, False),
        (6, 4.5, True),
    ]
    assert seen[1].line() == (
        "[tinymemory fuzz] fuzz.engine.differential: 3/10 programs, 30 steps, 15.0 steps/s, 2.0 s"
    )


def test_no_listener_no_progress(tmp_path: Path) -> None:
    meter = ProgressMeter("fuzz.engine.differential", "search", 1)
    assert meter.listener is None
    meter.tick(1, final=True)  # nothing to tell, nothing raised


def test_fuzzing_writes_nothing_into_the_working_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fresh process: hypothesis writes its Unicode cache once per process, at first use.
    cache = pytester.path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    work = pytester.mkdir("work")
    monkeypatch.chdir(work)
    result = pytester.runpytest_subprocess(
        "--driver=reference", "--profile=provider", "--fuzz", "--fuzz-examples=2", "-k", "fuzz"
    )
    assert result.ret == 0, result.stdout.str()
    assert not (work / ".hypothesis").exists()
    assert (cache / "tinymemory-conformance" / "hypothesis").is_dir()
