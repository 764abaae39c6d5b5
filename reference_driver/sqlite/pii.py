"""On-device PII redaction for the sqlite store: regex + checksum.

`redact_pii` replaces each detected identifier with `[REDACTED_PII_<CLASS>]`. The full
set is for content; the strict set (`strict=True`, and the `has_likely_pii` gate) leaves
out the bare-numeric classes (credit card, bare CNPJ/CPF, phones), whose only signal is a
digit run and which would hit WhatsApp JIDs, timestamps and counters in identifiers.
Emails are not PII here. Names, dates of birth and other contextual PII are out of scope.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PII_CLASSES", "Redaction", "has_likely_pii", "redact_pii", "redaction_token"]


@dataclass(frozen=True, slots=True)
class Redaction:
    """Result of `redact_pii`: the text and one class name per replacement made."""

    value: str
    found: tuple[str, ...]


def redaction_token(pii_class: str) -> str:
    """The placeholder written in place of a `pii_class` match."""
    return f"[REDACTED_PII_{pii_class}]"


# --------------------------------------------------------------------------- checksums


def _digits(s: str) -> list[int]:
    # ASCII only: matching runs on normalised text, where every digit is ASCII.
    return [ord(c) - 48 for c in s if "0" <= c <= "9"]


def _valid_cpf(s: str) -> bool:
    d = _digits(s)
    if len(d) != 11 or len(set(d)) == 1:  # 000.000.000-00 etc. pass the arithmetic
        return False
    dv1 = sum(d[i] * (10 - i) for i in range(9)) * 10 % 11 % 10
    dv2 = sum(d[i] * (11 - i) for i in range(10)) * 10 % 11 % 10
    return d[9] == dv1 and d[10] == dv2


def _cnpj_dv(d: list[int], weights: tuple[int, ...]) -> int:
    r = sum(x * w for x, w in zip(d, weights, strict=False)) % 11
    return 0 if r < 2 else 11 - r


def _valid_cnpj(s: str) -> bool:
    d = _digits(s)
    if len(d) != 14 or len(set(d)) == 1:
        return False
    w1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
    return d[12] == _cnpj_dv(d, w1) and d[13] == _cnpj_dv(d, (6, *w1))


def _valid_cuit(s: str) -> bool:
    d = _digits(s)
    if len(d) != 11:
        return False
    r = sum(x * w for x, w in zip(d, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2), strict=False)) % 11
    if r == 1:  # no valid check digit exists for remainder 1
        return False
    return d[10] == (0 if r == 0 else 11 - r)


def _valid_luhn(s: str) -> bool:
    d = _digits(s)
    if not 13 <= len(d) <= 19:
        return False
    total = 0
    for i, x in enumerate(reversed(d)):
        if i % 2:
            x *= 2
            if x > 9:
                x -= 9
        total += x
    return total % 10 == 0


def _valid_iban(s: str) -> bool:
    iban = "".join(s.split())
    if not 15 <= len(iban) <= 34 or not iban[:2].isalpha() or not iban[2:4].isdigit():
        return False
    # Move country + check digits to the end, letters become 10..35, remainder must be 1.
    rotated = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in rotated)) % 97 == 1


# Verhoeff: multiplication table of the dihedral group D5 and the position permutation.
_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8),
    (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2),
    (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0),
    (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5),
    (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def _valid_aadhaar(s: str) -> bool:
    d = _digits(s)
    if len(d) != 12 or d[0] < 2:  # Aadhaar numbers never start with 0 or 1
        return False
    c = 0
    for i, x in enumerate(reversed(d)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][x]]
    return c == 0


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _valid_dni(s: str) -> bool:
    return _DNI_LETTERS[int(s[:8]) % 23] == s[8].upper()


def _valid_nie(s: str) -> bool:
    # The NIE prefix stands for a leading digit: X=0, Y=1, Z=2.
    number = "XYZ".index(s[0].upper()) * 10_000_000 + int(s[1:8])
    return _DNI_LETTERS[number % 23] == s[8].upper()


_NINO_RESERVED = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def _valid_nino(s: str) -> bool:
    first, second = s[0].upper(), s[1].upper()
    return (
        first not in "DFIQUV" and second not in "DFIOQUV" and first + second not in _NINO_RESERVED
    )


def _valid_ssn(s: str) -> bool:
    area, group, serial = s.split("-")
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True, slots=True)
class _Rule:
    pii_class: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None
    group: int = 0  # keyword-gated rules redact only their digit group, not the keyword
    bare_numeric: bool = False  # excluded from the strict (identifier) set


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags | re.VERBOSE)


# Priority order of A11. It only breaks exact ties: on overlap the earlier-starting, then
# longer, match wins, and the loser is dropped whole.
_RULES: tuple[_Rule, ...] = (
    _Rule("CPF", _rx(r"\b [0-9]{3} \. [0-9]{3} \. [0-9]{3} - [0-9]{2} \b"), _valid_cpf),
    _Rule(
        "CNPJ", _rx(r"\b [0-9]{2} \. [0-9]{3} \. [0-9]{3} / [0-9]{4} - [0-9]{2} \b"), _valid_cnpj
    ),
    _Rule("CUIT", _rx(r"\b [0-9]{2} - [0-9]{8} - [0-9] \b"), _valid_cuit),
    # IBAN before credit card: an all-digit IBAN tail can pass Luhn.
    _Rule("IBAN", _rx(r"\b [A-Z]{2} [0-9]{2} (?: \s? [A-Z0-9] ){11,30} \b"), _valid_iban),
    # 13-19 digits, one optional space/hyphen between digits. Upstream's `(?:\d[\s-]?){13,19}`
    # can end on a separator and swallow the space after the number; this form cannot.
    _Rule(
        "CREDIT_CARD",
        _rx(r"\b [0-9] (?: [\s-]? [0-9] ){12,18} \b"),
        _valid_luhn,
        bare_numeric=True,
    ),
    _Rule("CNPJ", _rx(r"\b [0-9]{14} \b"), _valid_cnpj, bare_numeric=True),
    _Rule("CPF", _rx(r"\b [0-9]{11} \b"), _valid_cpf, bare_numeric=True),
    _Rule("AADHAAR", _rx(r"\b [0-9]{4} [\s-] [0-9]{4} [\s-] [0-9]{4} \b"), _valid_aadhaar),
    # A bare 12-digit run passes Verhoeff ~10% of the time, so it needs a keyword nearby.
    _Rule(
        "AADHAAR",
        _rx(r"(?: aadhaar | aadhar | आधार | uidai | uid ) [\s:\#\-no.]{0,10} ([0-9]{12}) \b", re.I),
        _valid_aadhaar,
        group=1,
    ),
    _Rule("DNI", _rx(r"\b [0-9]{8} [A-Z] \b", re.I), _valid_dni),
    _Rule("DNI", _rx(r"\b [XYZ] [0-9]{7} [A-Z] \b", re.I), _valid_nie),
    _Rule("NINO", _rx(r"\b [A-Z]{2} [0-9]{6} [A-D] \b", re.I), _valid_nino),
    _Rule("SSN", _rx(r"\b [0-9]{3} - [0-9]{2} - [0-9]{4} \b"), _valid_ssn),
    _Rule("RRN", _rx(r"\b [0-9]{6} - [1-4] [0-9]{6} \b")),
    _Rule("RFC", _rx(r"\b [A-ZÑ&]{3,4} [0-9]{6} [A-Z0-9]{3} \b", re.I)),
    _Rule("PAN_IN", _rx(r"\b [A-Z]{5} [0-9]{4} [A-Z] \b", re.I)),
    _Rule("PHONE", _rx(r"\+ [0-9]{7,15} \b"), bare_numeric=True),
    # NANP: area code and exchange both start 2-9; optional +1 and separators.
    _Rule(
        "PHONE",
        _rx(
            r"""\b (?: \+? 1 [\s.\-]? )?
                \(? [2-9][0-9]{2} \)? [\s.\-]?
                [2-9][0-9]{2} [\s.\-]? [0-9]{4} \b"""
        ),
        bare_numeric=True,
    ),
    _Rule(
        "MYNUMBER",
        _rx(r"(?: マイナンバー | 個人番号 | My\s?Number ) [\s:はがを、.\-]{0,12} ([0-9]{12}) \b"),
        group=1,
    ),
)

PII_CLASSES: tuple[str, ...] = tuple(dict.fromkeys(rule.pii_class for rule in _RULES))
"""Every class name `redact_pii` can report, in priority order."""

_STRICT_RULES = tuple(rule for rule in _RULES if not rule.bare_numeric)


# --------------------------------------------------------------------------- normalisation

_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\ufeff\u2060\u180e")
_FOLD: dict[str, str] = {
    **{chr(0xFF10 + i): str(i) for i in range(10)},  # fullwidth digits
    **{chr(0x0660 + i): str(i) for i in range(10)},  # Arabic-Indic digits
    **{chr(0x06F0 + i): str(i) for i in range(10)},  # Eastern Arabic-Indic digits
    "\uff0e": ".",
    "\uff0d": "-",
    "\uff0f": "/",
    "\uff1a": ":",
}


def _normalise(text: str) -> tuple[str, list[int]]:
    """Fold look-alikes to ASCII and drop zero-width chars; also each kept char's index."""
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch not in _ZERO_WIDTH:
            chars.append(_FOLD.get(ch, ch))
            origin.append(i)
    return "".join(chars), origin


