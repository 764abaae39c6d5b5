"""Blankness as the contract means it: Rust's ``str::trim``, not Python's ``str.strip``."""

from typing import Final

# Unicode White_Space, which Rust's `char::is_whitespace` tests. Python's
# `str.isspace` also counts U+001C..U+001F, which Rust keeps as content.
RUST_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def trim(text: str) -> str:
    """``text`` without leading and trailing Unicode white space."""
    return text.strip(RUST_WHITESPACE)


def is_blank(text: str) -> bool:
    """Whether ``text`` is empty once trimmed."""
    return not text.strip(RUST_WHITESPACE)
