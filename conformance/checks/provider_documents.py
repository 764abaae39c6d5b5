"""Provider check of the optional `documents` family (A@late), run when the driver offers it."""

from __future__ import annotations

from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.outcome import CheckSkipped, DriverRaised
from conformance.checks.provider_support import nothing_or_invalid, ns, require_refusal_kind
from conformance.checks.registry import check
from conformance.provider import (
    Capability,
    DocumentDeletion,
    DocumentListing,
    Invalid,
    MemoryTaint,
    NamespaceDocumentInput,
    NamespaceRetrievalContext,
    Unsupported,
)

DOCUMENT_VOLUME = 130
"""Documents in one namespace: past the 10, 20, 50 and 100 rows a backend query commonly
answers by default."""


def _document(namespace: str, body: str, key: str = "doc") -> NamespaceDocumentInput:
    return NamespaceDocumentInput(
        namespace=namespace,
        key=key,
        title="first",
        content=body,
        source_type="conformance",
        priority="normal",
        tags=["conformance"],
        metadata=None,
        category="core",
        taint=MemoryTaint.EXTERNAL_SYNC,
    )


def _family(provider: Any, ctx: CheckContext) -> Any:
    """The documents family, which the driver advertises; skipped when it does not."""
    if not provider.provides(Capability.DOCUMENTS):
        raise CheckSkipped("capability `documents` not offered")
    docs = provider.as_documents()
    ctx.require(docs is not None, "as_documents()", "the documents family (advertised)", "None")
    return docs


def _listed(docs: Any, ctx: CheckContext, namespace: str) -> DocumentListing:
    """`list_documents(namespace)`, whose `count` must be its number of rows."""
    listing = DocumentListing.model_validate(docs.list_documents(namespace))
    ctx.require(
        listing.count == len(listing.documents),
        f"list_documents({namespace!r})",
        "a count equal to the number of rows",
        f"count {listing.count} over {len(listing.documents)} rows",
    )
    return listing


@check(
    "provider.documents_round_trip",
    title="The documents family stores, lists, recalls, deletes and clears",
    clause="provider-families.md#documents-family, provider-families.md#taint",
    storage=True,
    needs="documents",
)
def assert_documents_round_trip(provider: Any, ctx: CheckContext) -> None:
    """put/get/replace, the list envelope, recall, delete twice and clear, with taint kept."""
    docs = _family(provider, ctx)
    namespace = ns(ctx, "documents")
    ctx.defer(f"clear_namespace({namespace!r})", lambda: docs.clear_namespace(namespace))

    doc_id = docs.put_document(_document(namespace, "the first body"))
    got = docs.get_document(namespace, "doc")
    call = f"get_document({namespace!r}, 'doc')"
    ctx.require(got is not None, call, "the stored document", "None")
    ctx.require(
        (got.content, got.namespace, got.key, got.taint)
        == ("the first body", namespace, "doc", MemoryTaint.EXTERNAL_SYNC),
        call,
        "content, namespace, key and taint as put",
        got,
    )
    docs.put_document(_document(namespace, "the second body"))
    again = docs.get_document(namespace, "doc")
    ctx.require(
        again is not None and again.content == "the second body",
        call,
        "the second put to replace the content",
        again,
    )

    listing = DocumentListing.model_validate(docs.list_documents(namespace))
    call = f"list_documents({namespace!r})"
    ctx.require(
        listing.count == len(listing.documents) == 1, call, "count 1 with exactly one row", listing
    )
    row = listing.documents[0]
    ctx.require(
        (row.namespace, row.key, row.taint) == (namespace, "doc", MemoryTaint.EXTERNAL_SYNC),
        call,
        "the row's namespace, key and taint (external_sync) as put",
        (row.namespace, row.key, row.taint),
    )

    try:
        recalled = docs.recall_documents(namespace, 10)
    except DriverRaised as raised:
        if not isinstance(raised.error, Unsupported):
            raise
    else:
        call = f"recall_documents({namespace!r}, 10)"
        ctx.require(
            bool(recalled.hits) and bool(recalled.context_text.strip()),
            call,
            "hits and a non-empty context_text",
            recalled,
        )
        ctx.require(
            any(h.key == "doc" for h in recalled.hits),
            call,
            "a hit with key 'doc'",
            [h.key for h in recalled.hits],
        )
        none = docs.recall_documents(namespace, 0)
        call = f"recall_documents({namespace!r}, 0)"
        ctx.require(not none.hits, call, "no hit (a limit of 0 is valid input)", none.hits)

    document_id = again.document_id if again is not None else doc_id
    first = DocumentDeletion.model_validate(docs.delete_document(namespace, document_id))
    call = f"delete_document({namespace!r}, {document_id!r})"
    ctx.require(
        first.deleted and first.namespace == namespace and first.document_id == document_id,
        call,
        "deleted true with namespace and documentId",
        first,
    )
    second = DocumentDeletion.model_validate(docs.delete_document(namespace, document_id))
    ctx.require(second.deleted is False, call + " (again)", "deleted false, not an error", second)

    docs.put_document(_document(namespace, "to be cleared"))
    docs.clear_namespace(namespace)
    left = docs.get_document(namespace, "doc")
    ctx.require(
        left is None, f"get_document({namespace!r}, 'doc')", "None after clear_namespace", left
    )


