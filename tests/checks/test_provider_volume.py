"""What a provider check says when an adapter stops at a cap of 50 or 100, or applies a
filter to a top-k cut: the entries past the cap, by label, and why they count."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.context import RunSettings
from conformance.checks.runner import run_provider_suite
from tests.checks.broken_providers import (
    BROKEN_PROVIDERS,
    CountsPagesOfHundred,
    ExportPageCappedAtHundred,
    ImportFirstFiftyClaimsAll,
    ListNonePagesOfHundred,
    ListPagesOfHundred,
    NamespacesFirstHundred,
    RecallCategoryAfterTopHundred,
    RecallNamespaceAfterLimitPlusFifty,
    RecallPagesOfHundred,
)

FAST = RunSettings(timeout=10.0, retries=0)


@pytest.mark.parametrize(
    ("broken", "said"),
    [
        (ListPagesOfHundred, "got 100 of 125; missing v100–v124"),
        (ListNonePagesOfHundred, "got 100 of 245; missing vol/big:v100–vol/big:v124, vol/n000–"),
        (CountsPagesOfHundred, "vol/big: wanted 125, got 100"),
        (NamespacesFirstHundred, "got 100 of 121; missing vol/n099–vol/n119"),
        (RecallPagesOfHundred, "expected exactly 110 hits"),
        (RecallNamespaceAfterLimitPlusFifty, "got 0 hits"),
        (RecallCategoryAfterTopHundred, "got 0 of 3; missing kept-1–kept-3"),
        (ExportPageCappedAtHundred, "got 100 of 133; missing export/bulk:x092–export/bulk:x124"),
        (ImportFirstFiftyClaimsAll, "42 of 125 held afterwards"),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_a_capped_or_cut_provider_is_told_what_it_missed(broken: type[Any], said: str) -> None:
    check = BROKEN_PROVIDERS[broken]
    result = run_provider_suite(broken(), FAST, only=[check])[check]
    assert result.outcome == "failed"
    assert said in result.reason


def test_the_decoys_outranking_a_filter_are_counted_in_the_message() -> None:
    check = "provider.recall_filters_narrow"
    reason = run_provider_suite(RecallCategoryAfterTopHundred(), FAST, only=[check])[check].reason
    assert "though 120 entries they exclude match the query better" in reason
