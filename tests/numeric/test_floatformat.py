"""FloatFormat: exact rounding, neighbours and constants, against Python/NumPy floats and
against a brute-force nearest-value search in toy formats."""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.numeric.floatformat import (
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FloatFormat,
    FloatOverflow,
    floor_log2,
    format_named,
)

TOY = FloatFormat.toy(precision=3, emin=-2, emax=3)


def test_named_formats_match_the_hardware():
    assert FLOAT64.max_value == Fraction(sys.float_info.max)
    assert FLOAT64.min_normal == Fraction(sys.float_info.min)
    assert FLOAT64.min_subnormal == Fraction(5e-324)
    assert FLOAT64.unit_roundoff == Fraction(sys.float_info.epsilon) / 2
    f32 = np.finfo(np.float32)
    assert FLOAT32.max_value == Fraction(float(f32.max))
    assert FLOAT32.min_normal == Fraction(float(f32.smallest_normal))
    assert FLOAT32.min_subnormal == Fraction(float(f32.smallest_subnormal))
    assert FLOAT16.max_value == 65504
    assert format_named("float32") is FLOAT32 and format_named(TOY) is TOY


def test_toy_format_values():
    values = TOY.values_between(-TOY.max_value, TOY.max_value)
    # zero, 3 subnormals and 4 values in each of the binades 2**-2 .. 2**3, both signs
    assert len(values) == 1 + 2 * (3 + 4 * 6)
    assert values[-1] == 14 and values[-4:] == [8, 10, 12, 14]
    assert TOY.values_between(0, Fraction(1, 2)) == [Fraction(k, 16) for k in range(9)]
    assert all(TOY.is_representable(v) for v in values)
    assert not TOY.is_representable(Fraction(9, 8)) and not TOY.is_representable(16)


TOY_VALUES = TOY.values_between(-TOY.max_value, TOY.max_value)


def _nearest_by_search(fmt: FloatFormat, x: Fraction) -> Fraction:
    """Independent reference: the closest value, ties to the even significand."""
    values = TOY_VALUES
    best = min(abs(v - x) for v in values)
    tied = [v for v in values if abs(v - x) == best]
    if len(tied) == 1:
        return tied[0]
    return next(v for v in tied if (abs(v) / fmt.ulp(min(abs(t) for t in tied))) % 2 == 0)


# every multiple of 1/64 in [-14, 14]: values, midpoints (ties) and points between them
GRID = [Fraction(k, 64) for k in range(-14 * 64, 14 * 64 + 1)]


def test_round_is_the_nearest_value_ties_to_even_in_a_toy_format():
    wrong = [x for x in GRID if TOY.round(x) != _nearest_by_search(TOY, x)]
    assert wrong == []


@settings(max_examples=400, deadline=None)
@given(st.integers(-10**40, 10**40), st.integers(1, 10**40), st.integers(-1100, 1030))
def test_round_float64_matches_python(num, den, shift):
    x = Fraction(num, den) * Fraction(2) ** shift
    try:
        expected = float(x)  # correctly rounded, ties to even
    except OverflowError:
        with pytest.raises(FloatOverflow):
            FLOAT64.round(x)
        return
    assert FLOAT64.round(x) == Fraction(expected)


@settings(max_examples=400, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_round_float32_matches_numpy(f):
    with np.errstate(over="ignore"):
        expected = float(np.float32(f))  # one rounding from an exact float64
    if math.isinf(expected):
        with pytest.raises(FloatOverflow):
            FLOAT32.round(f)
    else:
        assert FLOAT32.round(f) == Fraction(expected)


@settings(max_examples=400, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_next_up_down_and_ulp_match_math(f):
    if f < sys.float_info.max:
        assert FLOAT64.next_up(f) == Fraction(math.nextafter(f, math.inf))
    else:
        with pytest.raises(FloatOverflow):
            FLOAT64.next_up(f)
    if f > -sys.float_info.max:
        assert FLOAT64.next_down(f) == Fraction(math.nextafter(f, -math.inf))
    assert FLOAT64.ulp(f) == Fraction(math.ulp(f))
    assert FLOAT64.is_representable(f)


def test_next_up_down_of_any_number_in_a_toy_format():
    values = set(TOY_VALUES)
    for x in GRID[64:-64]:
        up, down = TOY.next_up(x), TOY.next_down(x)
        assert down < x < up and up in values and down in values
        assert [v for v in TOY_VALUES if down < v < up] == ([x] if x in values else [])


def test_floor_log2_and_edges():
    assert [floor_log2(Fraction(k, 8)) for k in (1, 2, 3, 4, 7, 8, 9, 16)] == [-3, -2, -2, -1, -1, 0, 0, 1]
    assert TOY.round(Fraction(1, 32)) == 0            # half the smallest subnormal: ties to 0
    assert TOY.round(Fraction(3, 32)) == Fraction(1, 8)  # 1.5 subnormal steps: ties to even
    assert TOY.round(Fraction(29, 2)) == 14           # below max + ulp/2 rounds down
    with pytest.raises(FloatOverflow):
        TOY.round(15)                                 # max + ulp/2 = 15 ties to even: infinity
    assert TOY.next_down(TOY.min_normal) == Fraction(3, 16)
    assert TOY.next_up(0) == Fraction(1, 16) and TOY.next_down(0) == Fraction(-1, 16)
    assert TOY.next_down(100) == 14 and TOY.ulp(0) == Fraction(1, 16)


BAD = [
    (lambda: FloatFormat.toy(1, -2, 3), InvalidArgument, "precision=1 is below 2"),
    (lambda: FloatFormat.toy(3, 4, 3), InvalidArgument, "emin=4 > emax=3"),
    (lambda: FloatFormat("x", 3.0, -2, 3), InvalidArgument, "precision=3.0 is not an int"),
    (lambda: format_named("float128"), InvalidArgument, "fmt='float128' is not a known"),
    (lambda: FLOAT64.round(math.inf), InvalidArgument, "x=inf is not finite"),
    (lambda: FLOAT64.round("0.1.2"), InvalidArgument, "x='0.1.2' is not an exact number"),
    (lambda: FLOAT64.round(object()), InexactInput, "is not an exact number"),
    (lambda: TOY.values_between(2, 1), InvalidArgument, "lo=Fraction(2, 1) > hi=Fraction(1, 1)"),
    (lambda: FLOAT64.values_between(0, 1, limit=10), TooLarge, "more than limit=10"),
    (lambda: TOY.next_up(14), FloatOverflow, "no larger finite value"),
    (lambda: TOY.next_down(-14), FloatOverflow, "no larger finite value"),
]


@pytest.mark.parametrize("call, error, fragment", BAD)
def test_bad_arguments(call, error, fragment):
    with pytest.raises(error, match=None) as info:
        call()
    assert fragment in str(info.value)
