"""The message a refusal carries where the contract gives one.

An engine validates first, with the request's own rules (contract-reference B2, B6), and
refuses with `InvalidRequest` carrying the contract's message; for input those rules take
(a cursor the engine never issued, say), the message is the engine's. `pinned_message`
answers the contract's message for a request, or `None` where the engine words its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.engine.defaults import validate_many
from conformance.engine.errors import EngineError, InvalidRequest
from conformance.engine.items import StoreItem

__all__ = ["carries", "pinned_message"]


def pinned_message(request: Any) -> str | None:
    """The message the contract's validation refuses `request` with (an item, a request,
    or a `store_many` batch as a sequence of items), or `None` when it takes it."""
    try:
        if isinstance(request, Sequence) and not isinstance(request, str):
            items: Sequence[StoreItem] = request
            validate_many(items)
        else:
            request.validate()
    except InvalidRequest as error:
        return error.message
    return None


def carries(error: BaseException, message: str) -> bool:
    """Whether `error` carries `message`: as its message, or printed with its prefix."""
    own = error.message if isinstance(error, EngineError) else str(error)
    return own == message or str(error) == f"{InvalidRequest.prefix}{message}"
