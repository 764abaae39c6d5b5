"""Shared pieces for pydantic models whose JSON is the contract's JSON."""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, Final, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, TypeAdapter

from .floats import f32_wire
from .namespace import Namespace

T = TypeVar("T")


# The skip rules run for every optional field of every model written, so they are built
# from C functions: a call costs no Python frame.
is_none: Final[Callable[[object], bool]] = partial(operator.is_, None)
"""Whether a value is ``None`` (the skip rule for unset options)."""

is_empty: Final[Callable[[Any], bool]] = operator.not_
"""Whether a value is an empty collection (the skip rule for lists)."""


Omittable = Annotated[T | None, Field(exclude_if=is_none)]
"""An optional field left out of the output when unset."""

OmittableList = Annotated[list[T], Field(exclude_if=is_empty)]
"""A list field left out of the output when empty."""

F32 = Annotated[float, PlainSerializer(f32_wire, return_type=float, when_used="json")]
"""A Rust ``f32``: any float in Python, the shortest ``f32`` decimal on the wire."""


class WireModel(BaseModel):
    """A contract value: ``model_dump(mode="json")`` and ``model_dump_json()`` give its
    contract JSON (snake_case keys, unset options and empty lists left out). Assignments
    are validated, so a field never holds a value its type would refuse."""

    # Spelled out here (not shared through a variable) so the pydantic mypy plugin sees it.
    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        ser_json_inf_nan="null",
        validate_assignment=True,
        # Field docstrings describe the fields in the published wire schema.
        use_attribute_docstrings=True,
    )


_ANY_ADAPTER: Final = TypeAdapter[Any](Any)


def to_json(value: Any) -> str:
    """``value`` (a contract model or value, or a list or dict of them) as compact contract
    JSON text; non-finite floats are written ``null``, as serde_json writes them."""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, list | tuple):
        return "[" + ",".join(map(to_json, value)) + "]"
    if isinstance(value, dict):
        entries = (
            f"{json.dumps(str(key), ensure_ascii=False)}:{to_json(element)}"
            for key, element in value.items()
        )
        return "{" + ",".join(entries) + "}"
    if isinstance(value, Namespace):
        return json.dumps(str(value))
    return _ANY_ADAPTER.dump_json(value).decode()


def to_wire(value: Any) -> Any:
    """``value`` as contract JSON data: what ``json.loads`` gives for ``to_json(value)``."""
    return json.loads(to_json(value))
