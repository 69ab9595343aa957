"""Directed rounding: the answer is on the safe side and no float lies in between."""

from __future__ import annotations

import math
import random
import struct
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.numeric.exact import from_float
from exactdp.numeric.rounding import (
    _decimal_directed_large,
    FLOAT_FORMATS, ceiling_context, decimal_at_least, decimal_at_most, exact_decimal_context,
    float_at_least, float_at_most, floor_context,
)

MAX64 = FLOAT_FORMATS["float64"].max_finite
MAX32 = FLOAT_FORMATS["float32"].max_finite
TINY64 = Fraction(1, 2**1074)
TINY32 = Fraction(1, 2**149)


# --- strategies ---------------------------------------------------------------

finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def float_midpoints(draw):
    """The exact midpoint between a float and the next one up."""
    f = draw(finite_floats.filter(lambda v: v < 1.7976931348623157e308))
    return (Fraction(f) + Fraction(math.nextafter(f, math.inf))) / 2


@st.composite
def near_floats(draw):
    """A float plus or minus a tiny exact offset (well below its ulp)."""
    f = draw(st.floats(min_value=-1e300, max_value=1e300))
    k = draw(st.integers(60, 1200))
    sign = draw(st.sampled_from([-1, 1]))
    return Fraction(f) + sign * Fraction(1, 2**k) * max(abs(Fraction(f)), TINY64)


@st.composite
def scaled_fractions(draw, low=-1130, high=1030):
    """A random ratio times 2**k: spans subnormal, normal and near-max magnitudes."""
    num = draw(st.integers(-(2**80), 2**80))
    den = draw(st.integers(1, 2**80))
    k = draw(st.integers(low, high))
    x = Fraction(num, den) * Fraction(2) ** k
    return x


exact_values = st.one_of(
    finite_floats.map(Fraction),
    float_midpoints(),
    near_floats(),
    scaled_fractions().filter(lambda x: abs(x) <= MAX64),
    st.builds(Fraction, st.integers(-(10**9), 10**9), st.integers(1, 10**6)),
    st.integers(-(2**60), 2**60).map(lambda n: Fraction(n) * TINY64),  # subnormal range
    st.integers(1, 2**20).map(lambda n: MAX64 - n * Fraction(2) ** 960),  # near the max
)


def batches(strategy, size=10):
    """Lists of ``size`` draws: thousands of inputs at a fraction of Hypothesis's per-example cost."""
    return st.lists(strategy, min_size=size, max_size=size)


def _neighbours(lo: float, hi: float) -> bool:
    return lo == hi or math.nextafter(lo, math.inf) == hi


# --- float64 ------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(batches(exact_values))
def test_float64_safe_side_and_tight(xs):  # 1,200 values (and 5,000 in the sweep below)
    for x in xs:
        lo, hi = float_at_most(x), float_at_least(x)
        assert Fraction(lo) <= x <= Fraction(hi)
        assert _neighbours(lo, hi)  # no float strictly between lo and hi, hence none between x and either
        if Fraction(lo) == x or Fraction(hi) == x:
            assert lo == hi


@settings(max_examples=100, deadline=None)
@given(finite_floats)
def test_exact_floats_round_to_themselves(f):
    assert float_at_least(from_float(f)) == f == float_at_most(from_float(f))


@settings(max_examples=100, deadline=None)
@given(float_midpoints())
def test_midpoints_go_to_either_neighbour(x):
    lo, hi = float_at_most(x), float_at_least(x)
    assert Fraction(lo) < x < Fraction(hi)
    assert math.nextafter(lo, math.inf) == hi


def _random_fraction(rng: random.Random, low: int, high: int) -> Fraction:
    kind = rng.randrange(4)
    if kind == 0:  # a float, a midpoint, or a float nudged by far less than an ulp
        f = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        while not math.isfinite(f) or abs(f) >= 1.7976931348623157e308:
            f = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        x = Fraction(f)
        nudge = rng.choice([0, Fraction(1, 2), Fraction(1, 2**rng.randrange(2, 80))])
        return x + rng.choice([-1, 1]) * nudge * (Fraction(math.nextafter(f, math.inf)) - x)
    num = rng.randrange(-(2**80), 2**80)
    den = rng.randrange(1, 2**rng.randrange(1, 80))
    return Fraction(num, den) * Fraction(2) ** rng.randrange(low, high)


def test_random_sweep_both_formats_and_decimal():
    """5,000 seeded random values per format (cheap; Hypothesis above shrinks failures)."""
    rng = random.Random(20261122)
    for _ in range(5_000):
        x = _random_fraction(rng, -1100, 980)
        if abs(x) > MAX64:
            continue
        lo, hi = float_at_most(x), float_at_least(x)
        assert Fraction(lo) <= x <= Fraction(hi) and _neighbours(lo, hi), x
    for _ in range(5_000):
        x = _random_fraction(rng, -160, 100)
        if abs(x) > MAX32:
            continue
        lo, hi = float_at_most(x, "float32"), float_at_least(x, "float32")
        assert Fraction(lo) <= x <= Fraction(hi), x
        assert lo == hi or np.nextafter(np.float32(lo), np.float32(np.inf)) == np.float32(hi), x
    for _ in range(2_000):
        x, digits = _random_fraction(rng, -300, 300), rng.randrange(1, 25)
        up, down = decimal_at_least(x, digits), decimal_at_most(x, digits)
        assert Fraction(down) <= x <= Fraction(up)
        assert Fraction(up) == x or Fraction(ceiling_context(digits).next_minus(up)) < x


