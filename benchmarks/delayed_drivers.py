"""The reference drivers with every call delayed, a stand-in for a remote engine."""

from __future__ import annotations

import time
from typing import Any

from conformance import Driver
from reference_driver import ReferenceEngine, ReferenceProvider


class Delayed:
    """Forwards every call to `inner` after sleeping `delay` seconds."""

    def __init__(self, inner: Any, delay: float) -> None:
        self._inner = inner
        self._delay = delay

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if self._delay:
                time.sleep(self._delay)
            answer = attr(*args, **kwargs)
            # A family (`as_documents()`) is remote too: its calls are delayed alike.
            if name.startswith("as_") and answer is not None:
                return Delayed(answer, self._delay)
            return answer

        return call


def delayed(options: dict[str, str]) -> Driver:
    """The reference driver, each call delayed by `delay_ms` milliseconds (default 5);
    `thread_safe=false` declares it not thread-safe (served over `exec:`, one call at a
    time)."""
    delay = float(options.get("delay_ms", "5")) / 1000.0
    return Driver(
        name="delayed-reference",
        engine=lambda: Delayed(ReferenceEngine(), delay),
        provider=lambda: Delayed(ReferenceProvider(), delay),
        thread_safe=options.get("thread_safe", "true") != "false",
    )
