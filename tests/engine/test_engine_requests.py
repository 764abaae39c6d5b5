"""Request validation (contract B6, B7): error type, exact message, and nothing else refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from conformance.engine import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    ForgetTarget,
    GetRequest,
    InvalidRequest,
    ListRequest,
    MetaFilter,
    Namespace,
    Reach,
    RecallRequest,
    StoreItem,
    document,
    learning,
    validate_many,
)
from conformance.engine.items import LearningKind


def refused(check: Callable[[], None]) -> str:
    with pytest.raises(InvalidRequest) as caught:
        check()
    return caught.value.message


class TestRecall:
    def test_valid(self) -> None:
        RecallRequest(question="what?", limit=1).validate()
        RecallRequest(question=" q ", limit=10**9).validate()

    @pytest.mark.parametrize("question", ["", " ", "\n\t", "\u3000"])
    def test_blank_question(self, question: str) -> None:
        request = RecallRequest(question=question, limit=5)
        assert refused(request.validate) == "recall question must not be empty"

    def test_zero_limit(self) -> None:
        request = RecallRequest(question="q", limit=0)
        assert refused(request.validate) == "recall limit must be positive"

    def test_blank_question_is_reported_first(self) -> None:
        request = RecallRequest(question="", limit=0)
        assert refused(request.validate) == "recall question must not be empty"


class TestFetch:
    def test_valid_in_every_mode(self) -> None:
        for mode in FetchMode:
            FetchRequest(query="q", mode=mode, limit=1).validate()

    def test_blank_query(self) -> None:
        request = FetchRequest(query=" \n", mode=FetchMode.KEYWORD, limit=5)
        assert refused(request.validate) == "fetch query must not be empty"

    def test_zero_limit(self) -> None:
        request = FetchRequest(query="q", mode=FetchMode.HYBRID, limit=0)
        assert refused(request.validate) == "fetch limit must be positive"

    def test_modes_in_contract_order(self) -> None:
        assert [mode.value for mode in FetchMode] == ["keyword", "vector", "hybrid"]


class TestList:
    @pytest.mark.parametrize("limit", [1, 2, 200, 100_000])
    def test_valid(self, limit: int) -> None:
        ListRequest(limit=limit).validate()

    def test_zero_limit(self) -> None:
        assert refused(ListRequest(limit=0).validate) == "list limit must be positive"

    def test_negative_limits_are_not_representable(self) -> None:
        with pytest.raises(ValidationError):
            ListRequest(limit=-1)


class TestForget:
    def test_ids(self) -> None:
        ForgetIds(ids=["a"]).validate()
        ForgetIds(ids=[""]).validate()  # blank ids are not checked: they name nothing
        assert refused(ForgetIds(ids=[]).validate) == "forget needs at least one id"

    def test_filter(self) -> None:
        ForgetFilter(filter=MetaFilter(tags_any=["t"])).validate()
        ForgetFilter(filter=MetaFilter(reach=Reach.default())).validate()
        assert refused(ForgetFilter(filter=MetaFilter()).validate) == (
            "forget refuses an empty filter, which would mean everything"
        )

    def test_wire_form_is_externally_tagged(self) -> None:
        adapter: TypeAdapter[ForgetTarget] = TypeAdapter(ForgetTarget)
        ids = adapter.validate_json('{"ids":["a","b"]}')
        assert ids == ForgetIds(ids=["a", "b"])
        by_filter = adapter.validate_json('{"filter":{"tags_any":["t"]}}')
        assert by_filter == ForgetFilter(filter=MetaFilter(tags_any=["t"]))
        assert adapter.dump_python(ids, mode="json") == {"ids": ["a", "b"]}
        assert adapter.dump_python(ForgetFilter(filter=MetaFilter()), mode="json") == {"filter": {}}

    @pytest.mark.parametrize(
        "bad", ["{}", '{"ids":[],"filter":{}}', '{"everything":true}', '["ids"]', '{"ids":"a"}']
    )
    def test_other_shapes_are_refused(self, bad: str) -> None:
        with pytest.raises(ValidationError):
            TypeAdapter(ForgetTarget).validate_json(bad)


class TestExplore:
    @pytest.mark.parametrize("limit", [1, 2, 499, 500])
    def test_limit_in_range(self, limit: int) -> None:
        ExploreRequest(facet=Facet.KIND, limit=limit).validate()

    @pytest.mark.parametrize("limit", [0, 501, 10_000])
    def test_limit_out_of_range(self, limit: int) -> None:
        request = ExploreRequest(facet=Facet.KIND, limit=limit)
        assert refused(request.validate) == "explore limit must be between 1 and 500"

    @pytest.mark.parametrize("scan_limit", [1, 2, 5000, 49_999, 50_000])
    def test_scan_limit_in_range(self, scan_limit: int) -> None:
        ExploreRequest(facet=Facet.TAG, limit=10, scan_limit=scan_limit).validate()

    @pytest.mark.parametrize("scan_limit", [0, 50_001])
    def test_scan_limit_out_of_range(self, scan_limit: int) -> None:
        request = ExploreRequest(facet=Facet.TAG, limit=10, scan_limit=scan_limit)
        assert refused(request.validate) == "explore scan_limit must be between 1 and 50000"

    def test_limit_is_reported_before_scan_limit(self) -> None:
        request = ExploreRequest(facet=Facet.TAG, limit=0, scan_limit=0)
        assert refused(request.validate) == "explore limit must be between 1 and 500"

    def test_scan_limit_defaults_to_5000(self) -> None:
        assert ExploreRequest(facet=Facet.KIND, limit=1).scan_limit == 5000
        parsed = ExploreRequest.model_validate_json('{"facet":"kind","limit":3}')
        assert parsed.scan_limit == 5000
        assert parsed.model_dump(mode="json") == {
            "facet": "kind",
            "filter": {},
            "limit": 3,
            "scan_limit": 5000,
        }


class TestGet:
    @pytest.mark.parametrize("count", [1, 2, 199, 200])
    def test_id_count_in_range(self, count: int) -> None:
        GetRequest(ids=[f"id-{n}" for n in range(count)]).validate()

    @pytest.mark.parametrize("count", [0, 201])
    def test_id_count_out_of_range(self, count: int) -> None:
        request = GetRequest(ids=[f"id-{n}" for n in range(count)])
        assert refused(request.validate) == "get takes between 1 and 200 ids"

    @pytest.mark.parametrize("blank", ["", " ", "\t\n"])
    def test_blank_id(self, blank: str) -> None:
        request = GetRequest(ids=["a", blank])
        assert refused(request.validate) == "an id must not be blank"

    def test_reach_is_optional_and_omitted(self) -> None:
        assert GetRequest(ids=["a"]).model_dump(mode="json") == {"ids": ["a"]}
        request = GetRequest(ids=["a"], reach=Reach.of(Namespace.parse("agent:b")))
        assert request.model_dump(mode="json") == {
            "ids": ["a"],
            "reach": {"at": "agent:b", "inherit": True, "descendants": False},
        }


class TestStoreMany:
    def test_one_to_a_hundred_items(self) -> None:
        validate_many([document("a")])
        validate_many([document(f"d{n}") for n in range(100)])

    @pytest.mark.parametrize("count", [0, 101])
    def test_count_out_of_range(self, count: int) -> None:
        items = [document(f"d{n}") for n in range(count)]
        assert refused(lambda: validate_many(items)) == ("store_many takes between 1 and 100 items")

    def test_the_first_invalid_item_wins(self) -> None:
        items: list[StoreItem] = [
            document("fine"),
            learning(" ", LearningKind.FACT, 0.5),
            document(""),
        ]
        assert refused(lambda: validate_many(items)) == "learning text must not be empty"

    def test_count_is_checked_before_items(self) -> None:
        items = [document("")] * 101
        assert refused(lambda: validate_many(items)) == ("store_many takes between 1 and 100 items")


@pytest.mark.parametrize(
    ("model", "wire"),
    [
        (
            RecallRequest(question="q", limit=5),
            {"question": "q", "filter": {}, "limit": 5},
        ),
        (
            RecallRequest(question="q", limit=5, instructions="brief"),
            {"question": "q", "filter": {}, "limit": 5, "instructions": "brief"},
        ),
        (
            FetchRequest(query="q", mode=FetchMode.VECTOR, limit=2, cursor="c"),
            {"query": "q", "mode": "vector", "filter": {}, "limit": 2, "cursor": "c"},
        ),
        (ListRequest(limit=2), {"filter": {}, "limit": 2}),
    ],
)
def test_request_wire_forms(model: BaseModel, wire: dict[str, object]) -> None:
    assert model.model_dump(mode="json") == wire
    assert type(model).model_validate(wire) == model


def test_filter_defaults_to_empty_on_input() -> None:
    assert RecallRequest.model_validate({"question": "q", "limit": 1}).filter == MetaFilter()