def test_subnormals_exactly():
    assert float_at_least(TINY64 / 3) == 5e-324
    assert float_at_most(TINY64 / 3) == 0.0
    assert float_at_least(TINY64 * Fraction(5, 2)) == 3 * 5e-324
    assert float_at_most(TINY64 * Fraction(5, 2)) == 2 * 5e-324
    smallest_normal = Fraction(1, 2**1022)
    assert float_at_most(smallest_normal - TINY64 / 2) == math.nextafter(2.2250738585072014e-308, 0)
    assert float_at_least(-TINY64 / 3) == 0.0 and math.copysign(1, float_at_least(-TINY64 / 3)) == 1
    assert float_at_most(-TINY64 / 3) == -5e-324


def test_known_values():
    assert float_at_least("0.1") == 0.1 and float_at_most("0.1") == math.nextafter(0.1, 0)
    assert float_at_least("1e-5") == 1e-05 and float_at_most("1e-5") == 9.999999999999999e-06
    assert float_at_least(Fraction(1, 3)) == 0.33333333333333337
    assert float_at_most(Fraction(1, 3)) == 0.3333333333333333
    assert float_at_least(Decimal("2.5")) == 2.5
    assert float_at_least(10**17 + 1) == 100000000000000016.0
    assert float_at_most(10**17 + 1) == 1e17
    assert float_at_least(MAX64) == 1.7976931348623157e308


# --- float32 ------------------------------------------------------------------


def _is_float32(v: float) -> bool:
    return struct.unpack("f", struct.pack("f", v))[0] == v


exact_values_32 = st.one_of(
    st.floats(width=32, allow_nan=False, allow_infinity=False).map(Fraction),
    scaled_fractions(-170, 126),
    st.integers(-(2**40), 2**40).map(lambda n: Fraction(n) * TINY32 / 7),
    st.builds(Fraction, st.integers(-(10**9), 10**9), st.integers(1, 10**6)),
).filter(lambda x: abs(x) <= MAX32)


@settings(max_examples=60, deadline=None)
@given(batches(exact_values_32))
def test_float32_safe_side_and_tight(xs):  # 600 values (and 5,000 in the sweep below)
    for x in xs:
        lo, hi = float_at_most(x, "float32"), float_at_least(x, "float32")
        assert _is_float32(lo) and _is_float32(hi)
        assert Fraction(lo) <= x <= Fraction(hi)
        if lo != hi:
            assert np.nextafter(np.float32(lo), np.float32(np.inf)) == np.float32(hi)
        if Fraction(float(x)) == x:  # x is a float64: numpy's nearest float32 is one of the two
            assert float(np.float32(float(x))) in (lo, hi)


def test_float32_known_values():
    assert float_at_least("0.1", "float32") == float(np.float32(0.1)) == 0.10000000149011612
    assert float_at_most("0.1", "float32") == float(np.nextafter(np.float32(0.1), np.float32(0)))
    assert float_at_least(TINY32 / 2, "float32") == float(np.float32(1.401298464324817e-45))
    assert float_at_least(Fraction(1, 3), np.float32) == float(np.float32(1 / 3)) == 0.3333333432674408
    assert float_at_most(Fraction(1, 3), np.float32) == float(np.nextafter(np.float32(1 / 3), np.float32(0)))
    assert float_at_least(MAX32, "float32") == float(np.finfo(np.float32).max)
    assert float_at_least("0.1", np.dtype("float32")) == 0.10000000149011612


# --- other inputs ---------------------------------------------------------------


def test_mpmath_values_and_intervals():
    third = mpmath.iv.mpf(1) / 3
    lo, hi = float_at_most(third), float_at_least(third)
    assert Fraction(lo) < Fraction(1, 3) < Fraction(hi)
    # an mpf is exact; one rounded to a float is returned as is
    assert float_at_least(mpmath.mpf(0.1)) == 0.1
    # a 200-bit endpoint is used exactly, not rounded to 53 bits first
    saved = mpmath.iv.prec
    try:
        mpmath.iv.prec = 200
        narrow = mpmath.iv.mpf(1) / 3
    finally:
        mpmath.iv.prec = saved
    assert float_at_least(narrow) == 0.33333333333333337
    assert float_at_most(narrow) == 0.3333333333333333
    wide = mpmath.iv.mpf([1, 2])
    assert (float_at_most(wide), float_at_least(wide)) == (1.0, 2.0)


