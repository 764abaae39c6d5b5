"""`FreeProvider`: a correct provider over the reference that uses the freedoms it is told to.

Each field of `ProviderFreedoms` selects one freedom the contract leaves to a provider
(`freedoms.py` names them and quotes the sentence granting each). The reference
provider keeps the rows and decides what recall matches; this wrapper answers with
its own entry ids, timestamps, order, ranking and scores, source-scope reading, export
pages and cursors, namespace validation, redaction and summaries, refuses what it
declares (and empty content, as the contract allows), and may offer a documents family
of its own, as an independent provider would. `used` counts each freedom every time it
changed an answer.
"""

from __future__ import annotations

import builtins
import hashlib
import itertools
import math
import re
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, Literal

from conformance.constraints import Constraints
from conformance.provider import (
    SCOPE_UNAPPLIED,
    Capabilities,
    Capability,
    ExportPage,
    ExportRecord,
    ImportOutcome,
    Invalid,
    MemoryCategory,
    MemoryDocuments,
    MemoryEntry,
    MemoryHealth,
    MemoryTaint,
    NamespaceSummary,
    OwnedRecallOpts,
    ProviderBase,
    SourceScope,
    Unavailable,
    entry_record,
)
from conformance.provider.namespace import validate_name
from conformance.timestamps import Timestamp
from reference_driver.provider import TIMESTAMP, ReferenceProvider
from reference_driver.scoring import words
from tests.freedom.clock import at_offset
from tests.freedom.cursors import CursorBook, CursorRefused, CursorStyle, binding_of
from tests.freedom.free_documents import DocumentFreedoms, FreeDocuments
from tests.freedom.options import count_options
from tests.freedom.paging import Key, PageShape, cut
from tests.freedom.serial import serialized
from tests.freedom.throttle import Throttle

IdScheme = Literal["reference", "uuid", "counter"]
Order = Literal["key", "reversed", "newest", "shuffled"]
Scores = Literal["reference", "scaled", "negative", "none"]
Ranking = Literal["reference", "words"]
ScopeReading = Literal["refuse", "deny", "unattributed"]

DRIVER_ID: Final = "freedom"
WHOLE: Final = 1_000_000
"""A recall limit past anything a test stores: the reference ranks everything."""

UNSTAMPED: Final = TIMESTAMP.rfc3339()
"""The time of every entry when the driver keeps no clock (the reference's)."""

NATIONAL_ID: Final = re.compile(r"(?<![0-9])[0-9]{3}-[0-9]{2}-[0-9]{4}(?![0-9])")
"""A US social security number, as a store scrubbing personal data from names finds it."""

REDACTED: Final = "_REDACTED_PII_SSN_"

CURSOR_NAMES: Final = {
    "format": "export-cursor-format",
    "single_use": "single-use-cursors",
    "bound": "bound-cursors",
}
SHAPE_NAMES: Final = {
    "short": "export-page-size",
    "empty": "export-empty-pages",
    "trailing": "export-trailing-empty-page",
}


@dataclass(frozen=True)
class ProviderFreedoms:
    """The freedoms a provider uses; the defaults answer as the reference does, with export
    cursors of this wrapper's own (signed base64 JSON)."""

    ids: IdScheme = "reference"
    """`uuid`: a random id per row; `counter`: `<keyspace>-1`, `<keyspace>-2`, ..."""
    order: Order = "key"
    """The order of `list`: by (namespace, key), reversed, newest write first, shuffled;
    an export follows the last two, `namespaces()` the reversed one."""
    utc_offset_minutes: int | None = None
    """Stamp each write with its time, written at this UTC offset, and report
    `last_updated`."""
    scores: Scores = "reference"
    """`scaled`: ×100; `negative`: − 2 (every score below zero); `none`: `score=None`.
    `min_score` is held to the reported scale (the reference's when none is reported)."""
    scope: ScopeReading = "refuse"
    """Recall with a source scope: `refuse` it (`Invalid`, as the reference), `deny`
    everything, or return only `internal` rows (no source attribution)."""
    export_pages: PageShape = field(default_factory=PageShape)
    export_cursors: CursorStyle = field(default_factory=CursorStyle)
    validate_namespaces: bool = False
    """Refuse a malformed namespace (contract A6) on every operation, reads included."""
    keep_empty_namespaces: bool = False
    """`namespaces()` keeps a namespace emptied by `forget`, with count 0."""
    degraded: bool = False
    unavailable_every: int | None = None
    """Answer `Unavailable` on every n-th data call (before doing anything)."""
    ranking: Ranking = "reference"
    """`words`: recall ranks the reference's matches by the share of the query's distinct
    words each holds as a whole word (ties by key), as a store counting words does."""
    refuse_empty_content: bool = False
    """Refuse empty content with `Invalid`, undeclared: a refusal the contract names."""
    redact_names: bool = False
    """Store a namespace carrying a national id under the name with it redacted
    (`thread-_REDACTED_PII_SSN_`): reads under either name find it, and entries and
    `namespaces()` carry the redacted one."""
    constraints: Constraints | None = None
    """Refuse, with `Invalid`, a namespace, key or content these constraints do not admit;
    the configuration declares them."""
    documents: DocumentFreedoms | None = None
    """Offer the `documents` family, with these freedoms."""


