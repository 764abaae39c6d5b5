"""The provider profile's differential and the hypothesis machine that drives it.

``ProviderDifferential`` stores (upserts), gets, forgets, lists, recalls, exports and
imports on the provider under test and on an oracle (``ReferenceProvider``, or
``NullProvider`` for a provider that retains nothing) and compares what the contract
pins (contract-reference A1, A4, A6, A7; decisions §4.1):

- ``get`` and ``list`` answer the same rows (as multisets, so a duplicate shows):
  key, content, namespace, category, session and taint; ``forget`` the same booleans;
- ``namespaces()``, restricted to the machine's namespaces, the same counts; each
  namespace reported once and exactly as written (its section preserved);
- ``list(None)`` holds every row the machine wrote (decisions §4.1);
- ``recall`` answers at most ``limit`` rows, all from the namespace asked, each a
  current row (content included) matching the category and minimum score; with no
  namespace, only ``global`` rows;
- an export, forgotten and imported back, restores the rows with their taint;
- a write may be refused, but only with ``Invalid``, and then nothing is stored.

Every namespace the machine writes lies under its run root, except ``global``, where
every key carries the run marker and every read is filtered by it. Teardown forgets
every key written. Nothing is ever cleared wholesale.
"""

from __future__ import annotations

import builtins
from collections import Counter
from typing import Any, Final, TypeVar

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, multiple, rule

from conformance.bridge import as_sync
from conformance.checks.context import CheckContext
from conformance.checks.provider_support import provider_retains_writes
from conformance.fuzz.config import ROOT_PLACEHOLDER, ProviderFuzzConfig
from conformance.fuzz.differential import Differential, FuzzConfigError, FuzzStats, operation
from conformance.fuzz.steps import FailureSink
from conformance.fuzz.strategies import BAD_CURSOR, taints
from conformance.provider import (
    GLOBAL_NAMESPACE,
    ExportRecord,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)

__all__ = [
    "PROVIDER_TARGET",
    "ProviderDifferential",
    "ProviderMachine",
    "provider_oracle",
    "provider_state_machine",
]

PROVIDER_TARGET: Final = "fuzz.provider.differential"
"""The check id of the provider differential."""

MAX_PAGES: Final = 10_000
"""Export pages after which an export that still hands out cursors is judged never to end."""

T = TypeVar("T")

Row = tuple[str | None, str, str, str, str | None, str]
"""What the contract pins of an entry: namespace, key, content, category, session, taint."""


def provider_oracle(retains: bool) -> Any:
    """The oracle for a provider: the reference provider, or an empty store (the null
    provider) for a provider the retention probe finds keeps nothing (decisions §4.8)."""
    if retains:
        from reference_driver.provider import ReferenceProvider

        return ReferenceProvider()
    from null_driver.provider import NullProvider

    return NullProvider()


def _row(entry: MemoryEntry) -> Row:
    return (
        entry.namespace,
        entry.key,
        entry.content,
        str(entry.category),
        entry.session_id,
        MemoryTaint(entry.taint).value,
    )


def _rows(entries: builtins.list[MemoryEntry]) -> Counter[Row]:
    return Counter(_row(entry) for entry in entries)


