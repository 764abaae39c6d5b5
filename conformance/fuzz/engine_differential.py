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
    EngineDescriptor,
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
from conformance.engine.errors import EngineError
from conformance.engine.limits import (
    DEFAULT_SCAN_LIMIT,
    MAX_BUCKETS,
    MAX_GET_IDS,
    MAX_SCAN_LIMIT,
    MAX_STORE_MANY,
)
from conformance.engine.refusals import carries, pinned_message
from conformance.fuzz.bulk import bulk_items
from conformance.fuzz.differential import Differential, StepNotApplicable, operation
from conformance.fuzz.engine_relatives import filter_relative, item_relative
from conformance.fuzz.pools import ENGINE_NODES
from conformance.fuzz_targets import ENGINE_TARGET
from conformance.readings import (
    PagedRead,
    best_first,
    exact_match_leads,
    explore_reading,
    matchable,
    one_word,
    word_count,
)
from conformance.relatives import relative

__all__ = ["ENGINE_TARGET", "EngineDifferential", "engine_oracle", "handle_of"]


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
    face = "engine"
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
        self.descriptor: EngineDescriptor = self.guarded(
            lambda: self.call("descriptor()", self.driver.descriptor)
        )
        """The descriptor read first: an engine's declaration holds for its whole life."""
        self.modes: builtins.list[FetchMode] = builtins.list(self.descriptor.fetch_modes)
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
            stamped = self._stamp(item)
            fp = stamped.fingerprint()
            self.stamped[handle], self.fp[handle] = stamped, fp
            self.handle_by_fp[fp] = handle
        return handle

    def _stamp(self, item: StoreItem) -> StoreItem:
        """`item` in the run's workspace."""
        return item.model_copy(
            update={"meta": item.meta.model_copy(update={"workspace": self.root})}
        )

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
            self.fail(
                call, f"score 0.0 on {self._name(fp)} (as a listing gives it)", repr(hit.score)
            )

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
            # A got hit equals the item's listing, its score 0.0 included.
            for fp, hit in zip(got, hits, strict=True):
                self._same_hit(call, fp, hit, listing=True)

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
        """`fn(arg)` must raise one of `expect`, with the contract's message where it gives
        one (`conformance.engine.refusals`). That it stored nothing shows at the next
        whole-store comparison, which names this step."""
        result, error = self.attempt(call, fn, arg)
        if error is None:
            self.fail(call, expected, f"success (a {type(result).__name__})")
        self.require(
            isinstance(error, expect), call, expected, f"{type(error).__qualname__}: {error}"
        )
        pinned = pinned_message(arg) if isinstance(error, InvalidRequest) else None
        self.require(
            pinned is None or carries(error, pinned),
            call,
            f"the contract's message: {pinned!r}",
            f"{error.message if isinstance(error, EngineError) else error!r}",
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
        return self._store_one(item, f"store({handle_of(item)})")

    def _store_one(self, item: StoreItem, call: str, *, exact: bool = False) -> str:
        """Store `item` on both sides: the item first stored under its fingerprint, or
        (`exact`) `item` itself, which differs from it only where the fingerprint does
        not look (`observed_at`), so that it replays."""
        handle = self._add(item)
        fp = self.fp[handle]
        sent = self._stamp(item) if exact else self.stamped[handle]
        want = self.oracle.store(sent)
        if not want.replayed:
            # Written afresh, this version is the one held (its observed_at may differ).
            self.stamped[handle] = sent
        self._stored([fp] if not want.replayed else [])
        got = self.call(call, self.driver.store, sent)
        self._receipt(call, fp, want, got)
        self._check_held(call, [fp])
        return handle

    # -- relatives of what is held ----------------------------------------------------

    def _drawn(self, handle: str) -> StoreItem:
        """The item of `handle` as drawn (without the run's workspace)."""
        self._known(handle)
        item = self.stamped[handle]
        return item.model_copy(update={"meta": item.meta.model_copy(update={"workspace": None})})

    @operation
    def store_relative(self, handle: str, field: str, how: str) -> str | None:
        """Store the item of `handle` with `field` replaced by its relative made `how`
        (`conformance.fuzz.engine_relatives`): a new item beside the first, or, when only
        its observation time moved, a replay of the first. Its handle, or `None` when the
        item has no such relative."""
        made = item_relative(self._drawn(handle), field, how)
        if made is None:
            return None
        call = f"store({handle} with its {field} made {how}: {handle_of(made)})"
        return self._store_one(made, call, exact=True)

    @operation
    def list_relative(self, handle: str, field: str, how: str, limit: int) -> None:
        """List with a filter naming, in `field`, the relative made `how` of the item of
        `handle`'s value: exactly what the contract's matching admits, however near."""
        made = filter_relative(self._drawn(handle), field, how)
        if made is None:
            return
        scoped = self._scoped(made)
        hits = self._list_driver(scoped, limit)
        call = f"list({_show(scoped)}, limit {limit}) (the {field} of {handle} made {how})"
        self._same_items(call, hits, self._admitted(scoped))

    def _relative_id(self, handle: str, how: str) -> tuple[str, builtins.list[str]] | None:
        """The relative made `how` of the driver's id for `handle`, and the held items it
        names (none, unless it is another held item's id)."""
        fp = self._known(handle)
        if fp not in self.expected or fp not in self.driver_id:
            return None
        made = relative(self.driver_id[fp], how)
        if made is None or not made.strip():
            return None
        named = self.fp_by_driver_id.get(made)
        held = [named] if named is not None and self.driver_id.get(named) == made else []
        return made, [f for f in held if f in self.expected]

    @operation
    def get_relative(self, handle: str, how: str) -> None:
        """Get by the relative made `how` of a held item's id (its case twin, a prefix, ...):
        nothing, unless that is another held item's id."""
        found = self._relative_id(handle, how)
        if found is None:
            return
        made, named = found
        # Named by the handle: the id itself differs from run to run.
        call = f"get([<the id of {handle} made {how}>])"
        hits = self.call(call, self.driver.get, GetRequest(ids=[made]))
        got = [self.fp_by_driver_id.get(hit.id, hit.id) for hit in hits]
        wrong = compare_ids(got, named, self._labels(), ordered=True)
        if wrong is not None:
            self.fail(call, "only an item whose id is exactly the one asked", wrong)

    @operation
    def forget_relative(self, handle: str, how: str) -> None:
        """Forget by the relative made `how` of a held item's id: nothing forgotten,
        unless that is another held item's id."""
        found = self._relative_id(handle, how)
        if found is None:
            return
        made, named = found
        to_oracle = [self.fp[self.handle_by_fp[f]] for f in named] or [self._ghost()]
        self._forget(
            f"forget(ids=[<the id of {handle} made {how}>])",
            ForgetIds(ids=[made]),
            ForgetIds(ids=to_oracle),
            named,
        )

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
        items = bulk_items(
            min(count, MAX_STORE_MANY),
            salt,
            nodes=ENGINE_NODES,
            fit=self.fit,
            fit_item=self.fit_item,
        )
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
        """Fetch in `mode`, following the cursors to the end: an undeclared mode is
        `Unsupported`; a declared one answers only admitted items, each once, with their
        contents, best first across every page, in pages of at most `limit`; an admitted
        item whose text is the query itself leads or ties the first score."""
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
        reads = 0

        def read(cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            nonlocal reads
            reads += 1
            req = FetchRequest(query=query, mode=mode, filter=scoped, limit=limit, cursor=cursor)
            page = self.call(f"{what} (limit {limit}, cursor {cursor!r})", self.driver.fetch, req)
            return page.hits, page.next_cursor

        hits = pages(self, what, limit, read, noun="fetch")
        if reads > 1:
            self.stats.crossed.add("fetch")
        call = f"{what} (limit {limit}, every page)"
        seen: set[str] = set()
        for hit in hits:
            fp = self._fp_of(call, hit.id)
            self.require(fp in admitted, call, "only items the filter admits", self._name(fp))
            self.require(fp not in seen, call, "each item once across pages", self._name(fp))
            seen.add(fp)
            self._same_hit(call, fp, hit, listing=False)
        wrong = best_first([hit.score for hit in hits])
        self.require(wrong is None, call, "hits best first across every page", wrong)
        if one_word(query) and any(self.expected[fp].text == query for fp in admitted):
            wrong = exact_match_leads(
                [hit.score for hit in hits],
                [hit.text == query for hit in hits],
                [word_count(hit.text, query) == 1 for hit in hits],
                len(hits) + 1,
            )
            self.require(
                wrong is None,
                call,
                "the item whose text is the query word first, or outranked only by items "
                "holding the word more often",
                wrong,
            )

    def _write_between_pages(
        self, write: StoreItem | str, filter: MetaFilter, read: PagedRead | None
    ) -> None:
        """One write made while a read is under way: an item stored (`StoreItem`) or one
        held forgotten (a handle), checked as any write is, and noted in `read` when it
        adds to or takes from what `filter` admits."""
        if isinstance(write, str):
            fp = self._known(write)
            if fp not in self.expected or fp not in self.driver_id:
                return
            admitted = filter.matches(self.expected[fp].kind, self.expected[fp].meta)
            call = f"forget(ids=[{write}]) between pages"
            want = self.oracle.forget(ForgetIds(ids=[fp]))
            self._forgotten([fp], want.forgotten)
            got = self.call(call, self.driver.forget, ForgetIds(ids=[self.driver_id[fp]]))
            self.require(
                got.forgotten == want.forgotten,
                call,
                f"forgotten={want.forgotten}",
                f"forgotten={got.forgotten}",
            )
            if admitted and read is not None:
                read.left.add(write)
            return
        handle = self._add(write)
        fp = self.fp[handle]
        call = f"store({handle}) between pages"
        want = self.oracle.store(self.stamped[handle])
        self._stored([fp] if not want.replayed else [])
        got = self.call(call, self.driver.store, self.stamped[handle])
        self._receipt(call, fp, want, got)
        entered = self.retains and not want.replayed
        if entered and read is not None and filter.matches(write.kind, self.stamped[handle].meta):
            read.entered.add(handle)

    def _read_during_writes(
        self,
        what: str,
        limit: int,
        filter: MetaFilter,
        writes: builtins.list[StoreItem | str],
        read_page: Callable[[str, str | None], tuple[builtins.list[Hit], str | None]],
        *,
        complete: bool,
    ) -> None:
        """Page through a read, making one of `writes` before each page but the first (the
        rest after the last page), and hold the hits to what such a read may answer."""
        read = PagedRead(
            before={self._name(fp) for fp in self._admitted(filter)},
            entered=set(),
            left=set(),
            complete=complete,
        )
        pending = builtins.list(writes)

        def page(cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            if cursor is not None and pending:
                self._write_between_pages(pending.pop(0), filter, read)
            return read_page(f"{what} (limit {limit}, cursor {cursor!r})", cursor)

        hits = pages(self, what, limit, page, noun="listing" if complete else "fetch")
        call = f"{what} (limit {limit}, every page)"
        wrong = read.judge(self._name(self._ever_held(call, hit)) for hit in hits)
        self.require(wrong is None, call, "what a read may answer while the store changes", wrong)
        for write in pending:
            self._write_between_pages(write, filter, None)

    @operation
    def list_during_writes(
        self, filter: MetaFilter, limit: int, writes: builtins.list[StoreItem | str]
    ) -> None:
        """List what `filter` admits while items are stored and forgotten between its
        pages: the read ends, answers no item never held while it ran, and misses or
        repeats items only as the writes allow (`conformance.readings.PagedRead`)."""
        scoped = self._scoped(filter)

        def read_page(call: str, cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            req = ListRequest(filter=scoped, limit=limit, cursor=cursor)
            got = self.call(call, self.driver.list, req)
            return got.items, got.next_cursor

        what = f"list({_show(scoped)}) with writes between pages"
        self._read_during_writes(what, limit, scoped, writes, read_page, complete=True)

    @operation
    def fetch_during_writes(
        self,
        mode: FetchMode,
        query: str,
        filter: MetaFilter,
        limit: int,
        writes: builtins.list[StoreItem | str],
    ) -> None:
        """Fetch while items are stored and forgotten between its pages: the read ends,
        every hit was admitted and held while it ran, each page comes best first, and an
        item comes twice at most once per item the writes added. An undeclared mode
        makes only the writes."""
        scoped = self._scoped(filter)
        if mode not in self.modes:
            for write in writes:
                self._write_between_pages(write, scoped, None)
            return

        def read_page(call: str, cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            req = FetchRequest(query=query, mode=mode, filter=scoped, limit=limit, cursor=cursor)
            got = self.call(call, self.driver.fetch, req)
            wrong = best_first([hit.score for hit in got.hits])
            self.require(wrong is None, call, "each page best first", wrong)
            return got.hits, got.next_cursor

        what = f"fetch({query!r}, {mode.value}, {_show(scoped)}) with writes between pages"
        self._read_during_writes(what, limit, scoped, writes, read_page, complete=False)

    def _ever_held(self, call: str, hit: Hit) -> str:
        """The fingerprint a hit names, an item this run stored (its contents checked when
        the item is still held)."""
        fp = self.fp_by_driver_id.get(hit.id)
        if fp is None:
            self.fail(call, "only ids of items this run stored", show(hit.id))
        if fp in self.expected:
            self._same_hit(call, fp, hit, listing=False)
        return fp

    @operation
    def recall(self, question: str, filter: MetaFilter, limit: int) -> None:
        """Recall: at most `limit` citations, each an admitted item of the same kind; when
        an admitted item's text is the question itself, at least one citation and an
        answer that is not blank. (Citing an item twice, as a store of chunks may, is
        the engine's business.)"""
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
        if matchable(question) and any(self.expected[fp].text == question for fp in admitted):
            self.require(
                bool(answer.citations) and bool(answer.answer.strip()),
                call,
                "a citation and an answer, since an admitted item's text is the question",
                f"{len(answer.citations)} citations, answer {show(answer.answer)}",
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
            self._same_hit(call, fp, hit, listing=True)

    @operation
    def explore(
        self, facet: Facet, filter: MetaFilter, limit: int = 500, scan_limit: int = 5000
    ) -> None:
        """Explore one facet: the facet echoed; the oracle's exact buckets in its order
        (count descending, then value ascending), cut at `limit`, with its totals; or,
        truncated at a `scan_limit` below what the filter admits, a part of them counted
        (`conformance.readings.explore_reading`)."""
        scoped = self._scoped(filter)
        exact = self.oracle.explore(
            ExploreRequest(facet=facet, filter=scoped, limit=MAX_BUCKETS, scan_limit=MAX_SCAN_LIMIT)
        )
        req = ExploreRequest(facet=facet, filter=scoped, limit=limit, scan_limit=scan_limit)
        scanned = "" if scan_limit == DEFAULT_SCAN_LIMIT else f", scan_limit {scan_limit}"
        call = f"explore({facet.value}, {_show(scoped)}, limit {limit}{scanned})"
        got = self.call(call, self.driver.explore, req)
        self.require(got.facet == facet, call, f"facet {facet.value} echoed", str(got.facet))
        wrong = explore_reading(
            exact_total=exact.total,
            exact_missing=exact.missing,
            exact_counts={b.value: b.count for b in exact.buckets},
            scan_limit=scan_limit,
            limit=limit,
            total=got.total,
            missing=got.missing,
            buckets=[(b.value, b.count) for b in got.buckets],
            more_buckets=got.more_buckets,
            truncated=got.truncated,
        )
        self.require(
            wrong is None,
            call,
            "the counts of every admitted item (or, stopped at scan_limit, of a part of them)",
            wrong,
        )

    @operation
    def declarations(self) -> None:
        """Between any two steps: the descriptor is the one read first, and the engine
        serves (ok or degraded, never down)."""
        call = "descriptor()"
        got = self.call(call, self.driver.descriptor)
        self.require(
            got == self.descriptor,
            call,
            f"the descriptor read first ({show(self.descriptor)})",
            show(got),
        )
        call = "health()"
        health = self.call(call, self.driver.health)
        self.require(health.is_serving(), call, "ok or degraded while serving", show(health))

    # -- malformed input ------------------------------------------------------------

    @operation
    def store_invalid(self, item: StoreItem) -> None:
        """Store a malformed item: `InvalidRequest`, and nothing written."""
        stamped = self._stamp(item)
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
        batch = [self._stamp(item) for item in items] * repeat
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
