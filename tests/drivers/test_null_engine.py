"""The null engine (decisions §4.8): it refuses exactly what the reference engine refuses,
with the same errors, and otherwise succeeds empty, keeping nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.engine import (
    Document,
    DocumentBody,
    EngineBase,
    EngineDescriptor,
    EngineError,
    EngineHealth,
    ExplorePage,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    ForgetReport,
    GetRequest,
    InvalidRequest,
    LearningKind,
    ListPage,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    Unsupported,
    conversation,
    document,
    learning,
)
from null_driver import NullEngine
from reference_driver import ReferenceEngine

Call = Callable[[EngineBase], object]


class KeywordOnlyNull(NullEngine):
    def descriptor(self) -> EngineDescriptor:
        return super().descriptor().model_copy(update={"fetch_modes": [FetchMode.KEYWORD]})


class KeywordOnlyReference(ReferenceEngine):
    def descriptor(self) -> EngineDescriptor:
        return super().descriptor().model_copy(update={"fetch_modes": [FetchMode.KEYWORD]})


BAD_CALLS: dict[str, Call] = {
    "blank document": lambda e: e.store(document(" ")),
    "uri document": lambda e: e.store(Document(body=DocumentBody(uri="file:///x"))),
    "no turns": lambda e: e.store(conversation([])),
    "blank learning": lambda e: e.store(learning("", LearningKind.FACT, 0.5)),
    "confidence": lambda e: e.store(learning("x", LearningKind.FACT, -0.25)),
    "empty batch": lambda e: e.store_many([]),
    "big batch": lambda e: e.store_many([document(f"d{i}") for i in range(101)]),
    "bad item in batch": lambda e: e.store_many([document("ok"), conversation([])]),
    "blank query": lambda e: e.fetch(FetchRequest(query="", mode=FetchMode.HYBRID, limit=1)),
    "fetch limit": lambda e: e.fetch(FetchRequest(query="q", mode=FetchMode.KEYWORD, limit=0)),
    "fetch cursor": lambda e: e.fetch(
        FetchRequest(query="q", mode=FetchMode.VECTOR, limit=1, cursor="nope")
    ),
    "list limit": lambda e: e.list(ListRequest(limit=0)),
    "list cursor": lambda e: e.list(ListRequest(limit=1, cursor="-3")),
    "no ids": lambda e: e.forget(ForgetIds(ids=[])),
    "empty filter": lambda e: e.forget(ForgetFilter(filter=MetaFilter())),
    "explore limit": lambda e: e.explore(ExploreRequest(facet=Facet.TAG, limit=501)),
    "explore scan": lambda e: e.explore(ExploreRequest(facet=Facet.TAG, limit=1, scan_limit=0)),
    "no get ids": lambda e: e.get(GetRequest(ids=[])),
    "too many ids": lambda e: e.get(GetRequest(ids=[str(i) for i in range(201)])),
    "blank id": lambda e: e.get(GetRequest(ids=["a", " "])),
    "blank question": lambda e: e.recall(RecallRequest(question="\n", limit=1)),
    "recall limit": lambda e: e.recall(RecallRequest(question="q", limit=0)),
}


def raised_by(engine: EngineBase, call: Call) -> EngineError:
    with pytest.raises(EngineError) as raised:
        call(engine)
    return raised.value


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_every_refusal_matches_the_reference(call: Call) -> None:
    null_error = raised_by(NullEngine(), call)
    assert isinstance(null_error, InvalidRequest)
    assert null_error == raised_by(ReferenceEngine(), call)


@pytest.mark.parametrize("mode", [FetchMode.VECTOR, FetchMode.HYBRID])
def test_an_undeclared_mode_is_refused_as_the_reference_refuses_it(mode: FetchMode) -> None:
    # The mode is checked before the (invalid) request itself.
    def call(engine: EngineBase) -> object:
        return engine.fetch(FetchRequest(query="", mode=mode, limit=0))

    null_error = raised_by(KeywordOnlyNull(), call)
    assert null_error == Unsupported(f"engine `null` does not offer {mode} fetch")
    reference_error = raised_by(KeywordOnlyReference(), call)
    assert reference_error == Unsupported(f"engine `reference` does not offer {mode} fetch")


def test_every_cursor_is_unknown() -> None:
    # "0" is a cursor the reference could issue; the null engine issues none.
    with pytest.raises(InvalidRequest) as raised:
        NullEngine().list(ListRequest(limit=1, cursor="0"))
    assert str(raised.value) == "invalid request: unknown cursor `0`"


def test_descriptor_and_health() -> None:
    engine = NullEngine()
    assert isinstance(engine, MemoryEngine)
    descriptor = engine.descriptor()
    assert (descriptor.id, descriptor.hosted, descriptor.needs_endpoint, descriptor.needs_key) == (
        "null",
        False,
        False,
        False,
    )
    assert descriptor.fetch_modes == list(FetchMode)
    assert descriptor.label and descriptor.description
    assert engine.health() == EngineHealth.ok()


def test_valid_calls_succeed_empty_and_nothing_is_retained() -> None:
    engine = NullEngine()
    item = document("kept nowhere")
    assert engine.store(item).model_dump() == {"id": item.fingerprint(), "replayed": False}
    assert engine.store(item).replayed is False  # nothing held, so never a replay
    batch: list[StoreItem] = [item, learning("fact", LearningKind.FACT, 0.5), item]
    receipts = engine.store_many(batch)
    assert [(r.id, r.replayed) for r in receipts] == [(i.fingerprint(), False) for i in batch]
    assert engine.list(ListRequest(limit=10)) == ListPage(items=[])
    for mode in FetchMode:
        assert engine.fetch(FetchRequest(query="kept", mode=mode, limit=5)) == FetchPage(hits=[])
    assert engine.get(GetRequest(ids=[item.fingerprint()])) == []
    assert engine.explore(ExploreRequest(facet=Facet.KIND, limit=5)) == ExplorePage(
        facet=Facet.KIND, buckets=[], total=0, missing=0, more_buckets=0, truncated=False
    )
    assert engine.forget(ForgetIds(ids=[item.fingerprint()])) == ForgetReport(forgotten=0)
    assert engine.forget(ForgetFilter(filter=MetaFilter(tags_any=["x"]))).forgotten == 0
    assert engine.recall(RecallRequest(question="kept", limit=3)) == RecallAnswer(
        answer="Nothing stored answers this question.", citations=[], model="null"
    )
