"""The freedom matrix: correct drivers, each using freedoms the contract leaves, that every
check and fuzz target must pass (issue 17).

Each `Configuration` builds a fresh `FreeEngine` or `FreeProvider` (or an `async def`
face over one) and names the freedoms it stands for; `test_matrix.py` runs the whole
suite and one fuzz seed on it and requires every named freedom to have been used.
Configurations with driver options run through the pytest plugin, where options are
read and credentials redacted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from conformance.checks.catalogue import checks_for
from conformance.constraints import PROVIDER_NAMESPACE_ALPHABET, Constraints
from conformance.driver import Driver, DriverError, Profile
from conformance.engine import FetchMode, ListRequest, MemoryMeta, StoreItem, document
from conformance.provider import MemoryTaint
from tests.checks.test_engine_suite import foreign_items as engine_suite_foreign_items
from tests.freedom.cursors import CursorStyle
from tests.freedom.faces import AsyncFreeEngine, AsyncFreeProvider
from tests.freedom.free_documents import DocumentFreedoms
from tests.freedom.free_engine import WHOLE, EngineFreedoms, FreeEngine
from tests.freedom.free_provider import FreeProvider, ProviderFreedoms
from tests.freedom.paging import PageShape

FUZZ_SEED: Final = 1717
"""The one seed every configuration is fuzzed with."""


NO_CREDENTIAL = "no credential option given to the driver"
NO_FETCH_MODE = "engine declares no fetch mode"
NO_DOCUMENTS = "capability `documents` not offered"

REACH: Final = {
    "degraded-health": "Reached by the suites only: the fuzzer never asks for health.",
    "credential-option": "Reached by the suites only: the fuzzer reads no options.",
    "plain-options": "Reached by the suites only: the fuzzer reads no options.",
    "scope-denies-unattributed": "Reached by the fuzzer only: the suite's source-scope "
    "check holds only an `external_sync` entry, on which both readings agree.",
    "scope-returns-unattributed": "Reached by the fuzzer only: the suite's source-scope "
    "check holds only an `external_sync` entry, on which both readings agree.",
    "refuse-malformed-reads": "Reached by the fuzzer, and by the suite only through the "
    "credential check (which runs when a credential option is given).",
    "redacted-names": "Reached by the suites only: the fuzzer's names carry no national id.",
}
"""Freedoms only one kind of run reaches, and why."""

SUITE_ONLY: Final = frozenset(f for f, why in REACH.items() if "suites only" in why)
"""Freedoms the fuzzer cannot use: a fuzz run is not asked to meet them."""

FUZZ_ONLY: Final = frozenset(REACH) - SUITE_ONLY
"""Freedoms a direct suite run (without options) does not reach."""


@dataclass(frozen=True)
class Configuration:
    """One correct driver of the matrix and the freedoms it stands for."""

    name: str
    summary: str
    """What the driver does differently from the reference."""
    freedoms: tuple[str, ...]
    """The freedoms it stands for; a run must use every one of them."""
    engine: EngineFreedoms | None = None
    provider: ProviderFreedoms | None = None
    asynchronous: bool = False
    options: Mapping[str, str] = field(default_factory=dict)
    """Driver options; a configuration with options runs through the pytest plugin."""
    plugin: bool = False
    """Run through the pytest plugin (options, redaction, retries counted in the report)."""
    fuzz_examples: int = 1
    """Programs of its fuzz seed: the smallest budget at which the fuzzer uses every
    freedom of the configuration (`test_matrix.py` checks that it does;
    `benchmarks/bench_freedom.py --budgets` finds the smallest again)."""

    @property
    def profile(self) -> Profile:
        """The profile the driver offers."""
        return "engine" if self.engine is not None else "provider"

    @property
    def constraints(self) -> Constraints:
        """What the driver declares it cannot take (nothing, mostly)."""
        chosen = self.engine if self.engine is not None else self.provider
        declared = None if chosen is None else chosen.constraints
        return declared or Constraints()

    @property
    def documents(self) -> bool:
        """Whether the driver offers the `documents` family."""
        return self.provider is not None and self.provider.documents is not None

    @property
    def via_plugin(self) -> bool:
        """Whether the matrix runs it through the pytest plugin."""
        return self.plugin or bool(self.options)

    def build(self, options: Mapping[str, str] | None = None) -> Any:
        """A fresh driver object of this configuration, holding another writer's data."""
        given = dict(self.options if options is None else options)
        if self.engine is not None:
            engine = FreeEngine(self.engine, given)
            engine.preload(foreign_items())
            return AsyncFreeEngine(engine) if self.asynchronous else engine
        provider = FreeProvider(self.provider, given)
        provider.preload(foreign_rows())
        return AsyncFreeProvider(provider) if self.asynchronous else provider

    def skips(self, has_modes: bool) -> dict[str, str]:
        """The checks it may skip, with the only reason each may give."""
        allowed: dict[str, str] = {}
        if "api_key" not in self.options:
            allowed[f"{self.profile}.no_credential_in_errors"] = NO_CREDENTIAL
        if self.profile == "engine" and not has_modes:
            # A per-mode check covers every declared fetch mode: with none it has nothing to do.
            allowed.update({c.id: NO_FETCH_MODE for c in checks_for("engine") if c.per_mode})
        if self.profile == "provider" and not self.documents:
            allowed.update(
                {c.id: NO_DOCUMENTS for c in checks_for("provider") if c.needs == "documents"}
            )
        return allowed


