"""Under pytest-xdist the seconds the workers take to come up are announced, not silent."""

from __future__ import annotations

import pytest

STARTING = (
    "tinymemory: starting 2 pytest-xdist workers; each loads the kit and driver `reference` "
    "and builds its own instance before its first check"
)


def test_xdist_start_up_says_what_it_is_doing(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess("--driver=reference", "-n", "2", "-k", "health")
    assert result.ret == 0, result.stdout.str()
    lines = [line for line in result.outlines if line.startswith(STARTING)]
    assert len(lines) == 1, result.stdout.str()


def test_quiet_leaves_it_out(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess("--driver=reference", "-n", "2", "-q", "-k", "health")
    assert result.ret == 0, result.stdout.str()
    assert "pytest-xdist workers" not in result.stdout.str()
