"""The provider differential's `documents` steps, compared with `ReferenceDocuments`.

Run only when the driver offers the family (and retains writes). What is compared is
what the contract pins (contract-reference A4, decisions §4.11):

- `put_document` upserts by `(namespace, key)`, replacing every field; it answers the
  id, which is the one given when one is given. An id naming another document of the
  namespace is `Invalid`, and the put changes nothing: the kit's rule where the contract
  is silent (kit-choices.md#document-ids), and its failure says so. A generated id is
  opaque: any text no other document of the namespace has, kept or not across updates;
- `get_document` answers the document as put (id, title, content, source type,
  priority, tags as a set, metadata, category, session, taint) or `None`;
  `created_at`, `updated_at` and `markdown_rel_path` are the driver's;
- `list_documents` answers `{"count", "documents"}`, `count` equal to the rows, the
  rows (as a multiset: id, namespace, key, title, source type, priority, taint) those
  the oracle holds; `None` lists every namespace (restricted to the run's);
- `list_namespaces` names each namespace holding documents; one left empty may stay;
- `delete_document(namespace, id)` deletes the document of that namespace with that
  id and nothing else (`deleted` says whether there was one); `clear_namespace`
  empties the namespace;
- `query_documents` and `recall_documents` answer at most `limit` hits, each a current
  document of the namespace asked (content, title, id and taint as held), none twice.
  Matching and ranking are the driver's; a recall whose limit covers the namespace
  includes the document put last, and may be `Unsupported`.

Documents live under `DOCUMENTS_BRANCH` of the run root, never in a namespace of the
core steps, and every document read is restricted to the run's document namespaces.
Teardown clears each namespace of the run in which the driver accepted a document (no
other writer's document is there), then lists: a survivor fails the run.
"""

from __future__ import annotations

import builtins
import json
import zlib
from collections import Counter
from typing import Any, Final

from conformance.checks.evidence import show
from conformance.fuzz.bulk import bulk_documents
from conformance.fuzz.config import DOCUMENTS_BRANCH, ROOT_PLACEHOLDER
from conformance.fuzz.differential import (
    Differential,
    FuzzConfigError,
    error_text,
    operation,
    some_shown,
    wire_taint,
)
from conformance.provider import (
    DocumentDeletion,
    DocumentListing,
    DocumentRow,
    Invalid,
    MemoryCategory,
    MemoryTaint,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    StoredMemoryDocument,
    Unsupported,
)

__all__ = ["DELETE_WAYS", "KIT_RULE_COLLIDING_ID", "DocumentsDifferential"]

KIT_RULE_COLLIDING_ID: Final = (
    "the kit's rule, not the contract's: Invalid for a document_id that already names "
    "another document of the namespace, the put changing nothing (the contract is "
    "silent; otherwise delete_document(namespace, id) cannot tell the two apart: "
    "kit-choices.md#document-ids). A store that accepts the collision may waive "
    "this target knowingly"
)
"""What a put with a colliding id must answer: the kit's reading, said as such."""

DELETE_WAYS: Final = ("held", "near", "near", "sibling", "pool")
"""Which id a delete step names: a document the namespace holds, a near miss of one
(twice as likely: cut short, lengthened, case-swapped), one of another namespace, or an
explicit id of the pool (held or not)."""

Address = tuple[str, str]
Listed = tuple[str, str, str, str, str, str, str]
"""A listing row as compared: id, namespace, key, title, source type, priority, taint."""

_DECLARE: Final = (
    "the put stored (the document is contract-valid and within the driver's declared "
    "constraints; a store that cannot take it declares so with Driver(constraints=...))"
)


def _category(value: str) -> str:
    return str(MemoryCategory.parse(value))


def _listed(row: DocumentRow) -> Listed:
    return (
        row.document_id,
        row.namespace,
        row.key,
        row.title,
        row.source_type,
        row.priority,
        wire_taint(row.taint),
    )


def _whole(document: StoredMemoryDocument, document_id: str) -> tuple[Any, ...]:
    """What the contract pins of a stored document, its id given separately."""
    return (
        document_id,
        document.namespace,
        document.key,
        document.title,
        document.content,
        document.source_type,
        document.priority,
        tuple(sorted(document.tags)),
        json.dumps(document.metadata, sort_keys=True),
        _category(document.category),
        document.session_id,
        wire_taint(document.taint),
    )


