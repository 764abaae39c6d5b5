"""Provider checks of recall: limit, namespace, the pinned `namespace: None`, source scope."""

from __future__ import annotations

from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.outcome import DriverRaised
from conformance.checks.provider_support import (
    CORE,
    FILTERED_ROWS,
    FILTERS,
    RECALL_OWNER,
    Row,
    entry_ref,
    keys_of,
    named_keys,
    nothing_or_invalid,
    ns,
    put,
    put_rows,
    refs,
    require_relied_on,
)
from conformance.checks.registry import check
from conformance.provider import (
    GLOBAL_NAMESPACE,
    Invalid,
    MemoryCategory,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)

# The A9 §11 fixture (A@late texts), then entries enough to pass the result caps of 10,
# 20, 50 and 100 that a store's search often defaults to.
NEEDLES = (
    "needle filed in the archive room",
    "needle left beside the mooring rope",
    "needle found under the zinc roof",
    *(f"needle number {i} stitched into the old sail" for i in range(3, 125)),
)
LIMITS = (0, 1, 2, 25, 110, 200)
"""Limits below the 125 matches (three of them below a cut at the limit plus 50 of the
decoys, the least of them 1), one above 100 and one above them all."""
DAILY = MemoryCategory.DAILY
OUTRANKED_LIMIT = 10
"""Recall's limit beneath the decoys: a cut at the limit plus 50 stays below them."""
DECOYS = 120
"""Entries of a sibling namespace whose content is the query itself (the best match):
a namespace applied after a top-k cut (at 100, or at the limit plus 50) loses the asked
namespace's matches below them."""


@check(
    "provider.recall_respects_limit_and_namespace",
    title="Recall answers min(limit, matches) hits, all from the asked namespace; "
    "no match answers []",
    clause=(
        "provider-families.md#recall, provider-families.md#namespace-isolation, "
        "kit-choices.md#edges-of-a-domain"
    ),
    storage=True,
)
def assert_recall_respects_limit_and_namespace(provider: Any, ctx: CheckContext) -> None:
    """125 needles in recall-a, and 120 entries of recall-b whose content is the query
    itself: recall in recall-a limited to 0, 1, 2, 25, 110 and 200 answers 0 (a limit of 0
    is valid input: no hit, not a refusal), 1, 2, 25, 110 and all 125 distinct entries,
    every one from recall-a; a query matching nothing answers [].

    Catches a recall that stops at its store's default page (10, 50, 100 hits), and one
    that ranks every namespace, cuts the ranking at 100 (or at the limit plus 50) and
    only then keeps the asked namespace, and one that cuts its ranking at `[:limit]`.
    """
    a, b = ns(ctx, "recall-a"), ns(ctx, "recall-b")
    rows = [Row(a, f"k{i:03d}", text) for i, text in enumerate(NEEDLES)]
    decoys = [Row(b, f"d{i:03d}", "needle") for i in range(DECOYS)]
    put_rows(provider, ctx, [*rows, *decoys], in_any_order=True)
    matching = [entry_ref(ctx, a, r.key) for r in rows]
    in_a = set(matching)
    for limit in LIMITS:
        hits = provider.recall("needle", limit, OwnedRecallOpts(namespace=a), None)
        call = f"recall('needle', {limit}, namespace={a!r})"
        got = refs(ctx, hits)
        wanted = min(limit, len(rows))
        ctx.require(
            len(hits) == wanted,
            call,
            f"exactly {wanted} hits ({len(rows)} entries match; the {DECOYS} of recall-b "
            "matching better are in another namespace)",
            f"{len(hits)} hits",
        )
        if wanted == len(rows):
            ctx.require_ids(call, got, matching, "every matching entry once")
        else:
            distinct = [r for r in dict.fromkeys(got) if r in in_a]
            ctx.require_ids(call, got, distinct, f"distinct entries of {a!r}")
    nothing_or_invalid(
        ctx,
        f"recall('needle', -1, namespace={a!r})",
        lambda: provider.recall("needle", -1, OwnedRecallOpts(namespace=a), None),
    )
    absent = f"absent{ctx.marker}"
    hits = provider.recall(absent, 10, OwnedRecallOpts(namespace=a), None)
    call = f"recall({absent!r}, 10, namespace={a!r})"
    ctx.require(hits == [], call, "[] (no entry holds the query)", ctx.named(refs(ctx, hits)))


