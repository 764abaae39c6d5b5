"""Relatives of a value already held: the values a store confuses with it.

Stores break where two values almost agree, and which values almost agree depends on
the value held, not on a pool written in advance: a prefix or an extension of it (a
`LIKE 'k1%'`, a path matched as a string), its case twin (a case-insensitive collation),
its other Unicode normalisation (a store that normalises keys or texts to NFC, or
compares them NFKC-folded), a separator swapped for one a sanitiser maps alike (`a.b`
beside `a_b`), and whitespace around it (a store that trims). `relatives`
makes them from any value, so the machines can ask about the values they hold.

Each relative is a different string from the value (a store must keep both apart, or
give it back exactly). Callers keep only the relatives their field admits
(`segment_relatives` for engine namespace segment ids, whose alphabet is narrow).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Final

__all__ = ["RELATIONS", "relative", "relatives", "segment_relatives"]


def _prefix(value: str) -> str:
    return value[:-1]


def _extension(value: str) -> str:
    return value + "0"


def _path_extension(value: str) -> str:
    return value.rstrip("/") + "/0"


def _case_twin(value: str) -> str:
    return value.swapcase()


def _upper(value: str) -> str:
    return value.upper()


def _nfd(value: str) -> str:
    # A value with nothing to decompose gets a letter that has two forms.
    decomposed = unicodedata.normalize("NFD", value)
    return decomposed if decomposed != value else value + "e\u0301"


def _nfc(value: str) -> str:
    composed = unicodedata.normalize("NFC", value)
    return composed if composed != value else value + "\u00e9"


def _compat(value: str) -> str:
    # The fullwidth twin of the first ASCII letter or digit: equal under NFKC only.
    for at, ch in enumerate(value):
        if ch.isascii() and ch.isalnum():
            return value[:at] + chr(ord(ch) + 0xFEE0) + value[at + 1 :]
    return value + "\uff10"


_SEPARATOR_TWINS: Final = {".": "_", "_": ".", "-": "_", "@": ".", "+": "-", ":": "."}


def _separator_twin(value: str) -> str:
    # The first separator swapped for another a sanitiser maps alike (`a.b` and `a_b`
    # share a file name once `.` becomes `_`).
    for at, ch in enumerate(value):
        if ch in _SEPARATOR_TWINS:
            return value[:at] + _SEPARATOR_TWINS[ch] + value[at + 1 :]
    return value


def _padded(value: str) -> str:
    return f" {value}"


def _trailing(value: str) -> str:
    return value + "\n"


def _zero_width(value: str) -> str:
    return value + "\u200b"


RELATIONS: Final[dict[str, Callable[[str], str]]] = {
    "prefix": _prefix,
    "extension": _extension,
    "path-extension": _path_extension,
    "case-twin": _case_twin,
    "upper": _upper,
    "nfd": _nfd,
    "nfc": _nfc,
    "compatibility": _compat,
    "separator-twin": _separator_twin,
    "leading-space": _padded,
    "trailing-newline": _trailing,
    "zero-width": _zero_width,
}
"""Every way a relative is made, by name (the name is what a step logs)."""

_SEGMENT_RELATIONS: Final = ("prefix", "extension", "case-twin", "upper", "separator-twin")
_SEGMENT_ALPHABET: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
)


def relative(value: str, how: str) -> str | None:
    """`value`'s relative made `how` (a key of `RELATIONS`), or `None` when it would be
    empty or equal to `value`."""
    made = RELATIONS[how](value)
    return made if made and made != value else None


def relatives(value: str) -> dict[str, str]:
    """Every relative of `value`, by how it was made (duplicates kept under their first
    name)."""
    found: dict[str, str] = {}
    for how in RELATIONS:
        made = relative(value, how)
        if made is not None and made not in found.values():
            found[how] = made
    return found


def segment_relatives(segment_id: str) -> dict[str, str]:
    """The relatives of an engine namespace segment id that are segment ids themselves
    (1 to 128 of `[A-Za-z0-9_-]`)."""
    found: dict[str, str] = {}
    for how in _SEGMENT_RELATIONS:
        made = relative(segment_id, how)
        if (
            made is not None
            and len(made) <= 128
            and set(made) <= _SEGMENT_ALPHABET
            and made not in found.values()
        ):
            found[how] = made
    return found
