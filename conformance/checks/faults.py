"""The broken behaviours each check and fuzz target is proven against.

The kit's own tests build a deliberately broken driver for every fault below (named
here as there) and assert that the check fails it with the check's own id; a test ties
this table to those drivers, so neither can change without the other. `explain` prints
it, so a vendor sees what a check is known to catch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = ["PROVEN_AGAINST", "Fault", "faults_for"]


@dataclass(frozen=True)
class Fault:
    """One broken behaviour, and the broken driver that carries it in the kit's tests."""

    driver: str
    """The broken driver's class name in the kit's tests."""
    description: str
    """What the driver gets wrong, in one line."""


PROVEN_AGAINST: Final[Mapping[str, tuple[Fault, ...]]] = {
    # -- engine ----------------------------------------------------------------------
    "engine.health": (
        Fault("Down", "health answers down"),
        Fault("HealthRaises", "health raises instead of answering"),
    ),
    "engine.retention_probe": (
        Fault("ListRaises", "every listing fails, so a stored item cannot be read back"),
    ),
    "engine.round_trip": (Fault("DropsTags", "stores every item without its tags"),),
    "engine.list_paging": (
        Fault("RepeatingCursor", "every listing cursor is the same, so paging never ends"),
        Fault("SkippingCursor", "each cursor points one item past where the next page starts"),
        Fault("ListCappedAtTen", "list sees only the first 10 matching items"),
        Fault("ListCappedAtTwenty", "list sees only the first 20 matching items"),
        Fault("ListCappedAtFifty", "list sees only the first 50 matching items"),
        Fault("ListCappedAtHundred", "list sees only the first 100 matching items"),
        Fault("ListShortPageEnds", "pages hold at most 100 items; a short page ends the list"),
        Fault("RefusesCursorWithoutWords", "refuses a foreign cursor with no message (None)"),
    ),
    "engine.writes_between_pages": (
        Fault("ListRestartsAfterAWrite", "after a write between pages the listing starts over"),
        Fault("ListCursorLostWithItsItem", "a cursor naming a forgotten item ends the listing"),
        Fault(
            "ListRefusesCursorPastTheEnd",
            "refuses a cursor it issued once the store shrank to its offset",
        ),
    ),
    "engine.cursor_progress": (
        Fault(
            "FetchCursorRepeatsBoundary", "each fetch page repeats the last hit of the one before"
        ),
        Fault("FetchCursorSkipsBoundary", "each fetch cursor points one hit past the next page"),
        Fault("FetchFirstTwenty", "fetch ranks only its store's first 20 hits, then ends"),
        Fault("FetchFirstFifty", "fetch ranks only its store's first 50 hits, then ends"),
        Fault("FetchFirstHundred", "fetch ranks only its store's first 100 hits, then ends"),
        Fault("FetchShortPageEnds", "pages hold at most 100 hits; a short page ends the fetch"),
    ),
    "engine.fetch_filters": (
        Fault("IgnoreFetchFilter", "fetch ignores the filter"),
        Fault("FetchFiltersAfterTopHundred", "ranks everything, keeps 100, then filters"),
        Fault(
            "FetchFiltersAfterLimitPlusFifty", "ranks everything, keeps limit + 50, then filters"
        ),
        Fault(
            "FetchPathsAfterTopHundred",
            "filters on tags inside its ranking, on a folder or subtree after keeping 100",
        ),
        Fault(
            "FetchPathsAfterLimitPlusFifty",
            "filters on tags inside its ranking, on a folder or subtree after keeping limit + 50",
        ),
        Fault(
            "FetchSubtreeAfterTopHundred",
            "filters inside its ranking but for a subtree reach, applied after keeping 100",
        ),
    ),
    "engine.list_filters": (
        Fault(
            "ExactFieldsAsPrefixes", "exact fields match as prefixes (language `x` admits `x-y`)"
        ),
        Fault("FolderPlainStartswith", "folder and file path match without a `/` boundary"),
        Fault("WindowBoundsFlipped", "observed_after exclusive, observed_before inclusive"),
        Fault(
            "WindowAtMicroseconds",
            "compares the window at microseconds: 1 ns before a bound between them is let in",
        ),
        Fault(
            "PathPrefixAsLike", "matches a path prefix with an unescaped LIKE: `_` is any character"
        ),
        Fault("QuoteBreaksFilters", "splices filter values into SQL unescaped: a quote breaks it"),
        Fault("TagsJoinedByComma", "keeps tags joined by `,`: the tag `a,b` is found as `a`"),
        Fault("TagsJoinedByPipe", "keeps tags joined by `|`: the tag `a|b` is found as `a`"),
        Fault("ExactFieldsIgnoreCase", "exact fields ignore case (`x-lang` admits `x-LANG`)"),
        Fault("TagsIgnoreCase", "tags match ignoring case (`t3` admits `T3`)"),
        Fault("PathsIgnoreCase", "folder and file path match ignoring case (`/src` admits `/SRC`)"),
        Fault("FieldsCompareNormalised", "filter values compared NFKC-folded and trimmed"),
    ),
    "engine.ranking": (
        Fault("ReversedRanking", "ranks worst first (a distance read as a similarity)"),
        Fault("UnsortedFetch", "fetch answers hits in insertion order, never sorted"),
    ),
    "engine.timestamps": (
        Fault("NaiveTimestamps", "returns observation times without their zone"),
        Fault("MillisecondTimestamps", "keeps observation times to the millisecond"),
        Fault("MicrosecondTimestamps", "keeps observation times to the microsecond"),
    ),
    "engine.accepts_valid_input": (
        Fault("NormalisesNewlines", "stores texts with `\\r\\n` and `\\r` turned into `\\n`"),
        Fault("RefusesDots", "refuses any item whose text holds a `.`"),
        Fault("RefusesLongTexts", "refuses any text over 1,000 characters"),
        Fault("SplitsJoinedTags", "keeps tags joined by `,`: the tag `g,h` reads back as two"),
    ),
    "engine.declared_constraints_refuse": (
        Fault(
            "DeclaresALengthButTruncates",
            "declares texts of 1,000 characters at most, yet cuts a longer one and keeps it",
        ),
    ),
    "engine.unsupported_modes": (
        Fault("ClaimEveryMode", "declares hybrid only, but serves every mode"),
    ),
    "engine.empty_forget": (
        Fault("AcceptEmptyForget", "a forget naming nothing answers 0 instead of a refusal"),
        Fault(
            "EmptyForgetDeletesEverything",
            "refuses a forget naming nothing, after removing every item",
        ),
    ),
    "engine.forget_by_id": (
        Fault("ForgetByIdReportsZero", "forgets by id, but reports 0 forgotten"),
        Fault("ForgetIdsFirstHundred", "forgets only the first 100 ids it is given"),
        Fault("ForgetIdsFirstFifty", "forgets only the first 50 ids it is given"),
        Fault("ForgetIdsCountsRepeats", "counts an id named twice twice"),
        Fault("ForgetIdsDefaultReach", "forget by ids removes only the root's items"),
        Fault("ForgetIdsStopsAtAnUnknownId", "forget by ids stops at the first id it cannot find"),
    ),
    "engine.forget_by_filter": (
        Fault("ForgetFilterIgnoresTags", "forgets by filter as if tags_any were not set"),
        Fault("ForgetFilterFirstPage", "forgets one page of 100 matches, never the next"),
        Fault("ForgetFilterFirstPageOfFifty", "forgets one page of 50 matches, never the next"),
        Fault("ForgetFilterTagPrefix", "forget matches tags as prefixes (`drop` removes `dropx`)"),
        Fault("ForgetFilterWorkspacePrefix", "forget matches the workspace as a string prefix"),
        Fault(
            "ForgetQuoteBreaks", "splices a forget's filter into SQL unescaped: a quote breaks it"
        ),
        Fault(
            "ForgetFailsPast999", "one IN (...) of the ids to delete, refused past 999 variables"
        ),
    ),
    "engine.explore_filters": (
        Fault("ExploreFolderPlainStartswith", "explore matches a folder without a `/` boundary"),
        Fault("ExploreWindowAtMicroseconds", "explore compares the window at microseconds"),
    ),
    "engine.recall_filters": (
        Fault("RecallFolderPlainStartswith", "recall matches a folder without a `/` boundary"),
        Fault("RecallWindowAtMicroseconds", "recall compares the window at microseconds"),
    ),
    "engine.forget_filters": (
        Fault("ForgetFolderPlainStartswith", "forget matches a folder without a `/` boundary"),
        Fault("ForgetExactFieldsAsPrefixes", "forget matches exact fields as prefixes"),
        Fault("ForgetWindowAtMicroseconds", "forget compares the window at microseconds"),
    ),
    "engine.racing_stores": (
        Fault("StoresInTwoSteps", "racing stores of one item each write a copy"),
        Fault("RaceLoserSaysWritten", "a store that lost a race says it wrote the item"),
    ),
    "engine.replay": (
        Fault("NeverReplay", "store always answers replayed=false"),
        Fault("ReplayNewId", "a replay says so, but answers an id of its own"),
        Fault(
            "FingerprintIncludesObservedAt",
            "an item observed at another time is stored again, as a new item",
        ),
        Fault("ReplayKeepsCopies", "a replay answers the first id but writes a second copy"),
        Fault("ReplayWindowFifty", "replays are found only among the last 50 stores"),
        Fault("ReplayOverwrites", "a replay writes the item again, keeping the latest observation"),
    ),
    "engine.store_many": (
        Fault("StoreManyUnordered", "store_many answers receipts reversed"),
        Fault("StoreManyFirstFifty", "store_many writes only the first 50 items of a batch"),
        Fault("StoreManyRepeatNew", "an item repeated inside a batch is answered as new"),
    ),
    "engine.namespaces": (
        Fault("ListIgnoresReach", "list ignores the filter's reach"),
        Fault("GetIgnoresReach", "get ignores the request's reach"),
        Fault("ReachByStringPrefix", "reach admits by string prefix (`agent:x-a` admits `-ab`)"),
        Fault("SubtreeAsLike", "matches a subtree with an unescaped LIKE: `a_b` admits `aXb/s`"),
        Fault("ExactRootReadsAll", "an exact reach at the root reads every namespace"),
        Fault("ForgetRefusesReachOnly", "a forget filter holding only a reach is refused"),
    ),
    "engine.explore": (
        Fault("UndercountExplore", "every bucket counts one item less"),
        Fault("ExploreCountsForgotten", "explore still counts forgotten items"),
        Fault("ExploreHidesTruncation", "explore stops at scan_limit but never says truncated"),
        Fault("ExploreMoreBucketsZero", "explore cuts to the limit but says nothing was cut"),
        Fault("ExploreNeverMissing", "explore never counts items without a value"),
        Fault("ExploreTiesDescending", "buckets of equal count come by value descending"),
        Fault("ExploreTopTen", "explore sees only the first 10 values"),
        Fault("ExploreTopFifty", "explore sees only the first 50 values"),
        Fault("ExploreTopHundred", "explore sees only the first 100 values"),
        Fault("ExploreFacetsByFieldName", "explore reads the field named like the facet"),
        Fault("ExploreToolCallWithId", "tool calls are grouped by name and call id"),
        Fault("ExploreTotalSumsBuckets", "`total` is the buckets' sum plus `missing`"),
    ),
    "engine.get": (
        Fault("GetUnordered", "get answers hits sorted by id, not in the asked order"),
        Fault("GetFirstHundred", "get looks up only the first 100 ids asked"),
        Fault("GetRepeatsDuplicates", "get answers an id asked twice twice"),
        Fault("GetFirstFifty", "get looks up only the first 50 ids asked"),
        Fault("GetFromOneListPage", "get reads one listing page of 100 items in reach"),
        Fault("GetFromOneListPageOfFifty", "get reads one listing page of 50 items in reach"),
        Fault("GetDefaultReach", "get without a reach reads the root alone"),
        Fault("GetScoresEveryHit", "get scores each hit 1.0 where its listing scores 0.0"),
    ),
    "engine.recall": (
        Fault("CiteUnknownIds", "every citation names an id no item has"),
        Fault("RecallFiltersAfterTopHundred", "ranks everything, keeps 100, then filters"),
        Fault(
            "RecallFiltersAfterLimitPlusFifty", "ranks everything, keeps limit + 50, then filters"
        ),
        Fault(
            "RecallPathsAfterTopHundred",
            "filters on tags inside its ranking, on a folder or subtree after keeping 100",
        ),
        Fault(
            "RecallFallsBackToEverything", "a filtered recall finding nothing recalls unfiltered"
        ),
    ),
    "engine.validation": (
        Fault("StoresInvalidItems", "store skips validation, keeping blank and out-of-range items"),
        Fault(
            "RefusesInItsOwnWords",
            "refusals worded its own way where the contract gives the message",
        ),
    ),
    "engine.no_credential_in_errors": (
        Fault("LeaksCredential", "puts its API key into the error for a foreign cursor"),
    ),
    # -- provider --------------------------------------------------------------------
    "provider.capability_audit": (
        Fault("AdvertisesDocuments", "advertises documents, but offers no documents family"),
    ),
    "provider.recall_takes_any_query": (
        Fault(
            "RecallPassesQueryToSearchSyntax",
            "recall hands the query to a search syntax unescaped: quotes and operators fail",
        ),
    ),
    "provider.health": (
        Fault("ProviderDown", "health answers down"),
        Fault("ProviderHealthRaises", "health raises instead of answering"),
        Fault("HealthReasonQuotesContent", "a degraded reason quotes the latest content stored"),
    ),
    "provider.forget_is_idempotent": (
        Fault("ForgetAlwaysTrue", "forget answers True whether or not the entry existed"),
    ),
    "provider.retention_probe": (
        Fault("GetRaises", "every read fails with a backend error"),
        Fault("ChangesContentOnTheWayBack", "gives content back lowercased"),
        Fault("GetFindsNothing", "stores and lists, but get never finds anything"),
    ),
    "provider.namespaces_are_isolated": (
        Fault("ListIgnoresNamespace", "list answers every namespace, whatever it is asked"),
        Fault("NamespaceMatchedAsPrefix", "matches a namespace as a string prefix"),
        Fault("ListMatchesPathPrefix", "lists a namespace with everything below it"),
        Fault("RecallMatchesPrefix", "recall matches the namespace as a string prefix"),
        Fault("ForgetsKeyUnderTheParent", "forgets the key in every namespace under the parent"),
        Fault("JoinsNamespaceAndKey", "addresses a row by `namespace:key`: two entries share one"),
    ),
    "provider.store_get_round_trip": (
        Fault("DropsSession", "stores every entry without its session"),
    ),
    "provider.racing_writes": (
        Fault("ForgetsInTwoSteps", "racing forgets of one key each answer True"),
    ),
    "provider.upsert_replaces_rather_than_duplicates": (
        Fault("UpsertDuplicates", "storing a key again keeps the old row beside the new one"),
        Fault("UpsertKeepsOldLabels", "a second store keeps the first category, session and taint"),
        Fault("UpsertMergesSession", "a second store without a session keeps the first one's"),
    ),
    "provider.list_filters_narrow": (
        Fault("IgnoresCategoryFilter", "list ignores the category filter"),
        Fault("CategoryFilterIgnoresCase", "compares categories without case"),
        Fault("CategoryFilterByName", "compares categories by name: `custom:core` is `core`"),
        Fault("SessionFilterMatchesPrefix", "matches the session filter as a prefix"),
    ),
    "provider.taint_is_preserved": (
        Fault("RestampsTaint", "stamps every write internal, whatever taint it was given"),
    ),
    "provider.awkward_content_round_trips": (
        Fault("MangleContent", "normalises line endings and drops NUL characters"),
        Fault("EmptyContentFailsAsBackend", "refuses empty content as a backend failure"),
        Fault("EmptyContentRefusedYetStored", "answers Invalid for empty content, yet stores it"),
        Fault("TrimsContent", "strips leading and trailing whitespace"),
        Fault("NormalisesContent", "stores content in Unicode NFKC form"),
        Fault(
            "ReplacesLoneSurrogates",
            'encodes content with `errors="replace"`: a lone surrogate reads back `?`',
        ),
    ),
    "provider.declared_constraints_refuse": (
        Fault(
            "DeclaresAnAlphabetButMerges",
            "declares no `_ . @ +` in names, yet takes them, `a_b`, `a.b`, `a@b` as one",
        ),
    ),
    "provider.documents_round_trip": (
        Fault(
            "DeleteAlwaysDeletes", "delete_document answers deleted: true when nothing was there"
        ),
        Fault(
            "DocumentsLoseTaint", "a document reads back internal, whatever taint it was put with"
        ),
        Fault("ClearKeepsDocuments", "clear_namespace removes nothing"),
        Fault("DocumentRowsWithoutTaint", "list_documents rows leave out the pinned taint key"),
    ),
    "provider.documents_at_volume": (
        Fault("DocumentListCappedAt10", "list_documents answers at most 10 rows"),
        Fault("DocumentDeleteMatchesIdPrefix", "deleting `d1` takes `d10` with it"),
        Fault(
            "DocumentQueryReachesNamespacePrefix",
            "query_documents(ns) searches every namespace ns is a string prefix of",
        ),
        Fault("DocumentClearReachesPrefix", "clear_namespace(ns) clears `nsx` and `ns/child`"),
        Fault("DocumentQueryRefusesLimitZero", "query_documents refuses a limit of 0"),
        Fault(
            "DocumentQuerySlicesByLimit", "`query_documents` cuts with `hits[:limit]`, unchecked"
        ),
    ),
    "provider.document_ids": (
        Fault(
            "DocumentIdFromKey",
            "a put without an id is refused: the id made from its key was given to another",
        ),
        Fault(
            "DocumentDeleteIgnoresIdCase",
            "delete_document matches ids case-insensitively (a case-folding collation)",
        ),
        Fault("DocumentPutEchoesBlankId", "a put with a blank id answers that blank id"),
    ),
    "provider.export_cursor_terminates": (
        Fault("ExportNeverEnds", "hands out a fresh cursor for every page, for ever"),
        Fault("ExportCursorRepeats", "answers every page with the same cursor"),
        Fault("AcceptsForeignCursor", "answers a cursor it never issued with an empty last page"),
        Fault("ExportTakesLimitZero", "a limit of 0 answers an empty last page, not Invalid"),
        Fault("ExportRefusesWithoutWords", "refuses a foreign cursor with `Invalid(None)`"),
    ),
    "provider.export_import_round_trip": (
        Fault("ImportDropsTaint", "imports every record as internal"),
        Fault("ImportDropsSession", "imports every record without its session"),
        Fault("ImportFirstHundred", "imports only the first 100 records of a batch"),
        Fault("ImportFirstFiftyClaimsAll", "imports the first 50 records of a batch, reports all"),
    ),
    "provider.export_during_writes": (
        Fault("ExportRestartsAfterAWrite", "after a write between pages the export starts over"),
        Fault("ExportCursorLostWithItsRow", "a cursor naming a forgotten row ends the export"),
        Fault(
            "ExportRefusesCursorPastTheEnd",
            "refuses a cursor it issued once the store shrank below its offset",
        ),
        Fault(
            "ExportRefusesCursorAtTheEnd",
            "refuses a cursor it issued once the store shrank to its offset",
        ),
    ),
    "provider.import_takes_records_written_elsewhere": (
        Fault(
            "ImportFailsTheBatchForOneRecord", "one record it cannot write refuses the whole batch"
        ),
        Fault("ImportNeedsItsOwnRecordIds", "records whose ids it did not issue are skipped"),
        Fault("ImportFillsMissingContent", "a record without content imports with a placeholder"),
    ),
    "provider.export_covers_every_record": (
        Fault("ExportSkipsBetweenPages", "starts each next page one record too far"),
        Fault("ExportRepeatsRecord", "starts each next page on the last record of the one before"),
        Fault("ExportPageCappedAtHundred", "pages hold at most 100 records; a short page ends"),
        Fault("ExportPageCappedAtFifty", "pages hold at most 50 records; a short page ends"),
    ),
    "provider.recall_respects_limit_and_namespace": (
        Fault("RecallIgnoresNamespace", "recall searches every namespace, not the one asked"),
        Fault("RecallPagesOfTen", "recalls from one page of 10 hits, whatever the limit"),
        Fault("RecallAnswersAnyway", "answers the namespace's entries when nothing matches"),
        Fault("RecallPagesOfFifty", "recalls from one page of 50 hits, whatever the limit"),
        Fault("RecallPagesOfHundred", "recalls from one page of 100 hits, whatever the limit"),
        Fault(
            "RecallNamespaceAfterTopHundred",
            "ranks every namespace, keeps 100, then keeps the asked one",
        ),
        Fault(
            "RecallNamespaceAfterLimitPlusFifty",
            "ranks every namespace, keeps limit + 50, then keeps the asked one",
        ),
        Fault(
            "RecallRefusesLimitZero",
            "recall refuses a limit of 0, valid input answered with no hit",
        ),
        Fault(
            "RecallSlicesByLimit", "cuts its ranking with `hits[:limit]`: -1 answers all but one"
        ),
    ),
    "provider.recall_ranks_best_first": (
        Fault("RecallReversed", "ranks the worst match first (a distance read as a similarity)"),
        Fault("RecallInKeyOrder", "answers matches in key order, without scores"),
    ),
    "provider.recall_filters_narrow": (
        Fault("RecallIgnoresCategory", "recall drops its category option"),
        Fault("RecallSessionIgnoresCase", "recall matches its session option without case"),
        Fault("RecallCategoryAfterTopHundred", "keeps the best 100, then the asked category"),
        Fault("RecallCategoryAfterLimitPlusFifty", "keeps the best limit + 50, then the category"),
        Fault("RecallSessionAfterTopHundred", "keeps the best 100, then the asked session"),
        Fault("RecallSessionAfterLimitPlusFifty", "keeps the best limit + 50, then the session"),
    ),
    "provider.recall_honours_min_score": (
        Fault("IgnoresMinScore", "recall drops min_score"),
        Fault("MinScoreExclusive", "keeps only hits scoring strictly above min_score"),
        Fault(
            "RecallStopsBelowMinScore",
            "stops scanning at the first match below min_score, losing later ones above it",
        ),
    ),
    "provider.timestamps_are_well_formed": (
        Fault("TimestampsWithoutZone", "gives entry times without a zone"),
        Fault("SummaryTimeWithoutZone", "reports a namespace's last update without a zone"),
        Fault("ExportTimeWithoutZone", "exports each entry's time without a zone"),
    ),
    "provider.accepts_valid_input": (
        Fault("RefusesDottedNamespaces", "refuses any namespace holding a `.`"),
        Fault("RefusesEmptySegments", "refuses a namespace with an empty or a `.` `/` segment"),
        Fault("FoldsDotSegments", "folds `a/./b` to `a/b`, so the entry comes back elsewhere"),
        Fault("RefusesLongKeys", "refuses keys over 255 characters"),
        Fault("EmptyKeyGetsAGeneratedKey", "stores an empty key as `key or <generated>`"),
        Fault("KeyAsFileName", "names a file by its key: a key past 255 UTF-8 bytes fails"),
    ),
    "provider.listing_holds_at_volume": (
        Fault("SearchPagesOfTen", "reads one page of 10 of its store's search and stops"),
        Fault("ListPagesOfTwenty", "lists a namespace from one page of 20"),
        Fault("ListNonePagesOfTen", "lists every namespace from one page of 10"),
        Fault("ListNonePagesOfFifty", "lists every namespace from one page of 50"),
        Fault("CountsPagesOfTen", "counts a namespace's entries from one page of 10"),
        Fault("ListPagesOfFifty", "lists a namespace from one page of 50"),
        Fault("ListPagesOfHundred", "lists a namespace from one page of 100"),
        Fault("ListNonePagesOfHundred", "lists every namespace from one page of 100"),
        Fault("CountsPagesOfFifty", "counts a namespace's entries from one page of 50"),
        Fault("CountsPagesOfHundred", "counts a namespace's entries from one page of 100"),
        Fault("NamespacesFirstHundred", "enumerates namespaces from one page of 100"),
        Fault("NamespacesFirstFifty", "enumerates namespaces from one page of 50"),
    ),
    "provider.namespace_none_semantics": (
        Fault("RecallNoneSearchesEverything", "recall with no namespace searches every namespace"),
    ),
    "provider.recall_respects_source_scope": (
        Fault("RecallIgnoresScope", "answers a scoped recall as if it were unscoped"),
    ),
    "provider.namespaces_preserve_their_section": (
        Fault("CollapsesSectionColon", "enumerates namespaces with `:` turned into `_`"),
    ),
    "provider.section_writes_are_enumerable": (
        Fault(
            "ReportsBracketedRedaction",
            "reports a name carrying a national id as `…[REDACTED_PII_SSN]`, no valid namespace",
        ),
        Fault(
            "ReportsARedactedNameThatAddressesNothing",
            "reports a name carrying a national id redacted to a name that reads back nothing",
        ),
    ),
    "provider.no_credential_in_errors": (
        Fault("LeaksCredential", "puts its API key into the error for a foreign cursor"),
    ),
    # -- fuzz targets ----------------------------------------------------------------
    "fuzz.engine.differential": (
        Fault("CursorSkipsPastFirstPage", "every page after the first drops its first item"),
        Fault("StoreManyNeverReplays", "store_many answers every item as new, even a held one"),
        Fault("AcceptsMalformedItems", "stores items without validating them"),
    ),
    "fuzz.provider.differential": (
        Fault("ThirdWriteDuplicates", "the third write to a key lists the old row beside the new"),
        Fault("NamespaceCountDrifts", "namespaces() keeps counting an entry after its forget"),
        Fault("ForgetLeavesGhostInListAll", "a forgotten entry still shows in list(None)"),
        Fault("RecallSearchesEverywhere", "recall with no namespace searches every namespace"),
        Fault("RefusesWithBackend", "refuses a malformed namespace with Backend, not Invalid"),
    ),
}
"""Check or fuzz target id → the faults it is proven to catch."""


def faults_for(check_id: str) -> tuple[Fault, ...]:
    """The faults `check_id` is proven against (none for an id the table lacks)."""
    return PROVEN_AGAINST.get(check_id, ())
