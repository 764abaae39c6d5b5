"""`tinymemory-conformance explain CHECK_ID`: every check and fuzz target, told in full."""

from __future__ import annotations

import pytest

from conformance.checks.catalogue import CATALOGUE, all_checks
from conformance.checks.faults import faults_for
from conformance.fuzz.runner import FUZZ_TARGETS
from conformance.rules import clause_refs, rules
from plugins.cli import main
from plugins.explain import UnknownCheck, explain, known_ids

EVERY_ID = known_ids()


def test_known_ids_are_every_check_then_every_fuzz_target() -> None:
    assert [c.id for c in all_checks()] + list(FUZZ_TARGETS) == EVERY_ID


@pytest.mark.parametrize("check_id", EVERY_ID)
def test_every_id_is_explained_in_full(check_id: str) -> None:
    text = explain(check_id)
    chk = CATALOGUE.get(check_id)
    target = FUZZ_TARGETS.get(check_id)
    title = chk.title if chk is not None else target.title  # type: ignore[union-attr]
    clause = chk.clause if chk is not None else target.clause  # type: ignore[union-attr]
    assert text.startswith(f"{check_id}: {title}\n")
    # The rules it enforces, quoted: each rule's title and the start of its text.
    for ref in clause_refs(clause):
        rule = rules()[ref]
        assert f"  {ref}: {rule.title}\n" in text
        assert rule.text.splitlines()[0] in text
    # What it does: the check's docstring.
    if chk is not None:
        assert chk.doc.splitlines()[0] in text
    # The faults it is proven against, each by its broken driver.
    for fault in faults_for(check_id):
        assert f"  - {fault.driver}: {fault.description}\n" in text
    if chk is not None and chk.storage:
        assert "the null driver (retains nothing)" in text
    # How to run it alone.
    fuzz = " --fuzz" if target is not None else ""
    assert f"  pytest --driver=NAME{fuzz} -k '{check_id}'" in text


def test_the_command_prints_the_account(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "engine.replay"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("engine.replay: An identical store is a replay")
    assert "engine-operations.md#store-replay: An identical store is a replay" in out
    assert "  - NeverReplay: store always answers replayed=false" in out
    assert "pytest --driver=NAME -k 'engine.replay'" in out


def test_a_per_mode_result_id_names_its_check() -> None:
    assert explain("engine.fetch_filters[keyword]") == explain("engine.fetch_filters")


@pytest.mark.parametrize(
    ("typed", "closest"),
    [
        ("engine.replya", "engine.replay"),
        ("provider.taint_is_preserve", "provider.taint_is_preserved"),
        ("fuzz.engine", "fuzz.engine.differential"),
    ],
)
def test_an_unknown_id_is_one_line_naming_the_closest(
    typed: str, closest: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", typed]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"tinymemory-conformance: unknown check id {typed!r}; closest: ")
    assert closest in lines[0].split("closest: ")[1].split(", ")


def test_an_id_like_nothing_points_at_the_catalogue() -> None:
    with pytest.raises(UnknownCheck, match=r"see `tinymemory-conformance checks`$"):
        explain("zzzz")
