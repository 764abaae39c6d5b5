"""The four false positives of issue 17, each on the smallest program that shows it, and
beside each a driver with the real fault that must still fail.

1. an option whose name merely contains a credential word (`keyword`, `author`) is not
   a credential; 2. the fuzzer retries `Unavailable` where an error may be the answer;
3. the fuzzer's teardown forgets only writes the driver accepted; 4. `SourceScope([])`
   may return an entry with no source attribution (decisions §4.11).
"""

from __future__ import annotations

import builtins
import json

import pytest

from conformance.checks.context import RunSettings
from conformance.checks.outcome import ConformanceFailure, Inconclusive
from conformance.checks.runner import run_provider_suite
from conformance.engine import FetchMode, MetaFilter, document
from conformance.fuzz import ENGINE_TARGET, PROVIDER_TARGET
from conformance.provider import (
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    Unavailable,
)
from conformance.report import Report
from tests.freedom.free_engine import EngineFreedoms, FreeEngine
from tests.freedom.free_provider import FreeProvider, ProviderFreedoms
from tests.freedom.matrix import NO_CREDENTIAL, NO_DOCUMENTS
from tests.freedom.replay import program

CORE = MemoryCategory.CORE
INTERNAL = MemoryTaint.INTERNAL
EXTERNAL = MemoryTaint.EXTERNAL_SYNC
DRIVER = "--driver=tests.freedom.matrix:freedom_driver"


def report_of(pytester: pytest.Pytester) -> Report:
    return Report.model_validate(json.loads((pytester.path / "report.json").read_text()))


# -- 1. options whose names only look like credentials ---------------------------------


def test_an_engine_option_named_keyword_is_not_a_credential(pytester: pytest.Pytester) -> None:
    pytester.runpytest(
        DRIVER,
        "--driver-option=config=engine-keyword-option",
        "--driver-option=keyword=all",
        "--profile=engine",
        "-k",
        "no_credential",
        "--conformance-report=report.json",
    )
    report = report_of(pytester)
    (entry,) = report.checks
    # "all" is in "recall question must not be empty": a credential it is not.
    assert (entry.id, entry.outcome, entry.reason) == (
        "engine.no_credential_in_errors",
        "skipped",
        NO_CREDENTIAL,
    )
    assert report.driver.options == {"config": "engine-keyword-option", "keyword": "all"}


def test_provider_options_named_keyspace_author_sort_key_private_mode_are_plain(
    pytester: pytest.Pytester,
) -> None:
    pytester.runpytest(
        DRIVER,
        "--driver-option=config=provider-plain-options",
        "--driver-option=keyspace=main",
        "--driver-option=author=me",
        "--driver-option=sort_key=id",
        "--driver-option=private_mode=on",
        "--profile=provider",
        "-k",
        "no_credential or documents",
        "--conformance-report=report.json",
    )
    report = report_of(pytester)
    reasons = {c.id: (c.outcome, c.reason) for c in report.checks}
    # "me" is in "documents": the kit's own words are never redacted.
    assert reasons == {
        "provider.no_credential_in_errors": ("skipped", NO_CREDENTIAL),
        "provider.documents_round_trip": ("skipped", NO_DOCUMENTS),
        "provider.documents_at_volume": ("skipped", NO_DOCUMENTS),
    }
    assert report.driver.options["author"] == "me"


def test_an_api_key_is_still_a_credential(pytester: pytest.Pytester) -> None:
    secret = "tm-live-0c4f1e9a7d2b4e33"
    pytester.runpytest(
        DRIVER,
        "--driver-option=config=engine-credential-option",
        f"--driver-option=api_key={secret}",
        "--profile=engine",
        "-k",
        "no_credential",
        "--conformance-report=report.json",
    )
    report = report_of(pytester)
    assert [(c.id, c.outcome) for c in report.checks] == [
        ("engine.no_credential_in_errors", "passed")
    ]
    assert secret not in (pytester.path / "report.json").read_text()


# -- 2. the fuzzer retries Unavailable -------------------------------------------------


def test_the_fuzzer_retries_unavailable_on_a_write_that_may_be_refused() -> None:
    provider = FreeProvider()
    with program(PROVIDER_TARGET, provider) as m:
        provider.throttle.refuse_next("store")
        m.store("learning:~/a", "k", "a rate-limited write", CORE, None, INTERNAL)
        m.verify()
    assert provider.used["transient-unavailable"] == 1


