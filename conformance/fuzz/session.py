"""One driver instance fuzzed program after program: the unit a search, a replay and a
regression test share.

A session probes once whether the instance retains writes (choosing the oracle), then
makes one differential per program, each under its own root. A search runs its
programs through hypothesis; a replay (shrinking, checking a regression file before it
is written) and the regression file itself run recorded programs through
`program()`, so all three make exactly the same calls in the same order:

    fuzz = FuzzSession.start("fuzz.provider.differential", driver)
    with fuzz.program() as m:
        m.store("~/a", "k", "alpha", cp.MemoryCategory.CORE, None, cp.MemoryTaint.INTERNAL)
        m.verify()
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.bridge import as_sync
from conformance.checks.context import CheckContext, RunSettings, new_nonce
from conformance.checks.engine_support import engine_retains_writes
from conformance.checks.outcome import ConformanceFailure, Inconclusive
from conformance.checks.provider_support import provider_retains_writes
from conformance.driver import Driver, Profile
from conformance.fuzz.differential import Differential
from conformance.fuzz.document_differential import DocumentsDifferential
from conformance.fuzz.engine_differential import ENGINE_TARGET, EngineDifferential, engine_oracle
from conformance.fuzz.narrowing import bulk_fit, bulk_fit_item
from conformance.fuzz.provider_differential import (
    PROVIDER_TARGET,
    ProviderDifferential,
    provider_oracle,
)
from conformance.fuzz.stats import FuzzStats, ProgramStats
from conformance.fuzz.steps import FailureSink, Step

__all__ = ["PROFILE_OF", "FuzzSession", "SessionOptions", "differential_class"]

PROFILE_OF: dict[str, Profile] = {ENGINE_TARGET: "engine", PROVIDER_TARGET: "provider"}
"""The profile each fuzz target drives."""


def differential_class(target_id: str) -> type[Differential]:
    """The differential of a fuzz target."""
    return EngineDifferential if target_id == ENGINE_TARGET else ProviderDifferential


@dataclass(frozen=True)
class SessionOptions:
    """How a session's differentials compare and call."""

    settings: RunSettings = field(default_factory=RunSettings)
    """Time limit and retries of every driver call."""
    full_every: int = 1
    """Steps between two whole-store comparisons (1 in a regression test)."""
    full_page: int = 100
    """Engine: the page size of the whole-store comparison."""
    max_pages: int = 4
    """Engine: most pages one fetch step reads."""
    fit: Callable[[str], str] | None = None
    """Narrows bulk texts to the driver's declared constraints."""
    fit_item: Callable[[Any], Any] | None = None
    """Engine: narrows bulk items to the driver's declared constraints (their rendered
    text, as the suite measures it)."""
    oracle: Callable[[], Any] | None = None
    """A custom oracle factory (used only when the driver retains writes)."""
    documents: bool = True
    """Provider: run the documents steps when the driver offers the family."""


