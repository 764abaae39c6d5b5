"""The engine profile's differential: every operation of `MemoryEngine` as one step.

``EngineDifferential`` stores, replays, lists, fetches, recalls, gets, explores and
forgets on the engine under test and on an oracle (``ReferenceEngine``, or
``NullEngine`` for an engine that retains nothing) and compares only what the
contract pins (contract-reference B2, B6-B8; decisions §4.2):

- ids are opaque: the driver's id for an item is mapped to the oracle's
  (the fingerprint) when first stored, and a replay must answer that same id;
- replay flags and forget counts must equal the oracle's;
- listing order is free, but following cursors must visit every admitted item
  exactly once; every listed, fetched or got hit must carry the item's kind, text,
  meta and confidence;
- fetch scores are the engine's own: every hit must be an item the filter admits
  (no fetch set is required, since admission is pinned only by the reference's
  own scoring); an undeclared mode must be ``Unsupported``;
- ``get`` answers exactly the oracle's items in the order asked, each once, however
  often it was asked for; ``explore`` answers the oracle's buckets in order (count
  descending, then value), cut at the limit, with its totals;
- recall citations resolve, by kind, to admitted items;
- malformed items and requests are refused with ``InvalidRequest`` and change nothing.

Items are named by handles (``h`` and 8 hex digits of the item's fingerprint before
the workspace is set), stable when a shrinker deletes other steps. Every item carries
``meta.workspace = <run root>`` and every read and forget names that workspace, so the
machine never sees or touches another run's data; it never sends an empty forget
filter. Teardown forgets by the workspace.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from conformance.checks.engine_support import pages
from conformance.checks.evidence import compare_ids, field_differences, show
from conformance.engine import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    Learning,
    ListRequest,
    MetaFilter,
    Reach,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    Unsupported,
    fingerprint,
    to_f32,
    to_wire,
)
from conformance.engine.limits import MAX_GET_IDS, MAX_STORE_MANY
from conformance.fuzz.bulk import bulk_items
from conformance.fuzz.differential import Differential, StepNotApplicable, operation
from conformance.fuzz.pools import ENGINE_NODES

__all__ = ["ENGINE_TARGET", "EngineDifferential", "engine_oracle", "handle_of"]

ENGINE_TARGET: Final = "fuzz.engine.differential"
"""The check id of the engine differential."""

_ORACLE_PAGE: Final = 1_000_000
"""The oracle is read in one page: it holds only this run's items."""


def engine_oracle(retains: bool) -> Any:
    """The oracle for an engine: the reference engine, or an empty store (the null
    engine) for an engine the retention probe finds keeps nothing (decisions §4.8)."""
    if retains:
        from reference_driver.engine import ReferenceEngine

        return ReferenceEngine()
    from null_driver.engine import NullEngine

    return NullEngine()


def handle_of(item: StoreItem) -> str:
    """The handle naming `item` in steps and messages: `h` and 8 hex digits of its
    fingerprint as drawn (before the run's workspace is set)."""
    return "h" + fingerprint(item)[:8]


def _show(filter: MetaFilter) -> str:
    # The workspace is always the run root, so leave it out of messages.
    shown = to_wire(filter)
    shown.pop("workspace", None)
    return ", ".join(f"{key}={value}" for key, value in shown.items()) or "{}"


def _hit_of(fp: str, item: StoreItem) -> Hit:
    """The hit a listing answers for `item` held under the id `fp` (contract B6)."""
    return Hit.model_validate(
        {
            "id": fp,
            "kind": item.kind,
            "text": item.render_text(),
            "meta": item.meta.model_dump(),
            "score": 0.0,
            "confidence": item.confidence if isinstance(item, Learning) else None,
        }
    )


def _f32(value: float | None) -> float | None:
    return None if value is None else to_f32(value)


