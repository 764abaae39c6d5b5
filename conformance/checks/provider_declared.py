"""Provider check that a declared constraint is a promise to refuse: what it leaves out is
refused with `Invalid` and changes nothing, and the names it admits stay apart."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.evidence import field_differences, show
from conformance.checks.outcome import DriverRaised
from conformance.checks.provider_support import (
    Row,
    call_of,
    key_name,
    ns,
    put_rows,
    read_back,
    require_counts,
    where,
)
from conformance.checks.registry import check
from conformance.constraints import Constraints
from conformance.provider import Invalid, MemoryCategory, MemoryTaint

PUNCTUATION = ("", "-", "_", ".", "@", "+", ":", "/")
"""What tells the names `a<c>b` apart: each character the contract allows in a namespace
besides letters and digits, and none at all. A store that maps them onto one address,
or strips them, merges the names."""

# Characters a key alphabet may leave out, tried in this order for a key probe.
_KEY_OUTSIDERS = " _.-/:@+~é"


@dataclass(frozen=True)
class Probe:
    """One store the declaration leaves out: the call's arguments and why."""

    row: Row
    why: str
    """Why the declaration leaves it out, for the message."""


@dataclass
class _Plan:
    """What the check stores: the witnesses first, then the probes."""

    witnesses: list[Row]
    """Entries the declaration admits, stored first: what a probe must leave unchanged."""
    probes: list[Probe]
    """Input the declaration leaves out, each to be refused."""

    def content(self, limits: Constraints) -> str:
        """Content of its own for the next entry: short ASCII letters and digits, within
        any declared length, so every declaration admits it."""
        number = len(self.witnesses) + len(self.probes)
        text = f"entry {number}"
        limit = limits.max_content_length
        if limit is None or len(text) <= limit:
            return text
        digits = ""
        while True:  # base 36: a single character tells 36 entries apart
            number, digit = divmod(number, 36)
            digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
            if not number:
                return digits


def _namespaces(ctx: CheckContext, limits: Constraints, plan: _Plan) -> None:
    """`a<c>b` for each of `PUNCTUATION`; names one byte past a declared length; names
    with an empty or `.` segment when those are declared out."""
    base = ns(ctx, "apart")
    names = [f"{base}-a{c}b" for c in PUNCTUATION]
    if limits.max_namespace_bytes is not None:
        head = f"{base}-long-"
        longest = head + "x" * max(limits.max_namespace_bytes - len(head.encode()), 0)
        names += [longest, longest + "x"]
    if not limits.empty_or_dot_segments:
        names += [f"{base}-seg/x", f"{base}-seg//x", f"{base}-seg/./x"]
    for name in dict.fromkeys(names):
        row = Row(name, "k", plan.content(limits))
        why = limits.namespace_refusal(name)
        if why is None:
            plan.witnesses.append(row)
        else:
            plan.probes.append(Probe(row, f"the namespace {why}"))


def _keys(ctx: CheckContext, limits: Constraints, plan: _Plan) -> None:
    """Keys one character past a declared length, or holding a character the declared
    key alphabet, ASCII or control-character limit leaves out, beside `kk`."""
    keys = ["kk"]
    if limits.key_alphabet is not None:
        keys += [f"k{c}k" for c in _KEY_OUTSIDERS if c not in limits.key_alphabet][:1]
    if limits.max_key_length is not None:
        keys += ["k" * limits.max_key_length, "k" * (limits.max_key_length + 1)]
    if not limits.non_ascii:
        keys.append("kék")
    if not limits.control_characters:
        keys.append("k\tk")
    if len(keys) == 1:
        return  # no key limit declared
    home = ns(ctx, "apart-keys")
    for key in dict.fromkeys(keys):
        row = Row(home, key, plan.content(limits))
        if limits.admits_key(key):
            plan.witnesses.append(row)
        else:
            plan.probes.append(Probe(row, f"the key {key_name(key)} is declared out"))


def _contents(ctx: CheckContext, limits: Constraints, plan: _Plan) -> None:
    """Content one character past a declared length, empty, or holding a character the
    declared ASCII or control-character limit leaves out, written over a held entry."""
    contents: list[tuple[str, str]] = []
    if limits.max_content_length is not None:
        contents.append(("c" * (limits.max_content_length + 1), "is over the declared length"))
    if not limits.empty_content:
        contents.append(("", "is empty"))
    if not limits.control_characters:
        contents.append(("a\x00b", "holds a control character"))
    if not limits.non_ascii:
        contents.append(("café", "holds a character beyond ASCII"))
    if not contents:
        return
    held = Row(ns(ctx, "apart-content"), "kept", plan.content(limits))
    plan.witnesses.append(held)
    for content, why in contents:
        # Every field differs from the held entry's, so a store applying any of them shows.
        row = Row(
            held.namespace,
            held.key,
            content,
            MemoryCategory.DAILY,
            "refused-session",
            MemoryTaint.EXTERNAL_SYNC,
        )
        plan.probes.append(Probe(row, f"the content {why}"))


def _refused(provider: Any, ctx: CheckContext, probe: Probe) -> bool:
    """Send `probe`; whether it was refused with `Invalid` (any other error fails)."""
    row = probe.row
    try:
        with ctx.answer_or_refusal():
            provider.store(
                row.namespace, row.key, row.content, row.category, row.session_id, row.taint
            )
    except DriverRaised as raised:
        if isinstance(raised.error, Invalid):
            return True
        ctx.fail(
            call_of("store", row.namespace, row.key, ...),
            f"Invalid ({probe.why})",
            f"{type(raised.error).__name__}: {raised.error}",
        )
    return False


