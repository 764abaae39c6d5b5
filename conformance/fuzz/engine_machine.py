"""The hypothesis state machine that drives an `EngineDifferential`.

Every program starts with a bulk of tens of items and keeps growing in bulk, so
listings, fetches and explores run over stores of tens to hundreds of items. Queries
are drawn from the texts held; page sizes both small and large (a list step's page
size is raised when a small one would take more than `max_pages` pages, so a step's
driver calls stay bounded); explore limits small, so tied buckets are cut.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from conformance.engine import Facet, FetchMode, MetaFilter, Reach, StoreItem
from conformance.engine.limits import MAX_STORE_MANY
from conformance.fuzz.config import EngineFuzzConfig
from conformance.fuzz.engine_differential import EngineDifferential
from conformance.fuzz.engine_relatives import (
    FILTER_FIELDS,
    FILTER_RELATIONS_OF,
    ITEM_FIELDS,
    RELATIONS_OF,
    filter_relative,
)
from conformance.fuzz.queries import QUERY_WAYS, QueryWay, query_from
from conformance.fuzz.strategies import fetch_modes, invalid_engine_requests
from conformance.relatives import RELATIONS

__all__ = ["EngineMachine", "engine_state_machine"]

_SALTS = st.integers(0, 2**16)
_PICKS = st.integers(0, 2**16)

RELATIVE_CASES = ("store", "store", "list", "list", "get", "forget")
"""What a relative step does: store or list twice as often as it gets or forgets."""
ID_RELATIONS = tuple(RELATIONS)
"""How an id's relative is made."""


class EngineMachine(RuleBasedStateMachine):
    """Base of the engine machines: holds one differential per example."""

    def __init__(self, differential: EngineDifferential) -> None:
        super().__init__()
        self.d = differential

    def teardown(self) -> None:
        self.d.teardown()


