"""`NullEngine`: the engine that retains nothing (decisions §4.8).

It declares every fetch mode and validates every request exactly as the reference
engine does, so a bad request fails the same way here; a good one succeeds empty.
"""

from __future__ import annotations

import builtins
from typing import Final

from conformance.engine import (
    EngineBase,
    EngineDescriptor,
    EngineHealth,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    InvalidRequest,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)

__all__ = ["ENGINE_ID", "NOTHING_ANSWERS", "NullEngine"]

ENGINE_ID: Final = "null"
"""The null engine's descriptor id."""

NOTHING_ANSWERS: Final = "Nothing stored answers this question."
"""The only recall answer: the same words the reference engine uses when nothing hits."""


def _refuse_cursor(cursor: str | None) -> None:
    # This engine never issues a cursor, so every cursor it is handed is unknown.
    if cursor is not None:
        raise InvalidRequest(f"unknown cursor `{cursor}`")


class NullEngine(EngineBase):
    """Validates every request, then keeps nothing: stores answer a fresh receipt
    (`id` = fingerprint, never a replay), reads answer empty, forgets count 0.

    `store_many`, `explore` and `get` are the contract defaults, which validate and then
    find nothing to list.
    """

    def descriptor(self) -> EngineDescriptor:
        """`null`, every fetch mode, nothing to configure."""
        return EngineDescriptor(
            id=ENGINE_ID,
            label="Null (retains nothing)",
            description="Retains nothing; every valid call succeeds empty",
            hosted=False,
            needs_endpoint=False,
            needs_key=False,
            fetch_modes=builtins.list(FetchMode),
        )

    def health(self) -> EngineHealth:
        """Always ok."""
        return EngineHealth.ok()

    def store(self, item: StoreItem) -> StoreReceipt:
        """Validates; answers the item's fingerprint, not replayed, and keeps nothing."""
        item.validate()
        return StoreReceipt(id=item.fingerprint(), replayed=False)

    def fetch(self, req: FetchRequest) -> FetchPage:
        """Checks the mode, validates, refuses any cursor; an empty last page."""
        self.descriptor().ensure_mode(req.mode)
        req.validate()
        _refuse_cursor(req.cursor)
        return FetchPage(hits=[])

    def recall(self, req: RecallRequest) -> RecallAnswer:
        """Validates; nothing answers, nothing is cited."""
        req.validate()
        return RecallAnswer(answer=NOTHING_ANSWERS, citations=[], model=ENGINE_ID)

    def list(self, req: ListRequest) -> ListPage:
        """Validates, refuses any cursor; an empty last page."""
        req.validate()
        _refuse_cursor(req.cursor)
        return ListPage(items=[])

    def forget(self, target: ForgetTarget) -> ForgetReport:
        """Validates (no ids, or an empty filter, is refused); nothing to forget."""
        target.validate()
        return ForgetReport(forgotten=0)
