"""The kit's own copies of what it sends: a driver gets an argument the kit does not
share, and the kit can tell afterwards whether the driver edited it.

Checks compare what comes back against the kit's originals, so a driver that edits its
argument (adds a tag to the caller's item, sorts the caller's list) can no longer make
the comparison agree with it; and the edit itself is a failure at that call.

The copy is a structural one (models field by field, lists, dicts, tuples), several
times cheaper than `copy.deepcopy`; values the kit knows to be immutable are shared.
"""

from __future__ import annotations

import copy
import datetime as dt
import enum
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from conformance.checks.evidence import field_differences
from conformance.engine import Namespace as EngineNamespace
from conformance.engine import Segment
from conformance.provider import Namespace as ProviderNamespace

__all__ = ["edits", "private_copy"]

_IMMUTABLE: tuple[type, ...] = (
    str,
    int,
    float,
    complex,
    bytes,
    type(None),
    enum.Enum,
    dt.datetime,
    dt.date,
    dt.time,
    dt.timedelta,
    frozenset,
    # The contract's namespaces are immutable value objects.
    EngineNamespace,
    ProviderNamespace,
    Segment,
)


def private_copy(value: Any) -> Any:
    """A copy of `value` sharing nothing mutable with it."""
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, BaseModel):
        return _copy_model(value)
    kind = type(value)
    if kind is list:
        return [private_copy(v) for v in value]
    if kind is tuple:
        return tuple(private_copy(v) for v in value)
    if kind is dict:
        return {k: private_copy(v) for k, v in value.items()}
    try:
        return copy.deepcopy(value)
    except Exception:
        # What cannot be copied (an iterator, a lock) is passed as it is, unguarded.
        return value


def _copy_model(model: BaseModel) -> BaseModel:
    kind = type(model)
    made = kind.__new__(kind)
    # The model's own state, field by field; validation already ran on the original.
    object.__setattr__(made, "__dict__", {k: private_copy(v) for k, v in model.__dict__.items()})
    object.__setattr__(made, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    extra, private = model.__pydantic_extra__, model.__pydantic_private__
    object.__setattr__(made, "__pydantic_extra__", None if extra is None else private_copy(extra))
    object.__setattr__(
        made, "__pydantic_private__", None if private is None else private_copy(private)
    )
    return made


def edits(
    fn: Any,
    sent: Sequence[Any],
    kept: Sequence[Any],
    sent_kw: Mapping[str, Any],
    kept_kw: Mapping[str, Any],
) -> list[str]:
    """How the arguments the driver's `fn` received (`sent`) differ from the kit's
    originals (`kept`) after the call: one `item.meta.tags: wanted X, got Y` per edited
    field, each argument named by its parameter."""
    out: list[str] = []
    for index, (mine, theirs) in enumerate(zip(kept, sent, strict=True)):
        if mine is not theirs and not _same(mine, theirs):
            out += field_differences(mine, theirs, _parameter(fn, index))
    for name, mine in kept_kw.items():
        theirs = sent_kw[name]
        if mine is not theirs and not _same(mine, theirs):
            out += field_differences(mine, theirs, name)
    return out


def _parameter(fn: Any, index: int) -> str:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return names[index] if index < len(names) else f"argument {index + 1}"


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        # An argument that cannot be compared cannot be judged edited.
        return True
