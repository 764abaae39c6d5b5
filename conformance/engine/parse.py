"""Reading items from JSON text or decoded JSON, checking their shape only."""

from __future__ import annotations

from typing import Any, Final

from pydantic import TypeAdapter, ValidationError

from .errors import InvalidRequest
from .items import StoreItem

_STORE_ITEM: Final = TypeAdapter[StoreItem](StoreItem)


def _describe(error: ValidationError) -> str:
    problems = []
    for detail in error.errors(include_url=False):
        location = ".".join(str(part) for part in detail["loc"]) or "item"
        cause = detail.get("ctx", {}).get("error")
        message = str(cause) if detail["type"] == "value_error" and cause else detail["msg"]
        problems.append(f"{location}: {message[:1].lower()}{message[1:]}")
    return "; ".join(problems)


def parse_item(data: dict[str, Any] | str | bytes) -> StoreItem:
    """The item ``data`` (JSON text, or decoded JSON) describes, shape-checked only: its
    ``validate`` is not run. A bad shape raises ``InvalidRequest`` naming each problem."""
    try:
        if isinstance(data, str | bytes):
            return _STORE_ITEM.validate_json(data)
        return _STORE_ITEM.validate_python(data)
    except ValidationError as error:
        raise InvalidRequest(f"not a store item: {_describe(error)}") from error