@check(
    "provider.documents_at_volume",
    title="The documents family lists, deletes, clears and queries one namespace whole, "
    "and none of its near-miss siblings",
    clause=(
        "provider-families.md#documents-family, provider-families.md#namespace-isolation, "
        "kit-choices.md#edges-of-a-domain"
    ),
    storage=True,
    needs="documents",
)
def assert_documents_at_volume(provider: Any, ctx: CheckContext) -> None:
    """130 documents in one namespace (keys `d0`..`d129`, so `d1` is a prefix of `d10`)
    beside one each in a prefix sibling, a child and a namespace differing only in case
    (those the declared constraints admit): `list_documents` answers exactly the 130,
    `list_namespaces` each of the namespaces, deleting `d1`
    takes it alone, `query_documents` of the home namespace answers nothing from the
    siblings (and nothing, or `Invalid`, for a limit of -1, as does `recall_documents`),
    and `clear_namespace` empties the home namespace and leaves the siblings."""
    docs = _family(provider, ctx)
    home = ns(ctx, "docs-home")
    # The child keeps its `/`; a declared alphabet without `/` (or capitals) leaves it out.
    admits = ctx.settings.constraints.admits_namespace
    siblings = tuple(n for n in (f"{home}x", f"{home}/child", ns(ctx, "docs-Home")) if admits(n))
    for namespace in (home, *siblings):
        ctx.defer(f"clear_namespace({namespace!r})", partial(docs.clear_namespace, namespace))
    keys = [f"d{i}" for i in range(DOCUMENT_VOLUME)]
    ids = {key: docs.put_document(_document(home, f"needle body {key}", key)) for key in keys}
    for namespace in siblings:
        docs.put_document(_document(namespace, "needle decoy body", "d1"))

    listing = _listed(docs, ctx, home)
    ctx.require_ids(
        f"list_documents({home!r})",
        [row.key for row in listing.documents],
        keys,
        f"exactly the {DOCUMENT_VOLUME} documents put there",
    )
    names = docs.list_namespaces()
    mine = [name for name in names if name in (home, *siblings)]
    ctx.require(
        sorted(mine) == sorted((home, *siblings)),
        "list_namespaces()",
        f"each of {show([home, *siblings])} once",
        show(mine),
    )

    gone = DocumentDeletion.model_validate(docs.delete_document(home, ids["d1"]))
    call = f"delete_document({home!r}, <id of d1>)"
    ctx.require(gone.deleted, call, "deleted true", gone)
    left = [row.key for row in _listed(docs, ctx, home).documents]
    kept = [key for key in keys if key != "d1"]
    ctx.require_ids(f"list_documents({home!r}) after {call}", left, kept, "all but d1")
    for namespace in siblings:
        held = docs.get_document(namespace, "d1")
        ctx.require(held is not None, f"get_document({namespace!r}, 'd1') after {call}", "d1", held)

    # `decoy` is held by the siblings alone, `needle` by every document. A limit of 0 is
    # valid input (the limit only must not be negative): no hit, not a refusal.
    for query, limit in (("decoy", 10), ("needle", 10), ("needle", 0)):
        found = NamespaceRetrievalContext.model_validate(docs.query_documents(home, query, limit))
        call = f"query_documents({home!r}, {query!r}, {limit})"
        ctx.require(len(found.hits) <= limit, call, f"at most {limit} hits", len(found.hits))
        strays = [(hit.namespace, hit.key) for hit in found.hits if hit.namespace != home]
        ctx.require(not strays, call, f"no hit from outside {home!r}", show(strays))
    nothing_or_invalid(
        ctx,
        f"query_documents({home!r}, 'needle', -1)",
        lambda: (
            NamespaceRetrievalContext.model_validate(docs.query_documents(home, "needle", -1)).hits
        ),
    )
    nothing_or_invalid(
        ctx,
        f"recall_documents({home!r}, -1)",
        lambda: NamespaceRetrievalContext.model_validate(docs.recall_documents(home, -1)).hits,
        (Invalid, Unsupported),
    )

    docs.clear_namespace(home)
    call = f"clear_namespace({home!r})"
    ctx.require_ids(
        f"list_documents({home!r}) after {call}",
        [row.key for row in _listed(docs, ctx, home).documents],
        [],
        "nothing",
    )
    for namespace in siblings:
        held = docs.get_document(namespace, "d1")
        ctx.require(held is not None, f"get_document({namespace!r}, 'd1') after {call}", "d1", held)


