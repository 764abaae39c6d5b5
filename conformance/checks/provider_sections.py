"""Provider check of the `<section>:<scope>` convention surviving storage."""

from __future__ import annotations

from typing import Any

from conformance.checks.catalogue import check
from conformance.checks.context import CheckContext
from conformance.checks.provider_support import put
from conformance.provider import Invalid, MemorySection, Namespace


@check(
    "provider.namespaces_preserve_their_section",
    title="A sectioned namespace enumerates under its section",
    clause="seed memory-section-api §4 (storage addresses); contract-reference A6, A9 §12",
    storage=True,
)
def assert_namespaces_preserve_their_section(provider: Any, ctx: CheckContext) -> None:
    """After a write to `conversation:<root>/section-thread`, namespaces() reports it sectioned.

    Catches drivers whose storage address collapses `:`, so the name comes back as
    an unsectioned `conversation_...`.
    """
    written = Namespace.conversation(f"{ctx.root}/section-thread")
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
