"""What provider checks share: namespaces under the check's root, tracked writes, names
for the entries a check holds, and the retention probe."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import show
from conformance.checks.fan_out import each
from conformance.checks.outcome import DriverRaised
from conformance.provider import Invalid, MemoryCategory, MemoryTaint

CORE = MemoryCategory.CORE

# The checks that own an operation: a check that only relies on one reports its
# failure as a precondition of the owners, so a fault is reported once. Listing and
# export have two: one for small answers, one for answers past a store's page.
LIST_OWNERS = ("provider.list_filters_narrow", "provider.listing_holds_at_volume")
FORGET_OWNER = "provider.forget_is_idempotent"
RECALL_OWNER = "provider.recall_respects_limit_and_namespace"
EXPORT_OWNERS = ("provider.export_covers_every_record", "provider.export_cursor_terminates")

# Rows whose every filter value has decoys differing only in case or as a string-prefix
# sibling: the shapes a store matching with LIKE, COLLATE NOCASE or startswith lets through.
_ALPHA = MemoryCategory.custom("alpha")
FILTERED_ROWS: tuple[tuple[str, MemoryCategory, str | None], ...] = (
    ("core-a", CORE, "s1"),
    ("daily-b", MemoryCategory.DAILY, "s2"),
    ("cat-alpha", _ALPHA, None),
    ("cat-Alpha", MemoryCategory.custom("Alpha"), None),
    ("cat-alphabet", MemoryCategory.custom("alphabet"), None),
    ("cat-alph", MemoryCategory.custom("alph"), None),
    # `custom:core` is not `core`: a store keeping a category by its name conflates them.
    ("cat-custom-core", MemoryCategory.custom("core"), None),
    ("ses-1", MemoryCategory.DAILY, "sess-1"),
    ("ses-1-upper", MemoryCategory.DAILY, "SESS-1"),
    ("ses-10", MemoryCategory.DAILY, "sess-10"),
    ("ses-prefix", MemoryCategory.DAILY, "sess-"),
)
"""`(key, category, session)`: the rows the filter checks hold."""
FILTERS: tuple[tuple[MemoryCategory | None, str | None], ...] = (
    (None, None),
    (CORE, None),
    (MemoryCategory.DAILY, None),
    (_ALPHA, None),
    (MemoryCategory.custom("Alpha"), None),
    (None, "s2"),
    (None, "sess-1"),
    (None, "SESS-1"),
    (MemoryCategory.DAILY, "sess-1"),
    (CORE, "sess-1"),
)
"""`(category, session)` filters the filter checks ask for, each with its decoys held."""

PROBE_CONTENT = "Retention probe: kept as written, Case and punctuation."
"""What the retention probe stores: mixed case and punctuation, so a driver that
normalises what it keeps cannot pass for one that keeps nothing."""


def ns(ctx: CheckContext, what: str) -> str:
    """A namespace of this check's own, under its run-unique root; each `/` of `what`
    is the root's separator (`-` when the declared alphabet leaves `/` out)."""
    return ctx.separator.join((ctx.root, *what.split("/")))


def sectioned(ctx: CheckContext, section: str, what: str) -> str:
    """A `<section>:<scope>` namespace of this check's own, its scope under the root."""
    return f"{section}:{ns(ctx, what)}"


def is_ours(ctx: CheckContext, namespace: str | None) -> bool:
    """Whether `namespace` is one this check could have written (with or without a section)."""
    if namespace is None:
        return False
    scopes = [namespace, namespace.split(":", 1)[-1]]
    return any(s == ctx.root or s.startswith(ctx.root + ctx.separator) for s in scopes)


def where(ctx: CheckContext, namespace: str | None) -> str:
    """`namespace` for a message: relative to the root when under it
    (`vol/n03`, `learning:x`), else its `repr`."""
    if namespace is None:
        return "None"
    under = ctx.root + ctx.separator
    if under in namespace:
        return namespace.replace(under, "", 1)
    return show(namespace)


def key_name(key: str) -> str:
    """A key as messages name it: itself when short and plain, else its `repr`, shortened."""
    if key.isprintable() and key.strip() == key and 0 < len(key) <= 40:
        return key
    return show(key, 40)


def call_of(name: str, *args: object) -> str:
    """A call for a message, each argument as `repr` (`...` as `…`), a long one elided
    in the middle (a 200-byte namespace still shows whole)."""
    shown = ("…" if a is Ellipsis else show(a, 240) for a in args)
    return f"{name}({', '.join(shown)})"


def named_keys(ctx: CheckContext, keys: Iterable[str]) -> list[str]:
    """`keys`, each labelled so messages name it (runs like `v11–v15` join)."""
    out = list(keys)
    for key in out:
        ctx.labels.setdefault(key, key_name(key))
    return out


def entry_ref(ctx: CheckContext, namespace: str | None, key: str, label: str | None = None) -> str:
    """An id for the entry `(namespace, key)` in `ctx.require_ids`, labelled `ns:key`
    unless already labelled (or `label` given: `vol/n001` for the one entry of a
    namespace, so that runs of them join into ranges)."""
    ref = f"{namespace}\x1f{key}"
    if label is not None:
        ctx.labels[ref] = label
    ctx.labels.setdefault(ref, f"{where(ctx, namespace)}:{key_name(key)}")
    return ref


