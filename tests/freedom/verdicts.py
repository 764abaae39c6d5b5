"""What a run of the matrix must show: every check passed (or skipped for a stated,
legitimate reason), and every freedom of the configuration used."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from tests.freedom.matrix import FUZZ_ONLY, SUITE_ONLY, Configuration

Run = Literal["suite", "fuzz", "plugin"]


def problems(
    config: Configuration, outcomes: Iterable[tuple[str, str, str]], has_modes: bool
) -> list[str]:
    """Each `(id, outcome, reason)` that is not a pass or an allowed skip."""
    allowed = config.skips(has_modes)
    found = []
    for check_id, outcome, reason in outcomes:
        if outcome == "passed":
            continue
        if outcome == "skipped" and allowed.get(check_id.split("[", 1)[0]) == reason:
            continue
        found.append(f"{check_id}: {outcome}: {reason}")
    return found


def unused(config: Configuration, used: Counter[str], run: Run) -> list[str]:
    """The freedoms of `config` that `run` should have used and did not."""
    skip = {"suite": FUZZ_ONLY, "fuzz": SUITE_ONLY, "plugin": frozenset[str]()}[run]
    return [f for f in config.freedoms if f not in skip and not used[f]]