def _read(provider: Any, ctx: CheckContext, namespace: str, key: str) -> Any:
    """`get`, where refusing a name the declaration leaves out reads as nothing held."""
    try:
        with ctx.answer_or_refusal():
            return provider.get(namespace, key)
    except DriverRaised as raised:
        if isinstance(raised.error, Invalid):
            return None
        raise


def _forget(provider: Any, ctx: CheckContext, row: Row) -> None:
    """Forget a probe's entry, should the driver have kept one; a refusal is fine."""
    try:
        with ctx.answer_or_refusal():
            provider.forget(row.namespace, row.key)
    except DriverRaised as raised:
        if not isinstance(raised.error, Invalid):
            raise


def _label(ctx: CheckContext, row: Row) -> str:
    return f"{where(ctx, row.namespace)}:{key_name(row.key)}"


@check(
    "provider.declared_constraints_refuse",
    title="What a declared constraint leaves out is refused with Invalid and changes nothing; "
    "names it admits stay apart",
    clause=(
        "kit-choices.md#declared-constraints-refuse, kit-choices.md#declared-constraints, "
        "provider-families.md#namespace-isolation"
    ),
    storage=True,
)
def assert_declared_constraints_refuse(provider: Any, ctx: CheckContext) -> None:
    """Names `a<c>b` under the root, one for each of `- _ . @ + : /` and one with none,
    each with its own entry; then the input each declared limit leaves out: a name with
    a character outside the declared alphabet (the names above), one byte over the
    declared length, with an empty or `.` segment; a key outside the key alphabet, one
    character over its length, with non-ASCII or a control character; content one
    character over its length, empty, non-ASCII or with a control character, written
    over a held entry.

    Each input left out must be refused with `Invalid` and change nothing: every held
    entry reads back as written (no refused name merged into it, no refused content
    written over it), a refused name reads nothing, and `namespaces()` counts only the
    names admitted. Each admitted name reads back its own entry, never another's: a
    store keeping `a_b`, `a.b` and `a@b` at one address fails with or without a
    declaration. The message names every accepted input and what it merged with.
    """
    limits = ctx.settings.constraints
    plan = _Plan([], [])
    _namespaces(ctx, limits, plan)
    _keys(ctx, limits, plan)
    _contents(ctx, limits, plan)
    put_rows(provider, ctx, plan.witnesses, what="input the declared constraints admit")
    for probe in plan.probes:
        label = call_of("forget", probe.row.namespace, probe.row.key)
        ctx.defer(label, partial(_forget, provider, ctx, probe.row))
    accepted = [probe for probe in plan.probes if not _refused(provider, ctx, probe)]

    # Who wrote each content: every witness and probe writes one of its own.
    origin = {row.content: row for row in plan.witnesses}
    origin.update({p.row.content: p.row for p in plan.probes})
    wrong: list[str] = []
    first_call = ""
    for row in plan.witnesses:
        call = call_of("get", row.namespace, row.key)
        entry = _read(provider, ctx, row.namespace, row.key)
        ctx.require(entry is not None, call, f"the entry stored as {_label(ctx, row)}", "None")
        if read_back(entry) == row.fields():
            continue
        source = origin.get(entry.content)
        if source is None or source == row:
            # No other store of this check wrote it: the difference says what changed.
            found = "; ".join(field_differences(row.fields(), read_back(entry)))
            wrong.append(f"{call} answers the entry changed ({found})")
        elif (source.namespace, source.key) == (row.namespace, row.key):
            wrong.append(f"{call} answers {show(entry.content)}, which a store declared out sent")
        else:
            wrong.append(f"{call} answers what was stored as {_label(ctx, source)}")
        first_call = first_call or call
    for probe in plan.probes:
        row = probe.row
        if row.namespace == ns(ctx, "apart-content"):
            continue  # written over a witness, read above
        entry = _read(provider, ctx, row.namespace, row.key)
        if entry is None:
            continue
        call = call_of("get", row.namespace, row.key)
        source = origin.get(entry.content)
        if source is not None and source != row:
            wrong.append(f"{call} answers what was stored as {_label(ctx, source)}")
        elif probe not in accepted:
            wrong.append(f"{call} answers {show(entry.content)}, though the store was refused")
        first_call = first_call or call

    if accepted:
        shown = "; ".join(f"{_label(ctx, p.row)} ({p.why})" for p in accepted)
        ctx.fail(
            call_of("store", accepted[0].row.namespace, accepted[0].row.key, ...),
            "each input the declared constraints leave out refused with Invalid, changing nothing",
            f"accepted {len(accepted)}: {shown}"
            + (f"; and then {'; '.join(wrong)}" if wrong else ""),
        )
    ctx.require(
        not wrong,
        first_call,
        "each name, key and entry kept apart (every get answering its own entry, unchanged)",
        "; ".join(wrong),
    )
    counts: dict[str, int] = {}
    for row in plan.witnesses:
        counts[row.namespace] = counts.get(row.namespace, 0) + 1
    require_counts(provider, ctx, counts)
