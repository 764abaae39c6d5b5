"""A store with a limit fails the default fuzz run and passes once the limit is declared
(or the strategy that breaks it narrowed), never silently: every narrowing is reported."""

from __future__ import annotations

import string

import pytest
from hypothesis import strategies as st

from conformance import Driver
from conformance.constraints import PROVIDER_NAMESPACE_ALPHABET, Constraints
from conformance.engine import StoreItem, StoreReceipt
from conformance.fuzz import (
    ENGINE_TARGET,
    PROVIDER_TARGET,
    FuzzConfigError,
    FuzzFailure,
    ProviderFuzzConfig,
    run_fuzz,
)
from conformance.fuzz.strategies import provider_keys
from conformance.provider import Invalid, MemoryCategory, MemoryEntry, MemoryTaint
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider


class FoldsKeys(ReferenceProvider):
    """Keys are case-insensitive: stored and read back in lower case."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        super().store(namespace, key.lower(), content, category, session_id, taint)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        return super().get(namespace, key.lower())

    def forget(self, namespace: str, key: str) -> bool:
        return super().forget(namespace, key.lower())


class RefusesDots(ReferenceProvider):
    """Refuses every namespace with a `.` (as a store splitting names on dots does)."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        if "." in namespace:
            raise Invalid("namespaces may not contain '.'")
        super().store(namespace, key, content, category, session_id, taint)


class RefusesNonAscii(ReferenceEngine):
    """Refuses an item whose text holds anything beyond ASCII."""

    def store(self, item: StoreItem) -> StoreReceipt:
        if not item.render_text().isascii():
            from conformance.engine import InvalidRequest

            raise InvalidRequest("text must be ASCII")
        return super().store(item)


NO_DOTS = Constraints(
    namespace_alphabet=PROVIDER_NAMESPACE_ALPHABET.replace(".", ""), reason="splits on dots"
)


def test_case_folding_is_found_with_the_default_keys() -> None:
    with pytest.raises(FuzzFailure):
        run_fuzz(PROVIDER_TARGET, FoldsKeys, seed=7, shrink_calls=2000)


def test_lower_case_keys_let_the_store_pass() -> None:
    # Relatives off: a held key's case twin would leave the narrowed alphabet.
    lower = provider_keys(alphabet=string.ascii_lowercase + "-")
    narrow = ProviderFuzzConfig(keys=lower, relatives=False)
    report = run_fuzz(PROVIDER_TARGET, FoldsKeys, seed=7, examples=10, config=narrow)
    assert report.passed


def test_an_undeclared_refusal_of_a_valid_namespace_fails_and_says_to_declare_it() -> None:
    with pytest.raises(FuzzFailure) as raised:
        run_fuzz(PROVIDER_TARGET, RefusesDots, seed=7, shrink_calls=2000)
    assert "." in raised.value.call
    assert "Driver(constraints=...)" in raised.value.expected
    assert "Invalid: invalid input: namespaces may not contain '.'" in raised.value.got


def test_a_declared_alphabet_narrows_the_namespaces_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    driver = Driver(name="no-dots", provider=RefusesDots, constraints=NO_DOTS)
    report = run_fuzz(PROVIDER_TARGET, driver, seed=7, examples=10)
    assert report.passed
    (note,) = report.narrowing
    assert note.startswith("namespaces: only the characters")
    assert "'~/a.b'" in note
    assert "narrowed by declared constraints: namespaces" in report.summary()
    assert "[tinymemory fuzz]   narrowed: namespaces" in capsys.readouterr().out


def test_declared_text_limits_narrow_engine_items() -> None:
    driver = Driver(
        name="ascii",
        engine=RefusesNonAscii,
        constraints=Constraints(non_ascii=False, reason="ASCII only"),
    )
    report = run_fuzz(ENGINE_TARGET, driver, seed=7, examples=6)
    assert report.passed
    assert report.narrowing == ["item texts and queries: ASCII only"]


def test_constraints_that_admit_no_namespace_under_the_root_are_refused() -> None:
    hopeless = Driver(
        name="tiny",
        provider=ReferenceProvider,
        constraints=Constraints(max_namespace_bytes=10),
    )
    with pytest.raises(FuzzConfigError, match="refuse every namespace under the run root"):
        run_fuzz(PROVIDER_TARGET, hopeless, seed=7, examples=2)


def test_a_namespace_spec_outside_the_root_is_refused_before_any_write() -> None:
    provider = ReferenceProvider()
    stray = ProviderFuzzConfig(namespaces=st.just("learning:somewhere-else"))
    with pytest.raises(FuzzConfigError, match="run root"):
        run_fuzz(PROVIDER_TARGET, provider, seed=7, examples=5, config=stray)
    assert provider.list(None, None, None) == []
