"""Drivers for runs with several checks at once: the reference behind a round trip, one
that shares state between calls unsafely, and one that says it is not thread-safe."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.delayed_drivers import Delayed
from conformance import Driver
from conformance.provider import MemoryCategory, MemoryTaint
from reference_driver.engine import ReferenceEngine
from reference_driver.provider import ReferenceProvider

ROUND_TRIP = 0.001
"""Seconds every call of these drivers waits, as for a store across a network."""


def Remote(inner: Any, delay: float = ROUND_TRIP) -> Delayed:
    """`inner` with a round trip before every call (`benchmarks.delayed_drivers.Delayed`)."""
    return Delayed(inner, delay)


def remote_reference() -> Driver:
    """The reference driver, every call after a 1 ms round trip."""
    return Driver(
        name="remote-reference",
        engine=lambda: Remote(ReferenceEngine()),
        provider=lambda: Remote(ReferenceProvider()),
    )


class SharesOneScratch(ReferenceProvider):
    """Correct one call at a time; `store` keeps what it writes in one attribute across
    its round trip, so another thread's store made meanwhile replaces it: run beside
    other checks, entries land under another check's key and namespace."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        self._pending = (namespace, key, content, category, session_id, taint)
        time.sleep(0.005)
        super().store(*self._pending)


def shares_one_scratch() -> Driver:
    """`SharesOneScratch`, which claims to be thread-safe (the default)."""
    return Driver(name="shares-one-scratch", provider=lambda: Remote(SharesOneScratch()))


def not_thread_safe() -> Driver:
    """`SharesOneScratch`, saying honestly that it is not thread-safe."""
    return Driver(
        name="not-thread-safe", provider=lambda: Remote(SharesOneScratch()), thread_safe=False
    )


_ONE_STORE: dict[str, ReferenceProvider] = {}


def one_store() -> Driver:
    """The reference provider behind a round trip, every instance (the suite's, each fuzz
    session's) over one store, as instances of a remote store's client are: the checks and
    the fuzzer read and write the same entries."""
    shared = _ONE_STORE.setdefault("provider", ReferenceProvider())
    return Driver(name="one-store", provider=lambda: Remote(shared))


class HangsOnOneKey(ReferenceProvider):
    """`store` of the key `v100` (one of the puts `provider.listing_holds_at_volume` makes
    several at once) swallows every interrupt: a call the kit must leave behind."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        while key == "v100":
            try:
                time.sleep(30)
            except:  # noqa: E722 - swallowing everything is the fault under test
                continue
        super().store(namespace, key, content, category, session_id, taint)


def hangs_on_one_key() -> Driver:
    """`HangsOnOneKey` behind a round trip."""
    return Driver(name="hangs-on-one-key", provider=lambda: Remote(HangsOnOneKey()))
