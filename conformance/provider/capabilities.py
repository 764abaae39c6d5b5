"""Capability families and the advertised capability set (A2)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Set
from enum import StrEnum
from typing import Any, Final

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from .errors import Invalid


class Capability(StrEnum):
    """One capability family; declaration order is bit order and wire order."""

    CORE = "core"
    RECALL = "recall"
    INGEST = "ingest"
    DOCUMENTS = "documents"
    TREE = "tree"
    ENTITIES = "entities"
    GRAPH = "graph"
    DIFF = "diff"
    GOALS = "goals"
    TOOL_MEMORY = "tool_memory"
    SOURCES = "sources"
    MAINTENANCE = "maintenance"
    PORTABILITY = "portability"
    PEOPLE = "people"
    CHUNKS = "chunks"
    RETRIEVAL = "retrieval"
    PROFILE = "profile"
    EPISODIC = "episodic"

    @classmethod
    def parse(cls, name: str) -> Capability:
        """The family with wire name `name`; raises `Invalid` for an unknown one."""
        try:
            return cls(name)
        except ValueError:
            raise Invalid(f"unknown memory capability: {name}") from None

    @property
    def bit(self) -> int:
        """Position in declaration order (0..17)."""
        return _ORDER.index(self)

    @property
    def is_mandatory(self) -> bool:
        """Whether every driver must provide this family."""
        return self in MANDATORY


_ORDER: Final = tuple(Capability)

MANDATORY: Final = (Capability.CORE, Capability.RECALL, Capability.PORTABILITY)
"""The families a driver must advertise to be bindable."""


class Capabilities(Set[Capability]):
    """An immutable set of capability families, iterated in declaration order.

    On the wire: a JSON array of names in declaration order, duplicates collapsed.
    Decoding skips names this package does not know, so a newer driver's family
    does not break the handshake.
    """

    __slots__ = ("_bits",)

    def __init__(self, capabilities: Iterable[Capability | str] = ()) -> None:
        bits = 0
        for capability in capabilities:
            bits |= 1 << Capability.parse(capability).bit
        self._bits = bits

    @classmethod
    def mandatory(cls) -> Capabilities:
        """Exactly the mandatory families."""
        return cls(MANDATORY)

    @classmethod
    def all(cls) -> Capabilities:
        """Every family."""
        return cls(Capability)

    @classmethod
    def from_wire(cls, names: Iterable[str]) -> Capabilities:
        """The known families among `names`; unknown names are skipped."""
        return cls(name for name in names if name in _WIRE_NAMES)

    def to_wire(self) -> list[str]:
        """Family names in declaration order."""
        return [capability.value for capability in self]

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, str) or item not in _WIRE_NAMES:
            return False
        return bool(self._bits >> Capability(item).bit & 1)

    def __iter__(self) -> Iterator[Capability]:
        return (capability for capability in _ORDER if self._bits >> capability.bit & 1)

    def __len__(self) -> int:
        return self._bits.bit_count()

    def __hash__(self) -> int:
        # `Set._hash` agrees with `frozenset`, which compares equal to this set.
        return self._hash()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Capabilities):
            return self._bits == other._bits
        return super().__eq__(other)

    def __repr__(self) -> str:
        return f"Capabilities({self.to_wire()!r})"

    def with_(self, capability: Capability) -> Capabilities:
        """This set plus `capability`."""
        return Capabilities([*self, capability])

    def without(self, capability: Capability) -> Capabilities:
        """This set minus `capability`."""
        return Capabilities(member for member in self if member is not capability)

    def missing_mandatory(self) -> list[Capability]:
        """Mandatory families absent from this set, in declaration order."""
        return [capability for capability in MANDATORY if capability not in self]

    def validate(self) -> None:
        """Raise `Invalid` naming every missing mandatory family, if any is missing."""
        missing = self.missing_mandatory()
        if missing:
            names = ", ".join(capability.value for capability in missing)
            raise Invalid(
                "memory driver advertises an incomplete capability set; "
                f"missing mandatory families: {names}"
            )

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from_names = core_schema.no_info_after_validator_function(
            cls.from_wire, core_schema.list_schema(core_schema.str_schema())
        )
        return core_schema.json_or_python_schema(
            json_schema=from_names,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_names]
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda capabilities: capabilities.to_wire()
            ),
        )


_WIRE_NAMES: Final = frozenset(capability.value for capability in Capability)
