"""Provider checks of the `<section>:<scope>` convention surviving storage, and of the
Section API finding what was written through it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.outcome import NotApplicable
from conformance.checks.provider_support import ns, put
from conformance.checks.registry import check
from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    Namespace,
    OwnedRecallOpts,
    ProviderError,
)
from conformance.sections import Sections, SectionView


@check(
    "provider.namespaces_preserve_their_section",
    title="A sectioned namespace enumerates under its section",
    clause=("provider-families.md#section-namespaces, provider-families.md#sections-preserved"),
    storage=True,
)
def assert_namespaces_preserve_their_section(provider: Any, ctx: CheckContext) -> None:
    """After a write to `conversation:<root>/section-thread`, namespaces() reports it sectioned.

    Catches drivers whose storage address collapses `:`, so the name comes back as
    an unsectioned `conversation_...`.
    """
    written = Namespace.conversation(ns(ctx, "section-thread"))
    refusal = ctx.settings.constraints.namespace_refusal(str(written))
    if refusal is not None:
        shown = f"conversation:<root>{ctx.separator}section-thread"
        raise NotApplicable(f"its namespace, `{shown}`, {refusal}")
    put(provider, ctx, str(written), "turn-1", "a conversation turn")
    found: list[str] = []
    for summary in provider.namespaces():
        try:
            parsed = Namespace.parse(summary.namespace)
        except Invalid:
            continue
        if parsed.scope() == written.scope() or summary.namespace.endswith(written.scope()):
            found.append(summary.namespace)
            if parsed.section() == MemorySection.CONVERSATION:
                return
    ctx.fail(
        "namespaces()",
        f"a summary {str(written)!r} in the conversation section",
        f"{found}" if found else "no summary with the written scope",
    )


# Scopes a section write must stay enumerable under: a plain one, one carrying a US
# social security number (a store that redacts personal data must still report a name
# that addresses the write), and one holding a colon (scopes may).
_SECTION_SCOPES = (
    ("thread-8f21", "a plain scope"),
    ("thread-123-45-6789", "a scope carrying a national id"),
    ("chan:general", "a scope holding a colon"),
)


def _written_entries(
    provider: Any, ctx: CheckContext, view: SectionView
) -> list[tuple[str, str, str]]:
    """Write one entry per admitted scope through `view`; `(scope, key, content)` each."""
    limits = ctx.settings.constraints
    written: list[tuple[str, str, str]] = []
    refusals: list[str] = []
    for index, (leaf, what) in enumerate(_SECTION_SCOPES):
        scope = ns(ctx, leaf)
        namespace = view.namespace(scope).as_str()
        key, content = f"turn-{index}", f"enumerable needle in {what}"
        refusal = limits.namespace_refusal(namespace)
        if refusal is not None or not limits.admits_key(key):
            refusals.append(refusal or f"its key {key!r} is refused")
            continue
        ctx.defer(f"forget({namespace!r}, {key!r})", partial(provider.forget, namespace, key))
        view.put(scope, key, content, MemoryCategory.CONVERSATION, None, MemoryTaint.INTERNAL)
        written.append((scope, key, content))
    if not written:
        raise NotApplicable(
            f"each namespace it writes, `{view.section.prefix}:<root>{ctx.separator}<scope>`, "
            + "; ".join(dict.fromkeys(refusals))
        )
    return written


def _enumerate(ctx: CheckContext, call: str, enumerate_: Callable[[], Any]) -> Any:
    """Run a Section API enumeration; its own refusal (a name it cannot read) fails."""
    try:
        return enumerate_()
    except ProviderError as error:
        ctx.fail(
            call, "every namespace of the section readable", f"{type(error).__name__}: {error}"
        )


@check(
    "provider.section_writes_are_enumerable",
    title="A write through a section view is enumerable by scopes, list_section and across_section",
    clause=(
        "sections.md#section-writes-enumerable, "
        "provider-families.md#reported-names-address, "
        "sections.md#section-unreadable"
    ),
    storage=True,
)
def assert_section_writes_are_enumerable(provider: Any, ctx: CheckContext) -> None:
    """Writes through `Sections(driver)` come back through every enumerating call.

    1. Put one entry through `conversations()` under each of three scopes of the check's
       root: plain, carrying a national id (`thread-123-45-6789`), holding a colon.
    2. `scopes()` must answer (a reported name of the section that is no namespace fails
       it) and, for each write, report a scope through which `list` finds the entry. The
       scope may differ from the one written: a store may redact personal data from a
       name, but the name it reports must address the same entry.
    3. In a section unique to this run, put the same entries: `list_section()` must hold
       exactly them, and `across_section()` must visit every scope and find each.
    """
    sections = Sections(provider)
    view = sections.conversations()
    written = _written_entries(provider, ctx, view)
    prefix = f"{view.section.prefix}:{ctx.root}{ctx.separator}"
    scopes = _enumerate(ctx, "conversations().scopes()", view.scopes)
    mine = [s for s in scopes if s.namespace.as_str().startswith(prefix)]
    for scope, key, content in written:
        found = any(
            any(e.key == key and e.content == content for e in view.list(s.scope())) for s in mine
        )
        ctx.require(
            found,
            "conversations().scopes()",
            f"a scope through which list() finds the entry put under {scope!r} (key {key!r})",
            f"scopes under the root: {[s.namespace.as_str() for s in mine]}",
        )

    own = MemorySection.custom(ctx.marker.lower())
    own_view = sections.section(own)
    own_written = _written_entries(provider, ctx, own_view)
    listed = _enumerate(ctx, f"section({own.prefix!r}).list_section()", own_view.list_section)
    ctx.require(
        sorted((e.key, e.content) for e in listed) == sorted((k, c) for _, k, c in own_written),
        f"section({own.prefix!r}).list_section()",
        "exactly the entries put in the section",
        [(e.namespace, e.key, e.content) for e in listed],
    )
    call = f"recall().across_section({own.prefix!r}, 'needle', 10)"
    hits = _enumerate(
        ctx,
        call,
        lambda: sections.recall().across_section(own, "needle", 10, OwnedRecallOpts()),
    )
    ctx.require(
        hits.namespaces_searched == len(own_written) and not hits.truncated,
        call,
        f"all {len(own_written)} scopes searched",
        f"{hits.namespaces_searched} searched, truncated={hits.truncated}",
    )
    with ctx.precondition(
        "provider.recall_respects_limit_and_namespace", "recall finds a stored needle"
    ):
        missing = [c for _, _, c in own_written if c not in {h.content for h in hits.hits}]
        ctx.require(not missing, call, "a hit for every entry put", f"no hit for {missing}")
