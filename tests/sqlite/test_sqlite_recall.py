"""The sqlite driver's recall: FTS5 `bm25` ranking and the scan fallback, with every filter."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlite_helpers import FTS_MODES, put

from conformance.provider import (
    SCOPE_UNAPPLIED,
    Invalid,
    MemoryCategory,
    OwnedRecallOpts,
    SourceScope,
)
from reference_driver.sqlite import SqliteProvider
from reference_driver.sqlite.recall import bm25_score, coverage, fts_expression, query_terms

NS = "recall-a"


@pytest.fixture(params=FTS_MODES, ids=["fts5", "scan"])
def provider(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteProvider]:
    provider = SqliteProvider(tmp_path, use_fts=request.param)
    assert provider.uses_fts is request.param
    yield provider
    provider.shutdown()


def opts(**fields: object) -> OwnedRecallOpts:
    return OwnedRecallOpts.model_validate({"namespace": NS, **fields})


def test_recall_respects_limit_and_namespace(provider: SqliteProvider) -> None:
    put(provider, NS, "k1", "needle filed in the archive room")
    put(provider, NS, "k2", "needle left beside the mooring rope")
    put(provider, NS, "k3", "needle found under the zinc roof")
    put(provider, "recall-b", "k1", "shared needle text")
    hits = provider.recall("needle", 2, opts(), None)
    assert len(hits) == 2
    assert {hit.namespace for hit in hits} == {NS}
    assert all(hit.score is not None and 0.0 <= hit.score <= 1.0 for hit in hits)


def test_more_of_the_query_ranks_first(provider: SqliteProvider) -> None:
    put(provider, NS, "one-word", "the zinc roof leaked")
    put(provider, NS, "both-words", "a zinc mooring ring")
    put(provider, NS, "no-words", "nothing relevant here")
    hits = provider.recall("zinc mooring", 10, opts(), None)
    assert [hit.key for hit in hits] == ["both-words", "one-word"]
    scores = [hit.score for hit in hits if hit.score is not None]
    assert len(scores) == 2 and scores[0] > scores[1]


def test_words_match_whole_and_fold_case_and_diacritics(provider: SqliteProvider) -> None:
    put(provider, NS, "accented", "Crème BRÛLÉE recipe")
    put(provider, NS, "partial", "needles are not a needle? yes they are: needle")
    assert [hit.key for hit in provider.recall("creme brulee", 5, opts(), None)] == ["accented"]
    assert [hit.key for hit in provider.recall("CRÈME", 5, opts(), None)] == ["accented"]
    assert provider.recall("cipe", 5, opts(), None) == []  # a word, not a substring


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "!!! ??? ...", "-", "_"])
def test_a_query_without_words_recalls_nothing(provider: SqliteProvider, query: str) -> None:
    put(provider, NS, "k", "some content")
    assert provider.recall(query, 10, opts(), None) == []


@pytest.mark.parametrize(
    "query", ['"', "AND OR NOT", "content:", "foo*", "NEAR(a b)", "a' OR 1=1 --", "{content}:x"]
)
def test_query_syntax_is_never_interpreted(provider: SqliteProvider, query: str) -> None:
    put(provider, NS, "k", "foo and or not near content a b x")
    provider.recall(query, 10, opts(), None)  # no error


def test_limit_zero_recalls_nothing_and_negative_is_invalid(provider: SqliteProvider) -> None:
    put(provider, NS, "k", "needle")
    assert provider.recall("needle", 0, opts(), None) == []
    with pytest.raises(Invalid):
        provider.recall("needle", -1, opts(), None)


@pytest.mark.parametrize("scope", [SourceScope(allow=[]), SourceScope(allow=["gmail"])])
def test_a_scope_is_refused(provider: SqliteProvider, scope: SourceScope) -> None:
    put(provider, NS, "k", "source scoped needle")
    with pytest.raises(Invalid) as caught:
        provider.recall("needle", 8, opts(), scope)
    assert caught.value.message == SCOPE_UNAPPLIED


def test_category_filter(provider: SqliteProvider) -> None:
    put(provider, NS, "core", "needle core", MemoryCategory.CORE)
    put(provider, NS, "daily", "needle daily", MemoryCategory.DAILY)
    put(provider, NS, "custom", "needle custom", MemoryCategory.custom("x"))
    assert [h.key for h in provider.recall("needle", 9, opts(category="daily"), None)] == ["daily"]
    assert [h.key for h in provider.recall("needle", 9, opts(category="custom:x"), None)] == [
        "custom"
    ]


def test_session_filter_and_cross_session(provider: SqliteProvider) -> None:
    put(provider, NS, "mine", "needle mine", MemoryCategory.CORE, "s1")
    put(provider, NS, "theirs", "needle theirs", MemoryCategory.CORE, "s2")
    put(provider, NS, "their-chat", "needle chat", MemoryCategory.CONVERSATION, "s2")
    put(provider, NS, "no-session", "needle none", MemoryCategory.CONVERSATION, None)
    only_mine = provider.recall("needle", 9, opts(session_id="s1"), None)
    assert [h.key for h in only_mine] == ["mine"]
    crossed = provider.recall("needle", 9, opts(session_id="s1", cross_session=True), None)
    assert sorted(h.key for h in crossed) == ["mine", "no-session", "their-chat"]
    everyone = provider.recall("needle", 9, opts(cross_session=True), None)
    assert len(everyone) == 4


def test_min_score_drops_weaker_hits(provider: SqliteProvider) -> None:
    for i in range(6):
        put(provider, NS, f"filler-{i}", f"filler row {i}")
    put(provider, NS, "both", "zinc mooring")
    put(provider, NS, "one", "zinc")
    hits = provider.recall("zinc mooring", 10, opts(), None)
    assert [h.key for h in hits] == ["both", "one"]
    top, low = (h.score for h in hits)
    assert top is not None and low is not None and top > low
    threshold = (top + low) / 2
    kept = provider.recall("zinc mooring", 10, opts(min_score=threshold), None)
    assert [h.key for h in kept] == ["both"]
    assert provider.recall("zinc mooring", 10, opts(min_score=top + 1e-9), None) == []
    assert len(provider.recall("zinc mooring", 10, opts(min_score=-1.0), None)) == 2
    with pytest.raises(Invalid):
        provider.recall("zinc", 10, opts(min_score=math.nan), None)


def test_ties_are_ordered_by_key(provider: SqliteProvider) -> None:
    for key in ("c", "a", "b"):
        put(provider, NS, key, "identical needle text")
    assert [h.key for h in provider.recall("needle", 3, opts(), None)] == ["a", "b", "c"]


def test_recall_reports_the_logical_namespace(provider: SqliteProvider) -> None:
    put(provider, "learning:rust-async", "k", "tokio runtime notes")
    hits = provider.recall("tokio", 5, OwnedRecallOpts(namespace="learning:rust-async"), None)
    assert [(h.namespace, h.key) for h in hits] == [("learning:rust-async", "k")]


def test_recall_sees_rewrites_and_forgets(provider: SqliteProvider) -> None:
    put(provider, NS, "k", "old words")
    put(provider, NS, "k", "new words")
    assert provider.recall("old", 5, opts(), None) == []
    assert [h.content for h in provider.recall("new", 5, opts(), None)] == ["new words"]
    provider.forget(NS, "k")
    assert provider.recall("new", 5, opts(), None) == []


def test_a_database_written_without_fts_gains_the_index(tmp_path: Path) -> None:
    scan = SqliteProvider(tmp_path, use_fts=False)
    put(scan, NS, "k", "indexed later")
    scan.shutdown()
    fts = SqliteProvider(tmp_path)
    assert fts.uses_fts
    assert [h.key for h in fts.recall("indexed", 5, opts(), None)] == ["k"]
    fts.shutdown()


# ----------------------------------------------------------------- the pure helpers


def test_query_terms_are_distinct_folded_words() -> None:
    assert query_terms("Zinc, zinc! MOORING_rope née") == ["zinc", "mooring", "rope", "nee"]
    assert query_terms("  ") == []


def test_fts_expression_quotes_every_term() -> None:
    assert fts_expression(["a", "b"], "content") == '{content} : ("a" OR "b")'
    assert fts_expression(['x"y'], "title_and_content") == '"x""y"'


def test_scores_stay_in_the_unit_interval() -> None:
    assert bm25_score(0.0) == 0.0
    assert bm25_score(-1.0) == 0.5
    assert 0.0 < bm25_score(-1e-6) < bm25_score(-3.0) < 1.0
    assert coverage("a zinc roof", "zinc\nmooring") == 0.5
    assert coverage(None, "zinc") == coverage("zinc", "") == 0.0
