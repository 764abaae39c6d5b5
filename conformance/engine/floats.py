"""32-bit floats as Rust prints them: serde_json's ryu form and ``Display``.

Confidences and scores are ``f32`` in the contract. Python keeps whatever float
it is given; these helpers narrow it to ``f32`` and print the shortest decimal
that reads back as the same ``f32``, so the printed form matches Rust's.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from functools import lru_cache
from typing import Final

_F32: Final = struct.Struct("<f")
_U32: Final = struct.Struct("<I")
_SIGN_BIT: Final = 0x8000_0000
_EXPONENT_ALL_ONES: Final = 0xFF


def to_f32(value: float) -> float:
    """``value`` rounded to the nearest ``f32`` (as Rust's ``as f32``), as a Python float."""
    try:
        narrowed: float = _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return narrowed


def f32_bits(value: float) -> int:
    """The IEEE-754 bits of ``value`` narrowed to ``f32``."""
    try:
        packed = _F32.pack(value)
    except OverflowError:
        packed = _F32.pack(math.copysign(math.inf, value))
    bits: int = _U32.unpack(packed)[0]
    return bits


def _shortest_digits(bits: int) -> tuple[str, int]:
    """Digits and decimal exponent of the shortest decimal naming this positive finite f32.

    Among decimals of the fewest significant digits that read back as this
    ``f32``, the one nearest its exact value, ties to an even last digit: what
    ryu and Rust's formatter print.
    """
    mantissa_field = bits & 0x7F_FFFF
    exponent_field = (bits >> 23) & 0xFF
    if exponent_field == 0:
        mantissa, exponent = mantissa_field, -149
    else:
        mantissa, exponent = mantissa_field | 0x80_0000, exponent_field - 150
    quarter = Fraction(2) ** (exponent - 2)
    exact = 4 * mantissa * quarter
    # Below a power of two the next float down is half as far away.
    lower_gap = 1 if mantissa_field == 0 and exponent_field > 1 else 2
    low = (4 * mantissa - lower_gap) * quarter
    high = (4 * mantissa + 2) * quarter
    # Round-half-even reading: an even mantissa owns the midpoints to its neighbours.
    bounds_included = mantissa % 2 == 0

    def reads_back(candidate: Fraction) -> bool:
        if bounds_included:
            return low <= candidate <= high
        return low < candidate < high

    position = math.floor(math.log10(float(high))) + 1
    while True:
        unit = Fraction(10) ** position
        below = math.floor(exact / unit)
        best: tuple[Fraction, int] | None = None
        for digits in (below, below + 1):
            if digits <= 0 or not reads_back(digits * unit):
                continue
            distance = abs(digits * unit - exact)
            if best is None or distance < best[0] or (distance == best[0] and digits % 2 == 0):
                best = (distance, digits)
        if best is not None:
            return str(best[1]), position
        position -= 1


@lru_cache(maxsize=4096)
def _json_from_bits(bits: int) -> str:
    sign = "-" if bits & _SIGN_BIT else ""
    magnitude = bits & ~_SIGN_BIT
    if magnitude >> 23 == _EXPONENT_ALL_ONES:
        return "null"
    if magnitude == 0:
        return sign + "0.0"
    digits, exponent = _shortest_digits(magnitude)
    length = len(digits)
    point = length + exponent  # 10**(point-1) <= value < 10**point
    if exponent >= 0 and point <= 13:
        body = digits + "0" * exponent + ".0"
    elif 0 < point <= 13:
        body = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        body = "0." + "0" * -point + digits
    elif length == 1:
        body = f"{digits}e{point - 1}"
    else:
        body = f"{digits[0]}.{digits[1:]}e{point - 1}"
    return sign + body


def f32_json(value: float) -> str:
    """``value`` as serde_json writes an ``f32``: ryu's shortest form, ``null`` if not finite.

    Examples: ``0.8``, ``1.0``, ``-0.0``, ``0.33333334``, ``0.000001``, ``9.5e-7``, ``1e21``.
    """
    return _json_from_bits(f32_bits(value))


@lru_cache(maxsize=1024)
def _display_from_bits(bits: int) -> str:
    sign = "-" if bits & _SIGN_BIT else ""
    magnitude = bits & ~_SIGN_BIT
    if magnitude >> 23 == _EXPONENT_ALL_ONES:
        return "NaN" if magnitude & 0x7F_FFFF else sign + "inf"
    if magnitude == 0:
        return sign + "0"
    digits, exponent = _shortest_digits(magnitude)
    point = len(digits) + exponent
    if exponent >= 0:
        body = digits + "0" * exponent
    elif point > 0:
        body = digits[:point] + "." + digits[point:]
    else:
        body = "0." + "0" * -point + digits
    return sign + body


def f32_display(value: float) -> str:
    """``value`` as Rust's ``Display`` prints an ``f32``: ``1``, ``1.5``, ``NaN``, ``0.0000001``."""
    return _display_from_bits(f32_bits(value))


def f32_wire(value: float) -> float:
    """The float a JSON reader gets from ``f32_json(value)``; non-finite values pass through."""
    if value == 0.0:
        # -0.0 equals 0.0 as a cache key, but not on the wire; each zero is its own f32.
        return float(value)
    return _wire(value)


@lru_cache(maxsize=4096)
def _wire(value: float) -> float:
    # Every score and confidence of every hit goes through here when a model is written.
    text = f32_json(value)
    if text == "null":
        return to_f32(value)
    return float(text)
