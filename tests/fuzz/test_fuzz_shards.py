"""A fuzz target's budget is cut into shards by the budget alone: each a search of its own
seed, none running the simplest program twice, the first failing shard's failure the
one reported, and a failure that needs the instance's history replayed with it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conformance.engine import StoreItem, StoreReceipt
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzFailure, run_fuzz
from conformance.fuzz.differential import Differential
from conformance.fuzz.session import FuzzSession
from conformance.fuzz.shards import PROGRAMS_PER_SHARD, Watermark, plan_shards, shard_seed
from conformance.fuzz.steps import program
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider


def test_the_budget_alone_cuts_the_shards() -> None:
    assert PROGRAMS_PER_SHARD == 10
    assert [s.examples for s in plan_shards(ENGINE_TARGET, 40, 7)] == [10] + [11] * 3
    assert [s.examples for s in plan_shards(ENGINE_TARGET, 3, 7)] == [3]
    assert [s.examples for s in plan_shards(ENGINE_TARGET, 10, 7)] == [10]
    assert [s.examples for s in plan_shards(ENGINE_TARGET, 15, 7)] == [8, 8]  # 8 and 7 + 1
    assert [s.examples for s in plan_shards(ENGINE_TARGET, 25, 7)] == [9, 9, 9]


def test_each_shard_has_a_seed_of_its_own_that_the_run_seed_names() -> None:
    seeds = [s.seed for s in plan_shards(ENGINE_TARGET, 40, 7)]
    assert seeds[0] == 7
    assert len(set(seeds)) == 4
    assert seeds == [s.seed for s in plan_shards(ENGINE_TARGET, 40, 7)]
    assert seeds[1:] != [s.seed for s in plan_shards(ENGINE_TARGET, 40, 8)][1:]
    # Derandomized: hypothesis picks the first shard's; the others are fixed per target.
    assert shard_seed(None, ENGINE_TARGET, 0) is None
    assert shard_seed(None, ENGINE_TARGET, 1) == shard_seed(None, ENGINE_TARGET, 1)
    assert shard_seed(None, ENGINE_TARGET, 1) != shard_seed(None, PROVIDER_TARGET, 1)


def test_a_watermark_stops_only_the_shards_after_the_lowest_that_ended() -> None:
    mark = Watermark()
    assert not mark.outranks(0) and not mark.outranks(5)
    mark.lower(3)
    mark.lower(4)
    assert [mark.outranks(i) for i in range(6)] == [False] * 4 + [True] * 2
    mark.lower(1)
    assert [mark.outranks(i) for i in range(3)] == [False, False, True]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Differential]]:
    """Every differential a run opens against the driver."""
    made: list[Differential] = []
    real = FuzzSession.open

    def recording(self: FuzzSession, *args: Any, **kwargs: Any) -> Differential:
        differential = real(self, *args, **kwargs)
        made.append(differential)
        return differential

    monkeypatch.setattr(FuzzSession, "open", recording)
    yield made


@pytest.mark.parametrize("target", [ENGINE_TARGET, PROVIDER_TARGET])
def test_the_simplest_program_reaches_the_driver_once_and_the_budget_is_kept(
    target: str, opened: list[Differential]
) -> None:
    driver = ReferenceEngine if target == ENGINE_TARGET else ReferenceProvider
    report = run_fuzz(target, driver, examples=25, seed=3)
    programs = ["\n".join(program(d.log)) for d in opened]
    assert report.runs == len(programs) >= 25  # 3 shards; the rehearsals are not counted
    assert len(set(programs)) == len(programs), "a program ran twice against the driver"


class BreaksAtTheFourthRoot(ReferenceEngine):
    """Refuses every write under the fourth run root it is handed (the retention probe's
    is the first): a fault of the instance's history, not of any one program."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[str] = []

    def store(self, item: StoreItem) -> StoreReceipt:
        root = item.meta.workspace
        if root and root not in self.roots:
            self.roots.append(root)
        if root and len(self.roots) >= 4 and root == self.roots[3]:
            raise RuntimeError("the store is full")
        return super().store(item)


class CountsInstances(ReferenceEngine):
    built = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).built += 1


def test_each_shard_drives_an_instance_of_its_own() -> None:
    CountsInstances.built = 0
    run_fuzz(ENGINE_TARGET, CountsInstances, examples=25, seed=5)
    assert CountsInstances.built == 3  # three shards, no replay


def test_the_shards_share_an_instance_handed_over() -> None:
    # Its class may build instances otherwise configured: the shards run on it, in turn.
    CountsInstances.built = 0
    handed = CountsInstances()
    report = run_fuzz(ENGINE_TARGET, handed, examples=25, seed=5)
    assert CountsInstances.built == 1 and report.runs >= 25


def test_a_failure_of_the_instance_history_is_replayed_with_its_shard_programs() -> None:
    # The first shard's third program meets its instance's fourth root: alone it passes;
    # after the two programs its instance ran before it, it fails again.
    with pytest.raises(FuzzFailure) as caught:
        run_fuzz(ENGINE_TARGET, BreaksAtTheFourthRoot, examples=10, seed=5, shrink_calls=200)
    failure = caught.value
    assert "the store is full" in str(failure)
    assert "unreliable" not in str(failure)
    assert sum("# history: program" in line for line in failure.program) == 2


class OracleWithoutDocuments(ReferenceProvider):
    """A custom oracle offering no documents family (the fuzzer compares documents with a
    `ReferenceDocuments` of its own then)."""

    as_documents = None  # type: ignore[assignment]


def test_a_shard_rehearses_its_first_draw_with_a_custom_oracle_too() -> None:
    report = run_fuzz(
        PROVIDER_TARGET,
        ReferenceProvider,
        examples=12,
        seed=4,
        oracle_factory=OracleWithoutDocuments,
    )
    assert report.passed and report.oracle == "custom" and report.runs >= 12
