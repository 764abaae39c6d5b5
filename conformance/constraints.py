"""Constraints a driver declares: contract-valid input its store cannot take.

The contract lets a driver refuse input only where it says so; a store that refuses
other valid input (a namespace with a dot, a long key, empty content) deviates from it.
A driver that cannot lift such a limit declares it instead of being waived: a declared
constraint narrows what the suites and the fuzzer send, and the report lists it beside
the level, so a reader sees exactly where the store deviates. A refusal of valid input
that no declaration covers fails the check that made it and is counted in the report.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any, Final, Protocol

from pydantic import ConfigDict, with_config

from conformance.engine.blank import is_blank
from conformance.engine.items import Conversation, Document, DocumentBody, Learning, Role, Turn
from conformance.provider.constants import MAX_NAMESPACE_LEN

__all__ = [
    "NAMED_REFUSALS",
    "NOT_APPLICABLE",
    "PROVIDER_NAMESPACE_ALPHABET",
    "Constraints",
    "EngineItem",
    "describe_named",
    "named_refusal",
    "strings_in",
]

_KIND_NAMES: Final[dict[type, str]] = {bool: "true or false", int: "an integer", str: "a string"}

PROVIDER_NAMESPACE_ALPHABET = (
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./:@+"
)
"""Every character the contract allows in a provider namespace (contract A6)."""

NOT_APPLICABLE = "not applicable under the declared constraints"
"""How the reason of a check begins when the declared constraints admit none of what it
must send: such a check is skipped, and the report counts it beside the level."""


NAMED_REFUSALS: Final = {
    "empty content": (
        'contract-reference A4 `store`: "`Invalid` for input the driver rejects (e.g. '
        'TinyCortex refuses empty content)"'
    ),
}
"""Refusals of valid input the contract itself names as legal, with the sentence naming
each: a driver may make them without declaring a constraint. The suites and the fuzzer
accept them (with `Invalid`, the write changing nothing) and the report lists each one
a driver made beside the level, as it lists declared constraints."""


def named_refusal(content: str) -> str | None:
    """The refusal of `NAMED_REFUSALS` that refusing provider `content` would be, if any."""
    return "empty content" if content == "" else None


def describe_named(refusals: Iterable[str]) -> list[str]:
    """One line per named refusal a driver made, for the report and the Markdown."""
    return [f"refuses {name} (the contract names it: not declared)" for name in refusals]


class EngineItem(Protocol):
    """What `Constraints.admits_item` reads of an engine item (a `StoreItem`)."""

    def render_text(self) -> str: ...

    def model_dump(self, *, mode: str) -> Any: ...


@with_config(ConfigDict(use_attribute_docstrings=True))  # the wire schema's descriptions
@dataclass(frozen=True)
class Constraints:
    """Contract-valid input a driver's store refuses, each field one limit.

    Every field left at its default lifts nothing: the driver takes all the contract
    allows there. `reason` says why the store cannot, for the report.
    """

    namespace_alphabet: str | None = None
    """Provider: the only characters a namespace may use (a subset of
    `PROVIDER_NAMESPACE_ALPHABET`), e.g. without `.` for a store that splits on dots."""
    max_namespace_bytes: int | None = None
    """Provider: the longest namespace the store takes, in UTF-8 bytes (the contract: 200)."""
    empty_or_dot_segments: bool = True
    """Provider: whether a namespace may hold an empty or a `.` segment (`a//b`, `a/./b`),
    which the contract allows and a store mapping `/` onto paths or tuples may not."""
    key_alphabet: str | None = None
    """Provider: the only characters an entry key may use."""
    max_key_length: int | None = None
    """Provider: the longest entry key, in characters."""
    max_content_length: int | None = None
    """Both profiles: the longest content (provider) or item text (engine), in characters.
    An engine item's text is its rendered text, as a hit shows it (a conversation's turns
    with their roles, a document's title with its body): see `admits_item`."""
    empty_content: bool = True
    """Provider: whether empty content is stored (False: refused with `Invalid`)."""
    control_characters: bool = True
    """Both profiles: whether content and texts may hold control characters (NUL, `\\r`...)."""
    non_ascii: bool = True
    """Both profiles: whether content, texts and keys may hold characters beyond ASCII."""
    reason: str = ""
    """Why the store cannot take what the contract allows (shown in the report)."""

    def __post_init__(self) -> None:
        if self.namespace_alphabet is not None:
            extra = sorted(set(self.namespace_alphabet) - set(PROVIDER_NAMESPACE_ALPHABET))
            if extra:
                raise ValueError(
                    f"namespace_alphabet may only narrow the contract's alphabet; "
                    f"it adds {''.join(extra)!r}"
                )
        if self.max_namespace_bytes is not None and not (
            0 < self.max_namespace_bytes <= MAX_NAMESPACE_LEN
        ):
            raise ValueError(
                f"max_namespace_bytes must be between 1 and {MAX_NAMESPACE_LEN}, "
                f"got {self.max_namespace_bytes}"
            )
        for name in ("max_key_length", "max_content_length"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be positive, got {value}")

    # -- over the driver protocol ---------------------------------------------------

    def to_wire(self) -> dict[str, Any]:
        """The declared limits as JSON data, by field name; fields at their default are
        left out, so `{}` declares nothing."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != f.default
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Constraints:
        """Constraints from `to_wire`'s JSON; `ValueError` naming an unknown field or a
        value of the wrong type or range."""
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(
                f"no constraint named {', '.join(unknown)} (known: {', '.join(known)})"
            )
        for name, value in data.items():
            default = known[name].default
            if isinstance(default, bool):
                expected: type = bool
            elif name.startswith("max_"):
                expected = int
            else:
                expected = str
            # `True` is an `int` to Python, not a length to anyone else.
            fits = isinstance(value, expected) and (expected is bool or not isinstance(value, bool))
            if not fits and not (value is None and default is None):
                raise ValueError(
                    f"constraint {name} must be {_KIND_NAMES[expected]}, not {value!r}"
                )
        return cls(**data)

    @property
    def declared(self) -> bool:
        """Whether any limit is declared."""
        return bool(self.describe())

    def describe(self) -> list[str]:
        """One line per declared limit, for the report and the Markdown."""
        lines: list[str] = []
        for f in fields(self):
            if f.name == "reason":
                continue
            value = getattr(self, f.name)
            if value == f.default:
                continue
            label = f.name.replace("_", " ")
            if isinstance(value, bool):
                lines.append(f"refuses {label}")
            elif isinstance(value, str):
                lines.append(f"{label} {value!r}")
            else:
                lines.append(f"{label} {value}")
        return lines

    # -- what a declaration admits ------------------------------------------------

    def admits_namespace(self, namespace: str) -> bool:
        """Whether the store takes `namespace` (a contract-valid provider namespace)."""
        return self.namespace_refusal(namespace) is None

    def namespace_refusal(self, namespace: str) -> str | None:
        """Why the declaration leaves `namespace` out (`"holds '_', outside the declared
        alphabet"`), or None when it admits it."""
        size = len(namespace.encode())
        if self.max_namespace_bytes is not None and size > self.max_namespace_bytes:
            return f"is {size} bytes, over the declared {self.max_namespace_bytes}"
        if not self.empty_or_dot_segments and any(
            segment in ("", ".") for segment in namespace.split("/")
        ):
            return "holds an empty or '.' segment, which the declaration refuses"
        if self.namespace_alphabet is not None:
            outside = sorted(set(namespace) - set(self.namespace_alphabet))
            if outside:
                shown = ", ".join(repr(c) for c in outside)
                return f"holds {shown}, outside the declared alphabet"
        return None

    def admits_key(self, key: str) -> bool:
        """Whether the store takes `key` as an entry key."""
        if self.max_key_length is not None and len(key) > self.max_key_length:
            return False
        if self.key_alphabet is not None and not set(key) <= set(self.key_alphabet):
            return False
        return self.admits_text(key)

    def admits_content(self, content: str) -> bool:
        """Whether the store takes `content` (provider content or an engine item's text)."""
        if not content and not self.empty_content:
            return False
        if self.max_content_length is not None and len(content) > self.max_content_length:
            return False
        return self.admits_text(content)

    def admits_item(self, item: EngineItem) -> bool:
        """Whether the engine takes `item`: its rendered text within `max_content_length`,
        and every string of it (texts, title, metadata) within the character limits. The
        one measure the suite and the fuzzer both send by."""
        limit = self.max_content_length
        if limit is not None and len(item.render_text()) > limit:
            return False
        return all(self.admits_text(text) for text in strings_in(item.model_dump(mode="json")))

    def fit_item(self, item: Any) -> Any:
        """The engine item `item` (a `StoreItem`) with its rendered text cut to
        `max_content_length` (`admits_item`'s measure), or `item` itself when it fits:
        a document's body (its title dropped when no body fits beside it), a
        conversation's last turns (dropped until the rest fits, the last one kept cut),
        a learning's text. Character limits are not applied."""
        most = self.max_content_length
        return item if most is None else _within(item, most)

    def admits_text(self, text: str) -> bool:
        """Whether `text` passes the character-class limits (control, non-ASCII)."""
        if not self.control_characters and any(_is_control(c) for c in text):
            return False
        return self.non_ascii or text.isascii()


def _cut(text: str, most: int) -> str:
    """`text` cut to `most` characters (at least one), never left blank."""
    cut = text[: max(1, most)]
    return "x" if is_blank(cut) else cut


def _within(item: Any, most: int) -> Any:
    """`item` with its rendered text (`render_text`, the engine's measure of
    `max_content_length`) cut to at most `most` characters (see `Constraints.fit_item`)."""
    if len(item.render_text()) <= most:
        return item
    if isinstance(item, Document):
        heading = len(item.render_text()) - len(item.body.content)
        if item.title is not None and most - heading < 1:
            item = item.model_copy(update={"title": None})
            heading = 0
        cut = _cut(item.body.content, most - heading)
        body = DocumentBody(text=cut) if item.body.text is not None else DocumentBody(uri=cut)
        return item.model_copy(update={"body": body})
    if isinstance(item, Learning):
        return item.model_copy(update={"text": _cut(item.text, most)})
    assert isinstance(item, Conversation)
    turns: list[Turn] = []
    for turn in item.turns:
        taken = len("\n".join(t.render() for t in turns)) + (1 if turns else 0)
        room = most - taken - (len(turn.render()) - len(turn.text))
        if room < 1:
            break
        turns.append(turn.model_copy(update={"text": _cut(turn.text, room)}))
        if len(turns[-1].text) < len(turn.text):
            break
    if turns:
        return item.model_copy(update={"turns": turns})
    bare = Turn(role=Role.USER, text="x")
    room = most - len(bare.render()) + 1
    if room < 1:
        # No turn fits at all: the conversation's text as a document.
        return Document(body=DocumentBody(text=_cut(item.turns[0].text, most)), meta=item.meta)
    return item.model_copy(
        update={"turns": [bare.model_copy(update={"text": _cut(item.turns[0].text, room)})]}
    )


def strings_in(value: Any) -> Iterator[str]:
    """Every string in JSON data, object keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from strings_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from strings_in(inner)


def _is_control(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0
