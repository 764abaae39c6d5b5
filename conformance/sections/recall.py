"""`SectionRecall` and `AsyncSectionRecall`: recall within one scope, or across a section.

`in_scope` is one provider call. `across_section` is one `namespaces` call plus
one `recall` per scope, capped at `MAX_SECTION_NAMESPACES`: the contract has no
cross-namespace recall, and `namespace=None` means `global` on one driver and
everything on another, so filtering one unpinned call would be right in tests
and empty in production. Scores merged across calls come from one driver and one
query; the contract does not promise they are comparable, though they are on
every bundled driver.
"""

from __future__ import annotations

from conformance.provider import (
    AsyncMemoryProvider,
    MemoryEntry,
    MemoryProvider,
    MemorySection,
    OwnedRecallOpts,
    SourceScope,
)

from .ordering import fan_out, merge_hits
from .rules import in_scope_opts, pinned, refuse_fan_out
from .values import SectionHits
from .view import AsyncSectionView, SectionView


class SectionRecall:
    """A borrowing handle for section-aware recall over a synchronous provider."""

    __slots__ = ("_provider",)

    def __init__(self, provider: MemoryProvider) -> None:
        self._provider = provider

    def in_scope(
        self,
        section: MemorySection,
        scope: str,
        query: str,
        limit: int,
        opts: OwnedRecallOpts,
        sources: SourceScope | None = None,
    ) -> SectionHits:
        """One `recall` pinned to the scope's namespace; hits keep the driver's order.

        Refused with `Invalid`, before any call, when `opts.namespace` is set
        (`NAMESPACE_FILTER_CONFLICT`), when `cross_session` or `session_id` is set
        outside the conversation section (`CROSS_SESSION_SECTION_CONFLICT`), or
        when the scope cannot form a namespace. `sources` is passed through.
        """
        pinned_opts = in_scope_opts(section, scope, opts)
        hits = self._provider.recall(query, limit, pinned_opts, sources)
        return SectionHits(hits, namespaces_searched=1, truncated=False)

    def across_section(
        self,
        section: MemorySection,
        query: str,
        limit: int,
        opts: OwnedRecallOpts,
        sources: SourceScope | None = None,
    ) -> SectionHits:
        """Recall every scope of `section` and merge; see the module for the cost.

        Visits scopes in `scopes()` order, each asked for the full `limit` (a share
        would let one scope's best hit lose to another's worst); merges by score
        desc, absent or non-finite scores last, ties by (namespace, key); cuts to
        `limit`. `truncated` means a namespace was skipped. Refused with `Invalid`,
        before any call, when `opts.namespace` is set, when `cross_session` or
        `session_id` is set (`CROSS_SESSION_FAN_OUT_CONFLICT`, on every section),
        or when the section's prefix is unusable; `Backend`, as `scopes()`, when the driver
        reports names of the section no call can address. Any recall error fails the call.
        """
        refuse_fan_out(opts)
        visit, truncated = fan_out(SectionView(self._provider, section).scopes())
        batches: list[list[MemoryEntry]] = [
            self._provider.recall(query, limit, pinned(opts, scope.namespace), sources)
            for scope in visit
        ]
        return SectionHits(merge_hits(batches, limit), len(visit), truncated)

    def __repr__(self) -> str:
        return f"SectionRecall(driver_id={self._provider.driver_id()!r})"


class AsyncSectionRecall:
    """`SectionRecall` over an `async def` provider; the calls are coroutines."""

    __slots__ = ("_provider",)

    def __init__(self, provider: AsyncMemoryProvider) -> None:
        self._provider = provider

    async def in_scope(
        self,
        section: MemorySection,
        scope: str,
        query: str,
        limit: int,
        opts: OwnedRecallOpts,
        sources: SourceScope | None = None,
    ) -> SectionHits:
        """As `SectionRecall.in_scope`."""
        pinned_opts = in_scope_opts(section, scope, opts)
        hits = await self._provider.recall(query, limit, pinned_opts, sources)
        return SectionHits(hits, namespaces_searched=1, truncated=False)

    async def across_section(
        self,
        section: MemorySection,
        query: str,
        limit: int,
        opts: OwnedRecallOpts,
        sources: SourceScope | None = None,
    ) -> SectionHits:
        """As `SectionRecall.across_section`; namespaces are recalled one after another."""
        refuse_fan_out(opts)
        visit, truncated = fan_out(await AsyncSectionView(self._provider, section).scopes())
        # Sequential, not gathered: the cost promise is about calls, and a driver
        # need not tolerate 64 concurrent recalls.
        batches: list[list[MemoryEntry]] = [
            await self._provider.recall(query, limit, pinned(opts, scope.namespace), sources)
            for scope in visit
        ]
        return SectionHits(merge_hits(batches, limit), len(visit), truncated)

    def __repr__(self) -> str:
        return f"AsyncSectionRecall(driver_id={self._provider.driver_id()!r})"