def test_the_fuzzer_retries_unavailable_on_a_request_that_must_be_refused() -> None:
    engine = FreeEngine(EngineFreedoms(fetch_modes=(FetchMode.KEYWORD,)))
    with program(ENGINE_TARGET, engine) as m:
        engine.throttle.refuse_next("store")
        m.store_invalid(document(" "))
        engine.throttle.refuse_next("fetch")
        m.fetch(FetchMode.VECTOR, "alpha", MetaFilter(), 3)
        m.verify()
    assert engine.used["transient-unavailable"] == 2


class NeverAvailable(FreeProvider):
    """Every store answers Unavailable: retrying for ever would hide it."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        if key.startswith("k"):
            raise Unavailable("rate limited; retry shortly")
        super().store(namespace, key, content, category, session_id, taint)


def test_a_store_that_stays_unavailable_still_fails_the_fuzzer() -> None:
    with (
        program(PROVIDER_TARGET, NeverAvailable()) as m,
        pytest.raises((ConformanceFailure, Inconclusive)),
    ):
        m.store("learning:~/a", "k", "never written", CORE, None, INTERNAL)


# -- 3. teardown forgets only accepted writes ------------------------------------------


def test_the_fuzz_teardown_does_not_forget_a_write_the_driver_refused() -> None:
    provider = FreeProvider(ProviderFreedoms(validate_namespaces=True))
    with program(PROVIDER_TARGET, provider) as m:
        m.store("learning:~/a", "k", "an accepted write", CORE, None, INTERNAL)
        m.store_invalid_namespace("~/../escape")
        m.verify()
    assert provider.used["refuse-malformed-reads"] >= 1
    assert provider.ref.list(None, None, None) == []


class KeepsRefusedWrites(FreeProvider):
    """Refuses a malformed namespace, but only after storing the entry."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self.ref.store(namespace, key, content, category, session_id, taint)
        super().store(namespace, key, content, category, session_id, taint)


def test_a_refused_write_that_was_stored_anyway_still_fails_the_fuzzer() -> None:
    provider = KeepsRefusedWrites(ProviderFreedoms(validate_namespaces=True))
    with program(PROVIDER_TARGET, provider) as m, pytest.raises(ConformanceFailure):
        m.store_invalid_namespace("~/../escape")


# -- 4. SourceScope([]) on entries with no source attribution --------------------------


def test_an_empty_source_scope_may_return_an_unattributed_entry() -> None:
    provider = FreeProvider(ProviderFreedoms(scope="unattributed"))
    with program(PROVIDER_TARGET, provider) as m:
        m.store("learning:~/s", "k", "an unattributed needle", CORE, None, INTERNAL)
        m.recall_unsourced("learning:~/s", "needle")
    assert provider.used["scope-returns-unattributed"] == 1


def test_an_empty_source_scope_may_deny_an_unattributed_entry() -> None:
    provider = FreeProvider(ProviderFreedoms(scope="deny"))
    with program(PROVIDER_TARGET, provider) as m:
        m.store("learning:~/s", "k", "an unattributed needle", CORE, None, INTERNAL)
        m.recall_unsourced("learning:~/s", "needle")
    assert provider.used["scope-denies-unattributed"] == 1


class LeaksAttributed(FreeProvider):
    """Under a source scope, returns every row, `external_sync` ones included."""

    def _scoped(self, ranked: builtins.list[MemoryEntry]) -> builtins.list[MemoryEntry]:
        return ranked


def test_an_attributed_entry_under_an_empty_scope_still_fails_the_fuzzer() -> None:
    with program(PROVIDER_TARGET, LeaksAttributed(ProviderFreedoms(scope="unattributed"))) as m:
        m.store("learning:~/s", "k", "a synced needle", CORE, None, EXTERNAL)
        with pytest.raises(ConformanceFailure):
            m.recall_unsourced("learning:~/s", "needle")


def test_an_attributed_entry_under_an_empty_scope_still_fails_the_suite() -> None:
    only = ["provider.recall_respects_source_scope"]
    provider = LeaksAttributed(ProviderFreedoms(scope="unattributed"))
    results = run_provider_suite(provider, RunSettings(timeout=10.0, retries=0), only)
    assert results[only[0]].outcome == "failed"
