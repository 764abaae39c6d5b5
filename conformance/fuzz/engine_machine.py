"""The engine profile's differential and the hypothesis machine that drives it.

``EngineDifferential`` stores, replays, lists, fetches, recalls, gets, explores and
forgets on the engine under test and on an oracle (``ReferenceEngine``, or
``NullEngine`` for an engine that retains nothing) and compares only what the
contract pins (contract-reference B2, B6-B8; decisions §4.2):

- ids are opaque: the driver's id for an item is mapped to the oracle's
  (the fingerprint) when first stored, and a replay must answer that same id;
- replay flags and forget counts must equal the oracle's;
- listing order is free, but following cursors must visit every admitted item
  exactly once; every listed or fetched hit must carry the item's kind, text, meta
  and confidence;
- fetch scores are the engine's own: every hit must be an item the filter admits
  (no fetch set is required, since admission is pinned only by the reference's
  own scoring); an undeclared mode must be ``Unsupported``;
- ``get`` answers exactly the oracle's items in the order asked; ``explore``
  counts equal the oracle's; recall citations resolve, by kind, to admitted items;
- malformed items and requests are refused with ``InvalidRequest`` and leave the
  listing as it was.

Every item carries ``meta.workspace = <run root>`` and every read and forget names
that workspace, so the machine never sees or touches another run's data; it never
sends an empty forget filter. Teardown forgets by the workspace.
"""

from __future__ import annotations

import builtins
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final

from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    multiple,
    precondition,
    rule,
)

from conformance.bridge import as_sync
from conformance.checks.context import CheckContext
from conformance.checks.engine_support import engine_retains_writes, pages
from conformance.engine import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetFilter,
    ForgetIds,
    GetRequest,
    Hit,
    InvalidRequest,
    ListRequest,
    MetaFilter,
    Reach,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    Unsupported,
    to_f32,
    to_wire,
)
from conformance.engine.limits import MAX_BUCKETS, MAX_STORE_MANY
from conformance.fuzz.config import EngineFuzzConfig
from conformance.fuzz.differential import Differential, FuzzStats, operation
from conformance.fuzz.steps import FailureSink
from conformance.fuzz.strategies import fetch_modes, invalid_engine_requests

__all__ = [
    "ENGINE_TARGET",
    "EngineDifferential",
    "EngineMachine",
    "engine_oracle",
    "engine_state_machine",
]

ENGINE_TARGET: Final = "fuzz.engine.differential"
"""The check id of the engine differential."""

_ORACLE_PAGE: Final = 1_000_000
"""The oracle is read in one page: it holds only this run's items."""

MAX_PAGES: Final = 1000
"""Pages after which a read that still hands out cursors is judged never to end."""


def engine_oracle(retains: bool) -> Any:
    """The oracle for an engine: the reference engine, or an empty store (the null
    engine) for an engine the retention probe finds keeps nothing (decisions §4.8)."""
    if retains:
        from reference_driver.engine import ReferenceEngine

        return ReferenceEngine()
    from null_driver.engine import NullEngine

    return NullEngine()


def _show(filter: MetaFilter) -> str:
    # The workspace is always the run root, so leave it out of messages.
    shown = to_wire(filter)
    shown.pop("workspace", None)
    return ", ".join(f"{key}={value}" for key, value in shown.items()) or "{}"


def _f32(value: float | None) -> float | None:
    return None if value is None else to_f32(value)


