"""Engine checks of fetch: every filter field selects in every declared mode, and an
undeclared mode is refused."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import (
    cleanup,
    exchange,
    fetch_all,
    ids,
    list_all,
    meta,
    modes,
    note,
    probe_workspace,
    require_a_mode,
    run_filter,
)
from conformance.engine import (
    Conversation,
    Document,
    FetchMode,
    FetchRequest,
    ItemKind,
    Learning,
    LearningKind,
    MetaFilter,
    SourceKind,
    SourceRef,
    ToolCallRef,
    TurnRange,
    Unsupported,
    learning,
)

Probe = tuple[str, Document | Conversation | Learning, MetaFilter]

FETCH_LIMIT = 50
"""Larger than the number of probes, so a conforming fetch answers in one page."""


def fetch_probes(ctx: CheckContext) -> list[Probe]:
    """Fifteen items in the probe workspace, each set apart by one field, with the filter
    that must select exactly it (B10 §7). Only the `source_id` probe has source kind
    `file` and only the `sources` probe `import`, so neither filter admits the other."""
    m, workspace = ctx.marker, probe_workspace(ctx)

    def doc(label: str, **fields: Any) -> Document:
        return note(ctx, label, workspace=workspace, **fields)

    def only(**fields: Any) -> MetaFilter:
        return run_filter(ctx, workspace, **fields)

    year = datetime(2001, 1, 1, tzinfo=UTC)
    return [
        ("folder", doc("folder", folder=f"/{m}/src/app"), only(folder=f"/{m}/src")),
        (
            "file_path",
            doc("file path", file_path=f"/{m}/docs/guide.md"),
            only(file_path=f"/{m}/docs"),
        ),
        ("language", doc("language", language=f"{m}-lang"), only(language=f"{m}-lang")),
        ("repo", doc("repo", repo=f"owner/{m}"), only(repo=f"owner/{m}")),
        ("commit", doc("commit", commit=f"{m}c0ffee"), only(commit=f"{m}c0ffee")),
        ("url", doc("url", url=f"https://{m}.test/a"), only(url=f"https://{m}.test/a")),
        (
            "thread_id",
            exchange(ctx, "thread", workspace=workspace, thread_id=f"{m}-t1"),
            only(thread_id=f"{m}-t1"),
        ),
        (
            "turns",
            exchange(ctx, "turns", workspace=workspace, turns=TurnRange(first=4, last=5)),
            only(turns=TurnRange(first=4, last=5)),
        ),
        ("agent_id", doc("agent", agent_id=f"{m}-agent"), only(agent_id=f"{m}-agent")),
        (
            "tool_call",
            doc("tool call", tool_call=ToolCallRef(name=f"{m}_tool")),
            only(tool_call=f"{m}_tool"),
        ),
        (
            "source_id",
            doc("source id", source=SourceRef(kind=SourceKind.FILE, id=f"{m}-src")),
            only(source_id=f"{m}-src"),
        ),
        (
            "sources",
            doc("sources", source=SourceRef(kind=SourceKind.IMPORT)),
            only(sources=[SourceKind.IMPORT]),
        ),
        ("tags_any", doc("tags", tags=[f"{m}-tag"]), only(tags_any=[f"{m}-none", f"{m}-tag"])),
        (
            "kinds",
            learning(f"{m} kinds learning", LearningKind.FACT, 0.5, meta(ctx, workspace)),
            only(kinds=[ItemKind.LEARNING]),
        ),
        (
            "observed_at",
            doc("observed", observed_at=year),
            only(observed_after=year.replace(year=2000), observed_before=year.replace(year=2002)),
        ),
    ]


@check(
    "engine.fetch_filters",
    per_mode=True,
    title="Every filter field selects exactly its item, in every declared mode",
    clause="contract-reference B5 (MetaFilter.matches), B6 (FetchRequest), B8 (fetch), B10 §7",
    storage=True,
)
def assert_fetch_filters(engine: Any, ctx: CheckContext) -> None:
    """For fifteen probes each set apart by one filter field (prefixes for folder and
    file path, the observation window, kinds, sources, tags...), fetch of the marker in
    every declared mode and the listing both return exactly that probe; each mode,
    filtered only by the probe workspace, returns every probe."""
    declared = require_a_mode(engine, ctx)
    workspace = probe_workspace(ctx)
    cleanup(engine, ctx, workspace)
    probes = fetch_probes(ctx)
    stored = {label: engine.store(item).id for label, item, _ in probes}
    ctx.require(
        len(set(stored.values())) == len(probes),
        "store(probes)",
        f"{len(probes)} distinct ids",
        stored,
    )
    for label, _, filter in probes:
        want = [stored[label]]
        listed = ids(list_all(engine, ctx, filter))
        ctx.require(
            listed == want,
            f"list({label} probe filter)",
            f"exactly the {label} probe {want}",
            listed,
        )
        for mode in declared:
            hits = ids(fetch_all(engine, ctx, ctx.marker, mode, filter, FETCH_LIMIT))
            ctx.require(
                hits == want,
                f"fetch(marker, {mode.value}, {label} probe filter)",
                f"exactly the {label} probe {want}",
                hits,
            )
    everything = sorted(stored.values())
    for mode in declared:
        hits = ids(
            fetch_all(engine, ctx, ctx.marker, mode, MetaFilter(workspace=workspace), FETCH_LIMIT)
        )
        ctx.require(
            sorted(hits) == everything,
            f"fetch(marker, {mode.value}, probe workspace)",
            f"all {len(everything)} probes, once each",
            hits,
        )


@check(
    "engine.unsupported_modes",
    title="A fetch mode the engine does not declare is refused as Unsupported",
    clause="contract-reference B8 (descriptor.ensure_mode, fetch), B10 §8",
)
def assert_unsupported_modes(engine: Any, ctx: CheckContext) -> None:
    """Every fetch mode missing from the descriptor's `fetch_modes` is refused with
    `Unsupported`, not served and not refused otherwise."""
    declared = modes(engine)
    for mode in FetchMode:
        if mode in declared:
            continue
        req = FetchRequest(query=ctx.marker, mode=mode, filter=run_filter(ctx), limit=5)
        ctx.refused(
            f"fetch(marker, {mode.value}, limit 5)",
            partial(engine.fetch, req),
            Unsupported,
            f"Unsupported (the engine does not declare {mode.value} fetch)",
        )
