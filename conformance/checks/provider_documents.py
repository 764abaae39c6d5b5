"""Provider check of the optional `documents` family (A@late), run when the driver offers it."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.outcome import CheckSkipped, DriverRaised
from conformance.checks.provider_support import ns
from conformance.provider import (
    Capability,
    DocumentDeletion,
    DocumentListing,
    MemoryTaint,
    NamespaceDocumentInput,
    Unsupported,
)


def _document(namespace: str, body: str) -> NamespaceDocumentInput:
    return NamespaceDocumentInput(
        namespace=namespace,
        key="doc",
        title="first",
        content=body,
        source_type="conformance",
        priority="normal",
        tags=["conformance"],
        metadata=None,
        category="core",
        taint=MemoryTaint.EXTERNAL_SYNC,
    )


@check(
    "provider.documents_round_trip",
    title="The documents family stores, lists, recalls, deletes and clears",
    clause="provider-families.md#documents-family, provider-families.md#taint",
    storage=True,
    needs="documents",
)
def assert_documents_round_trip(provider: Any, ctx: CheckContext) -> None:
    """put/get/replace, the list envelope, recall, delete twice and clear, with taint kept."""
    if not provider.provides(Capability.DOCUMENTS):
        raise CheckSkipped("capability `documents` not offered")
    docs = provider.as_documents()
    ctx.require(docs is not None, "as_documents()", "the documents family (advertised)", "None")
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
    ctx.require(
        listing.count == len(listing.documents) == 1,
        f"list_documents({namespace!r})",
        "count 1 with exactly one row",
        listing,
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