class EngineDifferential(Differential):
    """The engine under test beside an oracle; every method is one step."""

    check_id = ENGINE_TARGET

    def __init__(
        self,
        driver: Any,
        oracle: Any,
        *,
        retains: bool,
        list_page: int = 2,
        ctx: CheckContext | None = None,
        sink: FailureSink | None = None,
        stats: FuzzStats | None = None,
    ) -> None:
        super().__init__(driver, oracle, retains=retains, ctx=ctx, sink=sink, stats=stats)
        self.list_page = list_page
        self.modes: builtins.list[FetchMode] = builtins.list(
            self.guarded(lambda: self.call("descriptor()", self.driver.descriptor).fetch_modes)
        )
        self.items: builtins.list[StoreItem] = []
        """Items as drawn (no workspace), by handle: the step log names items by handle."""
        self.stamped: builtins.list[StoreItem] = []
        self.fps: builtins.list[str] = []
        self.handle_by_fp: dict[str, int] = {}
        self.driver_id: dict[str, str] = {}
        """The driver's latest id for each fingerprint (held or forgotten since)."""
        self.fp_by_driver_id: dict[str, str] = {}
        self.expected: dict[str, Hit] = {}
        """The oracle's hit for every item it holds, by fingerprint."""
        self._ghosts = itertools.count()
        self.scope = MetaFilter(workspace=self.root)

    @classmethod
    def for_driver(cls, driver: Any, *, list_page: int = 2) -> EngineDifferential:
        """A differential for a regression test: probes retention as the fuzzer does."""
        sync = as_sync(driver)
        retains = engine_retains_writes(sync)
        return cls(sync, engine_oracle(retains), retains=retains, list_page=list_page)

    # -- helpers --------------------------------------------------------------------

    def _handle(self, item: StoreItem) -> int:
        stamped = item.model_copy(
            update={"meta": item.meta.model_copy(update={"workspace": self.root})}
        )
        fp = stamped.fingerprint()
        if fp in self.handle_by_fp:
            return self.handle_by_fp[fp]
        handle = len(self.items)
        self.items.append(item)
        self.stamped.append(stamped)
        self.fps.append(fp)
        self.handle_by_fp[fp] = handle
        return handle

    def _scoped(self, filter: MetaFilter) -> MetaFilter:
        return filter.model_copy(update={"workspace": self.root})

    def _name(self, fp: str) -> str:
        handle = self.handle_by_fp.get(fp)
        return f"item#{handle}" if handle is not None else f"id {fp!r}"

    def _ghost(self) -> str:
        return f"{self.marker}-missing-{next(self._ghosts)}"

    def _refresh(self) -> None:
        page = self.oracle.list(ListRequest(filter=self.scope, limit=_ORACLE_PAGE))
        self.expected = {hit.id: hit for hit in page.items}

    def _admitted(self, filter: MetaFilter) -> set[str]:
        page = self.oracle.list(ListRequest(filter=filter, limit=_ORACLE_PAGE))
        return {hit.id for hit in page.items}

    def _fp_of(self, call: str, driver_id: str) -> str:
        fp = self.fp_by_driver_id.get(driver_id)
        if fp is None or fp not in self.expected or self.driver_id.get(fp) != driver_id:
            self.fail(
                call,
                "only ids of items this run holds",
                f"the id {driver_id!r}, which names no held item",
            )
        return fp

    def _ids(
        self, handles: Sequence[int], ghosts: int
    ) -> tuple[builtins.list[str], builtins.list[str]]:
        """The ids to send the driver and the oracle for `handles`, then `ghosts` unknown ids.

        A held item goes by its ids on both sides; anything else as an id no one issued.
        Never the old id of a forgotten item: an engine may give it to another writer's
        item, which a forget must not touch and a read must not be blamed for finding.
        """
        to_driver: builtins.list[str] = []
        to_oracle: builtins.list[str] = []
        for handle in dict.fromkeys(handles):
            fp = self.fps[handle]
            held = self.driver_id.get(fp) if fp in self.expected else None
            if held is not None:
                to_driver.append(held)
                to_oracle.append(fp)
            else:
                ghost = self._ghost()
                to_driver.append(ghost)
                to_oracle.append(ghost)
        for _ in range(ghosts):
            ghost = self._ghost()
            to_driver.append(ghost)
            to_oracle.append(ghost)
        return to_driver, to_oracle

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
                got.id,
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
                f"{self._name(fp)} as {want.kind.value} {want.text!r}",
                f"{hit.kind} {hit.text!r}",
            )
        if hit.meta != want.meta:
            self.fail(
                call, f"{self._name(fp)} with meta {to_wire(want.meta)}", str(to_wire(hit.meta))
            )
        if _f32(hit.confidence) != _f32(want.confidence):
            self.fail(
                call, f"{self._name(fp)} with confidence {want.confidence}", repr(hit.confidence)
            )
        if listing and hit.score != 0.0:
            self.fail(call, f"score 0.0 on listed {self._name(fp)}", repr(hit.score))

    def _same_items(self, call: str, hits: builtins.list[Hit], want: set[str]) -> None:
        counts: Counter[str] = Counter()
        for hit in hits:
            fp = self._fp_of(call, hit.id)
            counts[fp] += 1
            if counts[fp] > 1:
                self.fail(call, "each item exactly once", f"{self._name(fp)} twice")
            if fp not in want:
                self.fail(call, "only items the filter admits", self._name(fp))
            self._same_hit(call, fp, hit, listing=True)
        if len(counts) != len(want):
            missing = sorted(self._name(fp) for fp in want - counts.keys())
            self.fail(call, "every item the filter admits", f"{', '.join(missing)} missing")

    def _pages(
        self,
        what: str,
        limit: int,
        read: Callable[[str | None], tuple[builtins.list[Hit], str | None]],
    ) -> builtins.list[Hit]:
        return pages(self, what, limit, read)

    def _list_driver(self, filter: MetaFilter, limit: int) -> builtins.list[Hit]:
        what = f"list({_show(filter)})"

        def read(cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            req = ListRequest(filter=filter, limit=limit, cursor=cursor)
            page = self.call(f"{what} (limit {limit}, cursor {cursor!r})", self.driver.list, req)
            return page.items, page.next_cursor

        return self._pages(what, limit, read)

    def _listing(self) -> Counter[str]:
        return Counter(hit.id for hit in self._list_driver(self.scope, _ORACLE_PAGE))

    def _refused(
        self,
        call: str,
        fn: Callable[..., Any],
        arg: Any,
        expect: tuple[type[Exception], ...],
        expected: str,
    ) -> None:
        """`fn(arg)` must raise one of `expect` and leave the listing as it was."""
        before = self._listing()
        result, error = self.attempt(call, fn, arg)
        if error is None:
            self.fail(call, expected, f"success (a {type(result).__name__})")
        self.require(
            isinstance(error, expect), call, expected, f"{type(error).__qualname__}: {error}"
        )
        after = self._listing()
        self.require(
            after == before,
            call,
            "the listing unchanged by a refused call",
            f"{len(before)} items before, {len(after)} after",
        )

    # -- operations -----------------------------------------------------------------

    @operation
    def store(self, item: StoreItem) -> int:
        """Store `item` (in the run's workspace); answer its handle."""
        handle = self._handle(item)
        fp, stamped = self.fps[handle], self.stamped[handle]
        want = self.oracle.store(stamped)
        call = f"store(item#{handle})"
        got = self.call(call, self.driver.store, stamped)
        self._receipt(call, fp, want, got)
        self._refresh()
        return handle

    @operation
    def replay(self, handle: int) -> None:
        """Store the item of `handle` again."""
        fp, stamped = self.fps[handle], self.stamped[handle]
        want = self.oracle.store(stamped)
        call = f"store(item#{handle}) again"
        got = self.call(call, self.driver.store, stamped)
        self._receipt(call, fp, want, got)
        self._refresh()

    @operation
    def store_many(self, items: builtins.list[StoreItem]) -> builtins.list[int]:
        """Store `items` in one batch; answer their handles. Receipts come in item order."""
        handles = [self._handle(item) for item in items]
        stamped = [self.stamped[h] for h in handles]
        want = self.oracle.store_many(stamped)
        call = f"store_many([{', '.join(f'item#{h}' for h in handles)}])"
        got = self.call(call, self.driver.store_many, stamped)
        self.require(len(got) == len(want), call, f"{len(want)} receipts", len(got))
        for handle, one_want, one_got in zip(handles, want, got, strict=True):
            self._receipt(call, self.fps[handle], one_want, one_got)
        self._refresh()
        return handles

    @operation
    def forget_ids(self, handles: builtins.list[int], ghosts: int) -> None:
        """Forget the items of `handles` and `ghosts` ids no one issued; counts must agree."""
        to_driver, to_oracle = self._ids(handles, ghosts)
        if not to_driver:
            ghost = self._ghost()
            to_driver, to_oracle = [ghost], [ghost]
        want = self.oracle.forget(ForgetIds(ids=to_oracle))
        shown = [f"item#{h}" for h in dict.fromkeys(handles)] + ["<unknown>"] * ghosts
        call = f"forget(ids=[{', '.join(shown)}])"
        got = self.call(call, self.driver.forget, ForgetIds(ids=to_driver))
        self.require(
            got.forgotten == want.forgotten,
            call,
            f"forgotten={want.forgotten}",
            f"forgotten={got.forgotten}",
        )
        self._refresh()

    @operation
    def forget_filter(self, filter: MetaFilter) -> None:
        """Forget what `filter` (within the run's workspace) admits; counts must agree."""
        scoped = self._scoped(filter)
        want = self.oracle.forget(ForgetFilter(filter=scoped))
        call = f"forget(filter={_show(scoped)})"
        got = self.call(call, self.driver.forget, ForgetFilter(filter=scoped))
        self.require(
            got.forgotten == want.forgotten,
            call,
            f"forgotten={want.forgotten}",
            f"forgotten={got.forgotten}",
        )
        self._refresh()

    @operation
    def list_items(self, filter: MetaFilter, limit: int) -> None:
        """List what `filter` admits, `limit` at a time: each admitted item exactly once."""
        scoped = self._scoped(filter)
        hits = self._list_driver(scoped, limit)
        self._same_items(f"list({_show(scoped)}, limit {limit})", hits, self._admitted(scoped))

    @operation
    def fetch(self, mode: FetchMode, query: str, filter: MetaFilter, limit: int) -> None:
        """Fetch in `mode`: an undeclared mode is `Unsupported`; a declared one answers only
        admitted items, with their contents, in pages of at most `limit`."""
        scoped = self._scoped(filter)
        what = f"fetch({query!r}, {mode.value}, {_show(scoped)})"
        if mode not in self.modes:
            req = FetchRequest(query=query, mode=mode, filter=scoped, limit=limit)
            result, error = self.attempt(what, self.driver.fetch, req)
            self.require(
                isinstance(error, Unsupported),
                what,
                f"Unsupported (the engine does not declare {mode.value})",
                f"success ({result!r})"
                if error is None
                else f"{type(error).__qualname__}: {error}",
            )
            return
        admitted = self._admitted(scoped)

        def read(cursor: str | None) -> tuple[builtins.list[Hit], str | None]:
            req = FetchRequest(query=query, mode=mode, filter=scoped, limit=limit, cursor=cursor)
            page = self.call(f"{what} (limit {limit}, cursor {cursor!r})", self.driver.fetch, req)
            return page.hits, page.next_cursor

        for hit in self._pages(what, limit, read):
            fp = self._fp_of(what, hit.id)
            self.require(fp in admitted, what, "only items the filter admits", self._name(fp))
            self._same_hit(what, fp, hit, listing=False)

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
            len(answer.citations),
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
                citation.kind,
            )

    @operation
    def get(self, handles: builtins.list[int], ghosts: int, reach: Reach | None) -> None:
        """Get by id: exactly the oracle's items, in the order asked, with their contents."""
        to_driver, to_oracle = self._ids(handles, ghosts)
        if not to_driver:
            return
        want = [hit.id for hit in self.oracle.get(GetRequest(ids=to_oracle, reach=reach))]
        shown = [f"item#{h}" for h in dict.fromkeys(handles)] + ["<unknown>"] * ghosts
        where = "" if reach is None else f", reach={to_wire(reach)}"
        call = f"get([{', '.join(shown)}]{where})"
        hits = self.call(call, self.driver.get, GetRequest(ids=to_driver, reach=reach))
        got = [self._fp_of(call, hit.id) for hit in hits]
        self.require(
            got == want,
            call,
            f"[{', '.join(map(self._name, want))}] in that order",
            f"[{', '.join(map(self._name, got))}]",
        )
        for fp, hit in zip(got, hits, strict=True):
            self._same_hit(call, fp, hit, listing=False)

    @operation
    def explore(self, facet: Facet, filter: MetaFilter) -> None:
        """Explore one facet: totals, missing and bucket counts equal the oracle's."""
        scoped = self._scoped(filter)
        req = ExploreRequest(facet=facet, filter=scoped, limit=MAX_BUCKETS)
        want = self.oracle.explore(req)
        call = f"explore({facet.value}, {_show(scoped)})"
        got = self.call(call, self.driver.explore, req)
        self.require(got.facet == facet, call, f"facet {facet.value} echoed", got.facet)
        for name in ("total", "missing", "more_buckets", "truncated"):
            self.require(
                getattr(got, name) == getattr(want, name),
                call,
                f"{name}={getattr(want, name)}",
                f"{name}={getattr(got, name)}",
            )
        mine = sorted((b.value, b.count) for b in got.buckets)
        theirs = sorted((b.value, b.count) for b in want.buckets)
        self.require(mine == theirs, call, f"buckets {theirs}", mine)
        counts = [b.count for b in got.buckets]
        self.require(counts == sorted(counts, reverse=True), call, "largest buckets first", counts)

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
        """List the run's workspace, `list_page` at a time: exactly the oracle's items."""
        self.last_call = "verify"
        hits = self._list_driver(self.scope, self.list_page)
        self._same_items(f"list(run workspace, limit {self.list_page})", hits, set(self.expected))

    def cleanup(self) -> builtins.list[str]:
        """Forget by the run's workspace; describe any survivor."""
        self.call(
            "forget(filter=run workspace)", self.driver.forget, ForgetFilter(filter=self.scope)
        )
        left = self._list_driver(self.scope, _ORACLE_PAGE)
        return [f"{len(left)} items survived a forget by the run's workspace"] if left else []