def refs(ctx: CheckContext, entries: Iterable[Any]) -> list[str]:
    """`entry_ref` of each entry (anything with `namespace` and `key`)."""
    return [entry_ref(ctx, e.namespace, e.key) for e in entries]


def keys_of(ctx: CheckContext, entries: Iterable[Any]) -> list[str]:
    """The keys of `entries`, labelled."""
    return named_keys(ctx, (e.key for e in entries))


def put(
    provider: Any,
    ctx: CheckContext,
    namespace: str,
    key: str,
    content: str,
    category: MemoryCategory = CORE,
    session_id: str | None = None,
    taint: MemoryTaint = MemoryTaint.INTERNAL,
    *,
    what: str = "contract-valid input",
    declare: str | None = None,
) -> None:
    """Store one entry and arrange for it to be forgotten when the check ends.

    Every check sends contract-valid input narrowed by the driver's declared
    constraints, so an `Invalid` refusal fails the check, naming `what` was refused
    and the constraint (`declare`) a store that cannot take it declares.
    """
    forget_when_done(provider, ctx, namespace, key)
    with taking_valid_input(ctx, call_of("store", namespace, key, ...), what, declare):
        provider.store(namespace, key, content, category, session_id, taint)


def forget_when_done(provider: Any, ctx: CheckContext, namespace: str, key: str) -> None:
    """Forget the entry at `(namespace, key)` when the check ends; next to the check's other
    forgets, several at once when the run has seats to spare (`fan_out`)."""
    forget = partial(provider.forget, namespace, key)
    ctx.defer(f"forget({namespace!r}, {key!r})", forget, independent=True)


@contextlib.contextmanager
def taking_valid_input(
    ctx: CheckContext,
    call: str,
    what: str = "contract-valid input",
    declare: str | None = None,
) -> Iterator[None]:
    """Calls given contract-valid input: an `Invalid` refusal inside fails the check,
    naming what was refused and the constraint a driver that cannot take it declares."""
    try:
        yield
    except DriverRaised as raised:
        if not isinstance(raised.error, Invalid):
            raise
        field = f"{declare}=..." if declare else "..."
        ctx.fail(
            call,
            f"{what} to be taken (a store that cannot take it declares so: "
            f"Driver(constraints=Constraints({field})))",
            f"{type(raised.error).__name__}: {show(str(raised.error))}",
        )


def require_relied_on(
    ctx: CheckContext,
    owner: str | Sequence[str],
    call: str,
    got: Sequence[str],
    want: Sequence[str],
    what: str,
) -> None:
    """`got` holds exactly the ids of `want`: the answer of a call this check relies on,
    whose faults `owner` (a check, or the checks) reports.

    An answer holding none of `want` fails this check itself: with nothing to judge it
    cannot pass (a driver keeping nothing must fail every storage check forced on it).
    A partial or mixed answer is a precondition failure, reported by `owner`.
    """
    if not set(got) & set(want):
        found = f"none of them ({ctx.named(got)})" if got else "none of them"
        ctx.fail(call, f"{what}, to judge", found)
    with ctx.precondition(owner, what):
        ctx.require_ids(call, got, want, what)


def require_counts(provider: Any, ctx: CheckContext, counts: dict[str, int]) -> None:
    """`namespaces()` reports each namespace of `counts` once, with its count, and no
    other non-empty namespace under the root (an emptied one may be absent, or kept
    with count 0)."""
    summaries = [s for s in provider.namespaces() if is_ours(ctx, s.namespace) and s.count]
    for namespace in (*counts, *(s.namespace for s in summaries)):
        ctx.labels.setdefault(namespace, where(ctx, namespace))
    ctx.require_ids(
        "namespaces()",
        [s.namespace for s in summaries],
        list(counts),
        "each non-empty namespace under the root, once",
    )
    ctx.require_same(
        "namespaces()",
        {where(ctx, n): c for n, c in counts.items()},
        {where(ctx, s.namespace): s.count for s in summaries},
        "the count of each namespace",
    )


@dataclass(frozen=True)
class Row:
    """One entry a check writes: everything `store` takes."""

    namespace: str
    key: str
    content: str
    category: MemoryCategory = CORE
    session_id: str | None = None
    taint: MemoryTaint = MemoryTaint.INTERNAL

    def fields(self) -> dict[str, object]:
        """The fields a read must give back, by name (for `ctx.require_same`)."""
        return read_back(self)

    def selected_by(self, category: MemoryCategory | None, session_id: str | None) -> bool:
        """Whether `list` with these filters (`None`: no filter) selects this row."""
        return (category is None or self.category == category) and (
            session_id is None or self.session_id == session_id
        )


WRITTEN_FIELDS = ("namespace", "key", "content", "category", "session_id", "taint")
"""The fields of an entry that `store` sets."""


def read_back(entry: Any) -> dict[str, object]:
    """The fields of an entry (or a `Row`) that `store` sets, by name."""
    return {name: getattr(entry, name) for name in WRITTEN_FIELDS}


