"""`MemoryCategory`: core, daily, conversation, or a custom name (A1)."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from .errors import Invalid

_BUILT_IN: Final = ("core", "daily", "conversation")
_CUSTOM_PREFIX: Final = "custom:"


class MemoryCategory:
    """A memory's category; a JSON string on the wire.

    The wire form is `"core"`, `"daily"`, `"conversation"` or `"custom:<name>"`, so
    `custom("core")` stays distinct from `CORE` and `parse(str(c)) == c` always.
    """

    __slots__ = ("_custom", "_name")

    CORE: ClassVar[MemoryCategory]
    DAILY: ClassVar[MemoryCategory]
    CONVERSATION: ClassVar[MemoryCategory]

    def __init__(self, name: str, *, custom: bool) -> None:
        if not custom and name not in _BUILT_IN:
            raise ValueError(f"{name!r} is not a built-in memory category")
        self._name = name
        self._custom = custom

    @classmethod
    def custom(cls, name: str) -> MemoryCategory:
        """A custom category carrying `name` verbatim (empty allowed)."""
        return cls(name, custom=True)

    @classmethod
    def parse(cls, text: str) -> MemoryCategory:
        """Read a category; any non-empty string other than a built-in is custom.

        `"custom:<x>"` is `custom(x)` (so `"custom:"` is `custom("")`); another
        non-empty string is `custom(text)` verbatim. Raises `Invalid` for `""`.
        """
        built_in = _BUILT_IN_CATEGORIES.get(text)
        if built_in is not None:
            # Shared: a category is a value, and the built-ins are read for every entry.
            return built_in
        if text.startswith(_CUSTOM_PREFIX):
            return cls.custom(text[len(_CUSTOM_PREFIX) :])
        if text:
            return cls.custom(text)
        raise Invalid(f"unknown memory category: {text}")

    @property
    def name(self) -> str:
        """The built-in word, or the custom name without its `custom:` prefix."""
        return self._name

    @property
    def is_custom(self) -> bool:
        """Whether this is a custom category."""
        return self._custom

    def __str__(self) -> str:
        return _CUSTOM_PREFIX + self._name if self._custom else self._name

    def __repr__(self) -> str:
        if self._custom:
            return f"MemoryCategory.custom({self._name!r})"
        return f"MemoryCategory.{self._name.upper()}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryCategory):
            return NotImplemented
        return (self._custom, self._name) == (other._custom, other._name)

    def __hash__(self) -> int:
        return hash((self._custom, self._name))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from_str = core_schema.no_info_after_validator_function(
            _parse_for_pydantic, core_schema.str_schema()
        )
        return core_schema.json_or_python_schema(
            json_schema=from_str,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_str]),
            serialization=core_schema.to_string_ser_schema(),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {
            "type": "string",
            "minLength": 1,
            "description": "A memory category: `core`, `daily`, `conversation`, or "
            "`custom:<name>` (any other non-empty string reads as `custom:<string>`).",
        }


def _parse_for_pydantic(text: str) -> MemoryCategory:
    # pydantic reports ValueError as a validation error; other exceptions escape.
    try:
        return MemoryCategory.parse(text)
    except Invalid as error:
        raise ValueError(error.message) from None


MemoryCategory.CORE = MemoryCategory("core", custom=False)
MemoryCategory.DAILY = MemoryCategory("daily", custom=False)
MemoryCategory.CONVERSATION = MemoryCategory("conversation", custom=False)
_BUILT_IN_CATEGORIES: Final[dict[str, MemoryCategory]] = {
    category.name: category
    for category in (MemoryCategory.CORE, MemoryCategory.DAILY, MemoryCategory.CONVERSATION)
}