def _chunks(values: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


class EngineDifferential(Differential):
    """The engine under test beside an oracle; every method is one step."""

    check_id = ENGINE_TARGET
    writes = frozenset(
        {
            "store",
            "replay",
            "store_many",
            "store_bulk",
            "forget_ids",
            "forget_filter",
            "store_invalid",
            "store_many_invalid",
            "refuse",
        }
    )

    def __init__(
        self,
        driver: Any,
        oracle: Any,
        *,
        retains: bool,
        full_page: int = 100,
        max_pages: int = 4,
        **common: Any,
    ) -> None:
        super().__init__(driver, oracle, retains=retains, **common)
        self.full_page = full_page
        self.max_pages = max_pages
        self.modes: builtins.list[FetchMode] = builtins.list(
            self.guarded(lambda: self.call("descriptor()", self.driver.descriptor).fetch_modes)
        )
        self.stamped: dict[str, StoreItem] = {}
        """Items as sent (workspace set), by handle."""
        self.fp: dict[str, str] = {}
        """The oracle's id (the fingerprint as sent) of each handle."""
        self.handle_by_fp: dict[str, str] = {}
        self.driver_id: dict[str, str] = {}
        """The driver's latest id for each fingerprint (held or forgotten since)."""
        self.fp_by_driver_id: dict[str, str] = {}
        self.expected: dict[str, Hit] = {}
        """The oracle's hit for every item it holds, by fingerprint."""
        self._ghosts = itertools.count()
        self.scope = MetaFilter(workspace=self.root)

    # -- names ----------------------------------------------------------------------

    def _add(self, item: StoreItem) -> str:
        handle = handle_of(item)
        if handle not in self.stamped:
            stamped = item.model_copy(
                update={"meta": item.meta.model_copy(update={"workspace": self.root})}
            )
            fp = stamped.fingerprint()
            self.stamped[handle], self.fp[handle] = stamped, fp
            self.handle_by_fp[fp] = handle
        return handle

    def _known(self, handle: str) -> str:
        if handle not in self.fp:
            raise StepNotApplicable(f"no earlier step stored the item {handle}")
        return self.fp[handle]

    def _scoped(self, filter: MetaFilter) -> MetaFilter:
        return filter.model_copy(update={"workspace": self.root})

    def _name(self, fp: str) -> str:
        return self.handle_by_fp.get(fp, f"id {fp!r}")

    def _labels(self) -> dict[str, str]:
        return dict(self.handle_by_fp)

    def _ghost(self) -> str:
        return f"{self.marker}-missing-{next(self._ghosts)}"

    def held_texts(self) -> builtins.list[str]:
        """The texts of the items the oracle holds, in its order (for queries)."""
        return [hit.text for hit in self.expected.values()]

    def held_handles(self) -> builtins.list[str]:
        """The handles of the items the oracle holds."""
        return [self.handle_by_fp[fp] for fp in self.expected if fp in self.handle_by_fp]

    def admitted_count(self, filter: MetaFilter) -> int:
        """How many held items `filter` admits (within the run's workspace)."""
        return len(self._admitted(self._scoped(filter)))

    # -- the oracle -----------------------------------------------------------------

    def _refresh(self) -> None:
        """Read every held item back from the oracle (after the whole-store comparison)."""
        page = self.oracle.list(ListRequest(filter=self.scope, limit=_ORACLE_PAGE))
        self.expected = {hit.id: hit for hit in page.items}

    def _stored(self, fps: Iterable[str]) -> None:
        """Record items the oracle just stored (its receipts said they were new); an
        empty oracle (for a driver that retains nothing) holds nothing."""
        if not self.retains:
            return
        for fp in fps:
            if fp not in self.expected:
                self.expected[fp] = _hit_of(fp, self.stamped[self.handle_by_fp[fp]])
        self.stats.peak = max(self.stats.peak, len(self.expected))

    def _forgotten(self, fps: Iterable[str], count: int) -> None:
        """Record items the oracle just forgot; its count must agree (else reread it)."""
        gone = [fp for fp in dict.fromkeys(fps) if fp in self.expected]
        for fp in gone:
            del self.expected[fp]
        if len(gone) != count:
            self._refresh()

    def _admitted(self, filter: MetaFilter) -> set[str]:
        """The held items `filter` admits (`MetaFilter.matches`, as the oracle lists them)."""
        return {fp for fp, hit in self.expected.items() if filter.matches(hit.kind, hit.meta)}

    # -- comparisons ----------------------------------------------------------------

    def _fp_of(self, call: str, driver_id: str) -> str:
        fp = self.fp_by_driver_id.get(driver_id)
        if fp is None or fp not in self.expected or self.driver_id.get(fp) != driver_id:
            self.fail(
                call,
                "only ids of items this run holds",
                f"the id {driver_id!r}, which names no held item",
            )
        return fp

    def _receipt(self, call: str, fp: str, want: StoreReceipt, got: StoreReceipt) -> None:
        name = self._name(fp)
        self.require(
            got.replayed == want.replayed,
            call,
            f"replayed={want.replayed} for {name}",
            f"replayed={got.replayed}",
        )
        if want.replayed:
            first = self.driver_id.get(fp)
            self.require(
                got.id == first,
                call,
                f"the id the first store of {name} answered ({first!r})",
                show(got.id),
            )
            return
        other = self.fp_by_driver_id.get(got.id)
        self.require(
            other is None or other == fp or other not in self.expected,
            call,
            f"an id of {name}'s own",
            f"{got.id!r}, the id of {self._name(other or '')}",
        )
        self.driver_id[fp] = got.id
        self.fp_by_driver_id[got.id] = fp

    def _same_hit(self, call: str, fp: str, hit: Hit, *, listing: bool) -> None:
        want = self.expected[fp]
        # Compared first and described only on a mismatch: this runs for every hit read.
        if (hit.kind, hit.text) != (want.kind, want.text):
            self.fail(
                call,
                f"{self._name(fp)} as {want.kind.value} {show(want.text)}",
                f"{hit.kind} {show(hit.text)}",
            )
        if hit.meta != want.meta:
            diff = "; ".join(field_differences(want.meta, hit.meta))
            self.fail(call, f"{self._name(fp)} with its meta as stored", f"meta {diff}")
        if _f32(hit.confidence) != _f32(want.confidence):
            self.fail(
                call, f"{self._name(fp)} with confidence {want.confidence}", repr(hit.confidence)
            )
        if listing and hit.score != 0.0:
            self.fail(call, f"score 0.0 on listed {self._name(fp)}", repr(hit.score))

    def _same_items(
        self, call: str, hits: builtins.list[Hit], want: set[str], noticed: str = ""
    ) -> None:
        got = [self.fp_by_driver_id.get(hit.id, hit.id) for hit in hits]
        wrong = compare_ids(got, sorted(want, key=self._name), self._labels())
        if wrong is not None:
            self.fail(call, "every item the filter admits, each once", wrong + noticed)
        for hit in hits:
            self._same_hit(call, self._fp_of(call, hit.id), hit, listing=True)

    def _list_driver(self, filter: MetaFilter, limit: int) -> builtins.list[Hit]:
        what = f"list({_show(filter)})"
        reads = 0

        def read(cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            nonlocal reads
            reads += 1
            req = ListRequest(filter=filter, limit=limit, cursor=cursor)
            page = self.call(f"{what} (limit {limit}, cursor {cursor!r})", self.driver.list, req)
            return page.items, page.next_cursor

        hits = pages(self, what, limit, read)
        if reads > 1:
            self.stats.crossed.add("list")
        return hits

    def _check_held(self, call: str, fps: Sequence[str]) -> None:
        """After a write: `get` answers each written item as the oracle holds it."""
        held = [fp for fp in dict.fromkeys(fps) if fp in self.expected and fp in self.driver_id]
        for chunk in _chunks(held, MAX_GET_IDS):
            read = f"get(<{len(chunk)} ids written>) after {call}"
            hits = self.call(
                read, self.driver.get, GetRequest(ids=[self.driver_id[f] for f in chunk])
            )
            got = [self.fp_by_driver_id.get(hit.id, hit.id) for hit in hits]
            wrong = compare_ids(got, chunk, self._labels(), ordered=True)
            if wrong is not None:
                self.fail(call, "every item written readable by get, in the order asked", wrong)
            for fp, hit in zip(got, hits, strict=True):
                self._same_hit(call, fp, hit, listing=False)

    def _check_gone(self, call: str, fps: Sequence[str]) -> None:
        """After a forget: `get` finds none of the items the oracle forgot."""
        gone = [self.driver_id[fp] for fp in fps if fp in self.driver_id]
        for chunk in _chunks(gone, MAX_GET_IDS):
            hits = self.call(
                f"get(<{len(chunk)} ids forgotten>) after {call}",
                self.driver.get,
                GetRequest(ids=list(chunk)),
            )
            # An engine may give a forgotten item's id to another writer's item later;
            # only this run's workspace tells a survivor from a stranger.
            kept = [
                self._name(self.fp_by_driver_id.get(hit.id, hit.id))
                for hit in hits
                if hit.meta.workspace == self.root
            ]
            self.require(
                not kept, call, "the forgotten items gone", f"{', '.join(kept)} still held"
            )

    def _refused(
        self,
        call: str,
        fn: Callable[..., Any],
        arg: Any,
        expect: tuple[type[Exception], ...],
        expected: str,
    ) -> None:
        """`fn(arg)` must raise one of `expect`. That it stored nothing shows at the next
        whole-store comparison, which names this step."""
        result, error = self.attempt(call, fn, arg)
        if error is None:
            self.fail(call, expected, f"success (a {type(result).__name__})")
        self.require(
            isinstance(error, expect), call, expected, f"{type(error).__qualname__}: {error}"
        )

    # -- writes ---------------------------------------------------------------------

    def _store_batch(self, call: str, handles: builtins.list[str]) -> None:
        stamped = [self.stamped[h] for h in handles]
        want = self.oracle.store_many(stamped)
        got = self.call(call, self.driver.store_many, stamped)
        self.require(len(got) == len(want), call, f"{len(want)} receipts", f"{len(got)} receipts")
        self._stored(
            self.fp[h] for h, receipt in zip(handles, want, strict=True) if not receipt.replayed
        )
        for handle, one_want, one_got in zip(handles, want, got, strict=True):
            self._receipt(call, self.fp[handle], one_want, one_got)
        self._check_held(call, [self.fp[h] for h in handles])

    @operation
    def store(self, item: StoreItem) -> str:
        """Store `item` (in the run's workspace); answer its handle."""
        handle = self._add(item)
        fp = self.fp[handle]
        want = self.oracle.store(self.stamped[handle])
        call = f"store({handle})"
        self._stored([fp] if not want.replayed else [])
        got = self.call(call, self.driver.store, self.stamped[handle])
        self._receipt(call, fp, want, got)
        self._check_held(call, [fp])
        return handle

    @operation
    def replay(self, handle: str) -> None:
        """Store the item of `handle` again."""
        fp = self._known(handle)
        want = self.oracle.store(self.stamped[handle])
        call = f"store({handle}) again"
        self._stored([fp] if not want.replayed else [])
        got = self.call(call, self.driver.store, self.stamped[handle])
        self._receipt(call, fp, want, got)
        self._check_held(call, [fp])

    @operation
    def store_many(self, items: builtins.list[StoreItem]) -> builtins.list[str]:
        """Store `items` in one batch; answer their handles. Receipts come in item order."""
        handles = [self._add(item) for item in items]
        self._store_batch(f"store_many([{', '.join(handles)}])", handles)
        return handles

    @operation
    def store_bulk(self, count: int, salt: int) -> builtins.list[str]:
        """Store the `count` items of bulk `salt` (`conformance.fuzz.bulk`) in one batch."""
        items = bulk_items(min(count, MAX_STORE_MANY), salt, nodes=ENGINE_NODES, fit=self.fit)
        handles = [self._add(item) for item in items]
        self._store_batch(f"store_many(<bulk {salt}: {len(handles)} items>)", handles)
        return handles

    @operation
    def forget_ids(self, handles: builtins.list[str], ghosts: int) -> None:
        """Forget the items of `handles` and `ghosts` ids no one issued; counts must agree."""
        to_driver, to_oracle = self._ids(handles, ghosts)
        if not to_driver:
            ghost = self._ghost()
            to_driver, to_oracle = [ghost], [ghost]
        shown = [*dict.fromkeys(handles), *["<unknown>"] * ghosts]
        self._forget(
            f"forget(ids=[{', '.join(shown)}])",
            ForgetIds(ids=to_driver),
            ForgetIds(ids=to_oracle),
            to_oracle,
        )

    @operation
    def forget_filter(self, filter: MetaFilter) -> None:
        """Forget what `filter` (within the run's workspace) admits; counts must agree."""
        scoped = self._scoped(filter)
        target = ForgetFilter(filter=scoped)
        self._forget(f"forget(filter={_show(scoped)})", target, target, self._admitted(scoped))

    def _forget(
        self, call: str, to_driver: ForgetTarget, to_oracle: ForgetTarget, named: Iterable[str]
    ) -> None:
        """Forget on both sides (`named`: what the oracle's target names): equal counts,
        and none of what the oracle forgot left for `get` to find."""
        before = set(self.expected)
        want = self.oracle.forget(to_oracle)
        self._forgotten(named, want.forgotten)
        got = self.call(call, self.driver.forget, to_driver)
        self.require(
            got.forgotten == want.forgotten,
            call,
            f"forgotten={want.forgotten}",
            f"forgotten={got.forgotten}",
        )
        self._check_gone(call, sorted(before - set(self.expected)))

    def _ids(
        self, handles: Sequence[str], ghosts: int, *, repeats: bool = False
    ) -> tuple[builtins.list[str], builtins.list[str]]:
        """The ids to send the driver and the oracle for `handles` (in order, repeated
        ones kept when `repeats`), with `ghosts` unknown ids after the first.

        A held item goes by its ids on both sides; anything else as an id no one issued.
        Never the old id of a forgotten item: an engine may give it to another writer's
        item, which a forget must not touch and a read must not be blamed for finding.
        """
        to_driver: builtins.list[str] = []
        to_oracle: builtins.list[str] = []
        ghost_ids = [self._ghost() for _ in range(ghosts)]
        chosen = handles if repeats else builtins.list(dict.fromkeys(handles))
        for position, handle in enumerate(chosen):
            fp = self._known(handle)
            held = self.driver_id.get(fp) if fp in self.expected else None
            if held is not None:
                to_driver.append(held)
                to_oracle.append(fp)
            else:
                ghost = self._ghost()
                to_driver.append(ghost)
                to_oracle.append(ghost)
            if position == 0:
                to_driver += ghost_ids
                to_oracle += ghost_ids
        if not chosen:
            to_driver, to_oracle = list(ghost_ids), list(ghost_ids)
        return to_driver, to_oracle

    # -- reads ----------------------------------------------------------------------

    @operation
    def list_items(self, filter: MetaFilter, limit: int) -> None:
        """List what `filter` admits, `limit` at a time: each admitted item exactly once."""
        scoped = self._scoped(filter)
        hits = self._list_driver(scoped, limit)
        self._same_items(f"list({_show(scoped)}, limit {limit})", hits, self._admitted(scoped))

    @operation
    def fetch(self, mode: FetchMode, query: str, filter: MetaFilter, limit: int) -> None:
        """Fetch in `mode`: an undeclared mode is `Unsupported`; a declared one answers only
        admitted items, each once, with their contents, in pages of at most `limit` (read
        for at most `max_pages` pages)."""
        scoped = self._scoped(filter)
        what = f"fetch({query!r}, {mode.value}, {_show(scoped)})"
        if mode not in self.modes:
            req = FetchRequest(query=query, mode=mode, filter=scoped, limit=limit)
            result, error = self.attempt(what, self.driver.fetch, req)
            self.require(
                isinstance(error, Unsupported),
                what,
                f"Unsupported (the engine does not declare {mode.value})",
                f"success ({show(result)})"
                if error is None
                else f"{type(error).__qualname__}: {error}",
            )
            return
        admitted = self._admitted(scoped)
        seen: dict[str, int] = {}
        cursors: set[str] = set()
        cursor: str | None = None
        for number in range(1, self.max_pages + 1):
            call = f"{what} (limit {limit}, cursor {cursor!r})"
            req = FetchRequest(query=query, mode=mode, filter=scoped, limit=limit, cursor=cursor)
            page = self.call(call, self.driver.fetch, req)
            self.require(
                len(page.hits) <= limit, call, f"at most {limit} hits", f"{len(page.hits)} hits"
            )
            for hit in page.hits:
                fp = self._fp_of(call, hit.id)
                self.require(fp in admitted, call, "only items the filter admits", self._name(fp))
                self.require(
                    fp not in seen,
                    call,
                    "each item once across pages",
                    f"{self._name(fp)} again (first on page {seen.get(fp)})",
                )
                seen[fp] = number
                self._same_hit(call, fp, hit, listing=False)
            if page.next_cursor is None:
                break
            self.require(
                page.next_cursor not in cursors,
                call,
                "a cursor that makes progress",
                f"the fetch cursor {page.next_cursor!r} repeated; paging never ends",
            )
            cursors.add(page.next_cursor)
            cursor = page.next_cursor
            if number == 1:
                self.stats.crossed.add("fetch")

    @operation
    def recall(self, question: str, filter: MetaFilter, limit: int) -> None:
        """Recall: at most `limit` citations, each an admitted item of the same kind."""
        scoped = self._scoped(filter)
        call = f"recall({question!r}, {_show(scoped)}, limit {limit})"
        answer = self.call(
            call, self.driver.recall, RecallRequest(question=question, filter=scoped, limit=limit)
        )
        self.require(isinstance(answer.answer, str), call, "an answer text", answer.answer)
        self.require(
            len(answer.citations) <= limit,
            call,
            f"at most {limit} citations",
            f"{len(answer.citations)} citations",
        )
        admitted = self._admitted(scoped)
        for citation in answer.citations:
            fp = self._fp_of(call, citation.id)
            self.require(fp in admitted, call, "citations of admitted items", self._name(fp))
            want = self.expected[fp].kind
            self.require(
                citation.kind == want,
                call,
                f"citation of {self._name(fp)} with kind {want.value}",
                str(citation.kind),
            )

    @operation
    def get(self, handles: builtins.list[str], ghosts: int, reach: Reach | None) -> None:
        """Get by id (the same id possibly asked twice): exactly the oracle's items, in the
        order first asked, each once, with their contents."""
        to_driver, to_oracle = self._ids(handles, ghosts, repeats=True)
        if not to_driver:
            return
        want = [hit.id for hit in self.oracle.get(GetRequest(ids=to_oracle, reach=reach))]
        where = "" if reach is None else f", reach={to_wire(reach)}"
        call = f"get([{', '.join(handles)}{', <unknown>' * ghosts}]{where})"
        hits = self.call(call, self.driver.get, GetRequest(ids=to_driver, reach=reach))
        got = [self.fp_by_driver_id.get(hit.id, hit.id) for hit in hits]
        wrong = compare_ids(got, want, self._labels(), ordered=True)
        if wrong is not None:
            self.fail(call, "the items asked for that the reach admits, in order, each once", wrong)
        for fp, hit in zip(got, hits, strict=True):
            self._same_hit(call, fp, hit, listing=False)

    @operation
    def explore(self, facet: Facet, filter: MetaFilter, limit: int = 500) -> None:
        """Explore one facet: the oracle's buckets in its order (count descending, then
        value ascending), cut at `limit`, with equal totals."""
        scoped = self._scoped(filter)
        req = ExploreRequest(facet=facet, filter=scoped, limit=limit)
        want = self.oracle.explore(req)
        call = f"explore({facet.value}, {_show(scoped)}, limit {limit})"
        got = self.call(call, self.driver.explore, req)
        self.require(got.facet == facet, call, f"facet {facet.value} echoed", str(got.facet))
        for name in ("total", "missing", "more_buckets", "truncated"):
            self.require(
                getattr(got, name) == getattr(want, name),
                call,
                f"{name}={getattr(want, name)}",
                f"{name}={getattr(got, name)}",
            )
        mine = [(b.value, b.count) for b in got.buckets]
        theirs = [(b.value, b.count) for b in want.buckets]
        self.require(
            mine == theirs,
            call,
            f"the buckets {theirs} (count descending, ties by value)",
            show(mine),
        )

    # -- malformed input ------------------------------------------------------------

    @operation
    def store_invalid(self, item: StoreItem) -> None:
        """Store a malformed item: `InvalidRequest`, and nothing written."""
        stamped = item.model_copy(
            update={"meta": item.meta.model_copy(update={"workspace": self.root})}
        )
        self._refused(
            "store(<malformed item>)",
            self.driver.store,
            stamped,
            (InvalidRequest,),
            "InvalidRequest (contract-reference B2)",
        )

    @operation
    def store_many_invalid(self, items: builtins.list[StoreItem], repeat: int = 1) -> None:
        """Store `items * repeat` in one batch when that is empty, over 100 items or holds a
        malformed item: `InvalidRequest`, and nothing of the batch written."""
        batch = [
            item.model_copy(update={"meta": item.meta.model_copy(update={"workspace": self.root})})
            for item in items
        ] * repeat
        self._refused(
            f"store_many(<{len(batch)} items>)",
            self.driver.store_many,
            batch,
            (InvalidRequest,),
            f"InvalidRequest (1 to {MAX_STORE_MANY} items, each valid)",
        )

    @operation
    def refuse(self, op: str, request: Any) -> None:
        """Send a malformed request to `op`: `InvalidRequest` (or, for a fetch in an
        undeclared mode, `Unsupported`), and nothing changed."""
        if isinstance(getattr(request, "filter", None), MetaFilter):
            request = request.model_copy(update={"filter": self._scoped(request.filter)})
        expect: tuple[type[Exception], ...] = (InvalidRequest,)
        expected = "InvalidRequest (contract-reference B6)"
        if isinstance(request, FetchRequest) and request.mode not in self.modes:
            expect = (InvalidRequest, Unsupported)
            expected = "InvalidRequest or Unsupported"
        self._refused(
            f"{op}(<malformed: {self.rel(str(to_wire(request)))[:120]}>)",
            getattr(self.driver, op),
            request,
            expect,
            expected,
        )

    # -- invariants and cleanup -----------------------------------------------------

    def check_invariants(self) -> None:
        """List the run's workspace, `full_page` at a time: exactly the oracle's items."""
        self.last_call = "verify"
        self._refresh()
        hits = self._list_driver(self.scope, self.full_page)
        self._same_items(
            f"list(run workspace, limit {self.full_page})",
            hits,
            set(self.expected),
            self.noticed(),
        )

    def cleanup(self, *, everything: bool) -> builtins.list[str]:
        """Forget by the run's workspace; describe any survivor."""
        self.call(
            "forget(filter=run workspace)", self.driver.forget, ForgetFilter(filter=self.scope)
        )
        left = self._list_driver(self.scope, self.full_page)
        return [f"{len(left)} items survived a forget by the run's workspace"] if left else []