def test_sympy_reals():
    assert float_at_least(sympy.sqrt(2)) == 1.4142135623730951
    assert float_at_most(sympy.sqrt(2)) == 1.414213562373095
    assert float_at_least(sympy.Rational(1, 3)) == 0.33333333333333337
    assert float_at_most(sympy.log(sympy.Rational(5, 4))) == 0.22314355131420974
    assert float_at_least(sympy.log(sympy.Rational(5, 4))) == 0.22314355131420976
    # exactly a float, though the intervals can never show it: safe, at most one float off
    hi = float_at_least(sympy.log(8) / sympy.log(2))
    assert hi in (3.0, math.nextafter(3.0, 4))


# --- beyond the range ------------------------------------------------------------


@pytest.mark.parametrize("fn", [float_at_least, float_at_most])
@pytest.mark.parametrize("x", [MAX64 + TINY64, -(MAX64 + TINY64), 10**400, Fraction(-(10**400), 3)])
def test_beyond_max_raises(fn, x):
    with pytest.raises(InvalidArgument, match="beyond the largest finite float64"):
        fn(x)


def test_beyond_max_float32_raises():
    with pytest.raises(InvalidArgument, match="float32"):
        float_at_most(MAX32 + 1, "float32")


# --- Decimal ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(batches(st.tuples(st.one_of(st.builds(Fraction, st.integers(-(10**15), 10**15), st.integers(1, 10**12)), scaled_fractions(-200, 200)),
                         st.integers(1, 30))))
def test_decimal_directed(cases):  # 600 values (and 2,000 in the sweep below)
    for x, digits in cases:
        up, down = decimal_at_least(x, digits), decimal_at_most(x, digits)
        assert Fraction(down) <= x <= Fraction(up)
        assert len(up.as_tuple().digits) <= digits and len(down.as_tuple().digits) <= digits
        if Fraction(up) != x:  # the next Decimal down, at that many digits, is below x
            assert Fraction(ceiling_context(digits).next_minus(up)) < x
        if Fraction(down) != x:
            assert Fraction(floor_context(digits).next_plus(down)) > x


@settings(max_examples=300, deadline=None)
@given(st.integers(-(10**60), 10**60).filter(bool), st.integers(1, 10**60), st.integers(1, 30),
       st.booleans())
def test_decimal_of_huge_fractions_agrees_with_the_direct_division(n, d, digits, up):
    # Numbers with over 20,000 bits take a path that avoids Decimal(int) (quadratic: 2**-4194304
    # took 19 s); on ordinary numbers it must give the very Decimal the division gives.
    x = Fraction(n, d)
    ctx = (ceiling_context if up else floor_context)(digits)
    direct = ctx.divide(Decimal(x.numerator), Decimal(x.denominator))
    large = _decimal_directed_large(x, digits, ctx, up)
    assert large == direct and str(large) == str(direct)


def test_decimal_of_a_four_million_bit_fraction():
    x = Fraction(3, 1 << 4194304)
    up, down = decimal_at_least(x, 17), decimal_at_most(x, 17)
    # mpmath at 40 digits: 3 * 2**-4194304 = 1.45273980297885272061646767932e-1262611
    assert str(up) == "1.4527398029788528E-1262611" and str(down) == "1.4527398029788527E-1262611"
    assert Fraction(down) <= x <= Fraction(up)


def test_decimal_display_never_unsafe():
    # anchors.md §6: sigma shown to 15 digits must be rounded up, never down
    sigma = Fraction("7.03182667558249144271")
    assert decimal_at_least(sigma, 15) == Decimal("7.03182667558250")
    assert decimal_at_most(sigma, 15) == Decimal("7.03182667558249")
    assert decimal_at_least(sympy.sqrt(2), 5) == Decimal("1.4143")
    assert decimal_at_most(-sympy.sqrt(2), 5) == Decimal("-1.4143")


def test_exact_context_traps_inexact():
    import decimal

    ctx = exact_decimal_context()
    assert ctx.multiply(Decimal("0.1"), Decimal("3")) == Decimal("0.3")
    with pytest.raises(decimal.Inexact):
        ctx.divide(Decimal(2), Decimal(3))


# --- invalid arguments (one table) ------------------------------------------------

BAD = [
    (float_at_least, (0.1,), InexactInput, "float"),
    (float_at_most, ("abc",), InvalidArgument, "not an exact number"),
    (float_at_least, (1, "float16"), InvalidArgument, "dtype='float16'"),
    (float_at_least, (mpmath.mpf("inf"),), InvalidArgument, "not finite"),
    (float_at_least, (mpmath.mpc(1, 1),), InvalidArgument, "not a real mpmath"),
    (float_at_least, (sympy.Symbol("x") + 1,), InvalidArgument, "free symbols"),
    (float_at_least, (Decimal("NaN"),), InvalidArgument, "not finite"),
    (decimal_at_least, (1, 0), InvalidArgument, "digits=0"),
    (decimal_at_most, (1, 2.0), InvalidArgument, "digits=2.0"),
    (decimal_at_least, (0.5, 3), InexactInput, "float"),
    (ceiling_context, (0,), InvalidArgument, "prec=0"),
]


@pytest.mark.parametrize("fn, args, error, text", BAD)
def test_invalid_arguments(fn, args, error, text):
    with pytest.raises(error, match=text):
        fn(*args)
