"""A check left inconclusive by a failed precondition names the check that failed on the
same fault (and none that passed), and a waiver covers what follows from the fault it
waives; an inconclusive check and a fuzz target can be waived by name."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from conformance.report import CheckEntry, Report

BROKEN = "tests.checks.broken_providers"
LISTING = "provider.list_filters_narrow or provider.listing_holds_at_volume"
ROUND_TRIP = "provider.export_import_round_trip"
FUTURE = dt.date.today() + dt.timedelta(days=30)

ENGINE = """
from reference_driver.engine import ReferenceEngine
from conformance.engine import StoreReceipt


class DropsTheLastOfAPartBatch(ReferenceEngine):
    # A batch of 2 to 99 items loses its last item behind a made-up receipt: the full
    # batches engine.store_many sends are stored whole, so it passes.
    def store_many(self, items):
        if len(items) in (0, 1, 100):
            return super().store_many(items)
        return [*super().store_many(items[:-1]), StoreReceipt(id="made-up", replayed=False)]
"""


def checks_of(path: Path) -> dict[str, CheckEntry]:
    report = Report.model_validate(json.loads(path.read_text()))
    return {c.id: c for c in report.checks}


def write_waivers(pytester: pytest.Pytester, *ids: str, expires: dt.date = FUTURE) -> None:
    pytester.makefile(
        ".toml",
        waivers="\n".join(
            f'["{i}"]\nreason = "lists 100 rows a page"\n'
            f'issue = "https://example.com/issues/7"\nexpires = {expires}\n'
            for i in ids
        ),
    )


def run_lists_a_hundred(pytester: pytest.Pytester, selected: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        f"--driver={BROKEN}:ListPagesOfHundred",
        "--profile=provider",
        "-k",
        selected,
        "--conformance-report=r.json",
        *args,
    )


def test_an_inconclusive_check_names_the_check_that_failed_on_its_fault(
    pytester: pytest.Pytester,
) -> None:
    # Listing stops at 100 rows: list_filters_narrow (small lists) passes, the volume
    # check fails, and the round trip cannot list the 125 entries it imported.
    result = run_lists_a_hundred(pytester, f"{LISTING} or {ROUND_TRIP}")
    checks = checks_of(pytester.path / "r.json")
    assert checks["provider.list_filters_narrow"].outcome == "passed"
    assert checks["provider.listing_holds_at_volume"].outcome == "failed"
    inconclusive = checks[ROUND_TRIP]
    assert inconclusive.outcome == "inconclusive"
    at = "at list('<root>/export/bulk', None, None) after the import: precondition failed: "
    assert at in inconclusive.reason
    assert inconclusive.reason.endswith("(see provider.listing_holds_at_volume)")
    assert "list_filters_narrow" not in inconclusive.reason
    assert inconclusive.precondition is not None
    assert inconclusive.precondition.failed == ["provider.listing_holds_at_volume"]
    result.stdout.fnmatch_lines(
        [f"  inconclusive {ROUND_TRIP}: *is inconclusive at list(*(see provider.listing_holds*"]
    )


def test_a_fault_no_owner_fails_on_is_not_blamed_on_one_that_passed(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(batches=ENGINE)
    pytester.syspathinsert()
    args = ["--driver=batches:DropsTheLastOfAPartBatch", "--profile=engine"]
    pytester.runpytest(
        *args, "-k", "engine.store_many or engine.list_paging", "--conformance-report=r.json"
    )
    checks = checks_of(pytester.path / "r.json")
    assert checks["engine.store_many"].outcome == "passed"
    paging = checks["engine.list_paging"]
    assert paging.outcome == "inconclusive"
    assert "see engine.store_many" not in paging.reason
    # The call that lost the item, and the probe that found it lost.
    assert "at store(p25) again, after a read missed it: precondition failed: holding all 25 " in (
        paging.reason
    )
    assert "(store_many(p1–p25) answered a receipt for p25)" in paging.reason
    assert paging.reason.endswith(
        "(no check testing this operation failed: engine.store_many passed)"
    )
    # Alone, the check says its owner did not run, not that it failed.
    pytester.runpytest(*args, "-k", "engine.list_paging", "--conformance-report=r.json")
    alone = checks_of(pytester.path / "r.json")["engine.list_paging"]
    assert alone.reason.endswith("(engine.store_many, which tests this operation, did not run)")


def test_a_waiver_covers_the_checks_its_fault_leaves_inconclusive(
    pytester: pytest.Pytester,
) -> None:
    write_waivers(pytester, "provider.listing_holds_at_volume")
    result = run_lists_a_hundred(pytester, f"{LISTING} or {ROUND_TRIP}", "--waivers=waivers.toml")
    assert result.ret == pytest.ExitCode.OK
    checks = checks_of(pytester.path / "r.json")
    dependent = checks[ROUND_TRIP]
    assert dependent.outcome == "waived"
    assert dependent.waived_by == "provider.listing_holds_at_volume"
    assert dependent.reason.startswith(
        "waived by the waiver for `provider.listing_holds_at_volume` "
        "(https://example.com/issues/7, "
    )
    assert "Inconclusive: conformance check `provider.export_import_round_trip`" in (
        dependent.reason
    )
    result.stdout.fnmatch_lines(
        [
            "*: pass (1 passed, 0 failed, 0 skipped, 2 waived, 0 inconclusive*",
            f"  waived {ROUND_TRIP}: by the waiver for provider.listing_holds_at_volume, *",
        ]
    )


def test_an_expired_waiver_covers_no_dependent(pytester: pytest.Pytester) -> None:
    write_waivers(
        pytester, "provider.listing_holds_at_volume", expires=dt.date.today() - dt.timedelta(1)
    )
    run_lists_a_hundred(pytester, f"{LISTING} or {ROUND_TRIP}", "--waivers=waivers.toml")
    assert checks_of(pytester.path / "r.json")[ROUND_TRIP].outcome == "inconclusive"


def test_a_waiver_naming_an_inconclusive_check_is_honoured(pytester: pytest.Pytester) -> None:
    write_waivers(pytester, ROUND_TRIP)
    result = run_lists_a_hundred(pytester, ROUND_TRIP, "--waivers=waivers.toml")
    assert result.ret == pytest.ExitCode.OK
    entry = checks_of(pytester.path / "r.json")[ROUND_TRIP]
    assert entry.outcome == "waived"
    assert entry.waived_by is None
    assert entry.reason.startswith(f"waiver for `{ROUND_TRIP}` (https://example.com/issues/7")
    assert ". Inconclusive: conformance check" in entry.reason


def test_a_fuzz_target_is_waivable_like_a_check(pytester: pytest.Pytester) -> None:
    write_waivers(pytester, "fuzz.provider.differential")
    result = pytester.runpytest(
        f"--driver={BROKEN}:GetRaises",
        "--profile=provider",
        "--fuzz",
        "--fuzz-examples=5",
        "--fuzz-seed=1",
        "--fuzz-repro-dir=repro",
        "-k",
        "fuzz",
        "--waivers=waivers.toml",
        "--conformance-report=r.json",
    )
    assert result.ret == pytest.ExitCode.OK
    entry = checks_of(pytester.path / "r.json")["fuzz.provider.differential"]
    assert entry.outcome == "waived"
    assert entry.reason.startswith("waiver for `fuzz.provider.differential`")
    assert "Failure: " in entry.reason