class EngineMachine(RuleBasedStateMachine):
    """Base of the engine machines: holds one differential per example."""

    def __init__(self, differential: EngineDifferential) -> None:
        super().__init__()
        self.d = differential

    def teardown(self) -> None:
        self.d.teardown()


def engine_state_machine(config: EngineFuzzConfig | None = None) -> type[EngineMachine]:
    """A `RuleBasedStateMachine` class over `EngineDifferential`, drawing from `config`.

    Instantiate it with a differential: `run_state_machine_as_test(lambda:
    Machine(EngineDifferential(engine, ReferenceEngine(), retains=True)))`.
    """
    cfg = config if config is not None else EngineFuzzConfig()

    def has_items(machine: EngineMachine) -> bool:
        return bool(machine.d.items)

    class EngineFuzzMachine(EngineMachine):
        handles: Bundle[int] = Bundle("handles")

        @rule(target=handles, item=cfg.items)
        def store(self, item: StoreItem) -> int:
            return self.d.store(item)

        # A second write rule: see `provider_state_machine` (swarm testing turns rules off).
        @rule(target=handles, item=cfg.items)
        def store_more(self, item: StoreItem) -> int:
            return self.d.store(item)

        @rule(handle=handles)
        def replay(self, handle: int) -> None:
            self.d.replay(handle)

        @rule(target=handles, items=st.lists(cfg.items, min_size=1, max_size=cfg.max_batch))
        def store_many(self, items: list[StoreItem]) -> Any:
            return multiple(*self.d.store_many(items))

        @precondition(has_items)
        @rule(old=st.lists(handles, min_size=1, max_size=2), fresh=st.lists(cfg.items, max_size=2))
        def store_many_replays(self, old: list[int], fresh: list[StoreItem]) -> None:
            # Earlier items, new ones, and the first again: replays inside and across batches.
            batch = [self.d.items[h] for h in old] + fresh + [self.d.items[old[0]]]
            self.d.store_many(batch)

        @precondition(has_items)
        @rule(picked=st.lists(handles, max_size=3), ghosts=st.integers(0, 1))
        def forget_ids(self, picked: list[int], ghosts: int) -> None:
            self.d.forget_ids(picked, ghosts)

        @rule(filter=cfg.filters)
        def forget_filter(self, filter: MetaFilter) -> None:
            self.d.forget_filter(filter)

        @rule(filter=cfg.filters, limit=cfg.page_sizes)
        def list_items(self, filter: MetaFilter, limit: int) -> None:
            self.d.list_items(filter, limit)

        @rule(mode=fetch_modes(), query=cfg.queries, filter=cfg.filters, limit=cfg.limits)
        def fetch(self, mode: FetchMode, query: str, filter: MetaFilter, limit: int) -> None:
            self.d.fetch(mode, query, filter, limit)

        @rule(question=cfg.queries, filter=cfg.filters, limit=cfg.limits)
        def recall(self, question: str, filter: MetaFilter, limit: int) -> None:
            self.d.recall(question, filter, limit)

        @precondition(has_items)
        @rule(
            picked=st.lists(handles, max_size=4),
            ghosts=st.integers(0, 1),
            reach=st.none() | cfg.reaches,
        )
        def get(self, picked: list[int], ghosts: int, reach: Reach | None) -> None:
            self.d.get(picked, ghosts, reach)

        @rule(facet=st.sampled_from(list(Facet)), filter=cfg.filters)
        def explore(self, facet: Facet, filter: MetaFilter) -> None:
            self.d.explore(facet, filter)

        # The malformed inputs share one rule, so together they take one rule's share;
        # each case draws only its own arguments.
        @rule(
            case=st.one_of(
                st.tuples(st.just("item"), cfg.invalid_items),
                st.tuples(st.just("request"), invalid_engine_requests()),
                st.tuples(
                    st.just("batch"),
                    st.tuples(
                        st.lists(cfg.items, max_size=2), cfg.invalid_items, st.integers(0, 2)
                    ),
                ),
                st.tuples(st.just("too_many"), st.lists(cfg.items, max_size=1)),
            )
        )
        def malformed(self, case: tuple[str, Any]) -> None:
            kind, arg = case
            if kind == "item":
                self.d.store_invalid(arg)
            elif kind == "request":
                self.d.refuse(arg.op, arg.request)
            elif kind == "batch":
                valid, bad, at = arg
                self.d.store_many_invalid([*valid[:at], bad, *valid[at:]])
            elif arg:
                self.d.store_many_invalid(arg, MAX_STORE_MANY + 1)
            else:
                self.d.store_many_invalid([])

        @invariant()
        def agrees_with_oracle(self) -> None:
            self.d.verify()

    return EngineFuzzMachine