def used(driver: Any) -> Counter[str]:
    """The freedoms a driver of the matrix has used so far."""
    counts: Counter[str] = driver.used
    return counts


def foreign_items() -> list[StoreItem]:
    """Another writer's items, as a live engine holds beside a run (the engine suite's own
    foreign data: other workspaces, namespaces and runs, the kit's workspace prefix), and
    eight notes observed at a moment of their own."""
    seen = datetime(2024, 2, 29, 12, tzinfo=UTC)
    notes = [
        document(f"foreign note {i}", MemoryMeta(workspace="elsewhere", observed_at=seen))
        for i in range(8)
    ]
    return [*engine_suite_foreign_items(), *notes]


FOREIGN_NAMESPACES: Final = (
    "learning:foreign",
    "conversation:foreign-thread",
    "global",
    "tinymemory-conformance/other-run/provider-taint",
)

Row = tuple[str, str, str, MemoryTaint]


def foreign_rows() -> list[Row]:
    """Another writer's entries, as a live provider holds beside a run: 72 of them, so an
    export of the whole store takes more than one page of 64."""
    taints = (MemoryTaint.INTERNAL, MemoryTaint.EXTERNAL_SYNC)
    return [
        (namespace, f"foreign-{i}", f"foreign needle {i}", taints[i % 2])
        for namespace in FOREIGN_NAMESPACES
        for i in range(18)
    ]


def inner_of(driver: Any) -> Any:
    """The synchronous freedom driver, under an async face when there is one."""
    return getattr(driver, "inner", driver)


def held_beside_foreign(driver: Any) -> list[str]:
    """What a driver holds that is not the foreign data it was built with, and any
    foreign data it lost or changed; empty after a run that cleaned up and left the
    other writer alone."""
    inner = inner_of(driver)
    if isinstance(inner, FreeEngine):
        held = [hit.id for hit in inner.ref.list(ListRequest(limit=WHOLE)).items]
        want = [item.fingerprint() for item in foreign_items()]
        return [f"held {i}" for i in held if i not in want] + [
            f"lost {i}" for i in want if i not in held
        ]
    rows = {
        (e.namespace or "", e.key, e.content, MemoryTaint(e.taint))
        for e in inner.ref.list(None, None, None)
    }
    kept = set(foreign_rows())
    return [f"held {r[:2]}" for r in sorted(rows - kept)] + [
        f"lost {r[:2]}" for r in sorted(kept - rows)
    ]


NO_MODES: Final[tuple[FetchMode, ...]] = ()
EVERY_PAGE_SHAPE: Final = PageShape(short=True, empty_pages=True, trailing_empty=True)

ENGINE_LIMITS: Final = Constraints(
    max_content_length=120,
    control_characters=False,
    non_ascii=False,
    reason="texts are a VARCHAR(120) ASCII column, measured on the rendered text",
)
"""What the engine with declared constraints cannot take (issue 27, reading 3)."""

PROVIDER_LIMITS: Final = Constraints(
    namespace_alphabet=PROVIDER_NAMESPACE_ALPHABET.replace(".", ""),
    max_namespace_bytes=160,
    max_key_length=64,
    max_content_length=4096,
    empty_content=False,
    control_characters=False,
    reason="namespaces are split on dots; keys and contents are bounded columns",
)
"""What the provider with declared constraints cannot take."""

