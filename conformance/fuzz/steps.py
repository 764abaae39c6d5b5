"""The step log: what a fuzz machine did, as Python a regression test can run again.

Hypothesis cannot pin an example of a state machine (no ``@example`` for machines,
and its database keys change with the kit's source), so the kit records its own
log. Every operation of a differential appends one ``Step`` (method name and the
concrete, root-relative arguments) before it runs, and ``Step.source`` renders it
as a plain call. Replaying the rendered calls on a fresh differential runs the same
comparisons with no search.

Which log is the shrunk one: a failing step hands its log to a ``FailureSink``.
Hypothesis ends a failing search by running the minimal example once more with
``is_final`` set on its build context; the sink keeps the log of that run, and
falls back to the last failing run's log when there was no final run (an
unreliable failure). The runner then shrinks that log further by replaying it
(``conformance.fuzz.minimise``), which needs no drawing and so is fast.
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

__all__ = ["IMPORTS", "FailureSink", "Step", "in_final_run", "literal", "program"]

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


def program(steps: list[Step], receiver: str = "m") -> list[str]:
    """The steps as source lines, each followed by the check that runs after every step."""
    lines = [f"{receiver}.verify()"]
    for one in steps:
        lines += [one.source(receiver), f"{receiver}.verify()"]
    return lines


def in_final_run() -> bool:
    """Whether hypothesis is running its final replay of the minimal failing example."""
    try:
        from hypothesis.control import current_build_context

        return bool(current_build_context().is_final)
    except Exception:
        # Outside a hypothesis run (a replay, a regression test): there is no search.
        return False


class FailureSink:
    """Collects the step log of failing runs; `failure()` picks the shrunk one."""

    def __init__(self) -> None:
        self.final: tuple[list[Step], ConformanceFailure] | None = None
        self.last: tuple[list[Step], ConformanceFailure] | None = None

    def record(self, steps: list[Step], failure: ConformanceFailure) -> None:
        """Keep `steps` and `failure` of a failing run."""
        entry = (list(steps), failure)
        self.last = entry
        if in_final_run():
            self.final = entry

    def failure(self) -> tuple[list[Step], ConformanceFailure] | None:
        """The final run's log and failure, else the last failing run's, else `None`."""
        return self.final or self.last