@dataclass
class _Row:
    """What this provider keeps beside the reference for one entry."""

    id: str
    seq: int
    at: str


@serialized
class FreeProvider(ProviderBase):
    """A synchronous provider answering as `freedoms` says. Options: `api_key` (a
    credential it never repeats), `keyspace` (the prefix of counter ids); any other option
    is recorded and unused."""

    def __init__(
        self, freedoms: ProviderFreedoms | None = None, options: Mapping[str, str] | None = None
    ) -> None:
        self.freedoms = freedoms or ProviderFreedoms()
        self.options = dict(options or {})
        self.used: Counter[str] = Counter()
        self.ref = ReferenceProvider()
        self.throttle = Throttle(self.freedoms.unavailable_every, self.used, Unavailable)
        self._cursors = CursorBook(self.freedoms.export_cursors, self.used, CURSOR_NAMES)
        self._rows: dict[tuple[str, str], _Row] = {}
        self._seq = itertools.count(1)
        self._spaces: dict[str, str | None] = {}
        """Every namespace written, with its last write time."""
        self._documents = (
            None
            if self.freedoms.documents is None
            else FreeDocuments(self.freedoms.documents, self.used)
        )
        count_options(self.options, self.used)

    def preload(self, rows: builtins.list[tuple[str, str, str, MemoryTaint]]) -> None:
        """Store entries of another writer (no rate limit), as a live store holds:
        `(namespace, key, content, taint)` each, category core."""
        for namespace, key, content, taint in rows:
            self.ref.store(namespace, key, content, MemoryCategory.CORE, None, taint)
            self._touch(namespace, key)

    def driver_id(self) -> str:
        """`freedom`."""
        return DRIVER_ID

    def capabilities(self) -> Capabilities:
        """The mandatory families, and `documents` when offered."""
        if self._documents is None:
            return Capabilities.mandatory()
        return Capabilities.mandatory().with_(Capability.DOCUMENTS)

    def as_documents(self) -> MemoryDocuments | None:
        """The documents family, when offered."""
        return self._documents

    def health(self) -> MemoryHealth:
        """Ready, or degraded (still usable)."""
        if self.freedoms.degraded:
            self.used["degraded-health"] += 1
            return MemoryHealth.degraded("replica lagging; serving from the primary")
        return MemoryHealth.ready()

    # -- core ---------------------------------------------------------------------------

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        """The reference's upsert; the row keeps its id and gets a new time."""
        self.throttle.gate("store")
        self._valid(namespace)
        self._admit(namespace, key, content)
        namespace = self._name(namespace)
        self.ref.store(namespace, key, content, category, session_id, taint)
        self._touch(namespace, key)

    def _admit(self, namespace: str, key: str, content: str) -> None:
        """Refuse what the declared constraints do not admit, and empty content when so
        chosen."""
        if content == "" and self.freedoms.refuse_empty_content:
            self.used["refuse-empty-content"] += 1
            raise Invalid("empty content is not stored")
        declared = self.freedoms.constraints
        if declared is None:
            return
        self.used["declared-constraints"] += 1
        if not declared.admits_namespace(namespace):
            raise Invalid("namespace outside what this store declares it takes")
        if not declared.admits_key(key):
            raise Invalid("key outside what this store declares it takes")
        if not declared.admits_content(content):
            raise Invalid("content outside what this store declares it takes")

    def _name(self, namespace: str) -> str:
        """The name `namespace` is stored under: a national id in it redacted, when so
        chosen (every read applies the same transform as the write)."""
        if not self.freedoms.redact_names:
            return namespace
        redacted = NATIONAL_ID.sub(REDACTED, namespace)
        if redacted != namespace:
            self.used["redacted-names"] += 1
        return redacted

    def get(self, namespace: str, key: str) -> MemoryEntry | None:
        """The entry under this provider's id and time, or `None`."""
        self.throttle.gate("get")
        self._valid(namespace)
        namespace = self._name(namespace)
        entry = self.ref.get(namespace, key)
        return None if entry is None else self._present(entry)

    def forget(self, namespace: str, key: str) -> bool:
        """Whether the entry existed; its namespace stays listed when kept empty."""
        self.throttle.gate("forget")
        self._valid(namespace)
        namespace = self._name(namespace)
        existed = self.ref.forget(namespace, key)
        self._rows.pop((namespace, key), None)
        return existed

    def list(
        self, namespace: str | None, category: MemoryCategory | None, session_id: str | None
    ) -> builtins.list[MemoryEntry]:
        """The reference's rows in this provider's order."""
        self.throttle.gate("list")
        if namespace is not None:
            self._valid(namespace)
            namespace = self._name(namespace)
        entries = [self._present(e) for e in self.ref.list(namespace, category, session_id)]
        ordered = self._ordered(entries)
        if len(ordered) > 1 and self.freedoms.order != "key":
            self.used["list-order"] += 1
        return ordered

    def namespaces(self) -> builtins.list[NamespaceSummary]:
        """The reference's counts, with `last_updated` and kept empty namespaces."""
        self.throttle.gate("namespaces")
        counts = {s.namespace: s.count for s in self.ref.namespaces()}
        if self.freedoms.keep_empty_namespaces:
            for namespace in self._spaces:
                if namespace not in counts:
                    self.used["kept-empty-namespaces"] += 1
                    counts[namespace] = 0
        summaries = []
        for namespace, count in sorted(counts.items(), reverse=self.freedoms.order == "reversed"):
            at = self._spaces.get(namespace)
            if at is not None:
                self.used["offset-timestamps"] += 1
            summaries.append(NamespaceSummary(namespace=namespace, count=count, last_updated=at))
        return summaries

    # -- recall -------------------------------------------------------------------------

    def recall(
        self, query: str, limit: int, opts: OwnedRecallOpts, scope: SourceScope | None
    ) -> builtins.list[MemoryEntry]:
        """The reference's matches, read through this provider's scope reading and scores."""
        self.throttle.gate("recall")
        if opts.namespace is not None:
            self._valid(opts.namespace)
            opts = opts.model_copy(update={"namespace": self._name(opts.namespace)})
        if limit < 0:
            raise Invalid("recall limit must not be negative")
        if opts.min_score is not None and math.isnan(opts.min_score):
            raise Invalid("recall min_score must be a number, not NaN")
        if scope is not None and self.freedoms.scope == "refuse":
            self.used["scope-refused"] += 1
            raise Invalid(SCOPE_UNAPPLIED)
        wide = opts.model_copy(update={"min_score": None})
        ranked = self._ranked(query, self.ref.recall(query, WHOLE, wide, None))
        if scope is not None:
            ranked = self._scoped(ranked)
        scored: builtins.list[tuple[float | None, float, MemoryEntry]] = []
        for entry in ranked:
            own = entry.score if entry.score is not None else 0.0
            shown = self._score(own)
            held = own if shown is None else shown
            if opts.min_score is not None and held < opts.min_score:
                continue
            scored.append((shown, held, entry))
        scored.sort(key=lambda hit: -hit[1])
        return [
            self._present(entry).model_copy(update={"score": shown})
            for shown, _, entry in scored[:limit]
        ]

    def _ranked(self, query: str, found: builtins.list[MemoryEntry]) -> builtins.list[MemoryEntry]:
        """The reference's matches, ranked by the share of the query's distinct words each
        holds (ties by key) when so chosen."""
        if self.freedoms.ranking == "reference":
            return found
        wanted = set(words(query))
        scored = [
            (len(wanted & set(words(e.content))) / len(wanted) if wanted else 0.0, e) for e in found
        ]
        scored.sort(key=lambda hit: (-hit[0], hit[1].key))
        if [e.key for _, e in scored] != [e.key for e in found]:
            self.used["word-ranking"] += 1
        return [entry.model_copy(update={"score": share}) for share, entry in scored]

    def _scoped(self, ranked: builtins.list[MemoryEntry]) -> builtins.list[MemoryEntry]:
        """The rows a source scope lets through: none (`deny`), or those carrying no source
        attribution (`unattributed`: every `internal` row; rows carry no source id)."""
        unattributed = [e for e in ranked if MemoryTaint(e.taint) is MemoryTaint.INTERNAL]
        if self.freedoms.scope == "deny":
            if unattributed:
                self.used["scope-denies-unattributed"] += 1
            return []
        if unattributed:
            self.used["scope-returns-unattributed"] += 1
        return unattributed

    def _score(self, score: float) -> float | None:
        kind = self.freedoms.scores
        if kind == "reference":
            return score
        self.used["recall-scores"] += 1
        if kind == "scaled":
            return score * 100
        if kind == "negative":
            return score - 2
        return None

    # -- portability --------------------------------------------------------------------

    def export_page(self, cursor: str | None, limit: int) -> ExportPage:
        """Every row, in this provider's export order, paged and with cursors of its own."""
        self.throttle.gate("export_page")
        if limit < 1:
            raise Invalid("export page limit must be greater than zero")
        after: Key | None = None
        number = 0
        binding = binding_of("export")
        if cursor is not None:
            try:
                state = self._cursors.redeem(cursor, binding)
            except CursorRefused:
                raise Invalid(f"export cursor not issued by this driver: {cursor}") from None
            after, number = state["after"], state["page"]
        keyed = sorted(
            ((self._export_key(e), e) for e in self.ref.list(None, None, None)),
            key=lambda pair: pair[0],
        )
        page = cut(keyed, after, number, limit, self.freedoms.export_pages)
        if self.freedoms.order in ("newest", "shuffled") and len(page.items) > 1:
            self.used["list-order"] += 1
        for shape in page.shapes:
            self.used[SHAPE_NAMES[shape]] += 1
        next_cursor = None
        if page.more:
            next_cursor = self._cursors.issue({"after": page.after, "page": number + 1}, binding)
        records = [entry_record(self._present(entry)) for entry in page.items]
        return ExportPage(records=records, next_cursor=next_cursor)

    def import_records(self, records: builtins.list[ExportRecord]) -> ImportOutcome:
        """The reference's import; a record with a malformed namespace fails when this
        provider validates namespaces."""
        self.throttle.gate("import_records")
        accepted: builtins.list[ExportRecord] = []
        errors: builtins.list[str] = []
        for record in records:
            try:
                if record.namespace is not None:
                    self._valid(record.namespace)
            except Invalid as error:
                errors.append(f"record {record.id}: {error.message}")
                continue
            if record.namespace is not None:
                record = record.model_copy(update={"namespace": self._name(record.namespace)})
            accepted.append(record)
        outcome = self.ref.import_records(accepted)
        for record in accepted:
            key = record.payload.get("key") if isinstance(record.payload, dict) else None
            held = record.namespace is not None and isinstance(key, str)
            if held and self.ref.get(record.namespace or "", str(key)) is not None:
                self._touch(record.namespace or "", str(key))
        return ImportOutcome(
            imported=outcome.imported,
            skipped=outcome.skipped,
            failed=outcome.failed + len(errors),
            errors=[*errors, *outcome.errors],
        )

    # -- presentation -------------------------------------------------------------------

    def _valid(self, namespace: str) -> None:
        if not self.freedoms.validate_namespaces:
            return
        try:
            validate_name(namespace)
        except Invalid:
            self.used["refuse-malformed-reads"] += 1
            raise

    def _touch(self, namespace: str, key: str) -> None:
        at = self._now()
        row = self._rows.get((namespace, key))
        if row is None:
            row = _Row(self._new_id(namespace, key), 0, at)
            self._rows[namespace, key] = row
        row.seq, row.at = next(self._seq), at
        self._spaces[namespace] = None if self.freedoms.utc_offset_minutes is None else at

    def _now(self) -> str:
        minutes = self.freedoms.utc_offset_minutes
        if minutes is None:
            return UNSTAMPED
        return at_offset(Timestamp.from_datetime(datetime.now(UTC)), minutes)

    def _new_id(self, namespace: str, key: str) -> str:
        if self.freedoms.ids == "uuid":
            return str(uuid.uuid4())
        if self.freedoms.ids == "counter":
            return f"{self.options.get('keyspace', 'e')}-{next(self._seq)}"
        return f"{namespace}::{key}"

    def _present(self, entry: MemoryEntry) -> MemoryEntry:
        row = self._rows[entry.namespace or "", entry.key]
        if row.id != entry.id:
            self.used["entry-ids"] += 1
        if row.at != UNSTAMPED:
            self.used["offset-timestamps"] += 1
        # Read back as a driver speaking JSON would send it: its own id, its own time text.
        return MemoryEntry.model_validate(
            {**entry.model_dump(mode="json"), "id": row.id, "timestamp": row.at}
        )

    def _export_key(self, entry: MemoryEntry) -> Key:
        """Where `entry` stands in an export: newest write first or shuffled when `list` is,
        else by (namespace, key)."""
        namespace = entry.namespace or ""
        row = self._rows[namespace, entry.key]
        if self.freedoms.order == "newest":
            return [-row.seq, namespace, entry.key]
        if self.freedoms.order == "shuffled":
            return [hashlib.sha256(row.id.encode()).hexdigest(), namespace, entry.key]
        return [namespace, entry.key]

    def _ordered(self, entries: builtins.list[MemoryEntry]) -> builtins.list[MemoryEntry]:
        order = self.freedoms.order
        if order == "reversed":
            return entries[::-1]
        if order == "newest":
            return sorted(entries, key=lambda e: -self._rows[e.namespace or "", e.key].seq)
        if order == "shuffled":
            return sorted(entries, key=lambda e: hashlib.sha256(e.id.encode()).hexdigest())
        return entries
