"""`Namespace`: a validated `<section>:<scope>` name, or a legacy unsectioned one (A6).

The contract passes namespaces as plain strings; this type is the shared
convention for what goes in them. `Namespace.parse` never rewrites a string, so a
name written before the convention stays valid and renders back byte for byte.
"""

from __future__ import annotations

from functools import total_ordering
from typing import Any, Final

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from ._rust_debug import debug_char, debug_str
from .constants import MAX_NAMESPACE_LEN
from .errors import Invalid
from .section import MemorySection

__all__ = ["MemorySection", "Namespace", "validate_name"]

_ALLOWED_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+"
)
_SECTION_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


def validate_name(raw: str) -> None:
    """Check a whole namespace string; raise `Invalid` naming the first rule it breaks.

    The rules, in order: not empty; at most 200 UTF-8 bytes; only ASCII letters,
    digits and `- _ . / : @ +`; no `..` path segment; no leading or trailing `/`.
    """
    if not raw:
        raise Invalid("namespace must not be empty")
    size = len(raw.encode())
    if size > MAX_NAMESPACE_LEN:
        raise Invalid(f"namespace is {size} bytes, over the {MAX_NAMESPACE_LEN}-byte limit")
    bad = next((char for char in raw if char not in _ALLOWED_CHARS), None)
    if bad is not None:
        raise Invalid(f"namespace contains disallowed character {debug_char(bad)}")
    # Rejected rather than sanitised: sanitising would silently move the write.
    if ".." in raw.split("/"):
        raise Invalid("namespace must not contain a '..' segment")
    if raw.startswith("/") or raw.endswith("/"):
        raise Invalid("namespace must not start or end with '/'")


def _is_section_prefix(prefix: str) -> bool:
    return bool(prefix) and all(char in _SECTION_CHARS for char in prefix)


@total_ordering
class Namespace:
    """A validated namespace, sectioned (`learning:rust-async`) or not (`notes`).

    `Namespace(raw)` is `Namespace.parse(raw)`. Equality, hashing and ordering are
    over (section, scope, rendered string), unsectioned names first. In pydantic
    models it is the plain string, parsed on input.
    """

    __slots__ = ("_rendered", "_scope", "_section")

    _section: MemorySection | None
    _scope: str
    _rendered: str

    def __init__(self, raw: str) -> None:
        validate_name(raw)
        prefix, colon, rest = raw.partition(":")
        if colon and rest and _is_section_prefix(prefix):
            self._section, self._scope = MemorySection.from_prefix(prefix), rest
        else:
            self._section, self._scope = None, raw
        self._rendered = raw

    validate_name = staticmethod(validate_name)

    @classmethod
    def parse(cls, raw: str) -> Namespace:
        """Validate `raw` and split it at the first `:`; never rewrites the string.

        Sectioned when the prefix is lowercase letters, digits, `-` or `_` and the
        scope is non-empty (the scope may hold further colons); otherwise
        unsectioned with the whole string as its scope.
        """
        return cls(raw)

    @classmethod
    def new(cls, section: MemorySection, scope: str) -> Namespace:
        """`<section>:<scope>`, with the section normalised (`custom("tool")` is `TOOL`)."""
        section = section.normalised()
        if not _is_section_prefix(section.prefix):
            raise Invalid(
                f"namespace section {debug_str(section.prefix)} must be lowercase letters, "
                "digits, '-' or '_'"
            )
        if not scope:
            raise Invalid("namespace scope must not be empty")
        rendered = f"{section.prefix}:{scope}"
        validate_name(rendered)
        namespace = cls.__new__(cls)
        namespace._section, namespace._scope, namespace._rendered = section, scope, rendered
        return namespace

    @classmethod
    def unsectioned(cls, raw: str) -> Namespace:
        """`parse(raw)`, refusing a name that would parse as sectioned."""
        namespace = cls(raw)
        if namespace.is_sectioned():
            raise Invalid(
                f"namespace {debug_str(raw)} carries a section prefix; use Namespace::parse"
            )
        return namespace

    @classmethod
    def conversation(cls, scope: str) -> Namespace:
        """Turn-by-turn memory of one conversation: `conversation:<scope>`."""
        return cls.new(MemorySection.CONVERSATION, scope)

    @classmethod
    def document(cls, scope: str) -> Namespace:
        """A document collection: `document:<scope>`."""
        return cls.new(MemorySection.DOCUMENT, scope)

    @classmethod
    def learning(cls, scope: str) -> Namespace:
        """Durable conclusions about one topic: `learning:<scope>`."""
        return cls.new(MemorySection.LEARNING, scope)

    @classmethod
    def entity(cls, scope: str) -> Namespace:
        """A slice of the entity index: `entity:<scope>`."""
        return cls.new(MemorySection.ENTITY, scope)

    @classmethod
    def profile(cls, scope: str) -> Namespace:
        """User-state facets: `profile:<scope>`."""
        return cls.new(MemorySection.PROFILE, scope)

    @classmethod
    def tool(cls, scope: str) -> Namespace:
        """Tool-scoped rules and outcomes: `tool:<scope>`."""
        return cls.new(MemorySection.TOOL, scope)

    @classmethod
    def source(cls, scope: str) -> Namespace:
        """Content pulled in from one external source: `source:<scope>`."""
        return cls.new(MemorySection.SOURCE, scope)

    def section(self) -> MemorySection | None:
        """The section, or `None` when unsectioned."""
        return self._section

    def scope(self) -> str:
        """The part after the section prefix, or the whole name when unsectioned."""
        return self._scope

    def as_str(self) -> str:
        """The string to pass to a provider method."""
        return self._rendered

    def is_sectioned(self) -> bool:
        """Whether the name carries a section prefix."""
        return self._section is not None

    def is_in(self, section: MemorySection) -> bool:
        """Whether this namespace's section equals `section`."""
        return self._section == section

    def flatten(self, separator: str) -> str:
        """`<prefix><separator><scope>` (or the scope when unsectioned); output only.

        For stores that cannot hold a colon; the result is not a second canonical
        form and does not parse back unless `separator` is `":"`.
        """
        if self._section is None:
            return self._scope
        return f"{self._section.prefix}{separator}{self._scope}"

    def __str__(self) -> str:
        return self._rendered

    def __repr__(self) -> str:
        return f"Namespace({self._rendered!r})"

    def _key(self) -> tuple[tuple[int, str], str, str]:
        section = (-1, "") if self._section is None else self._section._key()
        return section, self._scope, self._rendered

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Namespace):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Namespace):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

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


def _parse_for_pydantic(raw: str) -> Namespace:
    # pydantic reports ValueError as a validation error; other exceptions escape.
    try:
        return Namespace.parse(raw)
    except Invalid as error:
        raise ValueError(error.message) from None
