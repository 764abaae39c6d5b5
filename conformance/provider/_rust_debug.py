"""Rust's `{:?}` rendering of a `char` and a `str`, which contract messages quote."""

from __future__ import annotations

import unicodedata
from typing import Final

_NAMED_ESCAPES: Final = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\"}


def _escape(char: str, quote: str) -> str:
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    if char == quote:
        return "\\" + char
    # Rust escapes grapheme extenders and non-printables as `\u{hex}`; Python's
    # `isprintable` follows the same category rule, and Mn/Me approximates
    # Grapheme_Extend closely enough for error messages.
    if unicodedata.category(char) in ("Mn", "Me") or not char.isprintable():
        return f"\\u{{{ord(char):x}}}"
    return char


def debug_char(char: str) -> str:
    """`format!("{c:?}")`: the character in single quotes, escaped."""
    return "'" + _escape(char, "'") + "'"


def debug_str(text: str) -> str:
    """`format!("{s:?}")`: the string in double quotes, escaped."""
    return '"' + "".join(_escape(char, '"') for char in text) + '"'
