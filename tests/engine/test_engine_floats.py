"""f32 printing: serde_json/ryu for the wire and the fingerprint, Rust Display for messages."""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.engine import f32_display, f32_json, f32_wire, to_f32
from conformance.engine.floats import f32_bits


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (0.8, "0.8"),
        (1.0, "1.0"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1 / 3, "0.33333334"),
        (0.1, "0.1"),
        (0.75, "0.75"),
        (0.5, "0.5"),
        (0.00001, "0.00001"),
        (0.000001, "0.000001"),
        (0.00000123, "0.00000123"),
        (9.5e-7, "9.5e-7"),
        (1e-7, "1e-7"),
        (1.5e-10, "1.5e-10"),
        (123456789.0, "123456790.0"),
        (1e12, "1000000000000.0"),
        (1e13, "1e13"),
        (1.5e13, "1.5e13"),
        (1e21, "1e21"),
        (-2.5, "-2.5"),
        (3.4028235e38, "3.4028235e38"),
        (1e-45, "1e-45"),  # the smallest subnormal
        (16777216.0, "16777216.0"),
        (math.nan, "null"),
        (math.inf, "null"),
        (1e39, "null"),  # overflows f32 to infinity
    ],
)
def test_json_form_matches_serde_json(value: float, printed: str) -> None:
    assert f32_json(value) == printed


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (1.5, "1.5"),
        (1.0, "1"),
        (0.0, "0"),
        (-0.0, "-0"),
        (math.nan, "NaN"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (1.0000001, "1.0000001"),
        (-0.1, "-0.1"),
        (1e-7, "0.0000001"),
        (1e21, "1000000000000000000000"),
        (1 / 3, "0.33333334"),
    ],
)
def test_display_form_matches_rust_display(value: float, printed: str) -> None:
    assert f32_display(value) == printed


def test_wire_value_is_the_float_the_json_form_reads_as() -> None:
    assert f32_wire(1 / 3) == 0.33333334
    assert f32_wire(0.8) == 0.8
    assert math.isnan(f32_wire(math.nan))
    assert to_f32(1 / 3) == struct.unpack("<f", struct.pack("<f", 1 / 3))[0]
    assert to_f32(1e39) == math.inf
    assert to_f32(-1e39) == -math.inf


def _shortest_by_search(value: float) -> str:
    """An independent oracle: the fewest significant digits that read back as the same f32,
    nearest the exact value; printed in scientific form for comparison."""
    for digits in range(1, 10):
        candidates = set()
        for shift in (-1, 0, 1):
            mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
            scaled = int(mantissa.replace(".", "")) + shift
            candidates.add(f"{scaled}e{int(exponent) - (digits - 1)}")
        fitting = [text for text in candidates if to_f32(float(text)) == value]
        if fitting:
            best = min(fitting, key=lambda text: abs(float(text) - value))
            return f"{float(best):e}"
    raise AssertionError("every f32 has a 9-digit form")


@given(st.floats(width=32, min_value=0.0, exclude_min=True, allow_infinity=False))
def test_json_form_is_the_shortest_round_trip(value: float) -> None:
    printed = f32_json(value)
    assert to_f32(float(printed)) == value
    assert f"{float(printed):e}" == _shortest_by_search(value)


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_display_and_json_name_the_same_f32(value: float) -> None:
    assert to_f32(float(f32_display(value))) == to_f32(float(f32_json(value)))


# Shortest digits from ryu's own f32 test suite (boundary, round-even and regression cases).
RYU_DIGITS = [
    "1.234E20", "1.234E21", "2.71828E0", "1.1E32", "1.1E-32", "2.7182817E0", "1E-45",
    "3.4028235E38", "-1.234E-3", "1.1754944E-38", "3.355445E7", "9E9", "3.436672E10",
    "3.0540412E5", "8.0990312E3", "2.4414062E-4", "2.4414062E-3", "4.3945312E-3",
    "6.3476562E-3", "4.7223665E21", "8.388608E6", "1.6777216E7", "3.3554436E7",
    "6.7131496E7", "1.9310392E-38", "-2.47E-43", "1.993244E-38", "4.1039004E3",
    "5.3399997E9", "6.0898E-39", "1.0310042E-3", "2.882326E17", "7.038531E-26",
    "9.223404E17", "6.710887E7", "1E-44", "2.816025E14", "9.223372E18", "1.5846086E29",
    "1.1811161E19", "5.368709E18", "4.6143166E18", "7.812537E-3", "1.18697725E20",
    "1.00014165E-36", "2E2", "3.3554432E7", "6.7108864E17", "1.3421773E18", "2.6843546E18",
    "1.2345678E0", "1.23456735E-36",
]  # fmt: skip


def _exact_f32(text: str) -> float:
    """The f32 nearest the decimal ``text`` (ties to even), read directly as Rust does.

    ``to_f32(float(text))`` rounds twice and can land one step off (7.038531e-26 does).
    """
    exact = Fraction(Decimal(text))
    first = f32_bits(float(text))
    steps: list[float] = [
        struct.unpack("<f", struct.pack("<I", bits))[0] for bits in (first - 1, first, first + 1)
    ]
    nearby = [value for value in steps if math.isfinite(value)]
    return min(nearby, key=lambda value: (abs(Fraction(value) - exact), f32_bits(value) % 2))


@pytest.mark.parametrize("digits", RYU_DIGITS)
def test_shortest_digits_agree_with_ryu(digits: str) -> None:
    printed = f32_json(_exact_f32(digits))
    assert Decimal(printed) == Decimal(digits)


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (2e2, "200.0"),
        (9e9, "9000000000.0"),
        (3.436672e10, "34366720000.0"),
        (2.816025e14, "2.816025e14"),
        (1.234e20, "1.234e20"),
        (-1.234e-3, "-0.001234"),
        (2.4414062e-4, "0.00024414062"),
    ],
)
def test_ryu_switches_to_exponent_outside_its_plain_range(value: float, printed: str) -> None:
    assert f32_json(value) == printed