def put_rows(
    provider: Any,
    ctx: CheckContext,
    rows: Sequence[Row],
    *,
    what: str = "contract-valid input",
    declare: str | None = None,
    in_any_order: bool = False,
) -> None:
    """`put` each row, in order (`what` and `declare` as `put` takes them); several at once
    with `in_any_order`, when the run has seats to spare (`fan_out`)."""

    def put_row(row: Row) -> None:
        put(
            provider,
            ctx,
            row.namespace,
            row.key,
            row.content,
            row.category,
            row.session_id,
            row.taint,
            what=what,
            declare=declare,
        )

    if in_any_order:
        each(put_row, rows)
    else:
        for row in rows:
            put_row(row)


def forget_held(provider: Any, ctx: CheckContext, row: Row) -> None:
    """Forget the entry `row` stored: `forget` must answer True."""
    forgot = provider.forget(row.namespace, row.key)
    ctx.require(forgot is True, f"forget({row.namespace!r}, {row.key!r})", "True", forgot)


def provider_retains_writes(provider: Any, ctx: CheckContext | None = None) -> bool:
    """The retention probe (A9 §6): store one entry, read it back by `get` and `list`.

    False only when nothing comes back at all. An entry that comes back different
    (content, key, namespace, category, session or taint), or through `list` but not
    `get`, fails the probe with the difference: a driver that keeps something is never
    excused from the storage checks. Errors propagate. Deliberately not a flag the
    driver sets: a driver that means to retain and silently does not must be caught.
    """
    context = ctx if ctx is not None else CheckContext("provider.retention_probe")
    bound = context.bind(provider)
    probe = Row(ns(context, "probe"), "probe", PROBE_CONTENT)
    try:
        put_rows(bound, context, [probe])
        entry = bound.get(probe.namespace, probe.key)
        listed = bound.list(probe.namespace, None, None)
    finally:
        failure = context.run_cleanups()
    if failure is not None:
        raise failure
    if entry is None and not listed:
        return False
    get_call = f"get({probe.namespace!r}, 'probe')"
    if entry is None:
        context.fail(get_call, "the probe entry, which list returns", "None")
    context.require_same(get_call, probe.fields(), read_back(entry), "the probe entry")
    list_call = f"list({probe.namespace!r}, None, None)"
    context.require(len(listed) == 1, list_call, "exactly the probe entry", listed)
    context.require_same(list_call, probe.fields(), read_back(listed[0]), "the probe entry")
    return True


def require_refusal_kind(
    ctx: CheckContext,
    call: str,
    error: BaseException,
    expected: str,
    kinds: tuple[type[BaseException], ...] = (Invalid,),
) -> None:
    """Fail at `call` unless the driver's `error` is one of `kinds`."""
    ctx.require(isinstance(error, kinds), call, expected, f"{type(error).__qualname__}: {error}")


def nothing_or_invalid(
    ctx: CheckContext,
    call: str,
    answer: Callable[[], Sized],
    refusals: tuple[type[BaseException], ...] = (Invalid,),
) -> None:
    """`answer()` (a call with a negative limit) answers nothing or is refused with
    `Invalid` (or another of `refusals`, such as the `Unsupported` of an operation the
    driver need not offer): no count of hits is at most -1, and `rows[:limit]` answers
    all but one."""
    try:
        with ctx.answer_or_refusal():
            got = answer()
    except DriverRaised as raised:
        require_refusal_kind(
            ctx, call, raised.error, "nothing, or Invalid (a negative limit)", refusals
        )
        return
    ctx.require(len(got) == 0, call, "nothing, or Invalid (a negative limit)", f"{len(got)} hits")


def kept_or_refused(
    provider: Any, ctx: CheckContext, namespace: str, key: str, content: str, what: str
) -> bool:
    """Store input outside the contract's plain reading (`what`): refused with `Invalid`
    and then not held, or held exactly as sent, by get and by list; kept altered (a
    lone surrogate replaced, an empty key given a name) fails. True when it is held."""
    ctx.defer(call_of("forget", namespace, key), partial(provider.forget, namespace, key))
    call = f"{call_of('store', namespace, key, content)} ({what})"
    _, error = ctx.attempt(
        call,
        provider.store,
        namespace,
        key,
        content,
        MemoryCategory.CORE,
        None,
        MemoryTaint.INTERNAL,
    )
    entry = provider.get(namespace, key)
    got = call_of("get", namespace, key)
    if error is not None:
        require_refusal_kind(ctx, call, error, f"{what} stored, or refused with Invalid")
        ctx.require(entry is None, got, "None (the store was refused)", entry)
        return False
    ctx.require(entry is not None, got, f"the entry stored ({what})", "None")
    ctx.require_same(
        got,
        {"key": key, "content": content},
        {"key": entry.key, "content": entry.content},
        "the entry",
    )
    listed = [(e.key, e.content) for e in provider.list(namespace, None, None)]
    ctx.require_same(
        call_of("list", namespace, None, None), [(key, content)], listed, "the one entry"
    )
    return True
