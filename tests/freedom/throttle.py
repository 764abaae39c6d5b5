"""A rate limit: a gated call answers the profile's `Unavailable` before doing anything,
so a retry is safe and succeeds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable


class Throttle:
    """Refuses every `every`-th call it gates (never two in a row; `None`: none), and the
    next call of each operation named by `refuse_next`."""

    def __init__(
        self, every: int | None, used: Counter[str], unavailable: Callable[[str], Exception]
    ) -> None:
        if every is not None and every < 2:
            raise ValueError("a throttle refusing every call would never serve")
        self.every = every
        self.used = used
        self.unavailable = unavailable
        self.calls = 0
        self.pending: set[str] = set()

    def refuse_next(self, operation: str) -> None:
        """Refuse the next call of `operation` (once)."""
        self.pending.add(operation)

    def gate(self, operation: str) -> None:
        """Count one call of `operation`; raise `Unavailable` when it is to be refused."""
        self.calls += 1
        due = self.every is not None and self.calls % self.every == 0
        if due or operation in self.pending:
            self.pending.discard(operation)
            self.used["transient-unavailable"] += 1
            raise self.unavailable("rate limited; retry shortly")
