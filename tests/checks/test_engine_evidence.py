"""What a failing engine check says: the probes it misses by label, evidence as `repr`, a
fault reported by the check owning the operation, and refusals of valid input unless
declared."""

from __future__ import annotations

import pytest

from conformance.checks.catalogue import CATALOGUE
from conformance.checks.context import RunSettings
from conformance.checks.runner import run_engine_suite
from conformance.constraints import Constraints
from conformance.engine import InvalidRequest, StoreItem, StoreReceipt
from reference_driver.engine import ReferenceEngine
from tests.checks.broken_engines import (
    BROKEN_ENGINES,
    ExploreTopHundred,
    FetchCursorRepeatsBoundary,
    FetchCursorSkipsBoundary,
    FetchFiltersAfterLimitPlusFifty,
    FetchFirstTwenty,
    FetchShortPageEnds,
    ForgetByIdReportsZero,
    ForgetFilterFirstPage,
    ForgetIdsFirstHundred,
    GetFromOneListPage,
    ListCappedAtHundred,
    ListCappedAtTen,
    ListCappedAtTwenty,
    ListShortPageEnds,
    NormalisesNewlines,
    RecallFiltersAfterTopHundred,
    RefusesDots,
    RefusesLongTexts,
    RepeatingCursor,
    SkippingCursor,
    StoreManyFirstFifty,
    StoreManyUnordered,
)

FAST = RunSettings(timeout=10.0, retries=0)


def test_a_capped_listing_names_the_items_it_missed() -> None:
    result = run_engine_suite(ListCappedAtTen(), FAST, only=["engine.list_paging"])
    reason = result["engine.list_paging"].reason
    assert "got 10 of 25; missing p11–p25" in reason


def test_a_listing_capped_at_a_hundred_names_the_items_past_the_cap() -> None:
    result = run_engine_suite(ListCappedAtHundred(), FAST, only=["engine.list_paging"])
    assert "got 100 of 125; missing p101–p125" in result["engine.list_paging"].reason


def test_a_filter_applied_after_the_cut_is_named_as_such() -> None:
    check = "engine.fetch_filters"
    result = run_engine_suite(FetchFiltersAfterLimitPlusFifty(), FAST, only=[check])
    reason = result[check].reason
    assert "got 0 of 3; missing kept1–kept3" in reason
    assert "130 items the filter excludes rank above them" in reason


@pytest.mark.parametrize(
    "broken",
    [
        ListCappedAtTen,
        ListCappedAtTwenty,
        RepeatingCursor,
        SkippingCursor,
        FetchFirstTwenty,
        FetchCursorRepeatsBoundary,
        FetchCursorSkipsBoundary,
        ForgetByIdReportsZero,
        ListCappedAtHundred,
        ListShortPageEnds,
        FetchShortPageEnds,
        FetchFiltersAfterLimitPlusFifty,
        RecallFiltersAfterTopHundred,
        GetFromOneListPage,
        ExploreTopHundred,
        ForgetIdsFirstHundred,
        ForgetFilterFirstPage,
        StoreManyFirstFifty,
        StoreManyUnordered,
    ],
    ids=lambda b: b.__name__,
)
def test_a_fault_is_reported_once_by_the_check_owning_the_operation(
    broken: type[ReferenceEngine],
) -> None:
    owner = BROKEN_ENGINES[broken]
    results = run_engine_suite(broken(), FAST)
    assert {k for k, r in results.items() if r.outcome == "failed"} == {owner}
    for result in results.values():
        if result.outcome == "inconclusive":
            assert "precondition failed" in result.reason
            assert result.reason.endswith(f"(see {owner})") or f"(see {owner}) (" in result.reason


def test_list_paging_is_one_check_and_fetch_paging_one_per_mode() -> None:
    assert not CATALOGUE["engine.list_paging"].per_mode
    assert CATALOGUE["engine.cursor_progress"].per_mode
    results = run_engine_suite(SkippingCursor(), FAST, only=["engine.cursor_progress"])
    assert results["engine.cursor_progress"].outcome == "passed"


def test_a_lost_carriage_return_shows_in_the_message() -> None:
    results = run_engine_suite(NormalisesNewlines(), FAST, only=["engine.accepts_valid_input"])
    reason = results["engine.accepts_valid_input"].reason
    assert "carriage returns" in reason
    assert "one\\r\\ntwo\\rthree" in reason and "one\\ntwo\\nthree" in reason


def test_a_refused_valid_input_fails_and_is_counted() -> None:
    results = run_engine_suite(RefusesDots(), FAST, only=["engine.accepts_valid_input"])
    result = results["engine.accepts_valid_input"]
    assert result.outcome == "failed"
    assert "refused as invalid" in result.reason
    assert "none in the kit's vocabulary covers dots" in result.reason
    assert result.refusals


def test_a_declared_constraint_narrows_what_is_sent() -> None:
    # The same engine fails undeclared and passes the whole suite once it declares it.
    undeclared = run_engine_suite(RefusesLongTexts(), FAST, only=["engine.accepts_valid_input"])
    assert undeclared["engine.accepts_valid_input"].outcome == "failed"
    assert "`max_content_length`" in undeclared["engine.accepts_valid_input"].reason
    declared = RunSettings(
        timeout=10.0, retries=0, constraints=Constraints(max_content_length=1000)
    )
    results = run_engine_suite(RefusesLongTexts(), declared)
    assert {k: r.reason for k, r in results.items() if not r.ok} == {}
    assert not any(r.refusals for r in results.values())


def test_a_constraint_outside_the_vocabulary_cannot_be_declared_away() -> None:
    every = Constraints(max_content_length=1000, control_characters=False, non_ascii=False)
    settings = RunSettings(timeout=10.0, retries=0, constraints=every)
    results = run_engine_suite(RefusesDots(), settings, only=["engine.accepts_valid_input"])
    assert results["engine.accepts_valid_input"].outcome == "failed"


class RefusesNonAscii(ReferenceEngine):
    """Refuses any item whose text holds a character beyond ASCII."""

    def store(self, item: StoreItem) -> StoreReceipt:
        if not item.render_text().isascii():
            raise InvalidRequest("text must be ASCII")
        return super().store(item)


def test_declaring_non_ascii_leaves_every_non_ascii_input_out() -> None:
    only = ["engine.accepts_valid_input"]
    assert run_engine_suite(RefusesNonAscii(), FAST, only=only)[only[0]].outcome == "failed"
    ascii_only = RunSettings(timeout=10.0, retries=0, constraints=Constraints(non_ascii=False))
    assert run_engine_suite(RefusesNonAscii(), ascii_only, only=only)[only[0]].outcome == "passed"


def test_a_precondition_names_what_the_listing_missed() -> None:
    result = run_engine_suite(ListCappedAtTen(), FAST, only=["engine.get"])["engine.get"]
    assert result.outcome == "inconclusive"
    assert "got 10 of 175; missing in11–in165, out1–out10" in result.reason
    assert "got got" not in result.reason
    # The owner did not run, so nothing says it failed.
    assert result.reason.endswith("(engine.list_paging, which tests this operation, did not run)")
