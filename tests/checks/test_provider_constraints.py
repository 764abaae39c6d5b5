"""Refusing contract-valid input fails a check unless the driver declared it; a declared
constraint narrows what every provider check sends."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from conformance.checks.context import RunSettings
from conformance.checks.runner import run_provider_suite
from conformance.constraints import PROVIDER_NAMESPACE_ALPHABET, Constraints
from conformance.provider import MemoryCategory, MemoryEntry
from reference_driver.provider import ReferenceProvider
from tests.checks.broken_providers import (
    Hooked,
    RefusesDottedNamespaces,
    RefusesEmptyContent,
    RefusesEmptySegments,
    RefusesLongKeys,
    Written,
)
from tests.test_readme import block_under

NOT_RUN = {
    "provider.no_credential_in_errors": "no credential option given to the driver",
}


def settings(constraints: Constraints | None = None) -> RunSettings:
    return RunSettings(timeout=10.0, retries=0, constraints=constraints or Constraints())


def not_passed(provider: Any, constraints: Constraints | None = None) -> dict[str, str]:
    results = run_provider_suite(provider, settings(constraints))
    return {k: r.reason for k, r in results.items() if r.outcome != "passed"}


NO_DOT = Constraints(
    namespace_alphabet=PROVIDER_NAMESPACE_ALPHABET.replace(".", ""),
    reason="LangGraph splits namespaces on dots",
)

DECLARATIONS: list[tuple[type[ReferenceProvider], str, Constraints]] = [
    (RefusesDottedNamespaces, "provider.accepts_valid_input", NO_DOT),
    (RefusesLongKeys, "provider.accepts_valid_input", Constraints(max_key_length=255)),
    (
        RefusesEmptySegments,
        "provider.accepts_valid_input",
        Constraints(empty_or_dot_segments=False),
    ),
]


@pytest.mark.parametrize(
    ("refusing", "check_id", "constraints"), DECLARATIONS, ids=lambda v: getattr(v, "__name__", "")
)
def test_an_undeclared_refusal_fails_and_a_declared_one_passes(
    refusing: type[ReferenceProvider], check_id: str, constraints: Constraints
) -> None:
    undeclared = run_provider_suite(refusing(), settings())[check_id]
    assert undeclared.outcome == "failed"
    assert "Driver(constraints=Constraints(" in undeclared.reason
    assert undeclared.refusals  # counted for the report
    assert not_passed(refusing(), constraints) == NOT_RUN


def test_empty_content_refused_undeclared_passes_as_a_refusal_the_contract_names() -> None:
    # A4 `store`: "`Invalid` for input the driver rejects (e.g. TinyCortex refuses empty
    # content)". Undeclared, the refusal is accepted and noted; declared, it is not sent.
    undeclared = run_provider_suite(RefusesEmptyContent(), settings())
    awkward = undeclared["provider.awkward_content_round_trips"]
    assert (awkward.outcome, awkward.refusals) == ("passed", [])
    assert awkward.named_refusals == ["empty content"]
    assert {k: r.reason for k, r in undeclared.items() if r.outcome != "passed"} == NOT_RUN
    declared = run_provider_suite(RefusesEmptyContent(), settings(Constraints(empty_content=False)))
    assert declared["provider.awkward_content_round_trips"].named_refusals == []


def test_the_refusal_message_names_what_was_refused_and_what_to_declare() -> None:
    reason = run_provider_suite(RefusesDottedNamespaces(), settings())[
        "provider.accepts_valid_input"
    ].reason
    assert "a namespace with dots to be taken" in reason
    assert "Constraints(namespace_alphabet=...)" in reason
    assert "'<root>/dotted.name.v2'" in reason


class Recording(Hooked):
    """The reference, keeping every namespace, key and content it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.namespaces_seen: set[str] = set()
        self.keys_seen: set[str] = set()
        self.contents_seen: set[str] = set()

    def write(self, row: Written) -> Written:
        self.namespaces_seen.add(row.namespace)
        self.keys_seen.add(row.key)
        self.contents_seen.add(row.content)
        return super().write(row)

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        if namespace is not None:
            self.namespaces_seen.add(namespace)
        return super().list(namespace, category, session_id)


def test_declared_constraints_narrow_what_every_check_sends() -> None:
    tight = Constraints(
        namespace_alphabet=PROVIDER_NAMESPACE_ALPHABET.replace(".", "").replace("@", ""),
        max_namespace_bytes=150,
        max_key_length=64,
        max_content_length=1000,
        empty_content=False,
        control_characters=False,
        non_ascii=False,
    )
    provider = Recording()
    assert not_passed(provider, tight) == NOT_RUN
    assert provider.namespaces_seen and provider.keys_seen and provider.contents_seen
    assert all(tight.admits_namespace(n) for n in provider.namespaces_seen)
    assert all(tight.admits_key(k) for k in provider.keys_seen)
    assert all(tight.admits_content(c) for c in provider.contents_seen)
    # The longest namespace and key are sent at the declared bound, not dropped.
    assert max(len(n.encode()) for n in provider.namespaces_seen) == 150
    assert max(len(k) for k in provider.keys_seen) == 64


def test_without_constraints_the_unusual_input_is_all_sent() -> None:
    provider = Recording()
    assert not_passed(provider) == NOT_RUN
    assert any("." in n for n in provider.namespaces_seen)
    assert max(len(n.encode()) for n in provider.namespaces_seen) == 200
    assert max(len(k) for k in provider.keys_seen) == 1000
    assert "" in provider.contents_seen
    assert any("\0" in c for c in provider.contents_seen)


class RefusesDotsAndLongKeys(RefusesDottedNamespaces, RefusesLongKeys):
    """A store with both limits the README's example declares."""


def test_the_readme_declaration_example_lets_such_a_store_pass() -> None:
    namespace: dict[str, Any] = {"AcmeProvider": RefusesDotsAndLongKeys}
    exec(compile(block_under("What the suite covers"), "README", "exec"), namespace)
    driver = namespace["driver"]
    assert not_passed(RefusesDotsAndLongKeys()) != NOT_RUN
    assert not_passed(driver.make_provider(), driver.constraints) == NOT_RUN
