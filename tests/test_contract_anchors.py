"""Every check names rules that exist: `docs/contract` anchors, resolved one by one.

A check's `clause` is a comma-separated list of `page.md#anchor` names. This walks every
check of the catalogue and every fuzz target, and fails on an anchor that names no rule
or on a reference vendors cannot open (the design notes the kit was built from).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.checks.catalogue import Check, all_checks
from conformance.fuzz.runner import FUZZ_TARGETS
from conformance.rules import clause_problems, clause_refs, parse_page, rules

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "contract"
CLAUSED = [(c.id, c.clause) for c in all_checks()] + [
    (t.id, t.clause) for t in FUZZ_TARGETS.values()
]
# What a clause used to cite: documents a vendor does not have.
OLD_STYLE = re.compile(r"contract-reference|decisions|seed|§|\bA\d+\b|\bB\d+\b|\bC\d+\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize(("check_id", "clause"), CLAUSED, ids=[c for c, _ in CLAUSED])
def test_every_clause_names_rules_that_exist(check_id: str, clause: str) -> None:
    assert not OLD_STYLE.search(clause), (
        f"{check_id}: the clause {clause!r} cites design notes vendors do not have; name the "
        "rules of docs/contract instead, e.g. `engine-operations.md#store-replay`"
    )
    assert clause_problems(clause) == [], check_id


def test_clause_grammar() -> None:
    assert clause_refs("cursors.md#cursor-end, errors.md#no-credentials") == [
        "cursors.md#cursor-end",
        "errors.md#no-credentials",
    ]
    for bad in ("", "contract-reference B8", "cursors.md", "cursors.md#Cursor End", "a.md#b;c"):
        with pytest.raises(ValueError):
            clause_refs(bad)
    assert clause_problems("cursors.md#no-such-rule") == [
        "`cursors.md#no-such-rule` names no rule of docs/contract"
    ]


def test_every_page_parses_and_states_rules() -> None:
    known = rules()
    pages = sorted(p.name for p in PAGES.glob("*.md") if p.name != "README.md")
    assert pages, "docs/contract holds no pages"
    for page in pages:
        found = parse_page(page, (PAGES / page).read_text(encoding="utf-8"))
        assert found, f"{page} states no rule"
        for rule in found:
            assert known[rule.ref] == rule
            assert rule.title and rule.text, rule.ref


def test_every_link_in_the_pages_resolves() -> None:
    known = rules()
    for path in sorted(PAGES.glob("*.md")):
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if target.startswith("http"):
                continue
            page, _, anchor = target.partition("#")
            page = page or path.name
            assert (PAGES / page).is_file(), f"{path.name} links to a missing page {target}"
            if anchor:
                assert f"{page}#{anchor}" in known, f"{path.name} links to a missing rule {target}"


def test_the_catalogue_links_every_rule_it_cites() -> None:
    catalogue = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    for check_id, clause in CLAUSED:
        if check_id in FUZZ_TARGETS:
            continue
        for ref in clause_refs(clause):
            assert f"(contract/{ref})" in catalogue, (check_id, ref)


@pytest.mark.parametrize("chk", all_checks(), ids=lambda c: c.id)
def test_what_explain_quotes_cites_nothing_vendors_lack(chk: Check) -> None:
    assert not OLD_STYLE.search(chk.doc), f"{chk.id}: its docstring cites design notes"
