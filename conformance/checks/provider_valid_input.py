"""Provider check that contract-valid but unusual names are taken and read back unchanged."""

from __future__ import annotations

import string
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.provider_support import (
    Row,
    call_of,
    kept_or_refused,
    keys_of,
    named_keys,
    ns,
    put_rows,
    read_back,
    require_counts,
    taking_valid_input,
)
from conformance.checks.registry import check
from conformance.provider import MAX_NAMESPACE_LEN, MemoryCategory

LONG_KEY = 1000
"""Characters in the long key (the contract sets no bound; stores often cut at 255 or 512)."""

KEYS = (
    ("inner spaces", "key with inner spaces"),
    ("punctuation", "slash/colon:dot.at@plus+hash#pct%amp&q?"),
    ("quotes and a backslash", "quote'double\"back\\slash"),
    ("leading dash and dot", "-.dash-dot"),
    ("non-ASCII", "ключ-ünïcødé-🔑"),
    ("a control character", "tab\there"),
)


def unusual_namespaces(ctx: CheckContext) -> list[tuple[str, str, str]]:
    """`(what, namespace, constraint)` for every unusual but valid namespace (contract A6)
    the driver's declared constraints admit, the longest at the declared or contract
    bound; `constraint` is the declaration that would lift it."""
    # Under the root by its separator; a `/` inside a case is the case's point, and a
    # declared alphabet without `/` leaves that case out.
    root = ctx.root + ctx.separator
    limit = ctx.settings.constraints.max_namespace_bytes or MAX_NAMESPACE_LEN
    longest = f"{root}longest-"
    alphabet, segments, length = (
        "namespace_alphabet",
        "empty_or_dot_segments",
        "max_namespace_bytes",
    )
    cases = [
        ("dots", f"{root}dotted.name.v2", alphabet),
        ("an at sign", f"{root}user@example.org", alphabet),
        ("a plus", f"{root}tag+plus", alphabet),
        ("colons beyond the first", f"learning:{root}topic:sub:leaf", alphabet),
        ("several / segments", f"{root}seg1/seg2/seg3/seg4", alphabet),
        ("every allowed character class", f"{root}AZaz09-_.:@+/end", alphabet),
        # Each letter and digit once: a store refusing one (a guard on `X`, say) shows.
        ("every letter and digit", f"{root}{string.ascii_letters}{string.digits}", alphabet),
        # Valid (only `..` and a leading or trailing `/` are not), and what a store that
        # maps `/` onto path parts or tuple labels refuses or folds into another name.
        ("an empty segment", f"{root}empty//segment", segments),
        ("a `.` segment", f"{root}dot/./segment", segments),
        (
            f"the longest allowed ({limit} bytes)",
            longest + "x" * (limit - len(longest)),
            length,
        ),
    ]
    admits = ctx.settings.constraints.admits_namespace
    return [case for case in cases if admits(case[1]) and len(case[1]) <= limit]


def unusual_keys(ctx: CheckContext) -> list[tuple[str, str]]:
    """`(what, key)` for every unusual key the driver's declared constraints admit."""
    limit = min(ctx.settings.constraints.max_key_length or LONG_KEY, LONG_KEY)
    wide = "ключ" * (min(limit, 300) // 4)
    cases = [
        *KEYS,
        (f"{limit} characters long", "long-" + "k" * (limit - 5)),
        # Past the 255 bytes of a file name, the cap real stores keep in bytes.
        (f"{len(wide)} non-ASCII characters ({len(wide.encode())} bytes)", wide),
    ]
    return [(what, key) for what, key in cases if ctx.settings.constraints.admits_key(key)]


@check(
    "provider.accepts_valid_input",
    title="Unusual but valid namespaces, keys, categories and sessions are taken and read back",
    clause=(
        "errors.md#valid-input-taken, provider-families.md#section-namespaces, "
        "kit-choices.md#declared-constraints, kit-choices.md#edges-of-a-domain"
    ),
    storage=True,
)
def assert_accepts_valid_input(provider: Any, ctx: CheckContext) -> None:
    """Namespaces with dots, `@`, `+`, colons beyond the first, several `/` segments,
    an empty and a `.` segment, every allowed character class and the longest allowed
    length; keys with spaces,
    punctuation, quotes, non-ASCII, a control character and 1000 characters; a custom
    category and a session id with unusual characters. Each is stored, read back
    unchanged by get and list, and counted by namespaces() under its exact spelling.
    An empty key is stored and read back as `""`, or refused with `Invalid`.

    A refusal fails, unless the driver declared it (`Constraints.namespace_alphabet`,
    `empty_or_dot_segments`, `max_namespace_bytes`, `key_alphabet`, `max_key_length`, `non_ascii`,
    `control_characters`); declared input is not sent. Unusual content is the business
    of `provider.awkward_content_round_trips`.
    """
    names = unusual_namespaces(ctx)
    for what, namespace, declare in names:
        row = Row(namespace, "k", f"stored under a namespace with {what}")
        _store(provider, ctx, row, f"a namespace with {what}", declare)

    key_space = ns(ctx, "keys")
    keys = unusual_keys(ctx)
    for what, key in keys:
        row = Row(key_space, key, f"stored under a key with {what}")
        _store(provider, ctx, row, f"a key with {what}", "key_alphabet")
    category = MemoryCategory.custom("Team: ops/on-call ü")
    session = "sess/ü:1 two"
    texts = ctx.settings.constraints.admits_text
    labelled = texts(category.name) and texts(session)
    if labelled:
        row = Row(
            key_space, "labelled", "a custom category and an unusual session", category, session
        )
        _store(provider, ctx, row, "an unusual category and session id", "non_ascii")

    # An empty key is the end of the key's domain; the contract names no refusal of it.
    empty_key = ns(ctx, "empty-key")
    held_empty = ctx.settings.constraints.admits_key("") and kept_or_refused(
        provider, ctx, empty_key, "", "under an empty key", "an empty key"
    )
    listed = provider.list(key_space, None, None)
    want = named_keys(ctx, [key for _, key in keys] + (["labelled"] if labelled else []))
    call = f"list({key_space!r}, None, None)"
    ctx.require_ids(call, keys_of(ctx, listed), want, "every key exactly as stored")
    for what, namespace, declare in names:
        call = f"{call_of('list', namespace, None, None)} (a namespace with {what})"
        with taking_valid_input(ctx, call, f"a namespace with {what}", declare):
            listed = provider.list(namespace, None, None)
        ctx.require(len(listed) == 1, call, "exactly the entry stored there", listed)
        ctx.require_same(
            call,
            Row(namespace, "k", f"stored under a namespace with {what}").fields(),
            read_back(listed[0]),
            "the entry",
        )
    counts = {namespace: 1 for _, namespace, _ in names}
    counts[key_space] = len(want)
    if held_empty:
        counts[empty_key] = 1
    require_counts(provider, ctx, counts)


def _store(provider: Any, ctx: CheckContext, row: Row, what: str, declare: str) -> None:
    """Store `row` and read it back by get; a refusal of either names `what`."""
    put_rows(provider, ctx, [row], what=what, declare=declare)
    call = f"{call_of('get', row.namespace, row.key)} ({what})"
    with taking_valid_input(ctx, call, what, declare):
        entry = provider.get(row.namespace, row.key)
    ctx.require(entry is not None, call, "the stored entry", "None")
    ctx.require_same(call, row.fields(), read_back(entry), "the entry")