@check(
    "provider.document_ids",
    title="A document keeps the id it was given, a freed id can name another document, "
    "and a put without an id is never refused",
    clause=(
        "kit-choices.md#document-ids, provider-families.md#documents-family, "
        "kit-choices.md#edges-of-a-domain"
    ),
    storage=True,
    needs="documents",
)
def assert_document_ids(provider: Any, ctx: CheckContext) -> None:
    """`a` is put without an id and deleted; its freed id is given to `b`, and `a` is put
    again without one: accepted, under an id of its own (a store deriving ids from keys
    must step past the one a caller took). `c`, `d` and `e` are given an id, its
    extension and its case twin: each is stored and answered as given; `d`, put again
    under a new id, is known by the new one only; `delete_document` of `b`'s and `c`'s
    ids takes those two alone, and every read names each document by its own id. A put
    with a blank id is refused with `Invalid`, or takes an id of the driver's."""
    docs = _family(provider, ctx)
    namespace = ns(ctx, "document-ids")
    ctx.defer(f"clear_namespace({namespace!r})", lambda: docs.clear_namespace(namespace))

    def put(key: str, document_id: str | None) -> str:
        document = _document(namespace, f"the body of {key}", key).model_copy(
            update={"document_id": document_id}
        )
        call = f"put_document({namespace!r}, {key!r}, document_id={document_id!r})"
        try:
            got = docs.put_document(document)
        except DriverRaised as raised:
            ctx.fail(
                call,
                "the put accepted: no document of the namespace has the id given"
                if document_id is not None
                else "the put accepted: no id was given, so none collides (an id the "
                "driver makes is any text no other document has: kit-choices.md#document-ids)",
                f"{type(raised.error).__name__}: {raised.error}",
            )
        ctx.require(isinstance(got, str) and bool(got.strip()), call, "a document id", show(got))
        if document_id is not None:
            ctx.require(got == document_id, call, f"the id given, {document_id!r}", show(got))
        return str(got)

    def delete(document_id: str, what: str) -> None:
        call = f"delete_document({namespace!r}, {document_id!r})"
        gone = DocumentDeletion.model_validate(docs.delete_document(namespace, document_id))
        ctx.require(gone.deleted, call, f"deleted true ({what})", gone)

    freed = put("a", None)
    delete(freed, "the id put_document answered for 'a'")
    ids = {"b": put("b", freed), "a": put("a", None)}
    ctx.require(
        ids["a"] != freed,
        f"put_document({namespace!r}, 'a', document_id=None)",
        f"an id other than {freed!r}, which 'b' now has",
        show(ids["a"]),
    )
    given = f"{ctx.root}-given-Id"
    for key, document_id in (("c", given), ("d", given + "0"), ("e", given.swapcase())):
        ids[key] = put(key, document_id)

    def agree(after: str, held: dict[str, str]) -> None:
        listing = _listed(docs, ctx, namespace)
        call = f"list_documents({namespace!r}){after}"
        rows = {row.key: row.document_id for row in listing.documents}
        ctx.require(rows == held, call, f"exactly the documents {show(held)}", show(rows))
        for key, document_id in held.items():
            got = docs.get_document(namespace, key)
            call = f"get_document({namespace!r}, {key!r}){after}"
            ctx.require(
                got is not None and got.document_id == document_id,
                call,
                f"the document under its id {document_id!r}",
                show(None if got is None else got.document_id),
            )

    agree("", ids)
    renamed = given + "-renamed"
    old_id, ids["d"] = ids["d"], put("d", renamed)
    gone = DocumentDeletion.model_validate(docs.delete_document(namespace, old_id))
    call = f"delete_document({namespace!r}, {old_id!r}) after 'd' was put again as {renamed!r}"
    ctx.require(not gone.deleted, call, "deleted false: no document has that id now", gone)
    agree(f" after 'd' was put again as {renamed!r}", ids)
    delete(ids["b"], "b's id, which 'a' once had")
    delete(given, "c's id, a prefix of d's and a case twin of e's")
    agree(f" after deleting {ids['b']!r} and {given!r}", {k: ids[k] for k in ("a", "d", "e")})
    # A blank id names nothing: refused with `Invalid`, or taken as no id given.
    blank = _document(namespace, "the body of f", "f").model_copy(update={"document_id": " "})
    call = f"put_document({namespace!r}, 'f', document_id=' ')"
    made, error = ctx.attempt(call, docs.put_document, blank)
    if error is not None:
        require_refusal_kind(
            ctx, call, error, "Invalid, or an id of the driver's (a blank id names nothing)"
        )
        return
    ctx.require(
        isinstance(made, str) and bool(made.strip()),
        call,
        "an id of the driver's (a blank id names nothing), or Invalid",
        show(made),
    )
    agree(" after a put with a blank id", {**{k: ids[k] for k in ("a", "d", "e")}, "f": made})
