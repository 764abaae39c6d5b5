"""The provider fuzzer's documents steps: run exactly when the driver offers the family
(and the configuration wants them), compared with `ReferenceDocuments`, passing every
correct driver and failing each broken one at the step that shows its fault."""

from __future__ import annotations

import pytest

from conformance.checks.outcome import ConformanceFailure
from conformance.constraints import PROVIDER_NAMESPACE_ALPHABET, Constraints
from conformance.fuzz import PROVIDER_TARGET, FuzzFailure, ProviderFuzzConfig, run_fuzz
from conformance.fuzz.config import DOCUMENTS_BRANCH
from conformance.fuzz.document_differential import DocumentsDifferential
from conformance.fuzz.narrowing import narrow_provider
from conformance.fuzz.session import FuzzSession
from conformance.provider import (
    MANDATORY,
    Capabilities,
    DocumentListing,
    MemoryCategory,
    MemoryDocuments,
    MemoryTaint,
    NamespaceDocumentInput,
)
from reference_driver.provider import ReferenceProvider
from tests.fuzz import document_faults, document_freedoms

SEED = 4242
SMALL = 8

CORE = MemoryCategory.CORE
INTERNAL = MemoryTaint.INTERNAL


class WithoutDocuments(ReferenceProvider):
    """The reference provider without the optional family (nor its claim to it)."""

    def capabilities(self) -> Capabilities:
        return Capabilities(MANDATORY)

    def as_documents(self) -> MemoryDocuments | None:
        return None


def _put(m: DocumentsDifferential, key: str, title: str, document_id: str | int | None) -> None:
    m.put_document(
        "~/a", key, title, "body", "chat", "high", [], "{}", CORE, None, INTERNAL, document_id
    )


def _session(driver: object) -> FuzzSession:
    return FuzzSession.start(PROVIDER_TARGET, driver)


def test_a_provider_offering_documents_is_fuzzed_on_them() -> None:
    session = _session(ReferenceProvider())
    assert session.documents is not None
    with session.program() as m:
        assert isinstance(m, DocumentsDifferential)
        m.put_documents("~/a", "k", 12, 7)
        _put(m, "k1", "Plan", "d1")
        m.get_document("~/a", "k1")
        m.get_document("~/a", "k")
        m.list_documents(None)
        m.query_documents("~/a", "plan", 5)
        m.recall_documents("~/a", 20)
        m.delete_document("~/a", "near", 3, "d1")
        m.delete_document("~/a", "pool", 0, "d1")
        m.list_document_namespaces()


def test_documents_are_not_fuzzed_when_not_offered_or_switched_off() -> None:
    assert _session(WithoutDocuments()).documents is None
    report = run_fuzz(PROVIDER_TARGET, WithoutDocuments, seed=SEED, examples=4)
    assert report.passed
    # Switched off: a listing capped at ten goes unseen.
    off = ProviderFuzzConfig(documents=False)
    capped = document_faults.DocumentListCappedAt10
    assert run_fuzz(PROVIDER_TARGET, capped, seed=SEED, examples=4, config=off).passed
    with pytest.raises(FuzzFailure, match=r"list_documents\("):
        run_fuzz(PROVIDER_TARGET, capped, seed=SEED, examples=4, shrink_calls=500)


def test_a_reused_id_must_be_invalid_and_change_nothing() -> None:
    with _session(ReferenceProvider()).program() as m:
        _put(m, "k1", "first", "d1")
        _put(m, "k10", "second", "d1")  # names k1's document: Invalid, nothing stored
        _put(m, "k10", "third", 0)  # the id held by k1 (the only other document)
        _put(m, "k1", "again", 0)  # its own id: an update
    session = _session(document_faults.ReusedDocumentIdAccepted())
    refused = pytest.raises(
        ConformanceFailure, match="the kit's rule, not the contract's: Invalid for a document_id"
    )
    with refused, session.program() as m:
        _put(m, "k1", "first", "d1")
        _put(m, "k10", "second", "d1")


def test_an_upsert_keeping_the_old_title_fails_where_it_happens() -> None:
    session = _session(document_faults.UpsertKeepsOldTitle())
    kept = pytest.raises(ConformanceFailure, match=r"after put_document\('~/docs/a', 'k1'")
    with kept, session.program() as m:
        _put(m, "k1", "first", None)
        _put(m, "k1", "second", None)


def test_documents_stay_under_the_root_and_teardown_leaves_only_others() -> None:
    provider = ReferenceProvider()
    docs = provider.as_documents()
    assert docs is not None
    theirs = NamespaceDocumentInput(
        namespace="learning:someone-else",
        key="k1",
        title="theirs",
        content="not the run's",
        source_type="chat",
        priority="high",
        category="core",
    )
    docs.put_document(theirs)
    run_fuzz(PROVIDER_TARGET, provider, seed=SEED, examples=4)
    listing = DocumentListing.model_validate(docs.list_documents(None))
    assert [(row.namespace, row.key) for row in listing.documents] == [
        ("learning:someone-else", "k1")
    ]


@pytest.mark.parametrize("driver", document_freedoms.DOCUMENT_FREEDOMS, ids=lambda d: d.__name__)
def test_a_documents_freedom_passes(driver: type) -> None:
    assert run_fuzz(PROVIDER_TARGET, driver, seed=SEED, examples=SMALL).passed


def test_constraints_leaving_no_documents_namespace_switch_documents_off() -> None:
    # The run root has no `s`; the documents root (`/docs`) does.
    without_s = Constraints(namespace_alphabet=PROVIDER_NAMESPACE_ALPHABET.replace("s", ""))
    narrowed = narrow_provider(ProviderFuzzConfig(), without_s)
    assert not narrowed.config.documents
    assert any("documents rules are left out" in note for note in narrowed.notes)
    assert DOCUMENTS_BRANCH in " ".join(narrowed.notes)
    # Without `.`: the documents namespaces drop nothing of their pool, the rules run.
    without_dot = Constraints(namespace_alphabet=PROVIDER_NAMESPACE_ALPHABET.replace(".", ""))
    assert narrow_provider(ProviderFuzzConfig(), without_dot).config.documents