@check(
    "provider.recall_filters_narrow",
    title="Recall's category and session options select exactly their entries, however "
    "many better matches they exclude",
    clause="provider-families.md#recall-filters",
    storage=True,
)
def assert_recall_filters_narrow(provider: Any, ctx: CheckContext) -> None:
    """Recall with `category`, `session_id`, or both, answers exactly the matching entries
    those options select; every option value has decoys differing only in case (`Alpha`,
    `SESS-1`) or as a string-prefix sibling (`alphabet`, `alph`, `sess-10`, `sess-`).
    With `cross_session` as well, every entry of the session is still a hit.

    Then, in a namespace holding three core entries of one session beneath 120 daily
    entries of another session whose content is the query itself, recall with the
    category, and with the session, answers exactly the three: the options are applied
    inside the search, not to a top-k cut of it (at 100, or at the limit plus 50).
    """
    namespace = ns(ctx, "recall-filters")
    rows = [
        Row(namespace, key, f"needle row {key}", category, session)
        for key, category, session in FILTERED_ROWS
    ]
    put_rows(provider, ctx, rows)
    for category, session in FILTERS:
        opts = OwnedRecallOpts(namespace=namespace, category=category, session_id=session)
        hits = provider.recall("needle", 20, opts, None)
        call = (
            f"recall('needle', 20, namespace={namespace!r}, "
            f"category={category!r}, session_id={session!r})"
        )
        want = named_keys(ctx, (r.key for r in rows if r.selected_by(category, session)))
        ctx.require_ids(call, keys_of(ctx, hits), want, "exactly the entries the options select")

    # `cross_session` may add conversational hits of other sessions; it never narrows.
    opts = OwnedRecallOpts(namespace=namespace, session_id="sess-1", cross_session=True)
    hits = provider.recall("needle", 20, opts, None)
    call = f"recall('needle', 20, namespace={namespace!r}, session_id='sess-1', cross_session=True)"
    session_only = named_keys(ctx, (r.key for r in rows if r.selected_by(None, "sess-1")))
    missing = sorted(set(session_only) - set(keys_of(ctx, hits)))
    ctx.require(
        not missing,
        call,
        "every entry of session 'sess-1' (cross_session adds hits, never removes them)",
        f"missing {show(missing)}",
    )
    strays = sorted({hit.namespace for hit in hits} - {namespace})
    ctx.require(not strays, call, f"hits of {namespace!r} only", f"hits of {show(strays)}")

    ranked = ns(ctx, "recall-outranked")
    kept = [Row(ranked, f"kept-{i}", f"needle kept in row {i}", CORE, "s-kept") for i in (1, 2, 3)]
    above = [Row(ranked, f"d{i:03d}", "needle", DAILY, "s-other") for i in range(DECOYS)]
    put_rows(provider, ctx, [*kept, *above], in_any_order=True)
    want = named_keys(ctx, (r.key for r in kept))
    for category, session in ((CORE, None), (None, "s-kept")):
        opts = OwnedRecallOpts(namespace=ranked, category=category, session_id=session)
        hits = provider.recall("needle", OUTRANKED_LIMIT, opts, None)
        call = (
            f"recall('needle', {OUTRANKED_LIMIT}, namespace={ranked!r}, "
            f"category={category!r}, session_id={session!r})"
        )
        ctx.require_ids(
            call,
            keys_of(ctx, hits),
            want,
            f"exactly the entries the options select, though {DECOYS} entries they exclude "
            "match the query better (options applied to a top-k cut lose them)",
        )


@check(
    "provider.namespace_none_semantics",
    title="list(None) sees every namespace; recall with no namespace sees `global` only",
    clause=(
        "kit-choices.md#namespace-none, provider-families.md#core-list, provider-families.md#recall"
    ),
    storage=True,
    # `global` is every check's: beside others, a recall capped at 10 may fill with theirs.
    alone=True,
)
def assert_namespace_none_semantics(provider: Any, ctx: CheckContext) -> None:
    """Both halves of the pinned `namespace: None` contract, on entries only this check wrote.

    The recall half must write to `global` itself; it does so under a key carrying
    the run's marker, and forgets it when the check ends.
    """
    a, b = ns(ctx, "none-a"), ns(ctx, "none-b")
    marker = ctx.marker
    put(provider, ctx, a, "in-a", f"{marker} lives in a")
    put(provider, ctx, b, "in-b", f"{marker} lives in b")
    global_key = f"{marker}-global"
    put(provider, ctx, GLOBAL_NAMESPACE, global_key, f"{marker} lives in global")

    want = [entry_ref(ctx, a, "in-a"), entry_ref(ctx, b, "in-b")]
    want.append(entry_ref(ctx, GLOBAL_NAMESPACE, global_key))
    listed = provider.list(None, None, None)
    got = [r for r in refs(ctx, listed) if r in want]
    ctx.require_ids(
        "list(None, None, None)", got, want, "every namespace's entries (ours among them)"
    )

    hits = provider.recall(marker, 10, OwnedRecallOpts(), None)
    ours = refs(ctx, [h for h in hits if marker in h.content])
    ctx.require_ids(
        f"recall({marker!r}, 10, OwnedRecallOpts())",
        ours,
        want[-1:],
        f"only the entry in {GLOBAL_NAMESPACE!r} (recall without a namespace searches global)",
    )