class FuzzSession:
    """Programs run one after another on one driver instance (a search cut into shards
    has a session for each: `conformance.fuzz.shards`)."""

    def __init__(
        self,
        target_id: str,
        driver: Any,
        options: SessionOptions | None = None,
        *,
        stats: FuzzStats | None = None,
        sink: FailureSink | None = None,
        shard: int = 0,
    ) -> None:
        self.target_id = target_id
        self.shard = shard
        """Which shard of a search the session runs: its programs' roots are its own, so
        shards over instances that share a store do not meet."""
        self.profile = PROFILE_OF[target_id]
        self.driver = as_sync(driver)
        self.options = options or SessionOptions()
        self.stats = stats if stats is not None else FuzzStats()
        self.sink = sink
        self.history: list[list[Step]] = []
        """The step log of every program opened, in order."""
        self.escape = False
        self.retains = self._probe()
        self.documents = self._documents()
        """The driver's documents family when its steps run (`None` otherwise)."""

    @classmethod
    def start(
        cls,
        target_id: str,
        driver: Driver | Any,
        *,
        full_every: int = 1,
        settings: RunSettings | None = None,
    ) -> FuzzSession:
        """A session over `driver` (a `Driver`, from which a fresh instance is made and
        whose declared constraints narrow bulk texts as in the run, or an engine or
        provider object), as a regression test opens one."""
        profile = PROFILE_OF[target_id]
        fit = fit_item = None
        obj = driver
        if isinstance(driver, Driver):
            obj, fit = driver.make(profile), bulk_fit(profile, driver.constraints)
            fit_item = bulk_fit_item(profile, driver.constraints)
        options = SessionOptions(
            settings=settings or RunSettings(), full_every=full_every, fit=fit, fit_item=fit_item
        )
        return cls(target_id, obj, options)

    def _probe(self) -> bool:
        ctx = CheckContext(f"{self.target_id}.retention_probe", self.options.settings)
        try:
            if self.profile == "engine":
                return engine_retains_writes(self.driver, ctx)
            return provider_retains_writes(self.driver, ctx)
        finally:
            self.stats.other_calls += ctx.calls
            self.stats.other_retries += ctx.retries

    def _documents(self) -> Any | None:
        """The documents family of a retaining provider that offers it (and whose
        documents are fuzzed), asked once: `as_documents()` answering one is the offer."""
        if self.profile != "provider" or not self.retains or not self.options.documents:
            return None
        accessor = getattr(self.driver, "as_documents", None)
        if not callable(accessor):
            return None
        ctx = CheckContext(f"{self.target_id}.documents_probe", self.options.settings)
        try:
            return ctx.invoke("as_documents()", accessor)
        finally:
            self.stats.other_calls += ctx.calls
            self.stats.other_retries += ctx.retries

    def _oracle(self) -> Any:
        if not self.retains:
            return engine_oracle(False) if self.profile == "engine" else provider_oracle(False)
        if self.options.oracle is not None:
            return self.options.oracle()
        return engine_oracle(True) if self.profile == "engine" else provider_oracle(True)

    @property
    def oracle_name(self) -> str:
        """`reference`, `empty` (the driver retains nothing) or `custom`."""
        if not self.retains:
            return "empty"
        return "custom" if self.options.oracle is not None else "reference"

    def open(self) -> Differential:
        """A differential for the next program, under a root of its own."""
        # Each program under a root of its own, a seeded run's too (the same seed gives the
        # same roots, program by program, shard by shard).
        shard = f"{self.shard}." if self.shard else ""
        name = f"{self.target_id}#{shard}{len(self.history)}"
        made = self._differential(self.driver, self.documents, name, self.stats.program())
        made.index = len(self.history)
        made.sink = self.sink
        self.history.append(made.log)
        return made

    def rehearsal(self) -> Differential:
        """A differential between two fresh oracles, as `open` would make for the driver:
        for a program no driver needs to run (`conformance.fuzz.shards`). It holds the
        driver's shape (what it retains, whether it offers documents), so hypothesis draws
        the same program through it; nothing of it is counted or recorded."""
        stand_in = self._oracle()
        documents = None
        if self.documents is not None:
            documents = DocumentsDifferential.document_oracle(stand_in)
        made = self._differential(stand_in, documents, f"{self.target_id}#rehearsal", None)
        made.sink = None
        return made

    def _differential(
        self, driver: Any, documents: Any | None, name: str, stats: ProgramStats | None
    ) -> Differential:
        options = self.options
        common: dict[str, Any] = {
            "retains": self.retains,
            "ctx": CheckContext(
                self.target_id, options.settings, nonce=new_nonce(options.settings.seed, name)
            ),
            "stats": stats,
            "full_every": options.full_every,
            "fit": options.fit,
        }
        if self.profile == "engine":
            common.update(
                full_page=options.full_page, max_pages=options.max_pages, fit_item=options.fit_item
            )
        else:
            common.update(documents=documents)
        made = differential_class(self.target_id)(driver, self._oracle(), **common)
        made.escape = self.escape
        return made

    @contextlib.contextmanager
    def program(self) -> Iterator[Differential]:
        """One program: a differential whose teardown (a final comparison, then forgetting
        what it wrote) runs when the block ends; after a failure inside, cleanup is best
        effort and the failure is the one raised."""
        made = self.open()
        try:
            yield made
        except BaseException:
            with contextlib.suppress(Exception):
                made.teardown()
            raise
        made.teardown()

    def shutdown(self) -> None:
        """Shut the instance down (a provider's `shutdown`), under the run's time limit."""
        shutdown = getattr(self.driver, "shutdown", None)
        if not callable(shutdown):
            return
        ctx = CheckContext(f"{self.target_id}.shutdown", self.options.settings)
        with contextlib.suppress(ConformanceFailure, Inconclusive):
            ctx.invoke("shutdown()", shutdown)
        self.stats.other_calls += ctx.calls
