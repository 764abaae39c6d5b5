"""The provider profile's differential: the mandatory families, one step per operation.

``ProviderDifferential`` stores (upserts), gets, forgets, lists, recalls, exports and
imports on the provider under test and on an oracle (``ReferenceProvider``, or
``NullProvider`` for a provider that retains nothing) and compares what the contract
pins (contract-reference A1, A4, A6, A7; decisions §4.1, §4.11):

- ``get`` and ``list`` answer the same rows (as multisets, so a duplicate shows):
  key, content, namespace, category, session and taint; ``forget`` the same booleans;
- ``namespaces()``, restricted to the run's namespaces, the same counts; each
  namespace reported once and exactly as written (its section preserved);
- ``list(None)`` holds every row the run wrote (decisions §4.1);
- ``recall`` answers at most ``limit`` rows, all from the namespace asked, each a
  current row (content included) matching the category and scoring at least the
  minimum score; with no namespace, only ``global`` rows;
- an empty ``SourceScope`` hides every source-attributed row (``external_sync``); an
  unattributed row may be returned or not (decisions §4.11);
- an export holds every row; a row forgotten and imported back returns, taint included;
- contract-valid input within the driver's declared constraints is stored, never
  refused, but for a refusal the contract names (empty content, with ``Invalid``),
  which changes nothing and is reported; malformed input may be refused, only with
  ``Invalid``, and is then not stored.

Every namespace the run writes lies under its root, except ``global``, where every
key carries the run marker and every read is filtered by it. Teardown forgets the
writes the driver accepted, never one it refused. Nothing is ever cleared wholesale.
"""

from __future__ import annotations

import builtins
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from conformance.checks.evidence import show
from conformance.checks.fan_out import each
from conformance.checks.still import still_store
from conformance.constraints import named_refusal
from conformance.engine.blank import is_blank
from conformance.fuzz.bulk import bulk_entries
from conformance.fuzz.config import ROOT_PLACEHOLDER
from conformance.fuzz.differential import (
    FuzzConfigError,
    error_text,
    operation,
    some_shown,
    wire_taint,
)
from conformance.fuzz.document_differential import DocumentsDifferential
from conformance.fuzz.strategies import BAD_CURSOR
from conformance.fuzz_targets import PROVIDER_TARGET
from conformance.provider import (
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    MANDATORY,
    Capability,
    ExportRecord,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryTaint,
    OwnedRecallOpts,
    SourceScope,
)
from conformance.provider.namespace import validate_name
from conformance.readings import (
    PagedRead,
    best_first,
    contains_word,
    exact_match_leads,
    one_word,
    word_count,
)
from conformance.relatives import relative

__all__ = ["PROVIDER_TARGET", "ProviderDifferential", "provider_oracle"]


MAX_PAGES: Final = 10_000
"""Export pages after which an export that still hands out cursors is judged never to end."""

FINAL_EXPORT_PAGES: Final = 3
"""Pages of the export every program ends with."""

UNSOURCED_LIMIT: Final = 8
"""The limit of a recall with an empty source scope."""

Row = tuple[str | None, str, str, str, str | None, str]
"""What the contract pins of an entry: namespace, key, content, category, session, taint."""

_DECLARE: Final = (
    "the write stored (the input is contract-valid and within the driver's declared "
    "constraints; a store that cannot take it declares so with Driver(constraints=...))"
)


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
        wire_taint(entry.taint),
    )


def _rows(entries: Sequence[MemoryEntry]) -> Counter[Row]:
    return Counter(_row(entry) for entry in entries)


