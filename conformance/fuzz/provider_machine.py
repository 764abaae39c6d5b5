"""The hypothesis state machine that drives a `ProviderDifferential`.

Every program starts with a bulk of entries in one namespace and keeps growing in
bulk, so listings, recalls and exports run over tens to hundreds of rows. Namespaces
and keys come from the near-miss pools; recall queries from the contents held; minimum
scores from the scores the driver has already answered for the same query (so hits
below the minimum occur and must be dropped); export page sizes small and large (raised
when a small one would take more than `max_pages` pages).
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

from conformance.fuzz import pools
from conformance.fuzz.config import ProviderFuzzConfig, near_miss_keys, near_miss_namespaces
from conformance.fuzz.document_differential import DELETE_WAYS
from conformance.fuzz.provider_differential import ProviderDifferential
from conformance.fuzz.queries import (
    QUERY_WAYS,
    SCORE_WAYS,
    QueryWay,
    ScoreWay,
    min_score_from,
    query_from,
)
from conformance.fuzz.strategies import taints
from conformance.provider import GLOBAL_NAMESPACE, MemoryCategory, MemoryTaint
from conformance.relatives import RELATIONS

__all__ = ["ProviderMachine", "provider_state_machine"]

_SALTS = st.integers(0, 2**16)
_PICKS = st.integers(0, 2**16)

RELATIVE_CASES = ("key-store", "key-get", "key-forget", "content", "namespace", "namespace-list")
"""What a relative step does: write, read or forget a key beside a held one; write a
content beside a held one; write to, or list, a namespace beside a held one."""

DOCUMENT_CASES = (
    *("put",) * 6,
    *("get",) * 4,
    *("list",) * 2,
    *("query",) * 3,
    *("delete",) * 4,
    "list_all",
    "namespaces",
    "recall",
    "clear",
)
"""What the documents rule does: a put one time in four (over a document held a third
of the time, near one another third), a get, list or query one time in two, a delete
one time in six, rarely a listing of everything, the namespaces, a recall or a clear."""

_DOCUMENT_ID_WAYS = (None, None, None, None, "pool", "pool", "reuse", "freed")
"""How a put names its id: none (the driver makes one), an explicit id of the pool, the
id of a document the namespace holds (another's: `Invalid`), or an id a delete or a
clear freed (given to another key, it may be the one a store would make for its own)."""


_DocumentFields = tuple[str, str, str, str, list[str], str, MemoryCategory, str | None, MemoryTaint]
"""A put's title, content, source type, priority, tags, metadata (JSON text), category,
session and taint."""


def _key_near(held: list[str], gone: list[str], pick: int, how: str, drawn: str) -> str:
    """A key held (`held`), one held cut short by its last character (`cut`: `k1` for
    `k10`, absent or not, its sibling present), one held once and deleted since (`gone`:
    a tombstone, or an id made from it, may still be in the store's way), or `drawn`."""
    if how == "gone" and gone:
        return gone[pick % len(gone)]
    if not held or how == "drawn":
        return drawn
    key = held[pick % len(held)]
    return key[:-1] if how == "cut" and len(key) > 1 else key


def _offers_documents(machine: ProviderMachine) -> bool:
    return machine.d.docs is not None


def _rarely(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`None` three times in four: a filter that is mostly off still finds rows."""
    return st.one_of(st.none(), st.none(), st.none(), values)


class ProviderMachine(RuleBasedStateMachine):
    """Base of the provider machines: holds one differential per example."""

    def __init__(self, differential: ProviderDifferential) -> None:
        super().__init__()
        self.d = differential

    def teardown(self) -> None:
        self.d.teardown()


def provider_state_machine(config: ProviderFuzzConfig | None = None) -> type[ProviderMachine]:
    """A `RuleBasedStateMachine` class over `ProviderDifferential`, drawing from `config`.

    Instantiate it with a differential (a `FuzzSession` makes them):
    `run_state_machine_as_test(lambda: Machine(session.open()))`.
    """
    cfg = config if config is not None else ProviderFuzzConfig()
    specs = cfg.namespaces if cfg.namespaces is not None else near_miss_namespaces()
    document_specs = (
        cfg.document_namespaces
        if cfg.document_namespaces is not None
        else st.sampled_from(pools.DOCUMENT_SPECS)
    )
    put_fields = st.tuples(
        cfg.titles,
        cfg.contents,
        st.sampled_from(pools.DOCUMENT_SOURCE_TYPES),
        st.sampled_from(pools.DOCUMENT_PRIORITIES),
        st.lists(st.sampled_from(pools.TAGS), max_size=3, unique=True),
        st.sampled_from(pools.DOCUMENT_METADATA),
        cfg.categories,
        cfg.session_ids,
        taints(),
    )
    hows = st.sampled_from(("held", "cut", "drawn", "gone"))
    keys = cfg.keys if cfg.keys is not None else near_miss_keys()
    edges = ["unsourced", "malformed", "invalid_namespace", "declarations"]
    if cfg.portability:
        edges += ["foreign_cursor", "export", "import", "export_during_writes"]

    class ProviderFuzzMachine(ProviderMachine):
        spaces: Bundle[str] = Bundle("spaces")

        @initialize(target=spaces, specs=st.lists(specs, min_size=1, max_size=3, unique=True))
        def first_spaces(self, specs: list[str]) -> Any:
            return multiple(*specs, *([GLOBAL_NAMESPACE] if cfg.use_global else []))

        # The bulk's namespace joins the bundle, so later steps forget, get and write
        # among its rows (`k1` beside `k10`, a key written a third time).
        @initialize(
            target=spaces, spec=specs, prefix=cfg.key_prefixes, count=cfg.initial_bulk, salt=_SALTS
        )
        def first_bulk(self, spec: str, prefix: str, count: int, salt: int) -> str:
            self.d.store_bulk(spec, prefix, count, salt)
            return spec

        # A write goes to a namespace held or a new one, which joins the bundle. One write
        # in five is a small bulk instead: every entry costs a `store` and, at teardown, a
        # `forget`, so the large stores come from the first bulk of each program.
        @rule(
            target=spaces,
            spec=spaces | specs,
            key=keys,
            content=cfg.contents,
            category=cfg.categories,
            session_id=cfg.session_ids,
            taint=taints(),
            bulk=st.one_of(*[st.none()] * 4, st.tuples(cfg.key_prefixes, cfg.bulk_sizes, _SALTS)),
            pick=_PICKS,
            held=st.booleans(),
        )
        def store(
            self,
            spec: str,
            key: str,
            content: str,
            category: MemoryCategory,
            session_id: str | None,
            taint: MemoryTaint,
            bulk: tuple[str, int, int] | None,
            pick: int,
            held: bool,
        ) -> str:
            if bulk is not None and self.d.row_count() < cfg.max_rows:
                self.d.store_bulk(spec, *bulk)
            else:
                # Half the time over a row held, so a key is written a second and a
                # third time.
                keys = self.d.held_keys(spec) if held else []
                key = keys[pick % len(keys)] if keys else key
                self.d.store(spec, key, content, category, session_id, taint)
            return spec

        @rule(spec=spaces, key=keys, pick=_PICKS, held=st.booleans())
        def get(self, spec: str, key: str, pick: int, held: bool) -> None:
            keys = self.d.held_keys(spec)
            self.d.get(spec, keys[pick % len(keys)] if held and keys else key)

        @rule(spec=spaces, key=keys, pick=_PICKS, held=st.booleans())
        def forget(self, spec: str, key: str, pick: int, held: bool) -> None:
            # Half the time a key the namespace holds (a bulk's `k10`, say), so forgets
            # land among prefix siblings.
            keys = self.d.held_keys(spec)
            self.d.forget(spec, keys[pick % len(keys)] if held and keys else key)

        @rule(
            spec=st.none() | spaces,
            category=_rarely(cfg.categories),
            session_id=_rarely(cfg.session_ids),
        )
        def list_entries(
            self, spec: str | None, category: MemoryCategory | None, session_id: str | None
        ) -> None:
            self.d.list_entries(spec, category, session_id)

        @rule()
        def namespaces(self) -> None:
            self.d.namespaces()

        # A relative of something held: a key, a namespace or a content one character,
        # one case or one normal form off. One rule, one rule's share of steps.
        @precondition(lambda _: cfg.relatives)
        @rule(
            target=spaces,
            case=st.sampled_from(RELATIVE_CASES),
            spec=spaces,
            pick=_PICKS,
            how=st.sampled_from(list(RELATIONS)),
            key=keys,
            content=cfg.contents,
            category=cfg.categories,
            taint=taints(),
        )
        def relative(
            self,
            case: str,
            spec: str,
            pick: int,
            how: str,
            key: str,
            content: str,
            category: MemoryCategory,
            taint: MemoryTaint,
        ) -> Any:
            if case.startswith("key"):
                near = self.d.relative_key(spec, pick, how)
                if near is None:
                    return multiple()
                if case == "key-store":
                    self.d.store(spec, near, content, category, None, taint)
                elif case == "key-get":
                    self.d.get(spec, near)
                else:
                    self.d.forget(spec, near)
                return multiple()
            if case == "content":
                text = self.d.relative_content(pick, how)
                if text is not None:
                    self.d.store(spec, key, text, category, None, taint)
                return multiple()
            beside = self.d.relative_spec(spec, how)
            if beside is None:
                return multiple()
            if case == "namespace-list":
                self.d.list_entries(beside, None, None)
                return multiple()
            self.d.store(beside, key, content, category, None, taint)
            return multiple(beside)

        @rule(
            spec=st.none() | spaces,
            pick=_PICKS,
            way=st.sampled_from(QUERY_WAYS),
            free=cfg.queries,
            limit=cfg.limits,
            category=_rarely(cfg.categories),
            session_id=_rarely(cfg.session_ids),
            blank=st.sampled_from(["", " ", None, None, None, None, None, None, None, None]),
        )
        def recall(
            self,
            spec: str | None,
            pick: int,
            way: QueryWay,
            free: str,
            limit: int,
            category: MemoryCategory | None,
            session_id: str | None,
            blank: str | None,
        ) -> None:
            # Now and then a blank query, which every reading answers with `[]`.
            query = (
                blank if blank is not None else query_from(self.d.held_contents(), pick, way, free)
            )
            self.d.recall(spec, query, limit, category, None, session_id)

        @rule(pick=_PICKS, way=st.sampled_from(SCORE_WAYS), limit=cfg.limits)
        def recall_above(self, pick: int, way: ScoreWay, limit: int) -> None:
            # An earlier recall again, with a minimum among the scores it answered.
            scored = [r for r in self.d.recalled if r[2]] or [(None, "alpha", [])]
            spec, query, scores = scored[pick % len(scored)]
            self.d.recall(
                spec, query, max(limit, len(scores)), None, min_score_from(scores, pick, way)
            )

        # The edge cases share one rule, so together they take one rule's share of steps.
        # The edge cases and the export share one rule, so together they take one rule's
        # share of steps (an export reads every row, and costs up to `max_pages` pages).
        @rule(
            case=st.sampled_from(edges),
            spec=spaces,
            bad=cfg.invalid_namespaces,
            pick=_PICKS,
            free=cfg.queries,
            page=cfg.export_pages,
            picks=st.lists(_PICKS, max_size=cfg.forgets_per_export),
        )
        def edge(
            self, case: str, spec: str, bad: str, pick: int, free: str, page: int, picks: list[int]
        ) -> None:
            if case == "export":
                # Exporting every row of `global` is not this run's to do; pick another.
                if spec != GLOBAL_NAMESPACE:
                    bounded = max(page, math.ceil(self.d.row_count() / cfg.max_pages))
                    self.d.export_import(spec, bounded, picks)
            elif case == "unsourced":
                self.d.recall_unsourced(
                    spec, query_from(self.d.held_contents(), pick, "word", free)
                )
            elif case == "malformed":
                self.d.recall_malformed(None if spec == GLOBAL_NAMESPACE else spec)
            elif case == "invalid_namespace":
                self.d.store_invalid_namespace(bad)
            elif case == "declarations":
                self.d.declarations()
            elif case == "export_during_writes":
                if spec != GLOBAL_NAMESPACE:
                    held = self.d.held_keys(spec)
                    writes: list[tuple[str, str, str | None]] = [
                        (spec, f"w{pick % 5}", free),
                        (spec, held[pick % len(held)] if held else "w0", None),
                        (spec, held[(pick // 7) % len(held)] if held else "w1", free),
                    ]
                    # One in four: the store shrinks to what the first page answered
                    # (one in eight: past it), the writes after the export.
                    emptied = pick % 8 == 7 if pick % 4 == 3 else None
                    bounded = max(1, math.ceil(self.d.row_count() / cfg.max_pages))
                    self.d.export_during_writes(min(page, bounded), writes[: 1 + pick % 3], emptied)
            elif case == "import":
                # Records the kit writes, two in three batches holding unwritable ones.
                if spec != GLOBAL_NAMESPACE:
                    self.d.import_mixed(spec, "i", 1 + pick % 8, pick, pick % 3)
            else:
                self.d.export_foreign_cursor()

        if cfg.documents:
            # A program starts with a bulk of documents (more than ten in most, so a
            # listing capped at ten shows); later puts are single (each costs a put and a
            # delete at teardown).
            document_spaces: Bundle[str] = Bundle("document_spaces")

            @initialize(
                target=document_spaces,
                spec=document_specs,
                prefix=cfg.key_prefixes,
                count=cfg.initial_documents,
                salt=_SALTS,
                second=document_specs,
                few=st.integers(2, 3),
            )
            def first_documents(
                self, spec: str, prefix: str, count: int, salt: int, second: str, few: int
            ) -> Any:
                # And a few in a second namespace when the first is its string prefix, or
                # it the first's (the pool is small), so reads that match by prefix show.
                if self.d.docs is None:
                    return multiple(spec)
                self.d.put_documents(spec, prefix, count, salt)
                if not self.d.prefix_siblings(spec, second):
                    return multiple(spec)
                self.d.put_documents(second, prefix, few, salt + 1)
                return multiple(spec, second)

            # One rule, so documents take one rule's share of steps, whatever they cost.
            # Each case draws only what it uses (`data`): a program that draws too much is
            # cut short by hypothesis and run again, calls and all.
            @precondition(_offers_documents)
            @rule(
                target=document_spaces,
                case=st.sampled_from(DOCUMENT_CASES),
                spec=document_spaces,
                pick=_PICKS,
                data=st.data(),
            )
            def documents(self, case: str, spec: str, pick: int, data: st.DataObject) -> str:
                if case == "put":
                    self._put_document(spec, pick, data)
                    return spec
                # Half the time a list or query reads a namespace beside a longer one; a
                # get or delete in a namespace left empty reads one holding documents.
                prefixes = self.d.prefix_document_specs()
                holding = self.d.holding_document_specs()
                near: str | None = None
                if case in ("list", "query") and prefixes and data.draw(st.booleans()):
                    spec = near = prefixes[pick % len(prefixes)]
                elif case in ("get", "delete") and holding and not self.d.held_document_keys(spec):
                    spec = holding[pick % len(holding)]
                if case == "get":
                    held = self.d.held_document_keys(spec)
                    gone = self.d.gone_document_keys(spec)
                    key = _key_near(held, gone, pick, data.draw(hows), data.draw(keys))
                    self.d.get_document(spec, key)
                elif case in ("list", "list_all"):
                    self.d.list_documents(spec if case == "list" else None)
                elif case == "namespaces":
                    self.d.list_document_namespaces()
                elif case == "query":
                    # Beside a longer namespace, a text held there: a hit from it shows.
                    texts = self.d.held_document_texts(near)
                    way = data.draw(st.sampled_from(QUERY_WAYS))
                    query = query_from(texts, pick, way, data.draw(cfg.queries))
                    self.d.query_documents(spec, query, data.draw(cfg.limits))
                elif case == "recall":
                    self.d.recall_documents(spec, data.draw(cfg.limits))
                elif case == "delete":
                    way = data.draw(st.sampled_from(DELETE_WAYS))
                    name = data.draw(st.sampled_from(pools.DOCUMENT_IDS))
                    self.d.delete_document(spec, way, pick, name)
                else:
                    self.d.clear_documents(spec)
                return spec

            def _put_document(self: ProviderFuzzMachine, spec: str, pick: int, data: Any) -> None:
                """A put to a namespace held or (half the time) a new one, which joins the
                bundle; a reused id goes where documents are held, so it names another's."""
                id_way = data.draw(st.sampled_from(_DOCUMENT_ID_WAYS))
                holding = self.d.holding_document_specs()
                freeing = self.d.freeing_document_specs()
                if id_way == "reuse" and holding:
                    spec = holding[pick % len(holding)]
                elif id_way == "freed" and freeing:
                    spec = freeing[pick % len(freeing)]
                else:
                    spec = data.draw(st.one_of(st.none(), document_specs)) or spec
                held = self.d.held_document_keys(spec)
                gone = self.d.gone_document_keys(spec)
                key = _key_near(held, gone, pick, data.draw(hows), data.draw(keys))
                fields: _DocumentFields = data.draw(put_fields)
                # A reused id is the next held document's: another's when two are held.
                chosen: str | int | None = None
                if id_way == "pool":
                    chosen = data.draw(st.sampled_from(pools.DOCUMENT_IDS))
                elif id_way == "reuse":
                    chosen = pick + 1
                elif id_way == "freed":
                    chosen = -(pick + 1)
                self.d.put_document(spec, key, *fields, chosen)

        @invariant()
        def agrees_with_oracle(self) -> None:
            self.d.verify()

    return ProviderFuzzMachine
