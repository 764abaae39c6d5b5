"""The public strategies make what they promise, narrow as documented, and every value
the machines log writes back as Python that rebuilds it."""

from __future__ import annotations

import datetime
import math
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import engine as ce
from conformance import provider as cp
from conformance.engine import InvalidRequest, StoreItem
from conformance.fuzz import ROOT_PLACEHOLDER, EngineFuzzConfig, ProviderFuzzConfig
from conformance.fuzz import strategies as fs
from conformance.fuzz.config import near_miss_namespaces
from conformance.fuzz.steps import Step, literal
from conformance.provider import Invalid, Namespace

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def rebuilt(value: Any) -> Any:
    return eval(literal(value), {"ce": ce, "cp": cp, "datetime": datetime})


@FAST
@given(fs.engine_items())
def test_valid_items_validate_and_write_back_exactly(item: StoreItem) -> None:
    item.validate()
    again = rebuilt(item)
    assert again == item
    assert again.fingerprint() == item.fingerprint()


@FAST
@given(fs.invalid_engine_items())
def test_invalid_items_are_refused_and_still_write_back(item: StoreItem) -> None:
    with pytest.raises(InvalidRequest):
        item.validate()
    again = rebuilt(item)
    if isinstance(item, ce.Learning) and math.isnan(item.confidence):
        assert math.isnan(again.confidence)
    else:
        assert again == item


@FAST
@given(EngineFuzzConfig().filters, EngineFuzzConfig().reaches)
def test_filters_and_reaches_write_back(filter: ce.MetaFilter, reach: ce.Reach) -> None:
    assert filter.workspace is None
    assert rebuilt(filter) == filter
    assert rebuilt(reach) == reach


@FAST
@given(fs.invalid_engine_requests())
def test_invalid_requests_fail_their_own_validation(request: fs.EngineRequest) -> None:
    if getattr(request.request, "cursor", None) == fs.BAD_CURSOR:
        return  # well formed: only the engine knows it never issued the cursor
    with pytest.raises(InvalidRequest):
        request.request.validate()  # type: ignore[attr-defined]
    assert rebuilt(request.request) == request.request


def test_a_foreign_cursor_writes_back() -> None:
    request = ce.ListRequest(limit=2, cursor=fs.BAD_CURSOR)
    assert rebuilt(request) == request


@FAST
@given(fs.provider_namespaces(prefix="run/x"))
def test_provider_namespaces_are_valid_and_under_the_prefix(name: str) -> None:
    parsed = Namespace.parse(name)
    assert parsed.scope().startswith("run/x/") or parsed.as_str().startswith("run/x/")


@FAST
@given(fs.invalid_provider_namespaces(prefix="run"))
def test_invalid_provider_namespaces_break_a_rule(name: str) -> None:
    with pytest.raises(Invalid):
        Namespace.validate_name(name)


@FAST
@given(near_miss_namespaces(), ProviderFuzzConfig().invalid_namespaces)
def test_machine_namespace_specs_stay_under_the_root(spec: str, bad: str) -> None:
    assert ROOT_PLACEHOLDER in spec
    Namespace.validate_name(spec.replace(ROOT_PLACEHOLDER, "tinymemory-conformance/n/f"))
    assert bad == "" or ROOT_PLACEHOLDER in bad


@FAST
@given(
    fs.provider_keys(alphabet="ab", max_size=3), fs.provider_contents(alphabet="xy", words=False)
)
def test_keys_and_contents_narrow_to_their_alphabet(key: str, content: str) -> None:
    assert 1 <= len(key) <= 3 and set(key) <= {"a", "b"}
    assert set(content) <= {"x", "y"}


@FAST
@given(fs.categories(), fs.taints(), fs.session_ids(), fs.recall_options())
def test_provider_values_write_back(
    category: cp.MemoryCategory,
    taint: cp.MemoryTaint,
    session: str | None,
    opts: cp.OwnedRecallOpts,
) -> None:
    assert rebuilt(category) == category
    assert rebuilt(taint) is taint
    assert rebuilt(session) == session
    assert rebuilt(opts) == opts


@FAST
@given(
    fs.provider_entries(
        namespaces=fs.provider_namespaces(prefix="p"), keys=fs.provider_keys(alphabet=string.digits)
    )
)
def test_entries_carry_store_arguments(entry: fs.ProviderEntry) -> None:
    Namespace.parse(entry.namespace)
    assert entry.key.isdigit()


def test_a_step_is_a_plain_call() -> None:
    step = Step(
        "store",
        ("learning:~/a", "k", "x\ny", cp.MemoryCategory.custom("")),
        {"taint": cp.MemoryTaint.EXTERNAL_SYNC, "score": float("nan")},
    )
    assert step.source() == (
        "m.store('learning:~/a', 'k', 'x\\ny', cp.MemoryCategory.parse('custom:'), "
        "taint=cp.MemoryTaint('external_sync'), score=float(\"nan\"))"
    )


def test_literal_refuses_what_it_cannot_write() -> None:
    with pytest.raises(TypeError):
        literal(object())


@st.composite
def _anything(draw: st.DrawFn) -> Any:
    return draw(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.tuples(inner, inner)
                | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            ),
            max_leaves=8,
        )
    )


@FAST
@given(_anything())
def test_plain_data_writes_back(value: Any) -> None:
    again = rebuilt(value)
    assert literal(again) == literal(value)
