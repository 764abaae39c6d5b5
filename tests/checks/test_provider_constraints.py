"""Refusing contract-valid input fails a check unless the driver declared it; a declared
constraint narrows what every provider check sends, is a promise to refuse what it
leaves out, and never removes a check: one it leaves nothing to send is said beside the
level."""

from __future__ import annotations

import builtins
import string
from typing import Any

import pytest

from conformance.checks.catalogue import CATALOGUE
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.outcome import RETAINS_NOTHING, ConformanceFailure, not_applicable
from conformance.checks.runner import run_provider_suite
from conformance.constraints import PROVIDER_NAMESPACE_ALPHABET, Constraints
from conformance.driver import Driver
from conformance.provider import MemoryCategory, MemoryEntry
from conformance.report import Report
from null_driver.provider import NullProvider
from reference_driver.provider import ReferenceProvider
from tests.checks.broken_providers import (
    DeclaresAnAlphabetButMerges,
    Declaring,
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


class Recording(Declaring):
    """The reference, refusing what its declaration leaves out and keeping every
    namespace, key and content it takes."""

    def __init__(self, constraints: Constraints | None = None) -> None:
        super().__init__(constraints)
        self.namespaces_seen: set[str] = set()
        self.keys_seen: set[str] = set()
        self.contents_seen: set[str] = set()

    def write(self, row: Written) -> Written:
        row = super().write(row)
        self.namespaces_seen.add(row.namespace)
        self.keys_seen.add(row.key)
        self.contents_seen.add(row.content)
        return row

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
    # Every check but the one that holds the store to its declaration sends only what
    # it admits; that one's refused probes are never taken, so never recorded.
    provider = Recording(tight)
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


# -- a declaration is a promise to refuse, and never removes a check ----------------------

DASHED = Constraints(
    namespace_alphabet=string.ascii_letters + string.digits + "-",
    reason="names become DNS labels",
)
"""An alphabet any plausible declaration admits: letters, digits and `-`."""

SECTION_CHECKS = {
    "provider.namespaces_preserve_their_section",
    "provider.section_writes_are_enumerable",
}
"""The checks whose every namespace is `<section>:<scope>`: an alphabet without `:`
leaves them nothing to send."""


def test_every_check_runs_under_letters_digits_and_dash() -> None:
    provider = Recording(DASHED)
    results = run_provider_suite(provider, settings(DASHED))
    skipped = {k: r.reason for k, r in results.items() if r.outcome == "skipped"}
    failing = {k: r.reason for k, r in results.items() if r.outcome not in ("passed", "skipped")}
    assert failing == {}
    # None skipped for want of a scope: only the credential check, and the two checks
    # whose every name holds the `:` of a section, said to be not applicable.
    assert skipped.keys() == {"provider.no_credential_in_errors", *SECTION_CHECKS}
    for check_id in SECTION_CHECKS:
        assert not_applicable(skipped[check_id])
        assert "holds ':', outside the declared alphabet" in skipped[check_id]
    assert all(DASHED.admits_namespace(n) for n in provider.namespaces_seen)
    # The root and the names under it use `-` where they would use `/`.
    assert any(n.startswith("tinymemory-conformance-") for n in provider.namespaces_seen)


@pytest.mark.parametrize(
    "extra", [":", "-/:", "-:_"], ids=["colon", "the sqlite store's former alphabet", "underscore"]
)
def test_with_a_colon_every_check_runs(extra: str) -> None:
    alphabet = Constraints(namespace_alphabet=string.ascii_letters + string.digits + "-" + extra)
    assert not_passed(Declaring(alphabet), alphabet) == NOT_RUN


def test_a_store_merging_names_its_alphabet_leaves_out_fails_naming_them() -> None:
    broken = DeclaresAnAlphabetButMerges
    only = ["provider.declared_constraints_refuse"]
    result = run_provider_suite(broken(), settings(broken.constraints), only=only)[only[0]]
    assert result.outcome == "failed"
    assert "failed at store('<root>/apart-a_b', 'k', …)" in result.reason
    assert "accepted 4: apart-a_b:k (the namespace holds '_', outside the declared alphabet)" in (
        result.reason
    )
    assert "get('<root>/apart-a.b', 'k') answers what was stored as apart-a+b:k" in result.reason
    assert not result.refusals  # the refusals it asked for are not valid input refused
    # Without the declaration the same store fails the same check: the names merge.
    undeclared = run_provider_suite(broken(), settings(), only=only)[only[0]]
    assert undeclared.outcome == "failed"
    assert "answers what was stored as apart-a+b:k" in undeclared.reason


@pytest.mark.parametrize(
    "constraints",
    [
        DASHED,
        Constraints(max_namespace_bytes=120, empty_or_dot_segments=False),
        Constraints(key_alphabet=string.ascii_lowercase, max_key_length=8),
        Constraints(max_content_length=10, empty_content=False),
        Constraints(control_characters=False, non_ascii=False),
    ],
    ids=["alphabet", "namespace-shape", "keys", "content", "characters"],
)
def test_a_store_keeping_its_promise_passes_and_one_breaking_it_fails(
    constraints: Constraints,
) -> None:
    only = ["provider.declared_constraints_refuse"]
    kept = run_provider_suite(Declaring(constraints), settings(constraints), only=only)[only[0]]
    assert (kept.outcome, kept.reason, kept.refusals) == ("passed", "", [])
    # The reference takes everything: under the same declaration it breaks the promise.
    broken = run_provider_suite(ReferenceProvider(), settings(constraints), only=only)[only[0]]
    assert broken.outcome == "failed"
    assert "refused with Invalid" in broken.reason and "accepted" in broken.reason


def test_on_the_null_driver_the_check_skips_in_a_run_and_fails_when_forced() -> None:
    check_id = "provider.declared_constraints_refuse"
    result = run_provider_suite(NullProvider(), settings(DASHED), only=[check_id])[check_id]
    assert (result.outcome, result.reason) == ("skipped", RETAINS_NOTHING)
    with pytest.raises(ConformanceFailure) as failure:
        CATALOGUE[check_id].run(NullProvider(), CheckContext(check_id, settings(DASHED)))
    assert failure.value.check_id == check_id
    assert "got None" in str(failure.value)


def dashed_driver() -> Driver:
    """The reference, declaring letters, digits and `-` and refusing everything else."""
    return Driver(name="dashed", provider=lambda: Declaring(DASHED), constraints=DASHED)


def test_checks_not_applicable_are_said_beside_the_level(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--driver=tests.checks.test_provider_constraints:dashed_driver",
        "--profile=provider",
        "--conformance-report=report.json",
        "-q",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    line = "provider: level full; 2 checks not applicable under the declared constraints"
    assert line in result.stdout.str()
    report = Report.model_validate_json((pytester.path / "report.json").read_text())
    provider = report.profiles["provider"]
    assert (provider.level, set(provider.not_applicable)) == ("full", SECTION_CHECKS)
    assert report.summary.verdict == "pass"
    markdown = (pytester.path / "report.md").read_text()
    assert "| provider | full; 2 checks not applicable under the declared constraints: `" in (
        markdown
    )
