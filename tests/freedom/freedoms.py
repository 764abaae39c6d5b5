"""The freedoms the contract leaves to drivers, each with the sentence that grants it.

A freedom is a way a correct driver may differ from the reference. The freedom
matrix (`matrix.py`) runs drivers that use them; `check_freedoms.py` says which of
them each check leaves open. The ids appear in `docs/freedoms.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from conformance.driver import Profile

BOTH: Final[tuple[Profile, ...]] = ("engine", "provider")
ENGINE: Final[tuple[Profile, ...]] = ("engine",)
PROVIDER: Final[tuple[Profile, ...]] = ("provider",)


@dataclass(frozen=True)
class Freedom:
    """One choice the contract leaves to a driver."""

    id: str
    title: str
    """What a driver using it does."""
    profiles: tuple[Profile, ...]
    grant: str
    """The contract sentence (quoted, with its clause) that allows it."""


FREEDOMS: Final[dict[str, Freedom]] = {
    f.id: f
    for f in (
        Freedom(
            "opaque-ids",
            "Item ids of the engine's own scheme, not the fingerprint: UUIDs, or counters "
            "whose ids are string prefixes of one another (`m1`, `m10`)",
            ENGINE,
            'decisions §4.2: "Engine ids are opaque. The kit never assumes id == '
            "fingerprint; it asserts that a replay returns the first store's id, and that "
            'receipts come back in item order."',
        ),
        Freedom(
            "entry-ids",
            "Entry ids of the driver's own scheme (UUIDs, counters), not `{namespace}::{key}`",
            PROVIDER,
            'contract-reference A1 (MemoryEntry): "`id` | str | driver-assigned".',
        ),
        Freedom(
            "list-order",
            "Listings in any order: newest first, reversed, shuffled but stable, by id; "
            "ties of a ranking broken the same way",
            BOTH,
            'contract-reference B8 (list): "order not promised across engines, but following '
            'cursors visits every matching item and terminates"; A4 (list) promises no order.',
        ),
        Freedom(
            "short-pages",
            "Pages shorter than the limit while more remain (a server-side cap, half the limit)",
            ENGINE,
            'contract-reference B8 (cursors): "a page may be short; only a missing '
            '`next_cursor` ends".',
        ),
        Freedom(
            "empty-pages",
            "Empty pages that still carry a cursor, the first page included",
            ENGINE,
            'contract-reference B8 (cursors): "a page may be short; only a missing '
            '`next_cursor` ends".',
        ),
        Freedom(
            "trailing-empty-page",
            "A full last page that carries a cursor, followed by an empty page without one",
            ENGINE,
            'contract-reference B8 (cursors): "only a missing `next_cursor` ends".',
        ),
        Freedom(
            "cursor-format",
            "Cursors of any format: signed base64 JSON, opaque tokens, UUIDs naming "
            "server-side state",
            ENGINE,
            'contract-reference B8 (cursors): "opaque; first request none; pass `next_cursor` '
            'back unchanged ...; an unrecognised cursor is `InvalidRequest`".',
        ),
        Freedom(
            "single-use-cursors",
            "Cursors good for one request: the state they name is dropped once used, and a "
            "reused cursor is refused",
            BOTH,
            'contract-reference B8 (cursors): "pass `next_cursor` back unchanged"; A4 '
            '(export_page): "start with `None`; only `next_cursor=None` terminates". Neither '
            "asks that a cursor be good twice.",
        ),
        Freedom(
            "bound-cursors",
            "A cursor sent with another filter, query or mode is refused as `InvalidRequest`",
            ENGINE,
            'contract-reference B8 (cursors): "pass `next_cursor` back unchanged with the '
            'same filter/query/mode; an unrecognised cursor is `InvalidRequest`".',
        ),
        Freedom(
            "score-scale",
            "Fetch and citation scores of any scale or sign (scaled, shifted, negative); best "
            "first means higher first",
            ENGINE,
            'contract-reference B8 (fetch): "rank items admitted by `filter` in the mode (best '
            'first, each with a score)"; B6: `Citation{..., score?: f32}`.',
        ),
        Freedom(
            "fetch-modes",
            "Any subset of the fetch modes, none included; an undeclared mode is refused as "
            "`Unsupported`",
            ENGINE,
            'contract-reference B8 (descriptor): "`supports(mode)`; `ensure_mode(mode)` → '
            '`Unsupported(...)`"; C1: "fetch with declared keyword/vector/hybrid; undeclared '
            '→ Unsupported".',
        ),
        Freedom(
            "server-explore",
            "Explore counted server-side: exact over every admitted item, `scan_limit` "
            "ignored, never truncated",
            ENGINE,
            'contract-reference B8: "`explore(req)` default `explore_by_listing`"; B7: "Page '
            'builder (`explore_page_of`, shared by server-side overrides)".',
        ),
        Freedom(
            "offset-timestamps",
            "Timestamps written at a UTC offset other than `Z` (the same instant, every "
            "digit kept), as a driver speaking JSON sends them: an engine's `observed_at`, a "
            "provider's entry `timestamp` and `last_updated`",
            BOTH,
            'contract-reference A1: `timestamp` "ISO-8601 / RFC 3339", `last_updated` '
            '"RFC 3339"; B3: `observed_at` is a datetime (the fingerprint clears it).',
        ),
        Freedom(
            "degraded-health",
            "Health degraded, with a reason, while serving",
            BOTH,
            'contract-reference B8: "`is_serving()` false only for Down"; A2: "`is_usable()` '
            'false only for Down".',
        ),
        Freedom(
            "recall-shape",
            "Recall citing fewer items than the limit, answering in its own words, with "
            "citation scores of any scale or none",
            ENGINE,
            'contract-reference B8 (recall): "gather ≤ `limit` citations from admitted items; '
            'synthesise an answer"; B6: `Citation.score` is optional.',
        ),
        Freedom(
            "recall-scores",
            "Recall scores of any scale or sign, or none at all (`score=None`)",
            PROVIDER,
            'contract-reference A1 (MemoryEntry): "`score` | float | None | typically 0..1; '
            'required key (nullable)"; A4 (recall): "most relevant first".',
        ),
        Freedom(
            "scope-denies-unattributed",
            "Recall under `SourceScope([])` denies entries with no source attribution too",
            PROVIDER,
            'decisions §4.11: "For an entry with no source attribution (written through core '
            '`store`), both answers are conformant: the driver may return it or deny it."',
        ),
        Freedom(
            "scope-returns-unattributed",
            "Recall under `SourceScope([])` returns entries with no source attribution "
            "(written as `internal` through core `store`), denying `external_sync` ones",
            PROVIDER,
            'decisions §4.11: "An empty `SourceScope` allow list denies all *source-attributed* '
            "content (an `external_sync` row, anything carrying a source id). For an entry with "
            'no source attribution ..., both answers are conformant."',
        ),
        Freedom(
            "export-page-size",
            "Export pages of any size up to the limit",
            PROVIDER,
            'contract-reference A4 (export_page): "`limit` is a request".',
        ),
        Freedom(
            "export-empty-pages",
            "Empty export pages that still carry a cursor (after the first page)",
            PROVIDER,
            'contract-reference A4 (export_page): "only `next_cursor=None` terminates (an empty '
            'page is not a terminator)".',
        ),
        Freedom(
            "export-trailing-empty-page",
            "A full last export page that carries a cursor, followed by an empty page without one",
            PROVIDER,
            'contract-reference A4 (export_page): "only `next_cursor=None` terminates".',
        ),
        Freedom(
            "export-cursor-format",
            "Export cursors of any format: signed base64 JSON, opaque tokens, UUIDs naming "
            "server-side state",
            PROVIDER,
            'contract-reference A4 (export_page): "`Invalid` for a cursor the driver did not '
            'issue" (what it issues is its own).',
        ),
        Freedom(
            "refuse-malformed-reads",
            "`get`, `list`, `forget`, `recall` and `import_records` refuse a malformed "
            "namespace with `Invalid`, as `store` does",
            PROVIDER,
            'decisions §4.11: "A driver may refuse malformed input on any operation, reads '
            "included, with the contract's error; nothing obliges it to accept a malformed "
            'namespace on `forget`."',
        ),
        Freedom(
            "kept-empty-namespaces",
            "`namespaces()` keeps listing a namespace emptied by `forget`, with count 0",
            PROVIDER,
            'contract-reference A1 (NamespaceSummary): "`count: int` (entries in it)".',
        ),
        Freedom(
            "keyword-every-word",
            "Keyword fetch hitting only items that hold every word of the query (implicit "
            "AND, as SQLite FTS5 and Postgres `plainto_tsquery` read a query)",
            ENGINE,
            'contract-reference B8 (fetch): "rank items admitted by `filter` in the mode (best '
            'first, each with a score)"; B11: "keyword mode: score keyword, hit iff > 0" is '
            "the reference's own threshold.",
        ),
        Freedom(
            "similarity-floor",
            "Vector fetch hitting only items at least 0.5 similar to the query (the "
            "reference's floor is 0.2)",
            ENGINE,
            'contract-reference B11: vector "hit iff ≥ 0.2" is the reference\'s threshold; '
            'B8 (fetch): "rank items admitted by `filter` in the mode (best first, each with '
            'a score)".',
        ),
        Freedom(
            "offset-cursors",
            "Cursors holding a position only: each page ranks everything again, ties oldest "
            "first, and skips what earlier pages answered",
            ENGINE,
            'contract-reference B8 (cursors): "opaque"; B11: the reference pages "by decimal '
            'offset cursor", ranking ties "by insertion order".',
        ),
        Freedom(
            "declared-constraints",
            "Declares contract-valid input its store cannot take (`Driver(constraints=...)`: "
            "an item text of at most 120 characters measured on the rendered text, no control "
            "characters, ASCII only; a namespace alphabet without `.`, short names and keys, "
            "no empty content) and refuses exactly that with the contract's error",
            BOTH,
            'kit-choices.md#declared-constraints: "A store that cannot take some '
            "contract-valid input ... declares it as a constraint ... instead of being "
            'waived".',
        ),
        Freedom(
            "refuse-empty-content",
            "`store` refuses empty content with `Invalid`, undeclared",
            PROVIDER,
            'contract-reference A4 (store): "`Invalid` for input the driver rejects (e.g. '
            'TinyCortex refuses empty content)".',
        ),
        Freedom(
            "scope-refused",
            "Recall under any `SourceScope` refused with `Invalid` (a scope it cannot apply "
            "inside its query)",
            PROVIDER,
            'contract-reference A5: "`recall(…, scope=Some(_))` is **refused** with '
            '`Invalid(SCOPE_UNAPPLIED)`"; kit-choices.md#empty-scope-unattributed.',
        ),
        Freedom(
            "redacted-names",
            "A namespace carrying a national id stored, listed and answered with it redacted "
            "(`thread-_REDACTED_PII_SSN_`); reads under either name find its entries",
            PROVIDER,
            'contract-reference A11: "`canonical_identifier(v)` (namespaces, ...): if '
            "`has_likely_pii(v)` then `redact_pii(v).value` ... Every read/update/delete path "
            'must apply the same transform as the write path".',
        ),
        Freedom(
            "word-ranking",
            "Recall ranking by the share of the query's words an entry holds, ties by key "
            "(an entry holding the query among other words ranks level with its exact match)",
            PROVIDER,
            'contract-reference A4 (recall): "most relevant first"; A7: recall ranking is each '
            "driver's own (substring, FTS hits scored `matched_terms/len(terms)`).",
        ),
        Freedom(
            "document-ids",
            "Document ids of the family's own (UUIDs), a new one at every update",
            PROVIDER,
            'kit-choices.md#document-ids: "An id the driver generates is opaque: any text no '
            'other document of the namespace has, kept across updates or made anew".',
        ),
        Freedom(
            "document-stamps",
            "Real `created_at` and `updated_at` times and Markdown paths of the family's own",
            PROVIDER,
            'contract-reference A1 (StoredMemoryDocument): "`created_at (unix f64), updated_at '
            '(unix f64), markdown_rel_path`", which the driver fills.',
        ),
        Freedom(
            "document-order",
            "Documents listed, and query hits ranked, newest first on a score scale of the "
            "family's own",
            PROVIDER,
            'kit-choices.md#document-ids: "Which documents `query_documents` matches, and the '
            "order and scores of its hits and of `recall_documents`'s, are the driver's\".",
        ),
        Freedom(
            "documents-recall-unsupported",
            "`recall_documents` refused as `Unsupported(documents)`",
            PROVIDER,
            'contract-reference A4 (MemoryDocuments): "`recall_documents(ns, limit)` ... '
            '(provided default: `Unsupported(documents)`)".',
        ),
        Freedom(
            "async",
            "`async def` methods instead of synchronous ones",
            BOTH,
            'decisions §3: "Both protocols exist in a synchronous form and an `async def` form; '
            'the kit accepts either and runs every check once".',
        ),
        Freedom(
            "transient-unavailable",
            "`Unavailable` now and then (a rate limit); a retry succeeds",
            BOTH,
            'decisions §4.11: "`Unavailable` is transient everywhere: the fuzzer retries it as '
            'the suites do"; B1: "`is_transient()` true only for this"; A3: "retryable class".',
        ),
        Freedom(
            "plain-options",
            "Options whose names merely contain a credential word (`keyword`, `keyspace`, "
            "`sort_key`, `author`, `private_mode`), with short values",
            BOTH,
            'decisions §4.11: "A driver option is a credential when its name is one (`api_key`, '
            "`token`, `password`, `secret`, ... as a whole word of the option name) or when the "
            'driver declares it so; `keyword` or `keyspace` are not credentials."',
        ),
        Freedom(
            "credential-option",
            "A credential option (`api_key`) the driver needs and keeps out of every message",
            BOTH,
            'contract-reference B8: descriptor `needs_key`; B1, A3: messages "never a credential".',
        ),
    )
}
"""Every freedom, by id."""