class DocumentsDifferential(Differential):
    """The `documents` steps of the provider differential (see the module docstring)."""

    def __init__(self, driver: Any, oracle: Any, *, documents: Any = None, **common: Any) -> None:
        super().__init__(driver, oracle, **common)
        self.docs: Any | None = documents
        """The driver's documents family, or `None` when the documents steps do not run."""
        self.doc_oracle = self.document_oracle(oracle)
        self.doc_ids: dict[Address, str] = {}
        """The driver's id of every document it holds, as the oracle sees them."""
        self.doc_freed: dict[str, builtins.list[tuple[str, str]]] = {}
        """Per namespace, `(key, driver id)` of its documents since deleted or cleared:
        ids free to give again, keys to put again (a store deriving ids from keys meets
        a freed id, given to another key, when it makes one for its old key)."""
        self.doc_accepted: dict[Address, str] = {}
        """Every document the driver accepted, with its last id: where teardown clears."""
        self.doc_spaces: set[str] = set()
        """Every namespace a document step named: the other steps' reads leave them out."""
        self.doc_held_once: set[str] = set()
        """Namespaces that have held a document (an emptied one may stay listed)."""
        self.doc_last: dict[str, str] = {}
        """The key put last in each namespace, while it is held."""
        self.doc_specs: dict[str, str] = {}
        """The spec each document namespace was named by."""
        self.doc_writes = 0
        """Document writes asked of the driver so far."""
        self._docs_compared: tuple[int, int] = (-1, -1)
        """`(doc_writes, steps)` when every document was last compared."""

    @staticmethod
    def document_oracle(oracle: Any) -> Any:
        """The oracle's documents family (the reference provider's is `ReferenceDocuments`),
        or a `ReferenceDocuments` of its own for an oracle without one."""
        accessor = getattr(oracle, "as_documents", None)
        family = accessor() if callable(accessor) else None
        if family is not None:
            return family
        from reference_driver.documents import ReferenceDocuments

        return ReferenceDocuments()

    # -- names ----------------------------------------------------------------------

    def doc_namespace(self, spec: str) -> str:
        """The namespace of a document spec: `~` is the run root and `DOCUMENTS_BRANCH`."""
        if ROOT_PLACEHOLDER not in spec:
            raise FuzzConfigError(
                f"document namespace spec {spec!r} does not contain {ROOT_PLACEHOLDER!r}, "
                "the run root"
            )
        namespace = spec.replace(ROOT_PLACEHOLDER, self.root + DOCUMENTS_BRANCH)
        self.doc_spaces.add(namespace)
        self.doc_specs.setdefault(namespace, spec)
        return namespace

    def _pool_id(self, spec: str, name: str) -> str:
        # Marked, so no other writer's id is met; the spec's checksum keeps two
        # namespaces from sharing an id (whether ids are unique across namespaces is free).
        return f"{self.marker}-{zlib.crc32(spec.encode()):08x}-{name}"

    def held_documents(self, namespace: str) -> builtins.list[tuple[str, str]]:
        """`(key, driver id)` of each document the namespace holds, by key."""
        return sorted((key, i) for (ns, key), i in self.doc_ids.items() if ns == namespace)

    def held_document_keys(self, spec: str) -> builtins.list[str]:
        """The keys the namespace of `spec` holds."""
        return [key for key, _ in self.held_documents(self.doc_namespace(spec))]

    def gone_document_keys(self, spec: str) -> builtins.list[str]:
        """The keys the namespace of `spec` held once and holds no more."""
        namespace = self.doc_namespace(spec)
        held = set(self.held_document_keys(spec))
        return sorted({key for key, _ in self.doc_freed.get(namespace, [])} - held)

    def prefix_document_specs(self) -> builtins.list[str]:
        """Specs of the namespaces that are a string prefix of another namespace holding
        documents (`~/a` beside `~/ab`): where a read matching namespaces by prefix shows."""
        holding = {namespace for namespace, _ in self.doc_ids}
        return sorted(
            spec
            for namespace, spec in self.doc_specs.items()
            if any(other != namespace and other.startswith(namespace) for other in holding)
        )

    def prefix_siblings(self, spec: str, other: str) -> bool:
        """Whether the namespace of one spec is a string prefix of the other's (not equal)."""
        # Resolved without registering: the machine asks, no step names them yet.
        one, two = (
            s.replace(ROOT_PLACEHOLDER, self.root + DOCUMENTS_BRANCH) for s in (spec, other)
        )
        return one != two and (one.startswith(two) or two.startswith(one))

    def holding_document_specs(self) -> builtins.list[str]:
        """Specs of the namespaces holding documents."""
        return sorted({self.doc_specs[namespace] for namespace, _ in self.doc_ids})

    def freeing_document_specs(self) -> builtins.list[str]:
        """Specs of the namespaces with ids freed by a delete or a clear."""
        return sorted(self.doc_specs[namespace] for namespace in self.doc_freed)

    def held_document_texts(self, beside: str | None = None) -> builtins.list[str]:
        """Every held document's title and content (for queries); with `beside`, a spec,
        only those of the namespaces its namespace is a string prefix of."""
        under = None if beside is None else self.doc_namespace(beside)
        texts: builtins.list[str] = []
        for namespace, key in sorted(self.doc_ids):
            document = self.doc_oracle.get_document(namespace, key)
            longer = under is None or (namespace != under and namespace.startswith(under))
            if document is not None and longer:
                texts += [document.title, document.content]
        return texts

    # -- comparisons ----------------------------------------------------------------

    def _family(self) -> Any:
        if self.docs is None:
            raise FuzzConfigError("a documents step, but the driver's documents are not fuzzed")
        return self.docs

    def _want_rows(self, namespace: str | None) -> Counter[Listed]:
        listing = DocumentListing.model_validate(self.doc_oracle.list_documents(namespace))
        # The oracle's ids are its own: each row is compared with the driver's id.
        return Counter(
            _listed(row.model_copy(update={"document_id": self.doc_ids[(row.namespace, row.key)]}))
            for row in listing.documents
        )

    def _driver_listing(self, namespace: str | None, call: str) -> Counter[Listed]:
        answer = self.call(call, self._family().list_documents, namespace)
        listing = DocumentListing.model_validate(answer)
        self.require(
            listing.is_consistent(),
            call,
            "count equal to the number of rows",
            f"count {listing.count} with {len(listing.documents)} rows",
        )
        rows = listing.documents
        if namespace is None:
            rows = [row for row in rows if row.namespace in self.doc_spaces]
        return Counter(_listed(row) for row in rows)

    def _listing_agrees(
        self, namespace: str | None, after: str, expected: str = "", noticed: str = ""
    ) -> None:
        """The driver lists the oracle's documents of `namespace` (all of the run's when
        `None`); a difference is blamed on `after`."""
        label = f"list_documents({namespace!r})"
        call = label if after == label else f"{label} after {after}"
        got = self._driver_listing(namespace, call)
        want = self._want_rows(namespace)
        if got == want:
            return
        self.fail(
            call,
            expected or "the documents the oracle holds",
            f"{sum(got.values())} rows where {sum(want.values())} were due; "
            f"extra: {some_shown(got - want)}; missing: {some_shown(want - got)}{noticed}",
        )

    def _document_agrees(self, namespace: str, key: str, call: str) -> None:
        got = self.call(call, self._family().get_document, namespace, key)
        want = self.doc_oracle.get_document(namespace, key)
        mine = None if got is None else _whole(got, got.document_id)
        theirs = None if want is None else _whole(want, self.doc_ids[(namespace, key)])
        self.require(mine == theirs, call, show(theirs), show(mine))

    # -- writes ---------------------------------------------------------------------

    def _given_id(self, spec: str, namespace: str, chosen: str | int | None) -> str | None:
        """The explicit id a put names: none, the marked pool id `chosen`, the id of the
        held document number `chosen` of the namespace (perhaps the one put over), or for
        a negative `chosen`, the freed id number `-chosen - 1` of the namespace."""
        if chosen is None or isinstance(chosen, str):
            return None if chosen is None else self._pool_id(spec, chosen)
        if chosen < 0:
            freed = self.doc_freed.get(namespace, [])
            return freed[(-chosen - 1) % len(freed)][1] if freed else None
        held = self.held_documents(namespace)
        return held[chosen % len(held)][1] if held else None

    def _put(self, spec: str, document: NamespaceDocumentInput) -> str:
        """Put one document and judge the answer (not yet the store); the call."""
        namespace, key = document.namespace, document.key
        given = document.document_id
        call = (
            f"put_document({namespace!r}, {key!r}, title={show(document.title)}, "
            f"content={show(document.content)}, document_id={given!r}, ...)"
        )
        others = {i for (ns, k), i in self.doc_ids.items() if ns == namespace and k != key}
        self.doc_writes += 1
        got, error = self.attempt(call, self._family().put_document, document)
        if error is None:
            self.doc_accepted[(namespace, key)] = str(got)
        if given is not None and given in others:
            self.require(
                isinstance(error, Invalid),
                call,
                KIT_RULE_COLLIDING_ID,
                f"success ({show(got)})" if error is None else error_text(error),
            )
            if (namespace, key) in self.doc_ids:
                self._document_agrees(namespace, key, f"get_document({namespace!r}, {key!r})")
            return call
        self.require(error is None, call, _DECLARE, error_text(error))
        if given is not None:
            self.require(got == given, call, f"the id given, {given!r}", show(got))
        self.require(
            isinstance(got, str) and bool(got.strip()) and got not in others,
            call,
            "a document id no other document of the namespace has",
            show(got),
        )
        self.doc_ids[(namespace, key)] = str(got)
        self.doc_held_once.add(namespace)
        self.doc_last[namespace] = key
        # The oracle keeps ids of its own: the driver's are compared through `doc_ids`.
        self.doc_oracle.put_document(document.model_copy(update={"document_id": None}))
        return call

    @operation
    def put_document(
        self,
        spec: str,
        key: str,
        title: str,
        content: str,
        source_type: str,
        priority: str,
        tags: builtins.list[str],
        metadata: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
        document_id: str | int | None,
    ) -> None:
        """Put one document (`metadata` as JSON text; `document_id` none, a pool id, the
        number of a held document whose id is reused, or minus one less than the number
        of a freed id): stored as put, or `Invalid` for an id naming another document;
        nothing else in the namespace changed."""
        namespace = self.doc_namespace(spec)
        document = NamespaceDocumentInput(
            namespace=namespace,
            key=key,
            title=title,
            content=content,
            source_type=source_type,
            priority=priority,
            tags=tags,
            metadata=json.loads(metadata),
            category=str(category),
            session_id=session_id,
            document_id=self._given_id(spec, namespace, document_id),
            taint=taint,
        )
        call = self._put(spec, document)
        self._listing_agrees(namespace, call)

    @operation
    def put_documents(self, spec: str, prefix: str, count: int, salt: int) -> None:
        """Put the `count` documents of bulk `salt` (`conformance.fuzz.bulk`, keys
        `<prefix>0`...) into one namespace, one `put_document` each."""
        namespace = self.doc_namespace(spec)
        for document in bulk_documents(namespace, prefix, count, salt, fit=self.fit):
            self._put(spec, document)
        self._listing_agrees(namespace, f"<{count} put_document of bulk {salt}> into {namespace!r}")

    def _forgotten(self, namespace: str, key: str) -> None:
        freed = self.doc_freed.setdefault(namespace, [])
        freed.append((key, self.doc_ids.pop((namespace, key))))
        if self.doc_last.get(namespace) == key:
            del self.doc_last[namespace]

    def _delete_target(self, spec: str, namespace: str, way: str, pick: int, name: str) -> str:
        """The id a delete step names (see `DELETE_WAYS`); the pool id when `way` finds none."""
        held = self.held_documents(namespace)
        if way == "sibling":
            elsewhere = sorted(
                (ns, key, i) for (ns, key), i in self.doc_ids.items() if ns != namespace
            )
            if elsewhere:
                return elsewhere[pick % len(elsewhere)][2]
        elif way in ("held", "near") and held:
            chosen = held[pick % len(held)][1]
            if way == "held":
                return chosen
            # Cut short twice as often: a prefix of the id held, which a delete matching
            # ids by prefix takes with it.
            near = [chosen[:-1], chosen[:-1], chosen + "0", chosen.swapcase()]
            return near[(pick // len(held)) % len(near)] or chosen + "0"
        return self._pool_id(spec, name)

    @operation
    def delete_document(self, spec: str, way: str, pick: int, name: str) -> None:
        """Delete the document the id `way` chooses names in the namespace of `spec`:
        `deleted` as the oracle says, and nothing else removed, here or elsewhere."""
        namespace = self.doc_namespace(spec)
        target = self._delete_target(spec, namespace, way, pick, name)
        call = f"delete_document({namespace!r}, {target!r})"
        self.doc_writes += 1
        answer = self.call(call, self._family().delete_document, namespace, target)
        outcome = DocumentDeletion.model_validate(answer)
        gone = [key for (ns, key), i in self.doc_ids.items() if ns == namespace and i == target]
        self.require(
            (outcome.deleted, outcome.namespace, outcome.document_id)
            == (bool(gone), namespace, target),
            call,
            f"deleted {bool(gone)} with the namespace and documentId asked",
            show(outcome.model_dump(by_alias=True)),
        )
        for key in gone:
            held = self.doc_oracle.get_document(namespace, key)
            if held is not None:
                self.doc_oracle.delete_document(namespace, held.document_id)
            self._forgotten(namespace, key)
        self._listing_agrees(namespace, call, "only the document deleted gone")
        if way == "sibling":
            # The id belongs to another namespace: its document must still be there.
            self._listing_agrees(None, call, "no document of another namespace deleted")

    @operation
    def clear_documents(self, spec: str) -> None:
        """`clear_namespace`: every document of the namespace of `spec` gone, no other."""
        namespace = self.doc_namespace(spec)
        call = f"clear_namespace({namespace!r})"
        self.doc_writes += 1
        self.call(call, self._family().clear_namespace, namespace)
        self.doc_oracle.clear_namespace(namespace)
        for ns, key in [address for address in self.doc_ids if address[0] == namespace]:
            self._forgotten(ns, key)
        self._listing_agrees(namespace, call, "no document left in the namespace")

    # -- reads ----------------------------------------------------------------------

    @operation
    def get_document(self, spec: str, key: str) -> None:
        """Get one document: the oracle's (with the driver's id), or `None` for both."""
        namespace = self.doc_namespace(spec)
        self._document_agrees(namespace, key, f"get_document({namespace!r}, {key!r})")

    @operation
    def list_documents(self, spec: str | None) -> None:
        """List one namespace's documents, or every namespace's (`None`, restricted to
        the run's document namespaces)."""
        namespace = None if spec is None else self.doc_namespace(spec)
        label = f"list_documents({namespace!r})"
        self._listing_agrees(namespace, label)

    @operation
    def list_document_namespaces(self) -> None:
        """`list_namespaces()`, restricted to the run's: each namespace holding documents,
        once; a namespace emptied earlier may stay listed."""
        self.document_namespaces_agree("list_namespaces()")

    def document_namespaces_agree(self, call: str) -> None:
        """`list_namespaces()` names the oracle's namespaces (see `list_document_namespaces`)."""
        if self.docs is None:
            return
        got = self.call(call, self.docs.list_namespaces)
        ours = [namespace for namespace in got if namespace in self.doc_spaces]
        twice = sorted(ns for ns, n in Counter(ours).items() if n > 1)
        self.require(not twice, call, "each namespace once", f"{twice} more than once")
        want = set(self.doc_oracle.list_namespaces())
        missing = sorted(want - set(ours))
        extra = sorted(set(ours) - want - self.doc_held_once)
        self.require(
            not missing and not extra,
            call,
            "every namespace of the run holding documents, and no other",
            f"missing {missing}; never held a document: {extra}",
        )

    def _hits_sound(
        self, call: str, namespace: str, context: NamespaceRetrievalContext, limit: int
    ) -> builtins.list[str]:
        """At most `limit` hits, each a current document of `namespace`, none twice; the
        keys hit."""
        self.require(
            context.namespace == namespace,
            call,
            f"the namespace asked, {namespace!r}",
            show(context.namespace),
        )
        hits = context.hits
        self.require(len(hits) <= limit, call, f"at most {limit} hits", f"{len(hits)} hits")
        keys: builtins.list[str] = []
        for hit in hits:
            held = self.doc_oracle.get_document(namespace, hit.key)
            shown = show((hit.namespace, hit.key, hit.title, hit.content, hit.document_id))
            self.require(
                hit.namespace == namespace and held is not None,
                call,
                f"hits that are current documents of {namespace!r}",
                shown,
            )
            assert held is not None
            # A hit on a chunk carries part of the content.
            content_ok = (
                hit.content == held.content if hit.chunk_id is None else hit.content in held.content
            )
            self.require(
                content_ok
                and hit.title in (None, held.title)
                and hit.document_id in (None, self.doc_ids[(namespace, hit.key)])
                and wire_taint(hit.taint) == wire_taint(held.taint),
                call,
                "each hit's content, title, document id and taint as held: "
                + show(
                    (
                        held.title,
                        held.content,
                        self.doc_ids[(namespace, hit.key)],
                        wire_taint(held.taint),
                    )
                ),
                shown + f" with taint {wire_taint(hit.taint)}",
            )
            if hit.chunk_id is None:
                self.require(hit.key not in keys, call, "each document once", shown + " again")
            keys.append(hit.key)
        return keys

    @operation
    def query_documents(self, spec: str, query: str, limit: int) -> None:
        """Query one namespace: at most `limit` current documents of it (which ones match,
        and in what order, is the driver's)."""
        namespace = self.doc_namespace(spec)
        call = f"query_documents({namespace!r}, {show(query)}, {limit})"
        context = self.call(call, self._family().query_documents, namespace, query, limit)
        self._hits_sound(call, namespace, context, limit)

    @operation
    def recall_documents(self, spec: str, limit: int) -> None:
        """Recall one namespace: `Unsupported`, or at most `limit` current documents of it,
        the one put last among them when `limit` covers the namespace, with context text."""
        namespace = self.doc_namespace(spec)
        call = f"recall_documents({namespace!r}, {limit})"
        context, error = self.attempt(call, self._family().recall_documents, namespace, limit)
        if isinstance(error, Unsupported):
            return
        self.require(error is None, call, "an answer, or Unsupported", error_text(error))
        assert context is not None
        keys = self._hits_sound(call, namespace, context, limit)
        self.require(
            not keys or bool(context.context_text.strip()),
            call,
            "a non-empty context_text with the hits",
            show(context.context_text),
        )
        last = self.doc_last.get(namespace)
        if last is not None and limit >= len(self.held_documents(namespace)):
            self.require(
                last in keys,
                call,
                f"the document put last, {last!r}, among the hits (the limit covers them all)",
                show(keys),
            )

    # -- invariants and cleanup -----------------------------------------------------

    def documents_agree(self, *, always: bool = False) -> None:
        """Every document of the run, as the oracle holds them (when documents are fuzzed):
        `always` once at the end; between steps only when every step is compared (a
        replay naming the step that went wrong), after a document write since the last
        time. A search relies on each documents step comparing what it touched, and on
        the end."""
        if self.docs is None or (not always and self.full_every > 1):
            return
        last_writes, last_steps = self._docs_compared
        if self.doc_writes == last_writes and (not always or len(self.log) == last_steps):
            return
        self._listing_agrees(None, "list_documents(None)", noticed=self.noticed())
        self._docs_compared = (self.doc_writes, len(self.log))

    def documents_cleanup(self, *, everything: bool) -> builtins.list[str]:
        """Clear each namespace holding documents the driver accepted (every one it ever
        accepted one in, or those the oracle holds documents in); one line per namespace
        where documents survived. Each such namespace lies under the run's documents root
        and holds the run's documents only, so a clear removes those and nothing else, at
        one call a namespace where deletes would cost one a document."""
        if self.docs is None:
            return []
        addresses = self.doc_accepted if everything else self.doc_ids
        for namespace in sorted({namespace for namespace, _ in addresses}):
            self.call(
                f"clear_namespace({namespace!r}) at teardown", self.docs.clear_namespace, namespace
            )
        left = self._driver_listing(None, "list_documents(None) after teardown")
        by_space = Counter(row[1] for row in left.elements())
        return [f"{n} documents survived in {ns!r}" for ns, n in sorted(by_space.items())]
