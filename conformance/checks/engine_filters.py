"""Engine checks of filters: every field of `MetaFilter` selects exactly its items, and
excludes the decoy beside them (a value sharing a string prefix, a value, tag or folder
differing only in case, a path sharing a prefix but not its `/` boundary, a path
matching only if `_` or `%` were a wildcard, a time one microsecond outside a bound, or
one nanosecond outside a bound that falls between microseconds), and takes values
holding a quote, when listing and in every declared fetch mode."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.engine_outranked import outranked_clause, store_outranked
from conformance.checks.engine_support import (
    cleanup,
    exchange,
    fact,
    fetch_all,
    ids,
    list_all,
    note,
    probe_workspace,
    require_a_mode,
    run_filter,
)
from conformance.checks.engine_writes import (
    BATCH_OWNER,
    require_listed,
    require_missed_held,
    store_each,
)
from conformance.checks.evidence import show
from conformance.checks.registry import check
from conformance.engine import (
    MAX_BUCKETS,
    ExploreRequest,
    Facet,
    ItemKind,
    MetaFilter,
    RecallRequest,
    SourceKind,
    SourceRef,
    StoreItem,
    Timestamp,
    ToolCallRef,
    TurnRange,
)
from conformance.relatives import relatives

PROBE_PAGE = 10
"""Page size for listing every probe (a precondition)."""

FETCH_LIMIT = 100
"""Larger than the number of probes, so a conforming fetch answers in one page."""

OUTRANKED_LIMIT = 10
"""The page size for the outranked items: one page holds them (paging is
`engine.cursor_progress`'s), and a cut at the limit plus 50 stays below the 130 items
above them."""

TICK = timedelta(microseconds=1)

AFTER = datetime(2024, 2, 29, 23, 59, 59, 500_000, tzinfo=UTC)
"""The window's inclusive lower bound."""

BEFORE = AFTER + timedelta(days=1)
"""The window's exclusive upper bound."""

FINE_AFTER = Timestamp(Timestamp.from_datetime(datetime(2025, 3, 1, tzinfo=UTC)).nanos + 500)
"""The inclusive lower bound of a window whose bounds fall between microseconds: a store
comparing times it keeps to the microsecond (a `datetime`, a SQL timestamp) cannot tell
a probe one nanosecond either side of them."""

FINE_BEFORE = Timestamp(FINE_AFTER.nanos + 3_600_000_000_200)
"""Its exclusive upper bound, an hour and 200 ns later."""

FINE = ("at fine after-1ns", "at fine after", "at fine before-1ns", "at fine before")
"""The probes about the fine window, by label."""


@dataclass(frozen=True)
class FilterCase:
    """A filter, and the labels of the probes it must select (every other probe is out)."""

    label: str
    filter: MetaFilter
    want: frozenset[str]


def probe_items(ctx: CheckContext) -> dict[str, StoreItem]:
    """The probes, by label, in the probe workspace: each filter field's item and its
    decoys (B10 §7, sharpened). Only the window probes carry an observation time."""
    m, workspace = ctx.marker, probe_workspace(ctx)

    def doc(label: str, **fields: Any) -> StoreItem:
        return note(ctx, label, workspace=workspace, **fields)

    def chat(label: str, **fields: Any) -> StoreItem:
        return exchange(ctx, label, workspace=workspace, **fields)

    window = {
        "at after-1µs": AFTER - TICK,
        "at after": AFTER,
        "at after+1µs": AFTER + TICK,
        "at before-1µs": BEFORE - TICK,
        "at before": BEFORE,
        "at before+1µs": BEFORE + TICK,
        "at fine after-1ns": Timestamp(FINE_AFTER.nanos - 1),
        "at fine after": FINE_AFTER,
        "at fine before-1ns": Timestamp(FINE_BEFORE.nanos - 1),
        "at fine before": FINE_BEFORE,
    }
    return {
        "folder /src/app": doc("folder sub", folder=f"/{m}/src/app"),
        "folder /src": doc("folder same", folder=f"/{m}/src"),
        "folder /srcx": doc("folder sibling", folder=f"/{m}/srcx"),
        "folder parent": doc("folder parent", folder=f"/{m}"),
        "file /docs/guide.md": doc("file under", file_path=f"/{m}/docs/guide.md"),
        "file /docs.md": doc("file sibling", file_path=f"/{m}/docs.md"),
        "file /docsx/guide.md": doc("file beside", file_path=f"/{m}/docsx/guide.md"),
        # SQL and LIKE metacharacters: a filter spliced into a query string unescaped
        # breaks on the quote, or lets `_` and `%` match any character.
        "folder /snake_case": doc("folder snake", folder=f"/{m}/snake_case/a"),
        "folder /snakeXcase": doc("folder snake decoy", folder=f"/{m}/snakeXcase/a"),
        "folder /100%": doc("folder percent", folder=f"/{m}/100%/a"),
        "folder /100 percent": doc("folder percent decoy", folder=f"/{m}/100 percent/a"),
        "language quoted": doc("language quoted", language=f'{m}-it\'s "q"'),
        "tag quoted": doc("tag quoted", tags=[f"{m}-o'tag"]),
        # One tag holding a separator: a store keeping tags joined by `,` or `|` (metadata
        # that cannot hold a list) splits it in two.
        "tag comma": doc("tag comma", tags=[f"{m}-c1,{m}-c2"]),
        "tag pipe": doc("tag pipe", tags=[f"{m}-c1|{m}-c2"]),
        "tag c1": doc("tag c1", tags=[f"{m}-c1"]),
        "language": doc("language", language=f"{m}-lang"),
        "language decoy": doc("language decoy", language=f"{m}-lang-x"),
        # Twins differing only in case: a case-insensitive collation or `ILIKE`, or a
        # keyword field with a lowercase normalizer, admits them.
        "language case twin": doc("language case twin", language=f"{m}-LANG"),
        "folder case twin": doc("folder case twin", folder=f"/{m}/SRC/app"),
        "tag case twin": doc("tag case twin", tags=[f"{m}-T3"]),
        "repo": doc("repo", repo=f"owner/{m}"),
        "repo decoy": doc("repo decoy", repo=f"owner/{m}-fork"),
        "commit": doc("commit", commit=f"{m}c0ffee"),
        "commit decoy": doc("commit decoy", commit=f"{m}c0ffee1"),
        "url": doc("url", url=f"https://{m}.test/a"),
        "url decoy": doc("url decoy", url=f"https://{m}.test/a/b"),
        "thread": chat("thread", thread_id=f"{m}-t1"),
        "thread decoy": chat("thread decoy", thread_id=f"{m}-t10"),
        "turns": chat("turns", turns=TurnRange(first=4, last=5)),
        "turns decoy": chat("turns decoy", turns=TurnRange(first=4, last=6)),
        "agent": doc("agent", agent_id=f"{m}-agent"),
        "agent decoy": doc("agent decoy", agent_id=f"{m}-agent-2"),
        "tool": doc("tool", tool_call=ToolCallRef(name=f"{m}_tool")),
        "tool decoy": doc("tool decoy", tool_call=ToolCallRef(name=f"{m}_tool2", id=f"{m}_tool")),
        "source id": doc("source id", source=SourceRef(kind=SourceKind.FILE, id=f"{m}-src")),
        "source id decoy": doc(
            "source id decoy", source=SourceRef(kind=SourceKind.FILE, id=f"{m}-src2")
        ),
        "source import": doc("import", source=SourceRef(kind=SourceKind.IMPORT)),
        "source folder": doc("folder source", source=SourceRef(kind=SourceKind.FOLDER)),
        "tag 1": doc("tag one", tags=[f"{m}-t1"]),
        "tag 3": doc("tag three", tags=[f"{m}-t3"]),
        "tags x,2": doc("tag two", tags=[f"{m}-x", f"{m}-t2"]),
        "tag decoy": doc("tag decoy", tags=[f"{m}-t1x", f"{m}-t"]),
        "learning": fact(ctx, "kinds learning", 0.5, workspace=workspace),
        # Labels name the bound in messages; the texts stay ASCII.
        **{
            label: doc(f"window {i}", observed_at=at)
            for i, (label, at) in enumerate(window.items())
        },
        **_relative_probes(ctx, doc),
    }


def relative_bases(ctx: CheckContext) -> dict[str, str]:
    """The probe values whose relatives (`conformance.relatives`) are decoys too."""
    m = ctx.marker
    return {"language": f"{m}-lang", "tag": f"{m}-t1", "folder": f"/{m}/src"}


DECOY_RELATIONS = (
    "prefix",
    "extension",
    "case-twin",
    "nfd",
    "compatibility",
    "separator-twin",
    "leading-space",
    "trailing-newline",
    "zero-width",
)
"""The relatives made decoys: one of each way a store confuses values (the upper-cased
and NFC twins, and the path extension, add no way of their own here)."""


def _relative_probes(ctx: CheckContext, doc: Any) -> dict[str, StoreItem]:
    """A probe for every relative of the values of `relative_bases`: a prefix, an
    extension, the case twin, the other Unicode normal form and the NFKC twin, a
    separator swapped, whitespace around it, each the declared constraints admit. Which
    filters admit them is the contract's matching to say (`MetaFilter.matches`): most
    admit none."""
    probes: dict[str, StoreItem] = {}
    for field, base in relative_bases(ctx).items():
        for how, value in relatives(base).items():
            if how not in DECOY_RELATIONS:
                continue
            label = f"{field} {how}"
            if field == "language":
                probe = doc(label, language=value)
            elif field == "tag":
                probe = doc(label, tags=[value])
            else:
                probe = doc(label, folder=value)
            # A declaration (ASCII only, say) narrows the decoys; the others still stand.
            if ctx.settings.constraints.admits_item(probe):
                probes[label] = probe
    return probes


def filter_cases(ctx: CheckContext, probes: dict[str, StoreItem]) -> list[FilterCase]:
    """Each filter with the probes it must select, all inside the probe workspace."""
    m, workspace = ctx.marker, probe_workspace(ctx)

    def case(label: str, *want: str, **fields: Any) -> FilterCase:
        return FilterCase(label, run_filter(ctx, workspace, **fields), frozenset(want))

    unlearned = [label for label, item in probes.items() if item.kind is not ItemKind.LEARNING]
    decoys = {f"{field} {how}" for field in relative_bases(ctx) for how in DECOY_RELATIONS}
    return _with_relatives(
        probes,
        decoys,
        [
            *(
                case(f"language {how}", *_admitted(probes, language=value), language=value)
                for how, value in relatives(relative_bases(ctx)["language"]).items()
                if how in ("leading-space", "nfd", "case-twin")
            ),
            case("folder /src", "folder /src/app", "folder /src", folder=f"/{m}/src"),
            case("folder /src/", "folder /src/app", "folder /src", folder=f"/{m}/src/"),
            case("file_path /docs", "file /docs/guide.md", file_path=f"/{m}/docs"),
            case("folder with _", "folder /snake_case", folder=f"/{m}/snake_case"),
            case("folder with %", "folder /100%", folder=f"/{m}/100%"),
            case("language with quotes", "language quoted", language=f'{m}-it\'s "q"'),
            case("tags_any with a quote", "tag quoted", tags_any=[f"{m}-o'tag"]),
            case("tags_any [c1]", "tag c1", tags_any=[f"{m}-c1"]),
            case("tags_any with a comma", "tag comma", tags_any=[f"{m}-c1,{m}-c2"]),
            case("tags_any with a pipe", "tag pipe", tags_any=[f"{m}-c1|{m}-c2"]),
            case("language", "language", language=f"{m}-lang"),
            case("repo", "repo", repo=f"owner/{m}"),
            case("commit", "commit", commit=f"{m}c0ffee"),
            case("url", "url", url=f"https://{m}.test/a"),
            case("thread_id", "thread", thread_id=f"{m}-t1"),
            case("turns", "turns", turns=TurnRange(first=4, last=5)),
            case("agent_id", "agent", agent_id=f"{m}-agent"),
            case("tool_call", "tool", tool_call=f"{m}_tool"),
            case("source_id", "source id", source_id=f"{m}-src"),
            case("sources [import]", "source import", sources=[SourceKind.IMPORT]),
            case(
                "sources [folder, import]",
                "source import",
                "source folder",
                sources=[SourceKind.FOLDER, SourceKind.IMPORT],
            ),
            case(
                "tags_any [t1, t2, t3]",
                "tag 1",
                "tags x,2",
                "tag 3",
                tags_any=[f"{m}-t1", f"{m}-t2", f"{m}-t3"],
            ),
            case("kinds [learning]", "learning", kinds=[ItemKind.LEARNING]),
            case(
                "kinds [document, conversation]",
                *unlearned,
                kinds=[ItemKind.DOCUMENT, ItemKind.CONVERSATION],
            ),
            case(
                "window [after, before)",
                "at after",
                "at after+1µs",
                "at before-1µs",
                observed_after=AFTER,
                observed_before=BEFORE,
            ),
            case(
                "observed_after",
                "at after",
                "at after+1µs",
                "at before-1µs",
                "at before",
                "at before+1µs",
                *FINE,
                observed_after=AFTER,
            ),
            case(
                "window [fine after, fine before)",
                "at fine after",
                "at fine before-1ns",
                observed_after=FINE_AFTER,
                observed_before=FINE_BEFORE,
            ),
            case(
                "observed_after fine",
                "at fine after",
                "at fine before-1ns",
                "at fine before",
                observed_after=FINE_AFTER,
            ),
            case(
                "observed_before fine",
                *(label for label in probes if label.startswith("at ") and label not in FINE),
                "at fine after-1ns",
                "at fine after",
                "at fine before-1ns",
                observed_before=FINE_BEFORE,
            ),
            case(
                "observed_before",
                "at after-1µs",
                "at after",
                "at after+1µs",
                "at before-1µs",
                observed_before=BEFORE,
            ),
        ],
    )


def _admitted(probes: dict[str, StoreItem], **fields: Any) -> list[str]:
    """The labels of the probes a filter of `fields` admits, by the contract's matching."""
    wanted = MetaFilter.model_validate(fields)
    return [label for label, item in probes.items() if wanted.matches(item.kind, item.meta)]


def _with_relatives(
    probes: dict[str, StoreItem], decoys: set[str], cases: list[FilterCase]
) -> list[FilterCase]:
    """Each case with the relative decoys its filter admits added to what it must select
    (by the contract's matching; mostly none)."""
    names = decoys & set(probes)
    return [
        FilterCase(
            c.label,
            c.filter,
            c.want
            | {
                label
                for label in names
                if label not in c.want and c.filter.matches(probes[label].kind, probes[label].meta)
            },
        )
        for c in cases
    ]


def store_probes(engine: Any, ctx: CheckContext) -> tuple[dict[str, StoreItem], list[FilterCase]]:
    """Store the probes; the items by id, and the filter cases over them."""
    cleanup(engine, ctx, probe_workspace(ctx))
    probes = probe_items(ctx)
    return store_each(engine, ctx, probes), filter_cases(ctx, probes)


def listed_probes(
    engine: Any, ctx: CheckContext, page: int = PROBE_PAGE
) -> tuple[dict[str, StoreItem], list[FilterCase], MetaFilter]:
    """Store the probes and list them all, `page` at a time (a precondition); the items
    by id, the filter cases over them, and the filter of the whole probe workspace."""
    stored, cases = store_probes(engine, ctx)
    everything = MetaFilter(workspace=probe_workspace(ctx))
    require_listed(engine, ctx, everything, stored, f"the {len(stored)} probes", page)
    return stored, cases, everything


def wanted(ctx: CheckContext, stored: dict[str, StoreItem], case: FilterCase) -> list[str]:
    return [item_id for item_id in stored if ctx.labels[item_id] in case.want]


@check(
    "engine.list_filters",
    title="Every filter field lists exactly its items, and none of their decoys",
    clause=(
        "engine-operations.md#list, filters-and-reach.md#meta-filter, "
        "filters-and-reach.md#filter-exact-fields, "
        "filters-and-reach.md#filter-path-prefix, "
        "filters-and-reach.md#filter-lists, filters-and-reach.md#filter-window"
    ),
    storage=True,
)
def assert_list_filters(engine: Any, ctx: CheckContext) -> None:
    """Listing with each filter field selects exactly its probes among 54: folder and
    file_path as prefixes on a `/` boundary (`/a/b` admits `/a/b` and `/a/b/c`, not
    `/a/bc`; a trailing `/` changes nothing), `_` and `%` in a folder matching only
    themselves, a quote in a value and a tag, a tag holding a comma and one holding a
    `|` (each one tag, not two), exact fields not admitting a value they are a prefix
    of, no value, tag or folder admitting its twin differing only in case, several tags,
    kinds and sources, and the observation window inclusive at `observed_after`,
    exclusive at `observed_before`, to the nanosecond (bounds between microseconds)."""
    stored, cases, _ = listed_probes(engine, ctx)
    for case in cases:
        got = ids(list_all(engine, ctx, case.filter))
        want = wanted(ctx, stored, case)
        ctx.require_ids(f"list({case.label} filter)", got, want, "exactly the probes it admits")


@check(
    "engine.fetch_filters",
    per_mode=True,
    title="Every filter field fetches exactly its items, and none of their decoys, in every "
    "declared mode, however many better-ranked items it excludes",
    clause=(
        "engine-operations.md#fetch, filters-and-reach.md#meta-filter, "
        "filters-and-reach.md#filter-exact-fields, "
        "filters-and-reach.md#filter-path-prefix, "
        "filters-and-reach.md#filter-lists, filters-and-reach.md#filter-window"
    ),
    storage=True,
)
def assert_fetch_filters(engine: Any, ctx: CheckContext) -> None:
    """The probes of `engine.list_filters` (every text holding the marker), fetched with
    the marker in every declared mode: the probe workspace answers only probes, each
    once, and each filter exactly the hits it admits. Which probes are hits in a mode is
    the engine's (a similarity floor may leave a long one out), so a filter is held to
    the probes the workspace fetch answered; one it admits beyond them (a threshold
    relative to the best hit) may come too. Then three items a tag filter admits
    beneath 130 it excludes, each holding the whole query: fetched with a limit of 10,
    the filter answers exactly the three in every mode (the filter is applied inside
    the ranking, not to a top-k cut of it); so do a folder filter and a subtree reach
    that admit the three and exclude the 130, which an adapter is likelier to apply in
    its own code."""
    declared = require_a_mode(engine, ctx)
    stored, cases = store_probes(engine, ctx)
    everything = MetaFilter(workspace=probe_workspace(ctx))
    for mode in declared:
        got = ids(fetch_all(engine, ctx, ctx.marker, mode, everything, FETCH_LIMIT))
        call = f"fetch(marker, {mode.value}, probe workspace)"
        strays = [item_id for item_id in got if item_id not in stored]
        ctx.require(not strays, call, "only probes", f"{len(strays)} more: {ctx.named(strays)}")
        ctx.require_ids(call, got, list(dict.fromkeys(got)), "each probe at most once")
        # A probe held but not fetched may be under the mode's threshold; one not held
        # is a store's fault, reported here.
        require_missed_held(engine, ctx, stored, got)
        hits = set(got)
        for case in cases:
            answered = ids(fetch_all(engine, ctx, ctx.marker, mode, case.filter, FETCH_LIMIT))
            admitted = set(wanted(ctx, stored, case))
            beyond = [i for i in dict.fromkeys(answered) if i in admitted and i not in hits]
            ctx.require_ids(
                f"fetch(marker, {mode.value}, {case.label} filter)",
                answered,
                [*(i for i in stored if i in admitted and i in hits), *beyond],
                "exactly the probes it admits that the probe workspace fetched (each holds "
                "the query), each once",
            )
    outranked = store_outranked(engine, ctx)
    want = outranked_clause(f"exactly the {len(outranked.kept)} items it admits, each once")
    for mode in declared:
        for label, filter in outranked.filters.items():
            call = f"fetch(query, {mode.value}, {label}, limit {OUTRANKED_LIMIT})"
            found = fetch_all(engine, ctx, outranked.query, mode, filter, OUTRANKED_LIMIT)
            got = ids(found)
            require_missed_held(engine, ctx, outranked.kept, got, writer=BATCH_OWNER)
            ctx.require_ids(call, got, list(outranked.kept), want)


@check(
    "engine.explore_filters",
    title="Every filter field counts exactly its items in explore, and none of their decoys",
    clause=(
        "engine-operations.md#explore, filters-and-reach.md#meta-filter, "
        "filters-and-reach.md#filter-exact-fields, "
        "filters-and-reach.md#filter-path-prefix, "
        "filters-and-reach.md#filter-lists, filters-and-reach.md#filter-window"
    ),
    storage=True,
)
def assert_explore_filters(engine: Any, ctx: CheckContext) -> None:
    """Exploring the probes of `engine.list_filters` by kind, with the probe workspace
    and then with each filter, counts exactly the probes that filter admits, kind by
    kind: an aggregation whose own predicate admits a decoy (a prefix sibling, `_` in a
    path, a time a nanosecond outside a bound) counts one too many, one that drops a
    probe one too few."""
    stored, cases, everything = listed_probes(engine, ctx)
    whole = FilterCase("probe workspace", everything, frozenset(ctx.labels[i] for i in stored))
    for case in (whole, *cases):
        want = Counter(stored[item_id].kind.value for item_id in wanted(ctx, stored, case))
        req = ExploreRequest(facet=Facet.KIND, filter=case.filter, limit=MAX_BUCKETS)
        page = engine.explore(req)
        got = {bucket.value: bucket.count for bucket in page.buckets if bucket.count}
        ctx.require(
            got == dict(want),
            f"explore(kind, {case.label} filter)",
            f"the kinds of exactly the probes it admits, {show(dict(sorted(want.items())))}",
            show(dict(sorted(got.items()))),
        )


@check(
    "engine.recall_filters",
    title="Every filter field's recall cites its items, and none of their decoys",
    clause=(
        "engine-operations.md#recall, filters-and-reach.md#meta-filter, "
        "filters-and-reach.md#filter-exact-fields, "
        "filters-and-reach.md#filter-path-prefix, "
        "filters-and-reach.md#filter-lists, filters-and-reach.md#filter-window"
    ),
    storage=True,
)
def assert_recall_filters(engine: Any, ctx: CheckContext) -> None:
    """Recall of the marker (held by every probe of `engine.list_filters`) with each
    filter cites at least one probe when the filter admits any, and only probes it
    admits: a recall whose own query gets a field wrong cites a decoy, or nothing. How
    many of the admitted probes it cites is the engine's business."""
    stored, cases, _ = listed_probes(engine, ctx)
    for case in cases:
        admitted = set(wanted(ctx, stored, case))
        req = RecallRequest(question=ctx.marker, filter=case.filter, limit=FETCH_LIMIT)
        cited = [citation.id for citation in engine.recall(req).citations]
        strays = [item_id for item_id in cited if item_id not in admitted]
        least = "at least one citation, " if admitted else ""
        ctx.require(
            not strays and (bool(cited) or not admitted),
            f"recall(marker, limit {FETCH_LIMIT}, {case.label} filter)",
            f"{least}only probes it admits ({ctx.named(sorted(admitted)) or 'none'})",
            f"citations {ctx.named(cited)}" if cited else "no citations",
        )
