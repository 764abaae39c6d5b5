"""`MemorySection`: what kind of memory a `<section>:<scope>` namespace holds (A6)."""

from __future__ import annotations

from functools import total_ordering
from typing import Any, ClassVar, Final

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

_KNOWN_PREFIXES: Final = (
    "conversation",
    "document",
    "learning",
    "entity",
    "profile",
    "tool",
    "source",
)


@total_ordering
class MemorySection:
    """A closed vocabulary of seven sections plus `custom(name)`.

    Equality, hashing and ordering follow the Rust enum: the seven in declaration
    order, then custom sections by name; `custom("conversation")` is not
    `CONVERSATION` until normalised. JSON is serde's snake_case form:
    `"conversation"`, or `{"custom": "<name>"}`.
    """

    __slots__ = ("_custom", "_prefix")

    CONVERSATION: ClassVar[MemorySection]
    DOCUMENT: ClassVar[MemorySection]
    LEARNING: ClassVar[MemorySection]
    ENTITY: ClassVar[MemorySection]
    PROFILE: ClassVar[MemorySection]
    TOOL: ClassVar[MemorySection]
    SOURCE: ClassVar[MemorySection]

    def __init__(self, prefix: str, *, custom: bool) -> None:
        if not custom and prefix not in _KNOWN_PREFIXES:
            raise ValueError(f"{prefix!r} is not a known memory section")
        self._prefix = prefix
        self._custom = custom

    @classmethod
    def custom(cls, name: str) -> MemorySection:
        """A section the vocabulary does not name, carried verbatim (not normalised)."""
        return cls(name, custom=True)

    @classmethod
    def known(cls) -> tuple[MemorySection, ...]:
        """The seven named sections, in declaration order."""
        return _KNOWN

    @classmethod
    def from_prefix(cls, prefix: str) -> MemorySection:
        """The named section spelled `prefix`, else `custom(prefix)`; never fails."""
        return _BY_PREFIX.get(prefix) or cls.custom(prefix)

    @property
    def prefix(self) -> str:
        """The namespace prefix: the section's word, or a custom name verbatim."""
        return self._prefix

    @property
    def is_custom(self) -> bool:
        """Whether this section is `custom(...)`."""
        return self._custom

    def normalised(self) -> MemorySection:
        """The section this one's prefix spells: `custom("tool")` becomes `TOOL`."""
        return MemorySection.from_prefix(self._prefix)

    def __str__(self) -> str:
        return self._prefix

    def __repr__(self) -> str:
        if self._custom:
            return f"MemorySection.custom({self._prefix!r})"
        return f"MemorySection.{self._prefix.upper()}"

    def _key(self) -> tuple[int, str]:
        if self._custom:
            return len(_KNOWN_PREFIXES), self._prefix
        return _KNOWN_PREFIXES.index(self._prefix), ""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemorySection):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, MemorySection):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def to_wire(self) -> str | dict[str, str]:
        """serde's form: the word, or `{"custom": name}`."""
        return {"custom": self._prefix} if self._custom else self._prefix

    @classmethod
    def from_wire(cls, value: object) -> MemorySection:
        """Read serde's form; raises `ValueError` for anything else."""
        if isinstance(value, str) and value in _BY_PREFIX:
            return _BY_PREFIX[value]
        if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("custom"), str):
            return cls.custom(value["custom"])
        raise ValueError(
            f'expected one of {", ".join(_KNOWN_PREFIXES)} or {{"custom": <name>}}, got {value!r}'
        )

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            lambda value: value if isinstance(value, MemorySection) else cls.from_wire(value),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda section: section.to_wire()
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "anyOf": [
                {"enum": list(_KNOWN_PREFIXES)},
                {
                    "type": "object",
                    "properties": {"custom": {"type": "string"}},
                    "required": ["custom"],
                    "additionalProperties": False,
                },
            ]
        }


MemorySection.CONVERSATION = MemorySection("conversation", custom=False)
MemorySection.DOCUMENT = MemorySection("document", custom=False)
MemorySection.LEARNING = MemorySection("learning", custom=False)
MemorySection.ENTITY = MemorySection("entity", custom=False)
MemorySection.PROFILE = MemorySection("profile", custom=False)
MemorySection.TOOL = MemorySection("tool", custom=False)
MemorySection.SOURCE = MemorySection("source", custom=False)

_KNOWN: Final = (
    MemorySection.CONVERSATION,
    MemorySection.DOCUMENT,
    MemorySection.LEARNING,
    MemorySection.ENTITY,
    MemorySection.PROFILE,
    MemorySection.TOOL,
    MemorySection.SOURCE,
)
_BY_PREFIX: Final = {section.prefix: section for section in _KNOWN}
