"""The complete oracle, proven both ways on short programs (issue 21).

Each fault of `tests.fuzz.oracle_faults` fails the program that shows it, with the
message of the rule it breaks; the same program passes against the reference and
against correct engines that read the contract's freedoms otherwise (an offset cursor
over a newest-first listing, a cursor over a snapshot). The search that finds each
fault on its own at the default budget is `benchmarks/bench_fuzz_faults.py`'s.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import pytest

from conformance import Driver
from conformance.checks.outcome import ConformanceFailure
from conformance.engine import (
    Facet,
    FetchMode,
    FetchPage,
    FetchRequest,
    InvalidRequest,
    ListPage,
    ListRequest,
    MetaFilter,
    document,
)
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET, FuzzSession
from conformance.provider import MemoryCategory, MemoryTaint
from conformance.readings import PagedRead, best_first, explore_reading
from reference_driver.engine import ReferenceEngine, parse_cursor
from reference_driver.provider import ReferenceProvider
from tests.checks import broken_engines
from tests.fuzz import oracle_faults as faults

Program = Callable[[Any], None]


class OffsetCursorsNewestFirst(ReferenceEngine):
    """Lists and fetches newest first and resumes at an offset, as SQL's `LIMIT/OFFSET`
    does: an item stored between pages shifts the rest down one (one answered twice),
    one forgotten shifts them up (one missed). Conformant: the contract is silent on
    writes between pages (`docs/contract/cursors.md#writes-between-pages`)."""

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        start = parse_cursor(req.cursor)
        everything = super().list(req.model_copy(update={"cursor": None, "limit": 10**6}))
        newest = builtins.list(reversed(everything.items))
        page = newest[start : start + req.limit]
        end = start + len(page)
        return ListPage(items=page, next_cursor=str(end) if end < len(newest) else None)


class SnapshotCursors(ReferenceEngine):
    """A listing's first page takes a snapshot; its cursors page through the snapshot,
    so writes made meanwhile are not seen (a forgotten item may still be answered)."""

    def __init__(self) -> None:
        super().__init__()
        self._snapshots: dict[str, builtins.list[Any]] = {}

    def list(self, req: ListRequest) -> ListPage:
        req.validate()
        if req.cursor is None:
            items = super().list(req.model_copy(update={"limit": 10**6})).items
            snapshot, start = f"s{len(self._snapshots)}", 0
            self._snapshots[snapshot] = items
        else:
            snapshot, _, position = req.cursor.partition(":")
            if snapshot not in self._snapshots or not position.isdigit():
                raise InvalidRequest(f"unknown cursor `{req.cursor}`")
            items, start = self._snapshots[snapshot], int(position)
        page = items[start : start + req.limit]
        end = start + len(page)
        return ListPage(items=page, next_cursor=f"{snapshot}:{end}" if end < len(items) else None)

    def fetch(self, req: FetchRequest) -> FetchPage:
        return super().fetch(req)


CORRECT_ENGINES = (ReferenceEngine, OffsetCursorsNewestFirst, SnapshotCursors)


def _run(target: str, driver: type, program: Program) -> None:
    profile = "engine" if target == ENGINE_TARGET else "provider"
    fuzz = FuzzSession.start(target, Driver(name="subject", **{profile: driver}), full_every=1)
    try:
        with fuzz.program() as m:
            program(m)
            m.verify()
    finally:
        fuzz.shutdown()


def _note(text: str) -> Any:
    return document(text)


def _writes_between_pages(m: Any) -> None:
    m.store_bulk(14, 35)
    held = m.held_handles()
    writes = [_note("hotel written between pages"), held[3], _note("golf written later"), held[9]]
    m.list_during_writes(MetaFilter(), 3, writes)
    m.list_during_writes(MetaFilter(), 2, [held[1], _note("echo at the front")])
    m.fetch_during_writes(FetchMode.HYBRID, "hotel", MetaFilter(), 2, [_note("hotel hotel")])


def _fetch(m: Any) -> None:
    m.store_bulk(7, 35)
    m.fetch(FetchMode.HYBRID, "cho", MetaFilter(), 37)


def _explore(m: Any) -> None:
    m.store_bulk(11, 35)
    m.explore(Facet.WORKSPACE, MetaFilter(), 2, 10)
    m.explore(Facet.KIND, MetaFilter(), 3, 5000)


def _declarations(m: Any) -> None:
    m.store_bulk(61, 0)
    m.declarations()


def _recall_exact(m: Any) -> None:
    m.store_bulk(5, 37436)
    m.recall("charlie hotel 37436n4", MetaFilter(), 4)


def _refusals(m: Any) -> None:
    m.store_invalid(document(" "))
    m.store_many_invalid([_note("a valid one"), document("")])


def _relatives(m: Any) -> None:
    m.store_bulk(6, 35)
    held = m.held_handles()
    m.store_relative(held[0], "text", "nfd")
    m.store_relative(held[1], "observed_at", "+1ns")
    m.store_relative(held[2], "namespace", "case-twin")
    m.list_relative(held[3], "namespace", "prefix", 5)
    m.list_relative(held[3], "observed_at", "at", 5)
    m.get_relative(held[4], "upper")
    m.get_relative(held[4], "prefix")
    m.forget_relative(held[5], "prefix")
    m.forget_relative(held[5], "leading-space")


ENGINE_CASES: list[tuple[type, Program, str]] = [
    (faults.FetchWorstFirst, _fetch, "hits best first across every page"),
    (faults.ListRestartsAfterAWrite, _writes_between_pages, "answered again"),
    (faults.ListCursorLostWithItsItem, _writes_between_pages, "held throughout missed"),
    (faults.ExploreHidesItsTruncation, _explore, "every admitted item counted gives"),
    (faults.ExploreCountsPastTheScan, _explore, "a scan stopped at scan_limit 10"),
    (faults.DownPastSixtyItems, _declarations, "ok or degraded while serving"),
    (faults.RecallDropsLongQuestions, _recall_exact, "a citation and an answer"),
    (faults.IdsIgnoreCase, _relatives, "only an item whose id is exactly the one asked"),
    (broken_engines.RefusesInItsOwnWords, _refusals, "document body must not be empty"),
    (faults.ForgetsIdsByPrefix, _relatives, "forgotten=0"),
    (faults.StoresTextsAsNFC, _relatives, "with its text made nfd"),
]

SPACE = "learning:~/a"


def _recall_ranked(m: Any) -> None:
    m.store_bulk(SPACE, "k", 6, 5608)
    m.recall(SPACE, "echo", 2, None, None)
    m.recall(SPACE, "echo", 100, None, None)


def _recall_session(m: Any) -> None:
    m.store_bulk("~/s", "k", 17, 65535)
    m.recall("~/s", "golf delta hotel bravo", 100, None, None, "s1")


def _recall_min_score(m: Any) -> None:
    m.store_bulk("~/m", "e", 3, 10326)
    m.recall("~/m", "bravo", 2, None, None)
    scores = m.recalled[-1][2]
    m.recall("~/m", "bravo", 2, None, scores[-1])


def _recall_many(m: Any) -> None:
    m.store_bulk(SPACE, "k", 102, 5608)
    m.recall(SPACE, "echo", 100, None, None)


def _recall_blank(m: Any) -> None:
    m.store_bulk("~/b", "e", 7, 10326)
    m.recall("~/b", "", 100, MemoryCategory.CORE, None)
    m.recall("~/b", " ", 3, None, None)


def _provider_declarations(m: Any) -> None:
    m.store_bulk("~/d", "k", 41, 4270)
    m.store("~/d", "k-extra", "hotel foxtrot", MemoryCategory.CORE, "s2", MemoryTaint.INTERNAL)
    m.declarations()


def _provider_relatives(m: Any) -> None:
    spec = "~/n.s"
    m.store_bulk(spec, "k", 4, 419)
    for how in ("case-twin", "leading-space", "trailing-newline", "nfd", "prefix", "extension"):
        key = m.relative_key(spec, 1, how)
        m.store(spec, key, f"beside, {how}", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
        m.get(spec, key.swapcase())
    twin = m.relative_spec(spec, "separator-twin")
    assert twin == "~/n_s"
    m.store(twin, "k1", "in the twin", MemoryCategory.DAILY, None, MemoryTaint.INTERNAL)
    m.list_entries(spec, None, None)
    m.get(twin, "k1")
    content = m.relative_content(0, "nfd")
    m.store(spec, "decomposed", content, MemoryCategory.CORE, None, MemoryTaint.INTERNAL)


def _portability(m: Any) -> None:
    m.store_bulk("~/p", "k", 12, 7)
    m.import_mixed("~/p", "i", 5, 3, 2)
    m.import_mixed("~/q", "i", 3, 4, 0)
    m.export_during_writes(4, [("~/p", "a0", "added between pages"), ("~/p", "k3", None)])
    m.export_during_writes(3, [("~/p", "k5", "upserted between pages")])


PROVIDER_CASES: list[tuple[type, Program, str]] = [
    (faults.RecallWorstFirst, _recall_ranked, "hits best first"),
    (faults.RecallRepeatsItsBest, _recall_ranked, "each entry once"),
    (faults.RecallIgnoresSession, _recall_session, "hits of session 's1'"),
    (faults.MinScoreOnAnotherScale, _recall_min_score, "without min_score that score at least"),
    (faults.RecallPagesAtFive, _recall_many, "min(limit, matches) = 30 hits"),
    (faults.BlankQueryListsTheNamespace, _recall_blank, "[] for a blank query"),
    (faults.DownPastFortyRows, _provider_declarations, "ready or degraded while serving"),
    (faults.KeysIgnoreCase, _provider_relatives, "beside, case-twin"),
    (faults.TrimsKeys, _provider_relatives, "beside, leading-space"),
    (faults.NamespacesShareAnAddress, _provider_relatives, "missing: ('~/n.s', 'k1'"),
    (faults.ImportDropsKeylessQuietly, _portability, "imported + skipped = 5, failed = 2"),
    (faults.ImportFailsWithoutReasons, _portability, "a reason for each failure"),
    (faults.ExportRestartsAfterAWrite, _portability, "answered again"),
]


@pytest.mark.parametrize(("fault", "program", "message"), ENGINE_CASES, ids=lambda v: "")
def test_each_engine_fault_fails_its_program(fault: type, program: Program, message: str) -> None:
    with pytest.raises(ConformanceFailure) as failed:
        _run(ENGINE_TARGET, fault, program)
    assert failed.value.check_id == ENGINE_TARGET
    assert message in str(failed.value), str(failed.value)


@pytest.mark.parametrize("engine", CORRECT_ENGINES, ids=lambda e: e.__name__)
# In case order, once each: a set of functions iterates in id order, which differs
# between xdist workers and makes them collect different tests.
@pytest.mark.parametrize(
    "program", dict.fromkeys(p for _, p, _ in ENGINE_CASES), ids=lambda p: p.__name__
)
def test_correct_engines_pass_every_program(engine: type, program: Program) -> None:
    _run(ENGINE_TARGET, engine, program)


@pytest.mark.parametrize(("fault", "program", "message"), PROVIDER_CASES, ids=lambda v: "")
def test_each_provider_fault_fails_its_program(fault: type, program: Program, message: str) -> None:
    with pytest.raises(ConformanceFailure) as failed:
        _run(PROVIDER_TARGET, fault, program)
    assert failed.value.check_id == PROVIDER_TARGET
    assert message in str(failed.value), str(failed.value)


@pytest.mark.parametrize(
    "program", dict.fromkeys(p for _, p, _ in PROVIDER_CASES), ids=lambda p: p.__name__
)
def test_the_reference_provider_passes_every_program(program: Program) -> None:
    _run(PROVIDER_TARGET, ReferenceProvider, program)


def test_a_read_during_writes_may_miss_one_per_removal_and_repeat_one_per_insertion() -> None:
    read = PagedRead(before={"a", "b", "c", "d"}, entered={"e"}, left={"b"})
    assert read.judge(["a", "c", "d", "e"]) is None
    assert read.judge(["a", "a", "d", "e"]) is None  # c missed (b left), a again (e entered)
    assert "missed" in (read.judge(["a", "e"]) or "")
    assert "answered again" in (read.judge(["a", "a", "c", "c", "d"]) or "")
    assert "never held" in (read.judge(["a", "c", "d", "z"]) or "")
    still = PagedRead(before={"a", "b"}, entered=set(), left=set())
    assert still.judge(["b", "a"]) is None
    assert still.judge(["a"]) is not None and still.judge(["a", "b", "a"]) is not None


def test_best_first_takes_any_scale_and_refuses_a_rise_or_a_nan() -> None:
    assert best_first([3.0, 3.0, -1.0, -7.5]) is None
    assert best_first([]) is None
    assert "above" in (best_first([0.2, 0.5]) or "")
    assert "NaN" in (best_first([1.0, float("nan")]) or "")


def _explored(total: int, missing: int, buckets: list[tuple[str, int]], truncated: bool) -> str:
    return (
        explore_reading(
            exact_total=11,
            exact_missing=1,
            exact_counts={"x": 6, "y": 4},
            scan_limit=5,
            limit=2,
            total=total,
            missing=missing,
            buckets=buckets,
            more_buckets=0,
            truncated=truncated,
        )
        or ""
    )


def test_an_explore_stopped_at_its_scan_limit_counts_a_part() -> None:
    assert _explored(5, 1, [("x", 3), ("y", 1)], truncated=True) == ""
    assert _explored(11, 1, [("x", 6), ("y", 4)], truncated=False) == ""
    assert "counting more" in _explored(5, 0, [("x", 7)], truncated=True)
    assert "total=11" in _explored(11, 1, [("x", 6), ("y", 4)], truncated=True)
    assert "not ordered" in _explored(5, 1, [("y", 1), ("x", 3)], truncated=True)
    assert "total=10" in _explored(10, 1, [("x", 6), ("y", 4)], truncated=False)
