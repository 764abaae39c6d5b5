"""The fuzz budget is stated once and truly: the help, the README and a run agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conformance.fuzz.runner import FuzzFailure, run_fuzz
from conformance.fuzz_defaults import DEFAULT_EXAMPLES, DEFAULT_STEPS
from reference_driver.provider import ReferenceProvider

README = Path(__file__).resolve().parents[2] / "README.md"


class StoreRaises(ReferenceProvider):
    """Fails the retention probe at once: the run ends before it searches."""

    def store(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("store is broken")


def test_a_run_asks_for_the_default_budget() -> None:
    with pytest.raises(FuzzFailure) as caught:
        run_fuzz("fuzz.provider.differential", StoreRaises, seed=1)
    assert caught.value.report.examples == DEFAULT_EXAMPLES
    assert caught.value.report.steps_per_example == DEFAULT_STEPS


def test_the_help_states_the_default_budget(pytester: pytest.Pytester) -> None:
    help_text = " ".join(pytester.runpytest("--help").stdout.str().split())
    (said,) = re.findall(r"--fuzz-examples=N programs per fuzz target \(default (\d+)\)", help_text)
    assert int(said) == DEFAULT_EXAMPLES


def test_the_readme_states_the_default_budget_once_and_truly() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    stated = re.findall(r"\(default (\d+), each of up to (\d+) steps\)", text)
    assert stated == [(str(DEFAULT_EXAMPLES), str(DEFAULT_STEPS))]
    # No other number of programs passes for the default anywhere else.
    assert not re.search(r"default budget, \d+ programs", text)
    assert not re.search(rf"--fuzz-examples[^.]*default (?!{DEFAULT_EXAMPLES})\d+", text)
