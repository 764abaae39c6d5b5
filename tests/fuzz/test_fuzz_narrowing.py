"""A store with a constraint fails the default fuzz run and passes once the strategy that
breaks it is narrowed, rather than being waived."""

from __future__ import annotations

import string

import pytest
from hypothesis import strategies as st

from conformance.fuzz import (
    PROVIDER_TARGET,
    FuzzConfigError,
    FuzzFailure,
    ProviderFuzzConfig,
    run_fuzz,
)
from conformance.fuzz.strategies import provider_keys
from conformance.provider import MemoryCategory, MemoryEntry, MemoryTaint
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


def test_case_folding_is_found_with_the_default_keys() -> None:
    with pytest.raises(FuzzFailure):
        run_fuzz(PROVIDER_TARGET, FoldsKeys(), seed=7, shrink_seconds=0.5)


def test_lower_case_keys_let_the_store_pass() -> None:
    narrow = ProviderFuzzConfig(keys=provider_keys(alphabet=string.ascii_lowercase + "-"))
    report = run_fuzz(PROVIDER_TARGET, FoldsKeys(), seed=7, examples=50, config=narrow)
    assert report.passed


def test_a_namespace_spec_outside_the_root_is_refused_before_any_write() -> None:
    provider = ReferenceProvider()
    stray = ProviderFuzzConfig(namespaces=st.just("learning:somewhere-else"))
    with pytest.raises(FuzzConfigError, match="run root"):
        run_fuzz(PROVIDER_TARGET, provider, seed=7, examples=5, config=stray, shrink_seconds=0.2)
    assert provider.list(None, None, None) == []
