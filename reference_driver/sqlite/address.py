"""Canonical identifiers, logical namespaces and physical storage addresses.

`canonical_identifier` is the PII-redacted, delimiter-preserving form of a namespace or
key. `logical_namespace` is a row's namespace, its identity with the key: the canonical
identifier with each redaction placeholder spelled as the address spells it, so it is
itself a valid namespace. `sanitize_namespace` is the physical address, which names the
directory of a row's Markdown file and nothing else: it is path-safe but not injective
("a:b_c" and "a_b:c" both become "a_b_c").
"""

from __future__ import annotations

import re
from pathlib import Path

from .pii import has_likely_pii, redact_pii

__all__ = [
    "GLOBAL_NAMESPACE",
    "REDACTION_PLACEHOLDER",
    "address_directory",
    "address_path",
    "canonical_identifier",
    "logical_namespace",
    "sanitize_namespace",
]

GLOBAL_NAMESPACE = "global"
"""Address used when a namespace is blank or sanitises to nothing."""

# Rust's `str::trim` strips Unicode White_Space, which differs from `str.strip()`
# (Python also strips U+001C..U+001F).
_WHITE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_OUTSIDE_ALLOW_LIST = re.compile(r"[^A-Za-z0-9_/-]")

REDACTION_PLACEHOLDER = re.compile(r"\[(REDACTED_PII_[A-Z_]+)\]")
"""A placeholder `redact_pii` writes (`[REDACTED_PII_SSN]`); group 1 is its inner word."""


def canonical_identifier(value: str) -> str:
    """`value` with PII redacted (strict set) if the strict gate fires, else unchanged."""
    return redact_pii(value, strict=True).value if has_likely_pii(value) else value


def logical_namespace(ns: str) -> str:
    """The namespace a row written under `ns` belongs to (the `logical_namespace` column).

    `canonical_identifier(ns)`, delimiter-preserving and PII-redacted, with each
    placeholder's brackets spelled `_` as the address spells them (`[REDACTED_PII_SSN]`
    becomes `_REDACTED_PII_SSN_`): the brackets are not namespace characters, and a name
    that does not parse could be neither enumerated by section nor read back. Spelled
    so, the name is a valid namespace whose own logical name is itself, so reading it
    finds the same rows, and the redacted identifier is in no column. A name differs
    from `ns` only where `ns` held personal data: two names differing only there are one
    namespace, the price of keeping the data off the disk. The placeholder is 7 bytes
    longer than an SSN, so a name within that of the 200-byte limit reports a name over
    it.
    """
    return REDACTION_PLACEHOLDER.sub(r"_\1_", canonical_identifier(ns))


def sanitize_namespace(ns: str) -> str:
    """Physical address of namespace `ns`: only `[A-Za-z0-9_/-]`, no leading "/", never empty."""
    canonical = canonical_identifier(ns.strip(_WHITE_SPACE))
    if not canonical:
        return GLOBAL_NAMESPACE
    # One "_" per disallowed character: ":" (a Windows drive/stream marker), "." (so ".."
    # cannot traverse), "@", spaces, non-ASCII.
    address = _OUTSIDE_ALLOW_LIST.sub("_", canonical).lstrip("/")
    return address or GLOBAL_NAMESPACE


def address_path(workspace: Path, address: str) -> Path:
    """`workspace` joined with the "/"-separated `address`; ValueError unless strictly inside.

    Every segment must be non-empty and not "." or ".."; separators and drive markers of
    other platforms are refused too. The resolved result (symlinks followed) must lie
    under the resolved workspace. Returns the unresolved join.
    """
    segments = address.split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            raise ValueError(f"storage address {address!r} has an empty, '.' or '..' segment")
        if any(c in segment for c in "\\:\0"):
            raise ValueError(f"storage address {address!r} contains '\\', ':' or NUL")
    path = workspace.joinpath(*segments)
    root = workspace.resolve()
    if root not in path.resolve().parents:
        raise ValueError(f"storage address {address!r} escapes the workspace {workspace}")
    return path


def address_directory(root: Path, address: str) -> Path:
    """The directory of a physical address under `root`: `address_path` with empty segments dropped.

    `sanitize_namespace` keeps "a//b" and "a/" (valid contract namespaces map to them), which
    `address_path` refuses; a directory cannot hold an empty segment, so "a//b" lives in
    `root/a/b` and "a/" in `root/a`. Two addresses may therefore share a directory: file names
    must tell their rows apart. ValueError unless the result is strictly inside `root`.
    """
    segments = [segment for segment in address.split("/") if segment]
    return address_path(root, "/".join(segments) or GLOBAL_NAMESPACE)