@check(
    "provider.recall_respects_source_scope",
    title="An empty source scope denies source-attributed entries (or is refused as Invalid)",
    clause=("provider-families.md#source-scope, kit-choices.md#empty-scope-unattributed"),
    storage=True,
)
def assert_recall_respects_source_scope(provider: Any, ctx: CheckContext) -> None:
    """Recall finds an external_sync (source-attributed) entry unscoped, and with
    `SourceScope([])` answers [] or `Invalid`. Entries without source attribution are
    not asked about: either answer is conformant for them."""
    namespace = ns(ctx, "scope")
    put(provider, ctx, namespace, "scoped", "source scoped needle", taint=MemoryTaint.EXTERNAL_SYNC)
    unscoped = provider.recall("needle", 8, OwnedRecallOpts(namespace=namespace), None)
    require_relied_on(
        ctx,
        RECALL_OWNER,
        f"recall('needle', 8, namespace={namespace!r}, scope=None)",
        keys_of(ctx, unscoped),
        named_keys(ctx, ["scoped"]),
        "the stored entry",
    )
    call = f"recall('needle', 8, namespace={namespace!r}, scope=SourceScope([]))"
    try:
        with ctx.answer_or_refusal():
            denied = provider.recall(
                "needle", 8, OwnedRecallOpts(namespace=namespace), SourceScope(allow=[])
            )
    except DriverRaised as raised:
        error = raised.error
        ctx.require(isinstance(error, Invalid), call, "[] or Invalid", f"{error!r}")
        return
    ctx.require(
        denied == [],
        call,
        "[] (an empty allow list denies source-attributed content)",
        ctx.named(keys_of(ctx, denied)),
    )


AWKWARD_QUERIES = (
    'say "hello" to the world',
    "it's half past o'clock",
    "fifty% off_the sale",
    "c:\\temp\\report name",
    "wild* cards? here",
    "(alpha OR beta) AND NOT gamma",
    "NEAR(one two) three",
    "title:value pairs",
    "-minus +plus signs",
    "x'; DROP TABLE memory; --",
    "{braces} [brackets] ^caret $dollar",
    "café naïve façade",
)
"""Queries holding the syntax of search engines and SQL (quotes, operators, wildcards,
column filters, an injection), each also the content of one entry."""


@check(
    "provider.recall_takes_any_query",
    title="Recall takes a query holding search or SQL syntax as text, and finds the entry "
    "that holds it",
    clause="provider-families.md#recall",
    storage=True,
)
def assert_recall_takes_any_query(provider: Any, ctx: CheckContext) -> None:
    """Twelve entries whose content is a query full of search-engine and SQL syntax
    (`"`, `'`, `%`, `_`, `\\`, `*`, `?`, `OR`/`AND`/`NOT`, `NEAR(...)`, `col:value`,
    `-`/`+`, an injection, accents), beside a decoy: recall of each query answers
    without error, and the entry holding it exactly is a hit (a store passing the
    query to its search syntax unescaped fails or finds nothing)."""
    namespace = ns(ctx, "recall-syntax")
    # A query whose text the declared constraints leave out is neither stored nor asked.
    admitted = [q for q in AWKWARD_QUERIES if ctx.settings.constraints.admits_content(q)]
    rows = [Row(namespace, f"q{n:02d}", query) for n, query in enumerate(admitted)]
    put_rows(provider, ctx, [*rows, Row(namespace, "decoy", "nothing of the sort")])
    for row in rows:
        call = f"recall({row.content!r}, 10, namespace={namespace!r})"
        try:
            hits = provider.recall(row.content, 10, OwnedRecallOpts(namespace=namespace), None)
        except DriverRaised as raised:
            ctx.fail(
                call,
                "hits: a query is text, whatever syntax it holds",
                f"{type(raised.error).__name__}: {raised.error}",
            )
        ctx.require(
            row.key in keys_of(ctx, hits),
            call,
            f"{row.key}, whose content is the query itself, among the hits",
            show(keys_of(ctx, hits)),
        )