class ProviderDifferential(Differential):
    """The provider under test beside an oracle; every method is one step.

    Namespaces are passed as specs: `~` stands for the run root (`learning:~/a`), and
    `global` is the global namespace, where keys are written with the marker in front.
    """

    check_id = PROVIDER_TARGET

    def __init__(
        self,
        driver: Any,
        oracle: Any,
        *,
        retains: bool,
        export_page: int = 16,
        ctx: CheckContext | None = None,
        sink: FailureSink | None = None,
        stats: FuzzStats | None = None,
    ) -> None:
        super().__init__(driver, oracle, retains=retains, ctx=ctx, sink=sink, stats=stats)
        self.export_limit = export_page
        self.spaces: set[str] = set()
        """Every namespace written under the root (`global` not included)."""
        self.used_global = False
        self.written: set[tuple[str, str]] = set()
        """Every (namespace, key) a store was sent for: what teardown forgets."""

    @classmethod
    def for_driver(cls, driver: Any, *, export_page: int = 16) -> ProviderDifferential:
        """A differential for a regression test: probes retention as the fuzzer does."""
        sync = as_sync(driver)
        retains = provider_retains_writes(sync)
        return cls(sync, provider_oracle(retains), retains=retains, export_page=export_page)

    # -- names ----------------------------------------------------------------------

    def namespace(self, spec: str) -> str:
        """The namespace a spec names; a spec must hold the root placeholder (or be
        `global`, or empty), so that no write leaves the run root."""
        if ROOT_PLACEHOLDER not in spec and spec not in (GLOBAL_NAMESPACE, ""):
            raise FuzzConfigError(
                f"namespace spec {spec!r} does not contain {ROOT_PLACEHOLDER!r}, the run root"
            )
        return spec.replace(ROOT_PLACEHOLDER, self.root)

    def key(self, namespace: str, key: str) -> str:
        """The key as written: marked in `global`, as given elsewhere."""
        return f"{self.marker}-{key}" if namespace == GLOBAL_NAMESPACE else key

    def _ours(self, namespace: str | None, key: str) -> bool:
        if namespace == GLOBAL_NAMESPACE:
            return key.startswith(f"{self.marker}-")
        return namespace in self.spaces

    def _address(self, spec: str, key: str) -> tuple[str, str]:
        namespace = self.namespace(spec)
        return namespace, self.key(namespace, key)

    # -- comparisons ----------------------------------------------------------------

    def _same_rows(
        self, call: str, got: builtins.list[MemoryEntry], want: builtins.list[MemoryEntry]
    ) -> None:
        mine, theirs = _rows(got), _rows(want)
        if mine == theirs:
            return
        extra = sorted(map(repr, (mine - theirs).elements()))
        missing = sorted(map(repr, (theirs - mine).elements()))
        self.fail(
            call,
            f"the rows [{', '.join(sorted(map(repr, theirs.elements())))}]",
            f"the rows [{', '.join(sorted(map(repr, mine.elements())))}]"
            f" (extra: {', '.join(extra) or 'none'}; missing: {', '.join(missing) or 'none'})",
        )

    def _driver_rows(self, namespace: str) -> builtins.list[MemoryEntry]:
        rows = self.call(
            f"list({namespace!r}, None, None)", self.driver.list, namespace, None, None
        )
        if namespace == GLOBAL_NAMESPACE:
            return [row for row in rows if self._ours(row.namespace, row.key)]
        return builtins.list(rows)

    # -- operations -----------------------------------------------------------------

    @operation
    def store(
        self,
        spec: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """Store (upsert) one entry. A refusal must be `Invalid` and store nothing."""
        namespace, written = self._address(spec, key)
        if namespace == GLOBAL_NAMESPACE:
            self.used_global = True
        else:
            self.spaces.add(namespace)
        self.written.add((namespace, written))
        call = (
            f"store({namespace!r}, {written!r}, {content!r}, {category}, {session_id!r}, "
            f"{taint.value})"
        )
        _, error = self.attempt(
            call, self.driver.store, namespace, written, content, category, session_id, taint
        )
        if error is None:
            self.oracle.store(namespace, written, content, category, session_id, taint)
            return
        self.require(
            isinstance(error, Invalid),
            call,
            "success, or Invalid (the only error for input a driver rejects)",
            f"{type(error).__qualname__}: {error}",
        )
        # Refused: whatever was there before must still be there, unchanged.
        before = self.oracle.get(namespace, written)
        after = self.call(f"get({namespace!r}, {written!r})", self.driver.get, namespace, written)
        self.require(
            (None if after is None else _row(after)) == (None if before is None else _row(before)),
            call,
            f"a refused write to store nothing (the entry {before!r} unchanged)",
            after,
        )

    @operation
    def get(self, spec: str, key: str) -> None:
        """Get one entry: the same row as the oracle's, or `None` for both."""
        namespace, written = self._address(spec, key)
        call = f"get({namespace!r}, {written!r})"
        got = self.call(call, self.driver.get, namespace, written)
        want = self.oracle.get(namespace, written)
        self.require(
            (None if got is None else _row(got)) == (None if want is None else _row(want)),
            call,
            f"{None if want is None else _row(want)!r}",
            None if got is None else _row(got),
        )

    @operation
    def forget(self, spec: str, key: str) -> None:
        """Forget one entry: whether it existed, as the oracle says."""
        namespace, written = self._address(spec, key)
        call = f"forget({namespace!r}, {written!r})"
        got = self.call(call, self.driver.forget, namespace, written)
        want = self.oracle.forget(namespace, written)
        self.require(got is want, call, repr(want), got)

    @operation
    def list_entries(
        self, spec: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> None:
        """List one namespace, or every namespace (`None`, restricted to the machine's)."""
        namespace = None if spec is None else self.namespace(spec)
        call = f"list({namespace!r}, {category}, {session_id!r})"
        got = self.call(call, self.driver.list, namespace, category, session_id)
        if namespace is None or namespace == GLOBAL_NAMESPACE:
            got = [row for row in got if self._ours(row.namespace, row.key)]
        self._same_rows(call, got, self.oracle.list(namespace, category, session_id))

    @operation
    def namespaces(self) -> None:
        """`namespaces()`: each of the machine's namespaces once, with the oracle's count."""
        self._namespaces_agree("namespaces()")

    def _namespaces_agree(self, call: str) -> None:
        got = self.call(call, self.driver.namespaces)
        seen = Counter(s.namespace for s in got if s.namespace in self.spaces)
        twice = sorted(ns for ns, n in seen.items() if n > 1)
        self.require(not twice, call, "each namespace once", f"{twice} more than once")
        mine = {s.namespace: s.count for s in got if s.namespace in self.spaces and s.count}
        want_all = {s.namespace: s.count for s in self.oracle.namespaces()}
        want = {ns: n for ns, n in want_all.items() if ns != GLOBAL_NAMESPACE}
        self.require(mine == want, call, f"counts {sorted(want.items())}", sorted(mine.items()))
        ours_global = want_all.get(GLOBAL_NAMESPACE, 0)
        if ours_global:
            theirs = sum(s.count for s in got if s.namespace == GLOBAL_NAMESPACE)
            self.require(
                theirs >= ours_global, call, f"at least {ours_global} entries in 'global'", theirs
            )

    @operation
    def recall(
        self,
        spec: str | None,
        query: str,
        limit: int,
        category: MemoryCategory | None,
        min_score: float | None,
    ) -> None:
        """Recall: at most `limit` current rows of the namespace asked (`global` when none),
        each of `category` and scoring at least `min_score` when those are set."""
        self._recall_in(
            None if spec is None else self.namespace(spec), query, limit, category, min_score
        )

    def _recall_in(
        self,
        namespace: str | None,
        query: str,
        limit: int,
        category: MemoryCategory | None,
        min_score: float | None,
    ) -> None:
        searched = GLOBAL_NAMESPACE if namespace is None else namespace
        opts = OwnedRecallOpts(namespace=namespace, category=category, min_score=min_score)
        call = f"recall({query!r}, {limit}, {opts.model_dump(mode='json')}, None)"
        hits = self.call(call, self.driver.recall, query, limit, opts, None)
        self.require(len(hits) <= limit, call, f"at most {limit} hits", len(hits))
        for hit in hits:
            self.require(
                hit.namespace == searched,
                call,
                f"hits from {searched!r} only",
                f"a hit from {hit.namespace!r} (key {hit.key!r})",
            )
            if not self._ours(hit.namespace, hit.key):
                continue  # another writer's row in `global`
            row = self.oracle.get(searched, hit.key)
            self.require(
                row is not None and row.content == hit.content,
                call,
                "hits that are current rows",
                _row(hit),
            )
            if category is not None:
                self.require(
                    hit.category == category, call, f"hits of category {category}", _row(hit)
                )
            if min_score is not None and hit.score is not None:
                self.require(
                    hit.score >= min_score, call, f"scores of at least {min_score}", hit.score
                )

    @operation
    def recall_unsourced(self, spec: str, query: str) -> None:
        """Recall with an empty source scope: nothing, or `Invalid` (the scope fails closed)."""
        namespace = self.namespace(spec)
        call = f"recall({query!r}, 8, namespace={namespace!r}, SourceScope([]))"
        hits, error = self.attempt(
            call,
            self.driver.recall,
            query,
            8,
            OwnedRecallOpts(namespace=namespace),
            SourceScope(allow=[]),
        )
        if error is not None:
            self.require(
                isinstance(error, Invalid),
                call,
                "[] or Invalid",
                f"{type(error).__qualname__}: {error}",
            )
            return
        self.require(hits == [], call, "[] or Invalid (an empty scope denies everything)", hits)

    @operation
    def recall_malformed(self, spec: str | None) -> None:
        """Recall with a NaN minimum score: a driver may answer, or refuse with `Invalid`."""
        namespace = None if spec is None else self.namespace(spec)
        call = f"recall('alpha', 3, namespace={namespace!r}, min_score=NaN)"
        opts = OwnedRecallOpts(namespace=namespace, min_score=float("nan"))
        _, error = self.attempt(call, self.driver.recall, "alpha", 3, opts, None)
        self.require(
            error is None or isinstance(error, Invalid),
            call,
            "an answer, or Invalid for a malformed filter",
            f"{type(error).__qualname__}: {error}",
        )

    @operation
    def store_invalid_namespace(self, spec: str) -> None:
        """Store under a namespace breaking contract-reference A6. A driver may accept it
        (the machine then forgets it at once) or refuse it, only with `Invalid`, storing
        nothing."""
        namespace = self.namespace(spec)
        key = f"{self.marker}-bad"
        self.written.add((namespace, key))
        self.written.add((GLOBAL_NAMESPACE, key))
        call = f"store({namespace!r}, {key!r}, 'x', core, None, internal)"
        _, error = self.attempt(
            call,
            self.driver.store,
            namespace,
            key,
            "x",
            MemoryCategory.CORE,
            None,
            MemoryTaint.INTERNAL,
        )
        if error is None:
            self.call(f"forget({namespace!r}, {key!r})", self.driver.forget, namespace, key)
            return
        self.require(
            isinstance(error, Invalid),
            call,
            "success, or Invalid",
            f"{type(error).__qualname__}: {error}",
        )
        rows = self.call("list(None, None, None)", self.driver.list, None, None, None)
        kept = [_row(row) for row in rows if row.key == key]
        self.require(not kept, call, "a refused write to store nothing", kept)

    def _export_all(self, what: Any, label: str) -> builtins.list[ExportRecord]:
        records: builtins.list[ExportRecord] = []
        seen: set[str] = set()
        cursor: str | None = None
        call = label
        for _ in range(MAX_PAGES):
            call = f"{label}.export_page({cursor!r}, {self.export_limit})"
            page = self.call(call, what.export_page, cursor, self.export_limit)
            records.extend(page.records)
            if page.next_cursor is None:
                return records
            self.require(
                page.next_cursor not in seen,
                call,
                "a cursor never issued before",
                f"the cursor {page.next_cursor!r} again",
            )
            seen.add(page.next_cursor)
            cursor = page.next_cursor
        self.fail(call, f"an export that ends within {MAX_PAGES} pages", "a cursor on every page")

    @operation
    def export_import(self, spec: str) -> None:
        """Export one namespace, forget its rows, import the records: the rows come back,
        taint included, and the import reports no failure."""
        namespace = self.namespace(spec)
        mine = [r for r in self._export_all(self.driver, "driver") if r.namespace == namespace]
        theirs = [r for r in self.oracle_export() if r.namespace == namespace]
        for entry in self.oracle.list(namespace, None, None):
            call = f"forget({namespace!r}, {entry.key!r}) before the import"
            got = self.call(call, self.driver.forget, namespace, entry.key)
            want = self.oracle.forget(namespace, entry.key)
            self.require(got is want, call, repr(want), got)
        call = f"import_records(<{len(mine)} records of {namespace!r}>)"
        outcome = self.call(call, self.driver.import_records, mine)
        self.require(
            outcome.failed == 0,
            call,
            "failed == 0",
            f"failed {outcome.failed}, errors {outcome.errors}",
        )
        self.oracle.import_records(theirs)
        self._same_rows(
            f"list({namespace!r}, None, None) after the import",
            self._driver_rows(namespace),
            self.oracle.list(namespace, None, None),
        )

    def oracle_export(self) -> builtins.list[ExportRecord]:
        """Every record the oracle exports (it holds only this run's rows)."""
        records: builtins.list[ExportRecord] = []
        cursor: str | None = None
        while True:
            page = self.oracle.export_page(cursor, 64)
            records.extend(page.records)
            if page.next_cursor is None:
                return records
            cursor = page.next_cursor

    @operation
    def export_foreign_cursor(self) -> None:
        """`export_page` with a cursor the driver never issued: `Invalid`."""
        call = f"export_page({BAD_CURSOR!r}, 8)"
        page, error = self.attempt(call, self.driver.export_page, BAD_CURSOR, 8)
        self.require(
            isinstance(error, Invalid),
            call,
            "Invalid (a cursor the driver did not issue)",
            f"success ({page!r})" if error is None else f"{type(error).__qualname__}: {error}",
        )

    # -- invariants and cleanup -----------------------------------------------------

    def check_invariants(self) -> None:
        """Each of the machine's namespaces lists exactly the oracle's rows."""
        self.last_call = "verify"
        spaces = sorted(self.spaces) + ([GLOBAL_NAMESPACE] if self.used_global else [])
        for namespace in spaces:
            self._same_rows(
                f"list({namespace!r}, None, None)",
                self._driver_rows(namespace),
                self.oracle.list(namespace, None, None),
            )

    def final_check(self) -> None:
        """Once per program: `list(None)` and `namespaces()` agree with the oracle, and
        recall with no namespace, asked for a row of each other namespace, stays in
        `global` (decisions §4.1)."""
        self.last_call = "final check"
        call = "list(None, None, None) at the end"
        rows = self.call(call, self.driver.list, None, None, None)
        ours = [row for row in rows if self._ours(row.namespace, row.key)]
        self._same_rows(call, ours, self.oracle.list(None, None, None))
        self._namespaces_agree("namespaces() at the end")
        for namespace in sorted(self.spaces):
            held = [row for row in self.oracle.list(namespace, None, None) if row.content.strip()]
            if held:
                self._recall_in(None, held[0].content, 8, None, None)

    def cleanup(self) -> builtins.list[str]:
        """Forget every key written; describe any survivor."""
        for namespace, key in sorted(self.written):
            self.call(f"forget({namespace!r}, {key!r})", self.driver.forget, namespace, key)
        left: builtins.list[str] = []
        spaces = sorted(self.spaces) + ([GLOBAL_NAMESPACE] if self.used_global else [])
        for namespace in spaces:
            rows = self._driver_rows(namespace)
            if rows:
                left.append(f"{len(rows)} entries survived in {namespace!r}")
        return left


def _rarely(values: st.SearchStrategy[T]) -> st.SearchStrategy[T | None]:
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

    Instantiate it with a differential: `run_state_machine_as_test(lambda:
    Machine(ProviderDifferential(provider, ReferenceProvider(), retains=True)))`.
    """
    cfg = config if config is not None else ProviderFuzzConfig()
    edges = ["unsourced", "malformed", "invalid_namespace"]
    if cfg.portability:
        edges.append("foreign_cursor")

    class ProviderFuzzMachine(ProviderMachine):
        spaces: Bundle[str] = Bundle("spaces")
        keys: Bundle[str] = Bundle("keys")
        said: Bundle[str] = Bundle("said")

        @initialize(
            target=spaces, specs=st.lists(cfg.namespaces, min_size=1, max_size=3, unique=True)
        )
        def first_spaces(self, specs: list[str]) -> Any:
            return multiple(*specs, *([GLOBAL_NAMESPACE] if cfg.use_global else []))

        @initialize(target=keys, first=st.lists(cfg.keys, min_size=1, max_size=3, unique=True))
        def first_keys(self, first: list[str]) -> Any:
            return multiple(*first)

        @initialize(target=said, query=cfg.queries)
        def first_query(self, query: str) -> str:
            return query

        @rule(target=spaces, spec=cfg.namespaces)
        def new_space(self, spec: str) -> str:
            return spec

        @rule(target=keys, key=cfg.keys)
        def new_key(self, key: str) -> str:
            return key

        @rule(
            target=said,
            spec=spaces,
            key=keys,
            content=cfg.contents,
            category=cfg.categories,
            session_id=cfg.session_ids,
            taint=taints(),
        )
        def store(
            self,
            spec: str,
            key: str,
            content: str,
            category: MemoryCategory,
            session_id: str | None,
            taint: MemoryTaint,
        ) -> str:
            self.d.store(spec, key, content, category, session_id, taint)
            return content

        # The same operation under a second name: hypothesis enables a random subset of
        # rules per example (swarm testing), and a run whose only write rule is off
        # compares empty stores. Two write rules also weigh the draw towards writes.
        @rule(
            target=said,
            spec=spaces,
            key=keys,
            content=cfg.contents,
            category=cfg.categories,
            session_id=cfg.session_ids,
            taint=taints(),
        )
        def overwrite(
            self,
            spec: str,
            key: str,
            content: str,
            category: MemoryCategory,
            session_id: str | None,
            taint: MemoryTaint,
        ) -> str:
            self.d.store(spec, key, content, category, session_id, taint)
            return content

        @rule(spec=spaces, key=keys)
        def get(self, spec: str, key: str) -> None:
            self.d.get(spec, key)

        @rule(spec=spaces, key=keys)
        def forget(self, spec: str, key: str) -> None:
            self.d.forget(spec, key)

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

        # Mostly the contents written and no category: those recalls find rows, so a
        # hit from the wrong namespace (decisions §4.1) can show.
        @rule(
            spec=st.none() | spaces,
            query=st.one_of(said, said, cfg.queries),
            limit=cfg.limits,
            category=_rarely(cfg.categories),
            min_score=st.none() | st.sampled_from([0.0, 0.5, 1.0]),
        )
        def recall(
            self,
            spec: str | None,
            query: str,
            limit: int,
            category: MemoryCategory | None,
            min_score: float | None,
        ) -> None:
            self.d.recall(spec, query, limit, category, min_score)

        if cfg.portability:

            @rule(spec=spaces.filter(lambda spec: spec != GLOBAL_NAMESPACE))
            def export_import(self, spec: str) -> None:
                self.d.export_import(spec)

        # The edge cases share one rule, so together they take one rule's share of steps.
        @rule(case=st.sampled_from(edges), spec=spaces, bad=cfg.invalid_namespaces, query=said)
        def edge(self, case: str, spec: str, bad: str, query: str) -> None:
            if case == "unsourced":
                self.d.recall_unsourced(spec, query)
            elif case == "malformed":
                self.d.recall_malformed(None if spec == GLOBAL_NAMESPACE else spec)
            elif case == "invalid_namespace":
                self.d.store_invalid_namespace(bad)
            else:
                self.d.export_foreign_cursor()

        @invariant()
        def agrees_with_oracle(self) -> None:
            self.d.verify()

    return ProviderFuzzMachine