def engine_state_machine(config: EngineFuzzConfig | None = None) -> type[EngineMachine]:
    """A `RuleBasedStateMachine` class over `EngineDifferential`, drawing from `config`.

    Instantiate it with a differential (a `FuzzSession` makes them):
    `run_state_machine_as_test(lambda: Machine(session.open()))`.
    """
    cfg = config if config is not None else EngineFuzzConfig()

    def has_items(machine: EngineMachine) -> bool:
        return bool(machine.d.stamped)

    class EngineFuzzMachine(EngineMachine):
        handles: Bundle[str] = Bundle("handles")

        @initialize(target=handles, count=cfg.initial_bulk, salt=_SALTS)
        def first_bulk(self, count: int, salt: int) -> Any:
            return multiple(*self.d.store_bulk(count, salt))

        @rule(target=handles, item=cfg.items)
        def store(self, item: StoreItem) -> str:
            return self.d.store(item)

        @rule(handle=handles)
        def replay(self, handle: str) -> None:
            self.d.replay(handle)

        @precondition(lambda machine: len(machine.d.expected) < cfg.max_items)
        @rule(target=handles, count=cfg.bulk_sizes, salt=_SALTS)
        def store_bulk(self, count: int, salt: int) -> Any:
            return multiple(*self.d.store_bulk(count, salt))

        @rule(target=handles, items=st.lists(cfg.items, min_size=1, max_size=cfg.max_batch))
        def store_many(self, items: list[StoreItem]) -> Any:
            return multiple(*self.d.store_many(items))

        @precondition(has_items)
        @rule(old=st.lists(handles, min_size=1, max_size=2), fresh=st.lists(cfg.items, max_size=2))
        def store_many_replays(self, old: list[str], fresh: list[StoreItem]) -> None:
            # Earlier items, new ones, and the first again: replays inside and across batches.
            held = self.d.stamped
            batch = [held[h] for h in old] + fresh + [held[old[0]]]
            self.d.store_many([_drawn(item) for item in batch][:MAX_STORE_MANY])

        @precondition(has_items)
        @rule(picked=st.lists(handles, max_size=3), ghosts=st.integers(0, 1))
        def forget_ids(self, picked: list[str], ghosts: int) -> None:
            self.d.forget_ids(picked, ghosts)

        @rule(filter=cfg.filters)
        def forget_filter(self, filter: MetaFilter) -> None:
            self.d.forget_filter(filter)

        @rule(filter=cfg.filters, limit=cfg.page_sizes)
        def list_items(self, filter: MetaFilter, limit: int) -> None:
            self.d.list_items(filter, self._bounded(filter, limit))

        @rule(filter=cfg.filters, limit=cfg.page_sizes)
        def list_more(self, filter: MetaFilter, limit: int) -> None:
            self.d.list_items(filter, self._bounded(filter, limit))

        def _bounded(self, filter: MetaFilter, limit: int) -> int:
            # Small pages over a large admitted set would cost a call per item or two.
            return max(limit, math.ceil(self.d.admitted_count(filter) / cfg.max_pages))

        @rule(
            mode=fetch_modes(),
            pick=_PICKS,
            way=st.sampled_from(QUERY_WAYS),
            free=cfg.queries,
            filter=cfg.filters,
            limit=cfg.page_sizes,
        )
        def fetch(
            self,
            mode: FetchMode,
            pick: int,
            way: QueryWay,
            free: str,
            filter: MetaFilter,
            limit: int,
        ) -> None:
            query = query_from(self.d.held_texts(), pick, way, free)
            self.d.fetch(mode, query, filter, self._bounded(filter, limit))

        # Unfiltered, in small pages: ranked reads that cross pages.
        @rule(mode=fetch_modes(), pick=_PICKS, free=cfg.queries, limit=st.integers(1, 3))
        def fetch_pages(self, mode: FetchMode, pick: int, free: str, limit: int) -> None:
            query = query_from(self.d.held_texts(), pick, "word", free)
            self.d.fetch(mode, query, MetaFilter(), self._bounded(MetaFilter(), limit))

        # Writes between the pages of one read: items stored, held ones forgotten.
        @precondition(has_items)
        @rule(
            filter=cfg.filters,
            limit=st.integers(1, 3),
            writes=st.lists(cfg.items | handles, min_size=1, max_size=cfg.max_batch),
        )
        def list_during_writes(
            self, filter: MetaFilter, limit: int, writes: list[StoreItem | str]
        ) -> None:
            self.d.list_during_writes(filter, self._bounded(filter, limit), writes)

        @precondition(has_items)
        @rule(
            mode=fetch_modes(),
            pick=_PICKS,
            free=cfg.queries,
            filter=cfg.filters,
            limit=st.integers(1, 3),
            writes=st.lists(cfg.items | handles, min_size=1, max_size=cfg.max_batch),
        )
        def fetch_during_writes(
            self,
            mode: FetchMode,
            pick: int,
            free: str,
            filter: MetaFilter,
            limit: int,
            writes: list[StoreItem | str],
        ) -> None:
            query = query_from(self.d.held_texts(), pick, "word", free)
            bounded = self._bounded(filter, limit)
            self.d.fetch_during_writes(mode, query, filter, bounded, writes)

        @rule(
            pick=_PICKS,
            way=st.sampled_from(QUERY_WAYS),
            free=cfg.queries,
            filter=cfg.filters,
            limit=cfg.limits,
        )
        def recall(
            self, pick: int, way: QueryWay, free: str, filter: MetaFilter, limit: int
        ) -> None:
            question = query_from(self.d.held_texts(), pick, way, free)
            self.d.recall(question, filter, limit)

        @precondition(has_items)
        @rule(
            picked=st.lists(handles, min_size=1, max_size=5),
            twice=st.booleans(),
            ghosts=st.integers(0, 1),
            reach=st.none() | cfg.reaches,
        )
        def get(self, picked: list[str], twice: bool, ghosts: int, reach: Reach | None) -> None:
            # The same id asked twice: the answer holds each item once.
            asked = [*picked, picked[0]] if twice else picked
            self.d.get(asked, ghosts, reach)

        @rule(
            facet=st.sampled_from(list(Facet)),
            filter=cfg.filters,
            limit=cfg.explore_limits,
            scan_limit=cfg.scan_limits,
        )
        def explore(self, facet: Facet, filter: MetaFilter, limit: int, scan_limit: int) -> None:
            self.d.explore(facet, filter, limit, scan_limit)

        # A relative of something held: the item with one field moved a little, a filter
        # naming such a value, an id one character off. One rule, one rule's share.
        @precondition(has_items)
        @rule(
            target=handles,
            case=st.sampled_from(RELATIVE_CASES),
            handle=handles,
            field=_PICKS,
            how=_PICKS,
            limit=cfg.page_sizes,
        )
        def relative(self, case: str, handle: str, field: int, how: int, limit: int) -> Any:
            if case == "store":
                name = ITEM_FIELDS[field % len(ITEM_FIELDS)]
                ways = RELATIONS_OF[name]
                stored = self.d.store_relative(handle, name, ways[how % len(ways)])
                return multiple() if stored is None else multiple(stored)
            if case == "list":
                name = FILTER_FIELDS[field % len(FILTER_FIELDS)]
                ways = FILTER_RELATIONS_OF[name]
                near = filter_relative(self.d.stamped[handle], name, ways[how % len(ways)])
                bounded = self._bounded(near, limit) if near is not None else limit
                self.d.list_relative(handle, name, ways[how % len(ways)], bounded)
            elif case == "get":
                self.d.get_relative(handle, ID_RELATIONS[how % len(ID_RELATIONS)])
            else:
                self.d.forget_relative(handle, ID_RELATIONS[how % len(ID_RELATIONS)])
            return multiple()

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
                st.tuples(st.just("declarations"), st.none()),
            )
        )
        def malformed(self, case: tuple[str, Any]) -> None:
            kind, arg = case
            if kind == "declarations":
                # Not malformed, but as rare: the descriptor and health between two steps.
                self.d.declarations()
            elif kind == "item":
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


def _drawn(item: StoreItem) -> StoreItem:
    """`item` as drawn: without the workspace the differential sets."""
    return item.model_copy(update={"meta": item.meta.model_copy(update={"workspace": None})})
