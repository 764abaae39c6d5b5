"""`BaseStoreProvider`: the provider profile over a LangGraph `BaseStore`.

How the contract maps onto the store:

- an entry `(namespace, key)` is the item `(("tinymemory", label), key)`: one label for
  the whole namespace string, so `a`, `ab` and `a/b` are different namespaces and never
  prefixes of each other. LangGraph refuses `.` inside a label (its SQL stores join
  labels with `.`), and the contract allows `.` in a namespace, so the label writes `.`
  as `%2E`; `%` is outside the contract's namespace alphabet, so the encoding is
  one to one;
- the item's value is `{"content", "category", "session_id", "taint"}`; `category` and
  `session_id` are filtered by the store itself (`search(filter=...)`), inside the
  search, so a filter never lets other rows use up a limit;
- recall is the store's vector search (`search(query=...)`) under the adapter's hashed
  bag-of-words embedding (`embedding.py`), best first, cut to the hits that share a
  word with the query;
- the entry's timestamp is the store's `updated_at`.

What it does not do: a recall with a source scope is refused with `Invalid` (an entry
written through `store` carries no source to test the scope against inside the search,
which is where the contract wants it applied), and `cross_session` is not applied (no
conversational turns are kept apart from entries). Both are the contract's own answers
for a store without the tree family (`SCOPE_UNAPPLIED`), not waivers.
"""

from __future__ import annotations

import builtins
import sys
import threading
from datetime import UTC, datetime
from typing import Any, Final

from langgraph.store.base import BaseStore, Item
from langgraph.store.memory import InMemoryStore

from conformance.provider import (
    ENTRY_KIND,
    GLOBAL_NAMESPACE,
    SCOPE_UNAPPLIED,
    Capabilities,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
    entry_record,
)
from conformance.provider.namespace import validate_name
from conformance.timestamps import Timestamp
from tinymemory_langgraph.embedding import DIMENSIONS, HIT, HashedWords

ROOT: Final = "tinymemory"
"""The first label of every namespace the adapter writes (LangGraph reserves `langgraph`)."""

# Everything in one call: `search` answers 10 items unless told otherwise, and a
# SqliteStore pages by `updated_at`, a one-second clock, so pages of ties would skip and
# repeat items.
_ALL: Final = sys.maxsize


def label(namespace: str) -> str:
    """The store label of a contract namespace (`.` written `%2E`)."""
    return namespace.replace(".", "%2E")


def unlabel(text: str) -> str:
    """The contract namespace of a store label."""
    return text.replace("%2E", ".")


def _moment(when: datetime) -> Timestamp:
    # SqliteStore answers naive datetimes that are UTC (SQLite's CURRENT_TIMESTAMP).
    return Timestamp.from_datetime(when if when.tzinfo else when.replace(tzinfo=UTC))