# --------------------------------------------------------------------------- matching


def _hits(norm: str, rules: tuple[_Rule, ...]) -> list[tuple[int, int, str]]:
    """Non-overlapping `(start, end, class)` spans in `norm`, sorted by start."""
    found: list[tuple[int, int, int, str]] = []
    for priority, rule in enumerate(rules):
        for m in rule.pattern.finditer(norm):
            span = m.group(rule.group)
            if rule.check is None or rule.check(span):
                start, end = m.span(rule.group)
                found.append((start, end, priority, rule.pii_class))
    found.sort(key=lambda h: (h[0], h[0] - h[1], h[2]))
    kept: list[tuple[int, int, str]] = []
    for start, end, _, pii_class in found:
        if not kept or start >= kept[-1][1]:
            kept.append((start, end, pii_class))
    return kept


def _redact_once(text: str, rules: tuple[_Rule, ...]) -> Redaction:
    norm, origin = _normalise(text)
    hits = _hits(norm, rules)
    if not hits:
        return Redaction(text, ())
    out: list[str] = []
    cursor = 0
    for start, end, pii_class in hits:
        # Map back to the original: zero-width chars inside a match go with it, those
        # just outside stay, and untouched text keeps its original (e.g. fullwidth) form.
        orig_start, orig_end = origin[start], origin[end - 1] + 1
        out.append(text[cursor:orig_start])
        out.append(redaction_token(pii_class))
        cursor = orig_end
    out.append(text[cursor:])
    return Redaction("".join(out), tuple(h[2] for h in hits))


def redact_pii(text: str, *, strict: bool = False) -> Redaction:
    """Replace PII in `text`; `strict=True` uses the identifier set (no bare-numeric classes).

    Idempotent: passes repeat until nothing matches. Placeholders contain no digits and
    every pattern needs one, so this ends, normally after the first pass.
    """
    rules = _STRICT_RULES if strict else _RULES
    value = text
    found: list[str] = []
    while True:
        step = _redact_once(value, rules)
        if not step.found:
            return Redaction(value, tuple(found))
        value = step.value
        found.extend(step.found)


# Every strict rule needs a digit, and normalisation only folds characters that are
# already Unicode digits (category Nd) to ASCII ones; text without one cannot match.
_ANY_DIGIT = re.compile(r"\d")


def has_likely_pii(text: str) -> bool:
    """True when the strict set matches: the gate for namespaces and keys."""
    if not _ANY_DIGIT.search(text):
        return False  # the common case for identifiers, and ~100x cheaper than matching
    return bool(_hits(_normalise(text)[0], _STRICT_RULES))
