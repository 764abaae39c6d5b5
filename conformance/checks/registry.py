"""The check registry: `Check`, `CATALOGUE` and the `check` decorator the check modules use.

It imports no check module, so every check module can import it; `catalogue` loads the
suites and answers which checks exist.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from conformance.checks.context import CheckContext
from conformance.checks.outcome import CheckSkipped, ConformanceFailure, Inconclusive
from conformance.driver import Profile

__all__ = ["CATALOGUE", "Check", "CheckFunction", "check"]


class CheckFunction(Protocol):
    """A public check: `assert_<name>(driver, ctx=None)`."""

    def __call__(self, driver: Any, ctx: CheckContext | None = None) -> None: ...


@dataclass(frozen=True)
class Check:
    """One catalogued check."""

    id: str
    title: str
    profile: Profile
    clause: str
    run: CheckFunction
    storage: bool = False
    needs: str | None = None
    per_mode: bool = False
    alone: bool = False
    """The check reads what other checks write too (the `global` namespace, a capped
    answer across namespaces): under `--conformance-concurrency` it runs while no other
    check does."""
    whole_store: bool = False
    """The check reads the whole store (an export, scores weighing every entry) in a still
    block (`still`): under `--conformance-concurrency` it starts after the checks that do
    not, when their entries are gone, so its reads are short and hold few writes back."""

    @property
    def name(self) -> str:
        """The public function's name, e.g. `assert_fingerprint_replay`."""
        return getattr(self.run, "__name__", self.id)

    @property
    def doc(self) -> str:
        """The check's docstring: what it holds the driver to."""
        return (getattr(self.run, "__doc__", None) or "").strip()


CATALOGUE: dict[str, Check] = {}


def check(
    id: str,
    *,
    title: str,
    clause: str,
    storage: bool = False,
    needs: str | None = None,
    per_mode: bool = False,
    alone: bool = False,
    whole_store: bool = False,
) -> Callable[[Callable[[Any, CheckContext], None]], CheckFunction]:
    """Register a check body under a stable id; the result is its public function.

    The body receives the driver already bound to its context (every call counted,
    timed and attributed), and deferred cleanups run whatever the outcome. A cleanup
    failure is reported only when the body itself passed. A `per_mode` check covers every
    declared fetch mode, or only `ctx.fetch_mode` when the runner sets one. An `alone`
    check runs while no other does, when checks run at once; a `whole_store` one starts
    after the others.
    """
    profile: Profile = "engine" if id.startswith("engine.") else "provider"

    def register(body: Callable[[Any, CheckContext], None]) -> CheckFunction:
        if id in CATALOGUE:
            raise ValueError(f"check id `{id}` is registered twice")
        if not clause.strip():
            raise ValueError(f"check `{id}` names no spec clause")

        @functools.wraps(body)
        def public(driver: Any, ctx: CheckContext | None = None) -> None:
            context = ctx if ctx is not None else CheckContext(id)
            bound = context.bind(driver)
            try:
                body(bound, context)
            except (ConformanceFailure, CheckSkipped, Inconclusive):
                context.run_cleanups()
                raise
            except Exception as exc:
                # The body tripped over an answer of the wrong shape: that is the
                # driver's fault, reported at the call that produced it.
                context.run_cleanups()
                last = context.call_log[-1] if context.call_log else "(before any call)"
                raise ConformanceFailure(
                    id,
                    last,
                    "an answer of the contract's shape",
                    context.redact(f"{type(exc).__qualname__}: {exc}"),
                ) from exc
            failure = context.run_cleanups()
            if failure is not None:
                raise failure

        CATALOGUE[id] = Check(
            id=id,
            title=title,
            profile=profile,
            clause=clause,
            run=public,
            storage=storage,
            needs=needs,
            per_mode=per_mode,
            alone=alone,
            whole_store=whole_store,
        )
        return public

    return register