class BaseStoreProvider(ProviderBase):
    """The mandatory families over one `BaseStore`; `name` is the driver id."""

    def __init__(self, store: BaseStore, name: str) -> None:
        self._store = store
        self._name = name
        # LangGraph's delete does not say whether it removed anything, so forget looks
        # first; the two steps run under one lock, or two threads forgetting one key
        # would both answer True (provider.racing_writes caught it on SqliteStore).
        self._forgetting = threading.Lock()

    def driver_id(self) -> str:
        return self._name

    def capabilities(self) -> Capabilities:
        return Capabilities.mandatory()

    def health(self) -> MemoryHealth:
        return MemoryHealth.ready()

    def _entry(self, item: Item, score: float | None = None) -> MemoryEntry:
        value: dict[str, Any] = item.value
        namespace = unlabel(item.namespace[1])
        return MemoryEntry(
            # `#` is outside the namespace alphabet: no two entries share an id.
            id=f"{namespace}#{item.key}",
            key=item.key,
            content=value["content"],
            namespace=namespace,
            category=MemoryCategory.parse(value["category"]),
            timestamp=_moment(item.updated_at),
            session_id=value["session_id"],
            score=score,
            taint=MemoryTaint(value["taint"]),
        )

    def _refuse_unstorable(self, *texts: str) -> None:
        """Raise `Invalid` for text the store cannot hold; InMemoryStore holds any."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        validate_name(namespace)
        self._refuse_unstorable(key, content, str(category), session_id or "")
        value = {
            "content": content,
            "category": str(category),
            "session_id": session_id,
            "taint": taint.value,
        }
        self._store.put((ROOT, label(namespace)), key, value)

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        validate_name(namespace)
        item = self._store.get((ROOT, label(namespace)), key)
        return None if item is None else self._entry(item)

    def forget(self, namespace: str, key: str) -> bool:
        validate_name(namespace)
        address = (ROOT, label(namespace))
        with self._forgetting:
            if self._store.get(address, key) is None:
                return False
            self._store.delete(address, key)
            return True

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        prefix: tuple[str, ...] = (ROOT,)
        if namespace is not None:
            validate_name(namespace)
            prefix = (ROOT, label(namespace))
        found = self._store.search(prefix, filter=_filter(category, session_id) or None, limit=_ALL)
        entries = [self._entry(item) for item in found]
        entries.sort(key=lambda e: (e.namespace or "", e.key))
        return entries

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        # Counted from the entries: LangGraph's `list_namespaces` also answers namespaces
        # whose last item was deleted (and, for InMemoryStore, ones only read from).
        counts: dict[str, int] = {}
        for entry in self.list(None, None, None):
            counts[entry.namespace or ""] = counts.get(entry.namespace or "", 0) + 1
        return [NamespaceSummary(namespace=ns, count=n) for ns, n in sorted(counts.items())]

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        if scope is not None:
            raise Invalid(SCOPE_UNAPPLIED)
        if limit < 0:
            raise Invalid("recall limit must not be negative")
        namespace = GLOBAL_NAMESPACE if opts.namespace is None else opts.namespace
        validate_name(namespace)
        if limit == 0 or not query.strip():
            return []
        found = self._store.search(
            (ROOT, label(namespace)),
            query=query,
            filter=_filter(opts.category, opts.session_id) or None,
            limit=limit,
        )
        floor = HIT if opts.min_score is None else max(HIT, opts.min_score)
        # The store ranks every item of the namespace; those sharing no word with the
        # query score ~0 and are not hits. Scores fall down the list, so the cut keeps
        # a prefix of the ranking.
        return [
            self._entry(item, item.score)
            for item in found
            if item.score is not None and item.score >= floor
        ]

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        if limit <= 0:
            raise Invalid("export page limit must be greater than zero")
        # An offset into the entries in (namespace, key) order; one past the end of a
        # store that shrank since it was issued answers an empty last page.
        if cursor is not None and not (cursor.isascii() and cursor.isdecimal()):
            raise Invalid("export cursor not issued by this driver")
        start = 0 if cursor is None else int(cursor)
        rows = self.list(None, None, None)
        page = rows[start : start + limit]
        end = start + len(page)
        return ExportPage(
            records=[entry_record(e) for e in page],
            next_cursor=str(end) if end < len(rows) else None,
        )

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        imported, errors = 0, []
        for record in records:
            payload = record.payload if isinstance(record.payload, dict) else {}
            key, content = payload.get("key"), payload.get("content", "")
            session = payload.get("session_id")
            if (
                record.kind != ENTRY_KIND
                or not isinstance(key, str)
                or not isinstance(content, str)
                or not record.namespace
            ):
                errors.append(f"record {record.id} is not an entry with a namespace and key")
                continue
            try:
                category = MemoryCategory.parse(str(payload.get("category") or "core"))
                self.store(
                    record.namespace,
                    key,
                    content,
                    category,
                    session if isinstance(session, str) else None,
                    record.taint,
                )
            except (Invalid, ValueError) as refused:
                errors.append(f"record {record.id}: {refused}")
                continue
            imported += 1
        return ImportOutcome(imported=imported, skipped=0, failed=len(errors), errors=errors)


def _filter(category: MemoryCategory | None, session_id: str | None) -> dict[str, Any]:
    wanted: dict[str, Any] = {}
    if category is not None:
        wanted["category"] = str(category)
    if session_id is not None:
        wanted["session_id"] = session_id
    return wanted


def memory_provider() -> BaseStoreProvider:
    """A fresh `InMemoryStore` indexed by the hashed bag-of-words embedding."""
    store = InMemoryStore(index={"dims": DIMENSIONS, "embed": HashedWords(), "fields": ["content"]})
    return BaseStoreProvider(store, "langgraph")
