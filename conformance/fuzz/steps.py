"""The step log: what a fuzz machine did, as Python a regression test can run again.

Hypothesis cannot pin an example of a state machine (no ``@example`` for machines,
and its database keys change with the kit's source), so the kit records its own
log. Every operation of a differential appends one ``Step`` (method name and the
concrete, root-relative arguments) before it runs, and ``Step.source`` renders it
as a plain call. Replaying the rendered calls on a fresh differential runs the same
comparisons with no search.

A search ends at its first failure; the ``FailureSink`` keeps that program's log,
which the runner then shrinks by replaying it (``conformance.fuzz.minimise``).
"""

from __future__ import annotations

import datetime as _dt
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import BaseModel

from conformance.checks.outcome import ConformanceFailure
from conformance.engine import Namespace as EngineNamespace
from conformance.provider import MemoryCategory
from conformance.timestamps import Timestamp

__all__ = ["IMPORTS", "FailureSink", "Step", "literal", "program"]

IMPORTS: Final = (
    "import datetime",
    "",
    "from conformance import engine as ce",
    "from conformance import provider as cp",
)
"""The imports `literal` output relies on."""

_ITEM_TYPES: Final = frozenset({"Document", "Conversation", "Learning"})


def _module_alias(cls: type) -> str:
    return "ce" if cls.__module__.startswith("conformance.engine") else "cp"


def _float(value: float) -> str:
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)


def literal(value: Any) -> str:
    """Python source that evaluates to `value`, given the `IMPORTS`.

    Knows plain data, contract enums, categories, engine namespaces, timestamps, datetimes and the
    contract's pydantic models (items through `ce.parse_item`, others through
    `model_validate`). Raises `TypeError` for anything else.
    """
    if isinstance(value, enum.Enum):
        # Before `str`: the contract's enums are `StrEnum`s.
        cls = type(value)
        return f"{_module_alias(cls)}.{cls.__name__}({value.value!r})"
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, MemoryCategory):
        return f"cp.MemoryCategory.parse({str(value)!r})"
    if isinstance(value, EngineNamespace):
        return f"ce.Namespace.parse({str(value)!r})"
    if isinstance(value, Timestamp):
        return f"ce.Timestamp.parse({value.rfc3339()!r})"
    if isinstance(value, _dt.datetime):
        return f"datetime.datetime.fromisoformat({value.isoformat()!r})"
    if isinstance(value, BaseModel):
        return _model(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(literal, value)) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(map(literal, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__qualname__} as a literal")


def _model(value: BaseModel) -> str:
    # Defaults are left out to keep the program short; the item tag is a default too,
    # but the union needs it to tell the kinds apart.
    data = value.model_dump(mode="python", by_alias=True, exclude_defaults=True)
    cls = type(value)
    if cls.__name__ in _ITEM_TYPES:
        data = {"type": vars(value)["type"], **data}
        return f"ce.parse_item({literal(data)})"
    return f"{_module_alias(cls)}.{cls.__name__}.model_validate({literal(data)})"


@dataclass(frozen=True)
class Step:
    """One operation of a differential: its method name and arguments."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def source(self, receiver: str = "m") -> str:
        """The step as a call on `receiver`, e.g. `m.store('learning:~/a', 'k', ...)`."""
        parts = [literal(arg) for arg in self.args]
        parts += [f"{name}={literal(arg)}" for name, arg in self.kwargs.items()]
        return f"{receiver}.{self.name}({', '.join(parts)})"

    def short(self) -> str:
        """The step for a message: long arguments summarised (`<60 values>`)."""
        parts = [_brief(arg) for arg in self.args]
        parts += [f"{name}={_brief(arg)}" for name, arg in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def program(steps: list[Step], receiver: str = "m") -> list[str]:
    """The steps as source lines, each followed by the comparison run between steps."""
    lines: list[str] = []
    for one in steps:
        lines += [one.source(receiver), f"{receiver}.verify()"]
    return lines


def _brief(value: Any) -> str:
    if isinstance(value, list | tuple) and (
        len(value) > 3 or any(isinstance(one, BaseModel) for one in value)
    ):
        return f"<{len(value)} values>"
    text = literal(value)
    if len(text) <= 60:
        return text
    return f"<{type(value).__name__}>" if isinstance(value, BaseModel) else text[:57] + "…"


class FailureSink:
    """Keeps the log and failure of the first failing program of a search."""

    def __init__(self) -> None:
        self.found: tuple[list[Step], ConformanceFailure] | None = None
        self.index = -1
        """Which program of the search failed (0 for the first)."""

    def record(self, steps: list[Step], failure: ConformanceFailure, index: int = -1) -> None:
        """Keep `steps` and `failure`, unless a failure was kept already."""
        if self.found is None:
            self.found = (list(steps), failure)
            self.index = index

    def failure(self) -> tuple[list[Step], ConformanceFailure] | None:
        """The first failing program's log and failure, or `None`."""
        return self.found