class ProviderDifferential(DocumentsDifferential):
    """The provider under test beside an oracle; every method is one step.

    Namespaces are passed as specs: `~` stands for the run root (`learning:~/a`), and
    `global` is the global namespace, where keys are written with the marker in front.
    """

    check_id = PROVIDER_TARGET
    writes = frozenset(
        {
            "store",
            "store_bulk",
            "forget",
            "export_import",
            "import_mixed",
            "export_during_writes",
            "store_invalid_namespace",
            "put_document",
            "put_documents",
            "delete_document",
            "clear_documents",
        }
    )

    def __init__(self, driver: Any, oracle: Any, *, retains: bool, **common: Any) -> None:
        super().__init__(driver, oracle, retains=retains, **common)
        self.spaces: set[str] = set()
        """Every namespace under the root a write was accepted in."""
        self.used_global = False
        self.written: set[tuple[str, str]] = set()
        """Every (namespace, key) whose write the driver accepted: what teardown forgets."""
        self.recalled: builtins.list[tuple[str | None, str, builtins.list[float]]] = []
        """Each recall's namespace spec, query and the scores the driver answered."""
        self._last_call = ""
        """The call of the last recall, named by a comparison of two recalls."""
        self.declared: tuple[str, builtins.list[str]] | None = None
        """The driver id and capabilities read by the first `declarations` step: a
        provider's declaration holds for its whole life."""

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
        # A document namespace is the documents steps' (a driver may list documents as
        # entries: whether they are one record is its choice).
        return namespace is not None and self.root in namespace and namespace not in self.doc_spaces

    def _address(self, spec: str, key: str) -> tuple[str, str]:
        namespace = self.namespace(spec)
        return namespace, self.key(namespace, key)

    def held_contents(self) -> builtins.list[str]:
        """The contents the oracle holds, in its order (for recall queries)."""
        return [row.content for row in self.oracle.list(None, None, None)]

    def held_keys(self, spec: str) -> builtins.list[str]:
        """The keys (as drawn, unmarked) the oracle holds in the namespace of `spec`."""
        namespace = self.namespace(spec)
        keys = [row.key for row in self.oracle.list(namespace, None, None)]
        if namespace == GLOBAL_NAMESPACE:
            return [key.removeprefix(f"{self.marker}-") for key in keys]
        return keys

    # -- relatives of what is held ---------------------------------------------------

    def relative_key(self, spec: str, pick: int, how: str) -> str | None:
        """The relative made `how` of a key held in the namespace of `spec` (number
        `pick`), when the driver's declared constraints admit it."""
        held = self.held_keys(spec)
        if not held:
            return None
        made = relative(held[pick % len(held)], how)
        if made is None or not self.ctx.settings.constraints.admits_key(made):
            return None
        return made

    def relative_spec(self, spec: str, how: str) -> str | None:
        """The relative made `how` of the scope after the root in `spec` (its case twin,
        a prefix, a separator swapped, ...), when it is a namespace the contract and the
        driver's declared constraints admit."""
        head, placeholder, tail = spec.partition(ROOT_PLACEHOLDER)
        if not placeholder or not tail:
            return None
        made = relative(tail, how)
        if made is None:
            return None
        candidate = head + ROOT_PLACEHOLDER + made
        try:
            validate_name(candidate.replace(ROOT_PLACEHOLDER, self.root))
        except Invalid:
            return None
        if not self.ctx.settings.constraints.admits_namespace(self.namespace(candidate)):
            return None
        return candidate

    def relative_content(self, pick: int, how: str) -> str | None:
        """The relative made `how` of a held content, when the driver's declared
        constraints admit it."""
        held = self.held_contents()
        if not held:
            return None
        made = relative(held[pick % len(held)], how)
        if made is None or not self.ctx.settings.constraints.admits_content(made):
            return None
        return made

    def row_count(self) -> int:
        """How many rows the oracle holds."""
        return len(self.oracle.list(None, None, None))

    # -- comparisons ----------------------------------------------------------------

    def _same_rows(
        self,
        call: str,
        got: Sequence[MemoryEntry],
        want: Sequence[MemoryEntry],
        expected: str = "",
        noticed: str = "",
    ) -> None:
        mine, theirs = _rows(got), _rows(want)
        if mine == theirs:
            return
        self.fail(
            call,
            expected or "the rows the oracle holds",
            f"{sum(mine.values())} rows where {sum(theirs.values())} were due; "
            f"extra: {some_shown(mine - theirs)}; missing: {some_shown(theirs - mine)}{noticed}",
        )

    def _driver_rows(self, namespace: str | None, label: str = "") -> builtins.list[MemoryEntry]:
        call = label or f"list({namespace!r}, None, None)"
        rows = self.call(call, self.driver.list, namespace, None, None)
        if namespace is None or namespace == GLOBAL_NAMESPACE:
            return [row for row in rows if self._ours(row.namespace, row.key)]
        return builtins.list(rows)

    def _namespace_agrees(self, namespace: str, after: str, expected: str = "") -> None:
        """After a write or forget: the namespace it touched lists the oracle's rows; a
        difference is blamed on `after`, the step's own calls."""
        self._same_rows(
            after,
            self._driver_rows(namespace, f"list({namespace!r}, None, None) after {after}"),
            self.oracle.list(namespace, None, None),
            expected or f"{namespace!r} to list the oracle's rows after it",
        )
        self.stats.peak = max(self.stats.peak, self.row_count())

    # -- writes ---------------------------------------------------------------------

    def _write(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> str:
        call = (
            f"store({namespace!r}, {key!r}, {show(content)}, {category}, {session_id!r}, "
            f"{taint.value})"
        )
        _, error = self.attempt(
            call, self.driver.store, namespace, key, content, category, session_id, taint
        )
        named = named_refusal(content)
        if named is not None and isinstance(error, Invalid):
            # A refusal the contract names (A4 store): nothing written, and reported.
            self.stats.named_refusals.add(named)
            return call
        self.require(error is None, call, _DECLARE, error_text(error))
        self.written.add((namespace, key))
        if namespace == GLOBAL_NAMESPACE:
            self.used_global = True
        else:
            self.spaces.add(namespace)
        self.oracle.store(namespace, key, content, category, session_id, taint)
        return call

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
        """Store (upsert) one entry: stored as written, and nothing else in its namespace
        changed."""
        namespace, written = self._address(spec, key)
        call = self._write(namespace, written, content, category, session_id, taint)
        self._namespace_agrees(namespace, call)

    @operation
    def store_bulk(self, spec: str, prefix: str, count: int, salt: int) -> None:
        """Store the `count` entries of bulk `salt` (`conformance.fuzz.bulk`, keys
        `<prefix>0`...) into one namespace, one `store` each."""
        namespace = self.namespace(spec)
        for entry in bulk_entries(prefix, count, salt, fit=self.fit):
            self._write(
                namespace,
                self.key(namespace, entry.key),
                entry.content,
                entry.category,
                entry.session_id,
                entry.taint,
            )
        self._namespace_agrees(namespace, f"<{count} stores of bulk {salt}> into {namespace!r}")

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
            show(None if want is None else _row(want)),
            show(None if got is None else _row(got)),
        )

    @operation
    def forget(self, spec: str, key: str) -> None:
        """Forget one entry: whether it existed, as the oracle says; nothing else in its
        namespace removed."""
        namespace, written = self._address(spec, key)
        call = f"forget({namespace!r}, {written!r})"
        got = self.call(call, self.driver.forget, namespace, written)
        want = self.oracle.forget(namespace, written)
        self.require(got is want, call, repr(want), show(got))
        self._namespace_agrees(namespace, call, "only the forgotten row gone")

    # -- reads ----------------------------------------------------------------------

    @operation
    def list_entries(
        self, spec: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> None:
        """List one namespace, or every namespace (`None`, restricted to the run's)."""
        namespace = None if spec is None else self.namespace(spec)
        call = f"list({namespace!r}, {category}, {session_id!r})"
        got = self.call(call, self.driver.list, namespace, category, session_id)
        if namespace is None or namespace == GLOBAL_NAMESPACE:
            got = [row for row in got if self._ours(row.namespace, row.key)]
        self._same_rows(call, got, self.oracle.list(namespace, category, session_id))

    @operation
    def namespaces(self) -> None:
        """`namespaces()`: each of the run's namespaces once, with the oracle's count."""
        self._namespaces_agree("namespaces()")

    def _namespaces_agree(self, call: str) -> None:
        got = self.call(call, self.driver.namespaces)
        ours = [
            s
            for s in got
            if s.namespace != GLOBAL_NAMESPACE
            and self.root in s.namespace
            and s.namespace not in self.doc_spaces
        ]
        seen = Counter(s.namespace for s in ours)
        twice = sorted(ns for ns, n in seen.items() if n > 1)
        self.require(not twice, call, "each namespace once", f"{twice} more than once")
        # A namespace left empty may stay listed with count 0.
        mine = {s.namespace: s.count for s in ours if s.count}
        want_all = {s.namespace: s.count for s in self.oracle.namespaces()}
        want = {ns: n for ns, n in want_all.items() if ns != GLOBAL_NAMESPACE}
        wrong = [
            f"{ns!r}: {mine.get(ns, 0)} (wanted {want.get(ns, 0)})"
            for ns in sorted(set(mine) | set(want))
            if mine.get(ns, 0) != want.get(ns, 0)
        ]
        self.require(
            not wrong,
            call,
            "each namespace of the run with the oracle's count",
            "; ".join(wrong[:8]) + (f"; and {len(wrong) - 8} more" if len(wrong) > 8 else ""),
        )
        ours_global = want_all.get(GLOBAL_NAMESPACE, 0)
        if ours_global:
            theirs = sum(s.count for s in got if s.namespace == GLOBAL_NAMESPACE)
            self.require(
                theirs >= ours_global,
                call,
                f"at least {ours_global} entries in 'global'",
                f"{theirs} entries",
            )

    @operation
    def recall(
        self,
        spec: str | None,
        query: str,
        limit: int,
        category: MemoryCategory | None,
        min_score: float | None,
        session_id: str | None = None,
    ) -> None:
        """Recall: at most `limit` current rows of the namespace asked (`global` when none),
        each once, best first where scored, each of `category` and `session_id` when those
        are set. Unscored, it finds what any reading finds: `[]` for a blank query; for a
        query of one word, `min(limit, matches)` rows; for a query that is a row's
        content, that row first or tied with the first. With `min_score`, exactly the
        hits of the same recall without it that score at least `min_score`."""
        namespace = None if spec is None else self.namespace(spec)
        if min_score is None:
            hits = self._recall_in(namespace, query, limit, category, None, session_id)
        else:
            hits = self._recall_above(namespace, query, limit, category, min_score, session_id)
        scores = [hit.score for hit in hits if hit.score is not None]
        self.recalled.append((spec, query, scores))

    def _recall_above(
        self,
        namespace: str | None,
        query: str,
        limit: int,
        category: MemoryCategory | None,
        min_score: float,
        session_id: str | None,
    ) -> builtins.list[MemoryEntry]:
        """`min_score` both ways: the hits of the same recall without it that score at
        least `min_score`, all of them (compared by score, so ties may trade places). Run
        beside checks, both recalls are made while no check writes: a score may weigh
        every entry of the store."""
        with still_store():
            unbounded = self._recall_in(namespace, query, limit, category, None, session_id)
            hits = self._recall_in(namespace, query, limit, category, min_score, session_id)
        if all(hit.score is not None for hit in unbounded):
            want = sorted(
                (h.score for h in unbounded if h.score is not None and h.score >= min_score),
                reverse=True,
            )
            got = sorted((h.score for h in hits if h.score is not None), reverse=True)
            self.require(
                got == want and len(got) == len(hits),
                self._last_call,
                f"the hits of the same recall without min_score that score at least "
                f"{min_score!r}: scores {want}",
                f"scores {got}" + ("" if len(got) == len(hits) else " and hits without a score"),
            )
        return hits

    def _recall_in(
        self,
        namespace: str | None,
        query: str,
        limit: int,
        category: MemoryCategory | None,
        min_score: float | None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryEntry]:
        """One recall held to what every reading answers; its hits."""
        searched = GLOBAL_NAMESPACE if namespace is None else namespace
        opts = OwnedRecallOpts(
            namespace=namespace, category=category, session_id=session_id, min_score=min_score
        )
        call = f"recall({query!r}, {limit}, {opts.model_dump(mode='json')}, None)"
        hits = self.call(call, self.driver.recall, query, limit, opts, None)
        self._last_call = call
        self.require(len(hits) <= limit, call, f"at most {limit} hits", f"{len(hits)} hits")
        seen: set[str] = set()
        for hit in hits:
            self.require(
                hit.namespace == searched,
                call,
                f"hits from {searched!r} only",
                f"a hit from {hit.namespace!r} (key {hit.key!r})",
            )
            self.require(hit.key not in seen, call, "each entry once", f"{hit.key!r} again")
            seen.add(hit.key)
            if not self._ours(hit.namespace, hit.key):
                continue  # another writer's row in `global`
            row = self.oracle.get(searched, hit.key)
            self.require(
                row is not None and row.content == hit.content,
                call,
                "hits that are current rows",
                show(_row(hit)),
            )
            if category is not None:
                self.require(
                    hit.category == category, call, f"hits of category {category}", show(_row(hit))
                )
            if session_id is not None:
                self.require(
                    hit.session_id == session_id,
                    call,
                    f"hits of session {session_id!r}",
                    show(_row(hit)),
                )
            if hit.score is not None and min_score is not None:
                self.require(
                    hit.score >= min_score,
                    call,
                    f"no hit scoring below min_score {min_score!r}",
                    f"{hit.key!r} scoring {hit.score!r}",
                )
        wrong = best_first([hit.score for hit in hits if hit.score is not None])
        self.require(wrong is None, call, "hits best first (scores never increasing)", wrong)
        if min_score is None:
            self._recall_finds(call, searched, query, limit, category, session_id, hits)
        return builtins.list(hits)

    def _recall_finds(
        self,
        call: str,
        searched: str,
        query: str,
        limit: int,
        category: MemoryCategory | None,
        session_id: str | None,
        hits: Sequence[MemoryEntry],
    ) -> None:
        """What every reading of recall finds: nothing for a blank query; `min(limit,
        matches)` rows for one word that rows contain; the row that is the query first."""
        if is_blank(query):
            self.require(not hits, call, "[] for a blank query", f"{len(hits)} hits")
            return
        rows = [
            row
            for row in self.oracle.list(searched, category, session_id)
            if self._ours(row.namespace, row.key)
        ]
        if one_word(query):
            matches = sum(1 for row in rows if contains_word(row.content, query))
            self.require(
                len(hits) >= min(limit, matches),
                call,
                f"min(limit, matches) = {min(limit, matches)} hits: {matches} rows of "
                f"{searched!r} hold the word {query!r}",
                f"{len(hits)} hits",
            )
        if one_word(query) and any(row.content == query for row in rows):
            wrong = exact_match_leads(
                [hit.score for hit in hits],
                [hit.content == query for hit in hits],
                [word_count(hit.content, query) == 1 for hit in hits],
                limit,
            )
            self.require(
                wrong is None,
                call,
                "the row whose content is the query word first, or outranked only by rows "
                "holding the word more often",
                wrong,
            )

    @operation
    def declarations(self) -> None:
        """Between any two steps: the driver id and capabilities are those read first,
        the mandatory families are among them, each family is provided exactly when it
        is advertised (as `audit_provider` holds), and the provider is usable."""
        driver_id = self.call("driver_id()", self.driver.driver_id)
        caps = self.call("capabilities()", self.driver.capabilities)
        names = sorted(Capability(cap).value for cap in caps)
        first = self.declared is None
        if self.declared is None:
            self.declared = (driver_id, names)
        self.require(
            (driver_id, names) == self.declared,
            "driver_id(), capabilities()",
            f"the declaration read first: {show(self.declared)}",
            show((driver_id, names)),
        )
        if first:
            missing = [cap.value for cap in MANDATORY if cap.value not in names]
            self.require(
                not missing, "capabilities()", "the mandatory families", f"missing {missing}"
            )
            # Asked once a program (18 calls): a declaration that holds is asked no more.
            dishonest = [
                f"{cap.value} ({'advertised' if cap.value in names else 'not advertised'})"
                for cap in Capability
                if self.call(f"provides({cap.value})", self.driver.provides, cap)
                != (cap.value in names)
            ]
            self.require(
                not dishonest,
                "provides(...) for every family",
                "each family provided exactly when advertised",
                ", ".join(dishonest),
            )
        health = self.call("health()", self.driver.health)
        self.require(health.is_usable(), "health()", "ready or degraded while serving", str(health))

    @operation
    def recall_unsourced(self, spec: str, query: str) -> None:
        """Recall with an empty source scope: no source-attributed (`external_sync`) row;
        an unattributed row may be answered or hidden (decisions §4.11); or `Invalid`."""
        namespace = self.namespace(spec)
        call = f"recall({query!r}, {UNSOURCED_LIMIT}, namespace={namespace!r}, SourceScope([]))"
        hits, error = self.attempt(
            call,
            self.driver.recall,
            query,
            UNSOURCED_LIMIT,
            OwnedRecallOpts(namespace=namespace),
            SourceScope(allow=[]),
        )
        if error is not None:
            self.require(
                isinstance(error, Invalid), call, "an answer or Invalid", error_text(error)
            )
            return
        for hit in hits or []:
            self.require(
                wire_taint(hit.taint) != MemoryTaint.EXTERNAL_SYNC.value,
                call,
                "no source-attributed (external_sync) row: an empty scope denies them",
                show(_row(hit)),
            )
            if hit.namespace == namespace and not self._ours(hit.namespace, hit.key):
                continue  # another writer's row in `global`
            row = self.oracle.get(namespace, hit.key) if hit.namespace == namespace else None
            self.require(
                row is not None and row.content == hit.content,
                call,
                f"only current rows of {namespace!r}",
                show(_row(hit)),
            )

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
            error_text(error),
        )

    @operation
    def store_invalid_namespace(self, spec: str) -> None:
        """Store under a namespace breaking contract-reference A6. A driver may accept it
        (the run then forgets it at once) or refuse it, only with `Invalid`, storing
        nothing. A refused write is never forgotten: the driver may refuse that too."""
        namespace = self.namespace(spec)
        key = f"{self.marker}-bad"
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
            self.written.add((namespace, key))
            self.call(f"forget({namespace!r}, {key!r})", self.driver.forget, namespace, key)
            self.written.discard((namespace, key))
            return
        self.require(isinstance(error, Invalid), call, "success, or Invalid", error_text(error))
        rows = self.call("list(None, None, None)", self.driver.list, None, None, None)
        kept = [_row(row) for row in rows if row.key == key]
        self.require(not kept, call, "a refused write to store nothing", show(kept))

    # -- portability ----------------------------------------------------------------

    def _export_all(self, limit: int) -> builtins.list[ExportRecord]:
        # Run beside checks, the export pages while no check writes (`still_store`).
        with still_store():
            return self._export_pages(limit)

    def _export_pages(self, limit: int) -> builtins.list[ExportRecord]:
        records: builtins.list[ExportRecord] = []
        seen: set[str] = set()
        cursor: str | None = None
        call = "export_page"
        for number in range(MAX_PAGES):
            call = f"export_page({cursor!r}, {limit})"
            page = self.call(call, self.driver.export_page, cursor, limit)
            records.extend(page.records)
            if page.next_cursor is None:
                return records
            if number == 0:
                self.stats.crossed.add("export")
            self.require(
                page.next_cursor not in seen,
                call,
                "a cursor never issued before",
                f"the cursor {page.next_cursor!r} again",
            )
            seen.add(page.next_cursor)
            cursor = page.next_cursor
        self.fail(call, f"an export that ends within {MAX_PAGES} pages", "a cursor on every page")

    def _oracle_export(self) -> builtins.list[ExportRecord]:
        records: builtins.list[ExportRecord] = []
        cursor: str | None = None
        while True:
            page = self.oracle.export_page(cursor, 64)
            records.extend(page.records)
            if page.next_cursor is None:
                return records
            cursor = page.next_cursor

    def _export_holds_every_row(self, page: int) -> builtins.list[ExportRecord]:
        """Export everything `page` records at a time; every row of the run (outside
        `global`, whose records cannot be told apart) must be in it. The records."""
        records = self._export_all(page)
        exported = Counter(
            (r.namespace, wire_taint(r.taint))
            for r in records
            if r.namespace != GLOBAL_NAMESPACE and self._ours(r.namespace, "")
        )
        held = Counter(
            (row.namespace, wire_taint(row.taint))
            for row in self.oracle.list(None, None, None)
            if row.namespace != GLOBAL_NAMESPACE
        )
        short = {k: n - exported[k] for k, n in held.items() if exported[k] < n}
        self.require(
            not short,
            f"export_page(..., {page}) over <{len(records)} records>",
            "every row of the run exported",
            "missing records: "
            + ", ".join(f"{n} of {ns!r} ({taint})" for (ns, taint), n in sorted(short.items())),
        )
        return records

    @operation
    def export_import(self, spec: str, page: int, picks: builtins.list[int]) -> None:
        """Export everything `page` records at a time: every row of the run is exported.
        Then forget the rows `picks` choose in the namespace of `spec` (nothing else may
        go), import the namespace's records: the rows come back, taint included."""
        namespace = self.namespace(spec)
        records = self._export_holds_every_row(page)
        theirs = [r for r in self._oracle_export() if r.namespace == namespace]
        rows = self.oracle.list(namespace, None, None)
        chosen = (
            builtins.list(dict.fromkeys(rows[p % len(rows)].key for p in picks)) if rows else []
        )
        for key in chosen:
            call = f"forget({namespace!r}, {key!r}) before the import"
            got = self.call(call, self.driver.forget, namespace, key)
            want = self.oracle.forget(namespace, key)
            self.require(got is want, call, repr(want), show(got))
        if chosen:
            forgets = ", ".join(f"forget({namespace!r}, {key!r})" for key in chosen)
            self._namespace_agrees(namespace, forgets, "only the forgotten rows gone")
        mine = [r for r in records if r.namespace == namespace]
        call = f"import_records(<{len(mine)} records of {namespace!r}>)"
        outcome = self.call(call, self.driver.import_records, mine)
        self.require(
            outcome.failed == 0,
            call,
            "failed == 0",
            f"failed {outcome.failed}, errors {show(outcome.errors)}",
        )
        self.oracle.import_records(theirs)
        self._namespace_agrees(namespace, call, "the exported rows back, taint included")

    @operation
    def import_mixed(
        self, spec: str, prefix: str, count: int, salt: int, bad: int, word: str = ""
    ) -> None:
        """Import `count` entry records the kit wrote itself (kind `"entry"`, the payload
        the contract pins: key, content, category, session, timestamp) into the namespace
        of `spec`, with `bad` records among them that no store can write (a payload
        without a key): the good ones are imported with their own taint (or skipped as
        already held), the bad ones counted in `failed` with a reason, and nothing else
        changes. A `word` starts every content (so one query matches them all)."""
        namespace = self.namespace(spec)
        entries = bulk_entries(prefix, count, salt, fit=self.fit)
        if word:
            entries = [e._replace(content=self.fit(f"{word} {e.content}")) for e in entries]
        keys = [self.key(namespace, entry.key) for entry in entries]
        good = [
            ExportRecord(
                kind=ENTRY_KIND,
                id=f"{self.marker}-import-{n}",
                namespace=namespace,
                taint=entry.taint,
                payload={
                    "key": key,
                    "content": entry.content,
                    "category": str(entry.category),
                    "session_id": entry.session_id,
                    "timestamp": "2025-01-01T00:00:00Z",
                },
            )
            for n, (entry, key) in enumerate(zip(entries, keys, strict=True))
        ]
        broken = [
            ExportRecord(
                kind=ENTRY_KIND,
                id=f"{self.marker}-keyless-{n}",
                namespace=namespace,
                taint=MemoryTaint.INTERNAL,
                payload={"content": "a record without a key", "category": "core"},
            )
            for n in range(bad)
        ]
        batch = builtins.list(good)
        for n, record in enumerate(broken):
            batch.insert((salt + 7 * n) % (len(batch) + 1), record)
        call = f"import_records(<{len(good)} records written by the kit, {bad} without a key>)"
        outcome = self.call(call, self.driver.import_records, batch)
        self.written.update((namespace, key) for key in keys)
        if good:
            self.spaces.add(namespace)
        self.oracle.import_records(good)
        got = f"imported {outcome.imported}, skipped {outcome.skipped}, failed {outcome.failed}"
        if not self.retains:
            # The null provider's answer is pinned: every record skipped, none failed.
            self.require(
                (outcome.imported, outcome.skipped, outcome.failed) == (0, len(batch), 0),
                call,
                f"imported 0, skipped {len(batch)}, failed 0 (a store that retains nothing)",
                got,
            )
            return
        self.require(
            outcome.imported + outcome.skipped == len(good) and outcome.failed == bad,
            call,
            f"imported + skipped = {len(good)}, failed = {bad}",
            got,
        )
        self.require(
            bool(outcome.errors) == bool(bad),
            call,
            "a reason for each failure" if bad else "no errors",
            show(outcome.errors),
        )
        self._namespace_agrees(namespace, call, "the imported rows, each with its own taint")

    @operation
    def export_during_writes(
        self,
        page: int,
        writes: builtins.list[tuple[str, str, str | None]],
        emptied: bool | None = None,
    ) -> None:
        """Export `page` records at a time while entries are stored or forgotten between
        the pages (`(spec, key, content)`; no content forgets): the export ends, and its
        entry records (read by the key their payload pins) miss or repeat the run's rows
        only as the writes allow (`conformance.readings.PagedRead`; an upsert may
        move a row, so it counts as one leaving and one entering). With `emptied`, the
        writes wait: after the first page every row not yet exported is forgotten (and,
        when `emptied` is true, the first exported too), so an offset cursor lies
        exactly at the end of the store, or past it."""
        # Its own writes between pages: no check's may join them (`still_store`).
        with still_store(writes=True):
            self._export_while_written(page, writes, emptied)

    def _export_while_written(
        self,
        page: int,
        writes: builtins.list[tuple[str, str, str | None]],
        emptied: bool | None,
    ) -> None:
        rows = {
            f"{row.namespace}|{row.key}"
            for row in self.oracle.list(None, None, None)
            if row.namespace != GLOBAL_NAMESPACE
        }
        read = PagedRead(before=rows, entered=set(), left=set())
        pending = builtins.list(writes)
        records: builtins.list[ExportRecord] = []
        seen: set[str] = set()
        cursor: str | None = None
        call = "export_page"
        for _ in range(MAX_PAGES):
            call = f"export_page({cursor!r}, {page}) with writes between pages"
            got = self.call(call, self.driver.export_page, cursor, page)
            records.extend(got.records)
            if got.next_cursor is None:
                break
            self.require(
                got.next_cursor not in seen,
                call,
                "a cursor never issued before",
                f"the cursor {got.next_cursor!r} again",
            )
            seen.add(got.next_cursor)
            cursor = got.next_cursor
            if emptied is not None:
                self._shrink_to(read, records, past=emptied)
                emptied = None
            elif pending:
                self._export_write(read, *pending.pop(0))
        else:
            self.fail(call, f"an export that ends within {MAX_PAGES} pages", "a cursor every page")
        answered = [
            f"{record.namespace}|{record.payload['key']}"
            for record in records
            if record.kind == ENTRY_KIND
            and isinstance(record.payload, dict)
            and isinstance(record.payload.get("key"), str)
            and record.namespace != GLOBAL_NAMESPACE
            and self._ours(record.namespace, "")
        ]
        wrong = read.judge(answered)
        self.require(
            wrong is None,
            f"export_page(..., {page}) with writes between pages, every page",
            "what an export may answer while the store changes",
            wrong,
        )
        for write in pending:
            self._export_write(None, *write)

    def _shrink_to(self, read: PagedRead, records: Sequence[ExportRecord], *, past: bool) -> None:
        """Forget every row of the run the export has not answered yet (`past`: and the
        first it answered): an offset cursor then lies exactly at the end of the store,
        or past it, and the export must still end."""
        answered = [
            (record.namespace, record.payload.get("key"))
            for record in records
            if isinstance(record.payload, dict)
        ]
        kept = set(answered[1:] if past else answered)
        for row in self.oracle.list(None, None, None):
            if (row.namespace, row.key) in kept:
                continue
            call = f"forget({row.namespace!r}, {row.key!r}) between export pages (shrinking)"
            got = self.call(call, self.driver.forget, row.namespace, row.key)
            want = self.oracle.forget(row.namespace, row.key)
            self.require(got is want, call, repr(want), show(got))
            if row.namespace != GLOBAL_NAMESPACE:
                read.left.add(f"{row.namespace}|{row.key}")

    def _export_write(
        self, read: PagedRead | None, spec: str, key: str, content: str | None
    ) -> None:
        """One write between export pages, noted in `read`."""
        namespace, written = self._address(spec, key)
        name = f"{namespace}|{written}"
        held = self.oracle.get(namespace, written) is not None
        if content is None:
            call = f"forget({namespace!r}, {written!r}) between export pages"
            got = self.call(call, self.driver.forget, namespace, written)
            want = self.oracle.forget(namespace, written)
            self.require(got is want, call, repr(want), show(got))
            if held and read is not None:
                read.left.add(name)
            return
        self._write(namespace, written, content, MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
        if read is not None and namespace != GLOBAL_NAMESPACE:
            read.entered.add(name)
            if held:
                read.left.add(name)

    @operation
    def export_foreign_cursor(self) -> None:
        """`export_page` with a cursor the driver never issued: `Invalid`."""
        call = f"export_page({BAD_CURSOR!r}, 8)"
        page, error = self.attempt(call, self.driver.export_page, BAD_CURSOR, 8)
        self.require(
            isinstance(error, Invalid),
            call,
            "Invalid (a cursor the driver did not issue)",
            f"success ({show(page)})" if error is None else error_text(error),
        )

    # -- invariants and cleanup -----------------------------------------------------

    def check_invariants(self) -> None:
        """`list(None)`, restricted to the run's rows, holds exactly the oracle's rows."""
        self.last_call = "verify"
        call = "list(None, None, None)"
        self._same_rows(
            call,
            self._driver_rows(None, call),
            self.oracle.list(None, None, None),
            noticed=self.noticed(),
        )
        self.documents_agree()

    def final_check(self) -> None:
        """Once per program: `namespaces()` agrees with the oracle, an export in a few
        pages holds every row, and recall with no namespace, asked for a row of another
        namespace, stays in `global` (decisions §4.1)."""
        self.last_call = "final check"
        self._namespaces_agree("namespaces() at the end")
        self.documents_agree(always=True)
        self.document_namespaces_agree("list_namespaces() at the end")
        # An export in a few pages, so every program pages through one.
        self._export_holds_every_row(max(2, math.ceil(self.row_count() / FINAL_EXPORT_PAGES)))
        for namespace in sorted(self.spaces):
            held = [row for row in self.oracle.list(namespace, None, None) if row.content.strip()]
            if held:
                self._recall_in(None, held[0].content, 8, None, None)
                return

    def _forget_row(self, row: tuple[str, str]) -> None:
        namespace, key = row
        self.call(f"forget({namespace!r}, {key!r})", self.driver.forget, namespace, key)

    def cleanup(self, *, everything: bool) -> builtins.list[str]:
        """Forget the accepted writes (all of them, or those the oracle still holds);
        describe any survivor. Documents first, each deleted by its id."""
        survivors = self.documents_cleanup(everything=everything)
        if everything:
            targets = sorted(self.written)
        else:
            targets = sorted(
                (str(row.namespace), row.key) for row in self.oracle.list(None, None, None)
            )
        # Several at once when the run has seats to spare (`fan_out`): a remote store's
        # teardown is a round trip per row.
        each(self._forget_row, targets)
        left = Counter(
            row.namespace for row in self._driver_rows(None, "list(None) after teardown")
        )
        return survivors + [
            f"{n} entries survived in {ns!r}" for ns, n in sorted(left.items(), key=str)
        ]
