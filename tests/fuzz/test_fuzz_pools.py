"""The near-miss pools, bulk writes, queries and narrowing make what they promise."""

from __future__ import annotations

import math
import string

import pytest

from conformance.constraints import Constraints
from conformance.engine import MetaFilter, Reach
from conformance.fuzz import pools
from conformance.fuzz.bulk import bulk_entries, bulk_items
from conformance.fuzz.narrowing import text_cleaner
from conformance.fuzz.queries import min_score_from, query_from
from conformance.provider import MemoryTaint, Namespace

ROOT = "tinymemory-conformance/0f/fuzz-provider-differential"


def test_engine_nodes_hold_prefix_siblings_and_a_deep_chain() -> None:
    texts = {str(node) for node in pools.ENGINE_NODES}
    assert {"root", "agent:a", "agent:ab", "agent:a-b", "agent:a_b"} <= texts
    assert max(node.depth for node in pools.ENGINE_NODES) >= 4
    # A subtree reach at `agent:a` must not take in its string-prefix siblings.
    under = Reach.subtree(pools.node("agent:a"))
    assert [str(n) for n in pools.ENGINE_NODES if under.admits(n)] == [
        "agent:a",
        "agent:a/agent:b",
        "agent:a/agent:B",
        "agent:a/agent:b/agent:a",
        "agent:a/agent:b/team:a/agent:ab",
    ]


def test_folder_filters_hold_string_prefixes_that_are_not_path_prefixes() -> None:
    admitted = [f for f in pools.FOLDERS if MetaFilter(folder="/a/b").matches("document", _meta(f))]
    assert admitted == ["/a/b", "/a/b/c", "/a/b/c/d"]
    assert "/a/bc" in pools.FOLDERS


def _meta(folder: str) -> object:
    from conformance.engine import MemoryMeta

    return MemoryMeta(folder=folder)


def test_moments_sit_on_and_beside_every_bound() -> None:
    for bound in pools.BOUNDS:
        assert bound in pools.MOMENTS
        assert any(0 < m.nanos - bound.nanos <= 1_000_000 for m in pools.MOMENTS)
        assert any(0 < bound.nanos - m.nanos <= 1_000_000 for m in pools.MOMENTS)


def test_a_bound_between_microseconds_has_neighbours_a_nanosecond_away() -> None:
    [fine] = [bound for bound in pools.BOUNDS if bound.nanos % 1_000]
    nanos = {m.nanos for m in pools.MOMENTS}
    assert {fine.nanos - 1, fine.nanos, fine.nanos + 1} <= nanos
    # A store keeping microseconds sees the three as one instant.
    assert len({n // 1_000 for n in (fine.nanos - 1, fine.nanos, fine.nanos + 1)}) == 1


def test_provider_specs_are_valid_and_cover_every_character_class() -> None:
    for spec in pools.PROVIDER_SPECS:
        Namespace.validate_name(spec.replace("~", ROOT))
    used = set("".join(pools.PROVIDER_SPECS))
    assert set("._@+:/-") <= used and any(c in string.ascii_uppercase for c in used)
    assert {"~/a//b", "~/a/./b"} <= set(pools.PROVIDER_SPECS)
    # Three segments deep under the run root.
    assert max(spec.count("/") for spec in pools.PROVIDER_SPECS) >= 3


def test_a_bulk_is_deterministic_distinct_and_valid() -> None:
    items = bulk_items(100, 7)
    assert items == bulk_items(100, 7)
    assert len({item.fingerprint() for item in items}) == 100
    for item in items:
        item.validate()
    assert len({str(item.meta.namespace) for item in items}) >= 8
    assert {item.kind for item in items} == {"document", "learning", "conversation"}


def test_bulk_entries_are_prefix_keys_with_both_taints() -> None:
    entries = bulk_entries("k", 30, 3)
    assert [e.key for e in entries[:12]] == [f"k{i}" for i in range(12)]
    assert {e.taint for e in entries} == set(MemoryTaint)
    assert len({len(e.content) for e in entries}) > 5


@pytest.mark.parametrize("way", ["word", "substring", "text"])
def test_queries_come_from_the_texts_held(way: str) -> None:
    texts = ["alpha bravo", "charlie delta echo"]
    for pick in range(20):
        query = query_from(texts, pick, way, "free")  # type: ignore[arg-type]
        assert query.strip() and any(query in text for text in texts)
    assert query_from([], 3, way, "free") == "free"  # type: ignore[arg-type]


def test_minimum_scores_fall_on_and_beside_the_scores_seen() -> None:
    scores = [0.25, 0.5, 0.5, float("nan")]
    assert min_score_from(scores, 1, "at") == 0.5
    above = min_score_from(scores, 1, "above")
    below = min_score_from(scores, 1, "below")
    assert above is not None and below is not None and below < 0.5 < above
    # Beyond float32 resolution, so a driver comparing in f32 sees the same side.
    assert (above - 0.5) > 0.5 * 2**-23
    assert min_score_from([], 0, "at") is None
    assert math.isfinite(min_score_from(scores, 2, "above") or 0.0)


def test_the_text_cleaner_obeys_each_declared_limit() -> None:
    clean = text_cleaner(
        Constraints(
            control_characters=False, non_ascii=False, max_content_length=4, empty_content=False
        )
    )
    assert clean("a\x00bé\r\ncdef") == "abcd"
    assert clean("é") == "x"
    assert text_cleaner(Constraints())("é\x00") == "é\x00"