ENGINE_CONFIGURATIONS: Final = (
    Configuration(
        "engine-uuid-ids",
        "Item ids are random UUIDs, not fingerprints",
        ("opaque-ids",),
        engine=EngineFreedoms(ids="uuid"),
        fuzz_examples=1,
    ),
    Configuration(
        "engine-counter-ids",
        "Item ids `m1`, `m2`, ... (`m1` is a string prefix of `m10` to `m19`), listed in id "
        "order (`m10` before `m2`)",
        ("opaque-ids", "list-order"),
        engine=EngineFreedoms(ids="counter", order="by-id"),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-newest-first",
        "Listings newest first; fetch ties the same way",
        ("list-order",),
        engine=EngineFreedoms(order="newest"),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-shuffled-order",
        "Listings in a shuffled but stable order (by a hash of the id)",
        ("list-order",),
        engine=EngineFreedoms(ids="uuid", order="shuffled"),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-short-pages",
        "Pages of at most half the limit",
        ("short-pages",),
        engine=EngineFreedoms(pages=PageShape(short=True)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-page-cap",
        "Pages of at most 3 items, whatever the limit (a server-side cap)",
        ("short-pages",),
        engine=EngineFreedoms(pages=PageShape(cap=3)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-empty-pages",
        "Every other page empty but carrying a cursor, the first page included",
        ("empty-pages",),
        engine=EngineFreedoms(pages=PageShape(empty_pages=True)),
        fuzz_examples=1,
    ),
    Configuration(
        "engine-trailing-empty-page",
        "A full page always carries a cursor; after the last one comes an empty page",
        ("trailing-empty-page",),
        engine=EngineFreedoms(pages=PageShape(trailing_empty=True)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-token-cursors",
        "Cursors are random tokens naming server-side state",
        ("cursor-format",),
        engine=EngineFreedoms(cursors=CursorStyle(format="token")),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-single-use-cursors",
        "Cursors are UUIDs naming server-side state, dropped once used",
        ("cursor-format", "single-use-cursors"),
        engine=EngineFreedoms(cursors=CursorStyle(format="uuid", single_use=True)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-bound-cursors",
        "Signed base64 JSON cursors, single-use and refused with another filter, query or mode",
        ("cursor-format", "single-use-cursors", "bound-cursors"),
        engine=EngineFreedoms(cursors=CursorStyle(single_use=True, bound=True)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-scaled-scores",
        "Fetch and citation scores ×1000 + 5",
        ("score-scale",),
        engine=EngineFreedoms(scores="scaled"),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-negative-scores",
        "Fetch and citation scores shifted below zero (− 10); higher is still better",
        ("score-scale",),
        engine=EngineFreedoms(scores="negative", order="newest"),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-keyword-only",
        "Declares only keyword fetch; vector and hybrid are Unsupported",
        ("fetch-modes",),
        engine=EngineFreedoms(fetch_modes=(FetchMode.KEYWORD,)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-vector-and-hybrid",
        "Declares vector and hybrid fetch; keyword is Unsupported",
        ("fetch-modes",),
        engine=EngineFreedoms(fetch_modes=(FetchMode.VECTOR, FetchMode.HYBRID)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-no-fetch-mode",
        "Declares no fetch mode at all: every fetch is Unsupported",
        ("fetch-modes",),
        engine=EngineFreedoms(fetch_modes=NO_MODES),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-server-explore",
        "Explore counts server-side over everything admitted, ignoring scan_limit",
        ("server-explore",),
        engine=EngineFreedoms(server_explore=True),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-offset-timestamps",
        "observed_at reads back at +05:30",
        ("offset-timestamps",),
        engine=EngineFreedoms(utc_offset_minutes=330),
        fuzz_examples=1,
    ),
    Configuration(
        "engine-terse-recall",
        "Health degraded; recall cites only its best item, unscored, in words of its own",
        ("recall-shape", "degraded-health"),
        engine=EngineFreedoms(terse_recall=True, degraded=True),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-keyword-every-word",
        "Declares keyword fetch only, which hits only items holding every query word "
        "(implicit AND, as SQLite FTS5)",
        ("keyword-every-word",),
        engine=EngineFreedoms(keyword_every_word=True, fetch_modes=(FetchMode.KEYWORD,)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-similarity-floor",
        "Declares vector fetch only, which hits only items at least 0.5 similar to the query",
        ("similarity-floor",),
        engine=EngineFreedoms(similarity_floor=0.5, fetch_modes=(FetchMode.VECTOR,)),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-offset-cursors",
        "Cursors hold a position only: each page ranks everything again (ties oldest "
        "first) and skips what went before",
        ("offset-cursors",),
        engine=EngineFreedoms(offset_cursors=True),
        fuzz_examples=2,
    ),
    Configuration(
        "engine-declared-limits",
        "Declares, and refuses, item texts over 120 characters (the rendered text), "
        "control characters and non-ASCII",
        ("declared-constraints",),
        engine=EngineFreedoms(constraints=ENGINE_LIMITS),
        fuzz_examples=1,
    ),
    Configuration(
        "engine-async",
        "`async def` methods",
        ("async",),
        engine=EngineFreedoms(),
        asynchronous=True,
        fuzz_examples=1,
    ),
    Configuration(
        "engine-rate-limited",
        "Every 7th data call answers Unavailable (a rate limit) before touching anything; "
        "the retry succeeds. Cursors are single-use, so a retry must not spend one",
        ("transient-unavailable", "single-use-cursors"),
        engine=EngineFreedoms(
            unavailable_every=7, cursors=CursorStyle(format="uuid", single_use=True)
        ),
        plugin=True,
        fuzz_examples=2,
    ),
    Configuration(
        "engine-keyword-option",
        "Takes the option `keyword=all` (the fetch modes it declares): not a credential",
        ("plain-options",),
        engine=EngineFreedoms(),
        options={"keyword": "all"},
        fuzz_examples=1,
    ),
    Configuration(
        "engine-credential-option",
        "Needs an `api_key` option, and never repeats it",
        ("credential-option",),
        engine=EngineFreedoms(),
        options={"api_key": "tm-live-7f3a9c21e4b84d06"},
        fuzz_examples=1,
    ),
    Configuration(
        "engine-everything-async",
        "UUID ids, newest first, short and empty pages and trailing empty ones, bound "
        "single-use UUID cursors, negative scores, keyword and hybrid only, server-side "
        "explore, offset timestamps, terse recall, async",
        (
            "opaque-ids",
            "list-order",
            "short-pages",
            "empty-pages",
            "trailing-empty-page",
            "single-use-cursors",
            "bound-cursors",
            "score-scale",
            "fetch-modes",
            "server-explore",
            "offset-timestamps",
            "recall-shape",
            "async",
        ),
        engine=EngineFreedoms(
            ids="uuid",
            order="newest",
            pages=EVERY_PAGE_SHAPE,
            cursors=CursorStyle(format="uuid", single_use=True, bound=True),
            scores="negative",
            fetch_modes=(FetchMode.KEYWORD, FetchMode.HYBRID),
            server_explore=True,
            utc_offset_minutes=-420,
            terse_recall=True,
        ),
        asynchronous=True,
        fuzz_examples=2,
    ),
    Configuration(
        "engine-everything-sync",
        "Counter ids, shuffled order, a page cap of 2 with trailing empty pages, token "
        "cursors, scaled scores, no fetch mode, degraded health",
        (
            "opaque-ids",
            "list-order",
            "short-pages",
            "trailing-empty-page",
            "cursor-format",
            "fetch-modes",
            "degraded-health",
        ),
        engine=EngineFreedoms(
            ids="counter",
            order="shuffled",
            pages=PageShape(cap=2, trailing_empty=True),
            cursors=CursorStyle(format="token"),
            scores="scaled",
            fetch_modes=NO_MODES,
            degraded=True,
        ),
        fuzz_examples=2,
    ),
)

PROVIDER_CONFIGURATIONS: Final = (
    Configuration(
        "provider-uuid-entry-ids",
        "Entry ids are random UUIDs",
        ("entry-ids",),
        provider=ProviderFreedoms(ids="uuid"),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-reversed-order",
        "list answers in reverse (namespace, key) order, namespaces() in reverse name order",
        ("list-order",),
        provider=ProviderFreedoms(order="reversed"),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-newest-first",
        "list and export answer the newest write first; entry ids are counters",
        ("list-order", "entry-ids"),
        provider=ProviderFreedoms(order="newest", ids="counter"),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-shuffled-order",
        "list and export answer in a shuffled but stable order (by a hash of the entry id)",
        ("list-order",),
        provider=ProviderFreedoms(order="shuffled", ids="uuid"),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-offset-timestamps",
        "Each write stamped with its real time at +05:30; namespaces report last_updated",
        ("offset-timestamps",),
        provider=ProviderFreedoms(utc_offset_minutes=330),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-scaled-scores",
        "Recall scores ×100 (min_score on that scale)",
        ("recall-scores",),
        provider=ProviderFreedoms(scores="scaled"),
        fuzz_examples=8,
    ),
    Configuration(
        "provider-negative-scores",
        "Recall scores shifted below zero (− 2); higher is still better",
        ("recall-scores",),
        provider=ProviderFreedoms(scores="negative"),
        fuzz_examples=8,
    ),
    Configuration(
        "provider-no-scores",
        "Recall answers score=None",
        ("recall-scores",),
        provider=ProviderFreedoms(scores="none"),
        fuzz_examples=8,
    ),
    Configuration(
        "provider-scope-denies-unattributed",
        "Recall under any source scope answers [] (unattributed entries denied too)",
        ("scope-denies-unattributed",),
        provider=ProviderFreedoms(scope="deny"),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-scope-returns-unattributed",
        "Recall under a source scope returns internal entries (no source attribution) and "
        "denies external_sync ones",
        ("scope-returns-unattributed",),
        provider=ProviderFreedoms(scope="unattributed"),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-export-page-cap",
        "Export pages of at most 3 records, whatever the limit",
        ("export-page-size",),
        provider=ProviderFreedoms(export_pages=PageShape(cap=3)),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-export-empty-pages",
        "Every other export page after the first is empty but carries a cursor",
        ("export-empty-pages",),
        provider=ProviderFreedoms(export_pages=PageShape(empty_pages=True, empty_first=False)),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-export-trailing-empty-page",
        "Export pages of one record, each carrying a cursor: after the last comes an empty page",
        ("export-trailing-empty-page",),
        provider=ProviderFreedoms(export_pages=PageShape(cap=1, trailing_empty=True)),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-export-token-cursors",
        "Export cursors are random tokens naming server-side state",
        ("export-cursor-format",),
        provider=ProviderFreedoms(export_cursors=CursorStyle(format="token")),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-export-single-use-cursors",
        "Export cursors are UUIDs naming server-side state, dropped once used",
        ("export-cursor-format", "single-use-cursors"),
        provider=ProviderFreedoms(export_cursors=CursorStyle(format="uuid", single_use=True)),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-validates-namespaces",
        "A malformed namespace is refused with Invalid on every operation, forget included",
        ("refuse-malformed-reads",),
        provider=ProviderFreedoms(validate_namespaces=True),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-keeps-empty-namespaces",
        "namespaces() keeps a namespace emptied by forget, with count 0",
        ("kept-empty-namespaces",),
        provider=ProviderFreedoms(keep_empty_namespaces=True),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-documents",
        "Offers the `documents` family: real times and Markdown paths, listings and query "
        "hits newest first on a scale of its own",
        ("document-stamps", "document-order"),
        provider=ProviderFreedoms(documents=DocumentFreedoms(stamped=True, hits_newest_first=True)),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-documents-new-ids",
        "Offers the `documents` family: a new UUID at every update, emptied namespaces kept",
        ("document-ids", "kept-empty-namespaces"),
        provider=ProviderFreedoms(
            documents=DocumentFreedoms(new_ids=True, keep_empty_namespaces=True)
        ),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-declared-limits",
        "Declares, and refuses, namespaces with `.` or over 160 bytes, keys over 64 "
        "characters, contents over 4096, empty content and control characters",
        ("declared-constraints",),
        provider=ProviderFreedoms(constraints=PROVIDER_LIMITS),
        plugin=True,
        fuzz_examples=1,
    ),
    Configuration(
        "provider-refuses-empty-content",
        "Refuses empty content with Invalid, undeclared (the contract names the refusal)",
        ("refuse-empty-content",),
        provider=ProviderFreedoms(refuse_empty_content=True),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-scope-refused",
        "Refuses recall under any source scope with Invalid",
        ("scope-refused",),
        provider=ProviderFreedoms(scope="refuse"),
        fuzz_examples=2,
    ),
    Configuration(
        "provider-redacts-names",
        "Stores a namespace carrying a national id under the name with it redacted",
        ("redacted-names",),
        provider=ProviderFreedoms(redact_names=True),
        fuzz_examples=1,
    ),
    Configuration(
        "provider-word-ranking-no-scores",
        "Recall ranks by the share of query words held (ties by key), answering score=None",
        ("word-ranking", "recall-scores"),
        provider=ProviderFreedoms(ranking="words", scores="none"),
        fuzz_examples=15,
    ),
    Configuration(
        "provider-documents-async",
        "`async def` methods; the `documents` family with a new UUID at every update and "
        "recall_documents Unsupported; recall ranked by words; names redacted of a national id",
        ("async", "document-ids", "documents-recall-unsupported", "word-ranking", "redacted-names"),
        provider=ProviderFreedoms(
            documents=DocumentFreedoms(new_ids=True, recall=False),
            ranking="words",
            redact_names=True,
        ),
        asynchronous=True,
        fuzz_examples=8,
    ),
    Configuration(
        "provider-async",
        "`async def` methods",
        ("async",),
        provider=ProviderFreedoms(),
        asynchronous=True,
        fuzz_examples=1,
    ),
    Configuration(
        "provider-rate-limited",
        "Every 7th data call answers Unavailable (a rate limit) before touching anything; "
        "the retry succeeds. Export cursors are single-use, so a retry must not spend one",
        ("transient-unavailable", "single-use-cursors"),
        provider=ProviderFreedoms(
            unavailable_every=7, export_cursors=CursorStyle(format="uuid", single_use=True)
        ),
        plugin=True,
        fuzz_examples=2,
    ),
    Configuration(
        "provider-plain-options",
        "Takes the options `keyspace=main` (its id prefix), `author=me`, `sort_key=id` and "
        "`private_mode=on`: not credentials",
        ("plain-options", "entry-ids"),
        provider=ProviderFreedoms(ids="counter"),
        options={"keyspace": "main", "author": "me", "sort_key": "id", "private_mode": "on"},
        fuzz_examples=1,
    ),
    Configuration(
        "provider-credential-option",
        "Needs an `api_key` option, and never repeats it; health degraded; a malformed "
        "namespace refused on every operation",
        ("credential-option", "degraded-health", "refuse-malformed-reads"),
        provider=ProviderFreedoms(degraded=True, validate_namespaces=True),
        options={"api_key": "tm-live-5b0e2d7a91c34f68"},
        fuzz_examples=1,
    ),
    Configuration(
        "provider-everything-async",
        "UUID entry ids, newest first, offset timestamps, no scores, unattributed entries "
        "under a scope, export pages capped at 2 with empty and trailing empty pages and "
        "single-use token cursors, validated namespaces, kept empty namespaces, async",
        (
            "entry-ids",
            "list-order",
            "offset-timestamps",
            "recall-scores",
            "scope-returns-unattributed",
            "export-page-size",
            "export-empty-pages",
            "export-trailing-empty-page",
            "single-use-cursors",
            "refuse-malformed-reads",
            "kept-empty-namespaces",
            "async",
        ),
        provider=ProviderFreedoms(
            ids="uuid",
            order="newest",
            utc_offset_minutes=-180,
            scores="none",
            scope="unattributed",
            export_pages=PageShape(cap=2, empty_pages=True, empty_first=False, trailing_empty=True),
            export_cursors=CursorStyle(format="token", single_use=True),
            validate_namespaces=True,
            keep_empty_namespaces=True,
        ),
        asynchronous=True,
        fuzz_examples=2,
    ),
    Configuration(
        "provider-everything-sync",
        "Counter ids, shuffled order, negative scores, short export pages with base64 JSON cursors",
        ("entry-ids", "list-order", "recall-scores", "export-page-size"),
        provider=ProviderFreedoms(
            ids="counter",
            order="shuffled",
            scores="negative",
            export_pages=PageShape(short=True),
        ),
        fuzz_examples=8,
    ),
)

CONFIGURATIONS: Final[dict[str, Configuration]] = {
    c.name: c for c in (*ENGINE_CONFIGURATIONS, *PROVIDER_CONFIGURATIONS)
}
"""Every configuration of the matrix, by name."""


BUILT: dict[str, list[Any]] = {}
"""The drivers the plugin built, by configuration: a test running the plugin in-process
reads what they used."""


def freedom_driver(options: dict[str, str]) -> Driver:
    """The plugin's way in: `--driver=tests.freedom.matrix:freedom_driver --driver-option
    config=NAME`; the other options go to the driver."""
    name = options.get("config", "")
    chosen = CONFIGURATIONS.get(name)
    if chosen is None:
        raise DriverError(f"no freedom configuration `{name}` (known: {', '.join(CONFIGURATIONS)})")
    given = {k: v for k, v in options.items() if k != "config"}

    def factory() -> Any:
        made = chosen.build(given)
        BUILT.setdefault(name, []).append(made)
        return made

    if chosen.profile == "engine":
        return Driver(name=name, engine=factory, constraints=chosen.constraints)
    return Driver(name=name, provider=factory, constraints=chosen.constraints)
