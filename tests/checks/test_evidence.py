"""How failures show their evidence: repr values, field differences, ids by label."""

from __future__ import annotations

import pytest

from conformance.checks.context import CheckContext
from conformance.checks.evidence import compare_ids, field_differences, name_ids, show
from conformance.checks.outcome import ConformanceFailure
from conformance.provider import MemoryCategory, MemoryEntry, MemoryTaint

LABELS = {f"id-{n}": f"p{n}" for n in range(1, 16)}


def test_show_makes_control_characters_visible() -> None:
    assert show("a / b\r\nc\0d") == "'a / b\\r\\nc\\x00d'"


def test_show_elides_the_middle_of_a_long_value_and_says_how_much() -> None:
    shown = show("x" * 5000)
    assert shown.startswith("'xxx") and shown.endswith("xxx'")
    assert "more characters" in shown and len(shown) < 700


def test_missing_ids_are_counted_and_named_as_ranges() -> None:
    want = [f"id-{n}" for n in range(1, 16)]
    got = want[:10]
    assert compare_ids(got, want, LABELS) == "10 of 15; missing p11–p15"


def test_strays_and_repeats_are_named() -> None:
    wrong = compare_ids(["id-1", "id-1", "other"], ["id-1", "id-2"], LABELS)
    assert wrong == "1 of 2; missing p2; 1 not asked for: 'other'; repeated p1 ×2"


def test_order_is_compared_only_when_asked() -> None:
    assert compare_ids(["id-2", "id-1"], ["id-1", "id-2"], LABELS) is None
    wrong = compare_ids(["id-2", "id-1"], ["id-1", "id-2"], LABELS, ordered=True)
    assert wrong is not None and "order differs from position 1" in wrong


def test_many_names_are_counted_past_a_dozen() -> None:
    named = name_ids([f"x{n * 2}" for n in range(30)])
    assert named.endswith("and 18 more")


def test_field_differences_name_the_differing_fields_only() -> None:
    entry = MemoryEntry(
        id="i",
        key="k",
        content="a\r\nb",
        namespace="ns",
        category=MemoryCategory.CORE,
        timestamp="2025-05-06T07:08:09Z",
        session_id=None,
        taint=MemoryTaint.EXTERNAL_SYNC,
    )
    changed = entry.model_copy(update={"content": "a\nb", "taint": MemoryTaint.INTERNAL})
    diff = field_differences(entry, changed)
    assert len(diff) == 2
    assert diff[0] == "content: wanted 'a\\r\\nb', got 'a\\nb'"
    assert diff[1].startswith("taint: wanted")


def test_require_ids_message_names_missing_probes_by_label() -> None:
    ctx = CheckContext("engine.example")
    want = [ctx.label(f"id-{n}", f"p{n}") for n in range(1, 16)]
    with pytest.raises(ConformanceFailure) as failure:
        ctx.require_ids("list(run filter)", want[:10], want, "every probe once")
    assert str(failure.value).endswith("got 10 of 15; missing p11–p15")


def test_the_run_root_is_abbreviated_once() -> None:
    ctx = CheckContext("engine.example")
    text = ctx.abbreviate(f"list({ctx.root}/a) and {ctx.root}/b")
    assert text.count(ctx.root) == 1
    assert text.startswith("list(<root>/a) and <root>/b (<root> = ")
