"""Interval enclosures: they contain a high-precision reference, and undecided stays undecided."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings, strategies as st
from mpmath import iv

from exactdp.errors import InexactInput, InvalidArgument, Undecided
from exactdp.numeric import intervals
from exactdp.numeric.intervals import (
    decide, enclose, erf, erfc, exact_interval, float_at_least_of, float_at_most_of,
    interval_of_sympy, interval_to_fractions, lgamma, log, log1p, normal_cdf, refine_until, sqrt,
)


def _reference(fn, x: Fraction, prec: int) -> Fraction:
    """``fn`` at ``x`` from mpmath's own (point) implementation at ``prec + 200`` bits."""
    with mpmath.workprec(prec + 200):
        value = fn(mpmath.mpf(x.numerator) / x.denominator)
        return intervals._to_fraction(value)


def _contains(interval, reference: Fraction, slack: Fraction = Fraction(0)) -> bool:
    lo, hi = interval_to_fractions(interval)
    return lo - slack <= reference <= hi + slack


def _check_point(fn_iv, fn_mp, x: Fraction, prec: int, rel_width: int):
    """Enclosure at ``prec`` bits contains the reference (computed 200 bits further, so its
    own error is far below the enclosure's width) and is narrow."""
    enc = enclose(lambda iv: fn_iv(exact_interval(x)), prec=prec)
    ref = _reference(fn_mp, x, prec)
    lo, hi = interval_to_fractions(enc)
    ref_err = abs(ref) / 2 ** (prec + 190)
    assert lo - ref_err <= ref <= hi + ref_err, (x, prec, float(lo), float(hi), float(ref))
    assert hi - lo <= abs(ref) / 2 ** (prec - rel_width), (x, prec, float((hi - lo) / ref))


dyadic_points = st.builds(lambda n, k: Fraction(n, 2**k), st.integers(-(2**20), 2**26), st.integers(0, 20))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(dyadic_points.filter(lambda t: -12 < t < 40), st.sampled_from([53, 64, 106, 200])),
                min_size=3, max_size=3))
def test_erfc_and_erf_enclose_the_reference(cases):
    for t, prec in cases:
        _check_point(erfc, mpmath.erfc, t, prec, rel_width=30)
        if t != 0:
            _check_point(erf, mpmath.erf, t, prec, rel_width=30)


@pytest.mark.parametrize("x", ["-300", "3000", "-40", "-37", "-20", "-8.5", "-3.4375", "-1", "0", "1/3", "2", "6", "9"])
@pytest.mark.parametrize("prec", [53, 106, 424])
def test_normal_cdf_far_tails(x, prec):
    x = Fraction(x)
    _check_point(normal_cdf, mpmath.ncdf, x, prec, rel_width=40)


def test_normal_cdf_deep_lower_tail_is_positive_and_accurate():
    # Φ(-40) ≈ 3.66e-350, below the smallest float64: the enclosure is still tight
    lo, hi = interval_to_fractions(enclose(lambda iv: normal_cdf(iv.mpf(-40)), prec=53))
    assert 0 < lo < hi < lo * (1 + Fraction(1, 2**40))
    with mpmath.workdps(40):
        assert mpmath.nstr(mpmath.mpf(lo.numerator) / lo.denominator, 10) == "3.655893541e-350"


def test_erfc_interval_arguments_use_monotonicity():
    enc = enclose(lambda iv: erfc(iv.mpf([1, 2])), prec=80)
    lo, hi = interval_to_fractions(enc)
    assert lo <= _reference(mpmath.erfc, Fraction(2), 80) and _reference(mpmath.erfc, Fraction(1), 80) <= hi
    assert hi - lo < Fraction(16, 100)  # erfc(1) - erfc(2) ≈ 0.1526


def test_log1p_small_arguments_keep_relative_accuracy():
    for x in [Fraction(1, 10**30), Fraction(-1, 10**20), Fraction(1, 17), Fraction(-3, 100), Fraction(5, 2)]:
        _check_point(log1p, mpmath.log1p, x, 80, rel_width=12)


@pytest.mark.parametrize("x", ["1/2", "1", "3/2", "2", "7", "1000", "1/1000", "10**6", "1.4616321449683623"])
@pytest.mark.parametrize("prec", [53, 106, 300])
def test_lgamma_encloses_reference(x, prec):
    # "1.4616321449683623" is taken as the float's exact (dyadic) value: a point interval
    x = Fraction(10**6) if x == "10**6" else Fraction(float(x)) if x.startswith("1.46") else Fraction(x)
    enc = enclose(lambda iv: lgamma(exact_interval(x)), prec=prec)
    ref = _reference(mpmath.loggamma, x, prec)
    lo, hi = interval_to_fractions(enc)
    slack = Fraction(max(abs(ref), 1)) / 2 ** (prec + 190)
    assert lo - slack <= ref <= hi + slack
    assert hi - lo <= Fraction(max(abs(ref), 1)) / 2 ** (prec - 16)


def test_lgamma_over_intervals_and_its_minimum():
    with mpmath.workprec(300):
        x0 = mpmath.findroot(mpmath.digamma, mpmath.mpf("1.46"))
        minimum = intervals._to_fraction(+mpmath.loggamma(x0))
    assert intervals._to_fraction(intervals._LGAMMA_MIN_LOWER) < minimum
    assert minimum - intervals._to_fraction(intervals._LGAMMA_MIN_LOWER) < Fraction(1, 10**44)
    lo, hi = interval_to_fractions(enclose(lambda iv: lgamma(iv.mpf([1, 2])), prec=80))
    assert lo <= minimum and lo > minimum - Fraction(1, 10**40) and 0 <= hi < Fraction(1, 10**20)
    lo, hi = interval_to_fractions(enclose(lambda iv: lgamma(iv.mpf([2, 3])), prec=80))
    assert lo <= 0 and abs(lo) < Fraction(1, 10**20) and Fraction(69314, 10**5) < hi < Fraction(69315, 10**5)


def test_high_precision_endpoints_are_read_exactly():
    # regression: mpmath.mpf(x.a) rounds an endpoint to 53 bits (to nearest), and
    # mpf.man_exp drops the sign; both once produced enclosures that missed the value
    lo, hi = interval_to_fractions(enclose(lambda iv: -iv.mpf(1) / 3, prec=200))
    assert lo < Fraction(-1, 3) < hi and hi - lo < Fraction(1, 2**198)
    assert float_at_least_of(lambda iv: normal_cdf(iv.mpf(-37))) == 5.725571222524577e-300
    assert float_at_most_of(lambda iv: normal_cdf(iv.mpf(-37))) == 5.7255712225245764e-300


def test_decide_answers_both_ways_and_refines():
    assert decide(lambda iv: iv.exp(1), ">", Fraction(2718281828, 10**9)) is True
    assert decide(lambda iv: iv.exp(1), "<=", Fraction(2718281828, 10**9)) is False
    # needs more than 53 bits: e - 2.718281828459045235360287 ≈ 4.7e-25
    assert decide(lambda iv: iv.exp(1), ">", Fraction("2.718281828459045235360287")) is True
    assert decide(lambda iv: iv.mpf(1) / 4, "==", Fraction(1, 4)) is True
    assert decide(lambda iv: iv.sqrt(2), "==", Fraction(3, 2)) is False


def test_undecided_is_never_holds():
    # log(8)/log(2) is exactly 3: no enclosure can decide "<= 3"
    with pytest.raises(Undecided, match="not decided at 424 bits"):
        decide(lambda iv: iv.log(8) / iv.log(2), "<=", 3, max_prec=424)
    with pytest.raises(Undecided):
        refine_until(lambda iv: iv.sqrt(2), lambda lo, hi: None, max_prec=106)


def test_refine_until_passes_exact_endpoints():
    seen = []

    def done(lo, hi):
        seen.append(hi - lo)
        return (lo, hi) if hi - lo < Fraction(1, 2**150) else None

    lo, hi = refine_until(lambda iv: iv.pi, done)
    pi_down = Fraction(314159265358979323846264338327950288419716939937510, 10**50)  # 50 digits, truncated
    assert pi_down < lo < hi < pi_down + Fraction(1, 10**50)
    assert len(seen) == 3  # 53, 106 and 212 bits


def test_float_of_directions():
    assert float_at_least_of(lambda iv: iv.sqrt(2)) == 1.4142135623730951
    assert float_at_most_of(lambda iv: iv.sqrt(2)) == 1.414213562373095
    assert float_at_least_of(lambda iv: iv.mpf(1) / 3, "float32") == 0.3333333432674408


SYMPY_CASES = [
    sympy.sqrt(2) * sympy.log(3),
    sympy.exp(-sympy.Rational(1, 3)) + sympy.pi,
    sympy.sqrt(2 * sympy.log(sympy.Rational(125000))) * 2,  # the classic-Gaussian shape
    sympy.erfc(sympy.Rational(5, 2)) / 2,
    sympy.Rational(3, 7) ** -3 - sympy.E,
    2 ** sympy.Rational(1, 3),
    sympy.loggamma(sympy.Rational(7, 2)),
    -sympy.sqrt(2),
]


@pytest.mark.parametrize("expr", SYMPY_CASES, ids=str)
def test_interval_of_sympy_encloses_evalf(expr):
    lo, hi = interval_to_fractions(interval_of_sympy(expr, prec=100))
    ref = sympy.Rational(str(expr.evalf(60)))
    assert lo <= Fraction(int(ref.p), int(ref.q)) + abs(lo) / 10**55
    assert Fraction(int(ref.p), int(ref.q)) - abs(lo) / 10**55 <= hi
    assert hi - lo < abs(lo) / 2**90


def test_random_points_enclosed_at_several_precisions():
    """A seeded sweep over the ranges the Gaussian calibration uses."""
    rng = random.Random(7)
    for _ in range(40):
        t = Fraction(rng.randrange(-10**6, 10**6), 10**5)  # -10 .. 10
        prec = rng.choice([53, 106, 212])
        _check_point(normal_cdf, mpmath.ncdf, t, prec, rel_width=50)


@pytest.mark.parametrize(
    "fn, args, error, text",
    [
        (decide, (lambda iv: iv.mpf(1), "~", 1), InvalidArgument, "relation='~'"),
        (decide, (lambda iv: iv.mpf(1), "<", 0.5), InexactInput, "float"),
        (lambda: enclose(lambda iv: iv.mpf(1), prec=1), (), InvalidArgument, "prec=1"),
        (lambda: refine_until(lambda iv: 1, lambda a, b: 1, max_prec=0), (), InvalidArgument, "max_prec=0"),
        (interval_to_fractions, (3,), InvalidArgument, "not an mpmath.iv interval"),
        (lambda: interval_to_fractions(iv.mpf([1, mpmath.inf])), (), InvalidArgument, "not finite"),
        (lambda: interval_to_fractions(enclose(lambda iv: iv.mpf(2) ** (2**23))), (), InvalidArgument,
         "too large to hold as an exact Fraction"),
        (lambda: enclose(lambda iv: log(iv.mpf([-1, 1]))), (), InvalidArgument, "log is defined for positive"),
        (lambda: enclose(lambda iv: sqrt(iv.mpf([-1, 1]))), (), InvalidArgument, "nonnegative"),
        (lambda: enclose(lambda iv: log1p(iv.mpf(-1))), (), InvalidArgument, "x > -1"),
        (lambda: enclose(lambda iv: lgamma(iv.mpf(0))), (), InvalidArgument, "positive arguments"),
        (lambda: enclose(lambda iv: lgamma(iv.mpf([1, mpmath.inf]))), (), InvalidArgument, "unbounded"),
        (interval_of_sympy, (sympy.Float(0.5),), InvalidArgument, "float"),
        (interval_of_sympy, (sympy.Symbol("x"),), InvalidArgument, "free symbols"),
        (interval_of_sympy, (sympy.sin(1),), InvalidArgument, "uses sin"),
        (interval_of_sympy, ("2",), InvalidArgument, "not a SymPy expression"),
    ],
)
def test_invalid_arguments(fn, args, error, text):
    with pytest.raises(error, match=text):
        fn(*args)


def test_endpoints_beyond_the_exact_range_are_rounded_outward():
    tiny = mpmath.mpf(2) ** -5_000_000
    x = mpmath.iv.mpf([tiny, 3 * tiny])
    assert interval_to_fractions(x) == (0, Fraction(1, 1 << 4194304))
    x = mpmath.iv.mpf([-3 * tiny, -tiny])
    assert interval_to_fractions(x) == (-Fraction(1, 1 << 4194304), 0)
    x = mpmath.iv.mpf([-tiny, 0.25])  # an ordinary endpoint is kept exactly
    assert interval_to_fractions(x) == (-Fraction(1, 1 << 4194304), Fraction(1, 4))
    with pytest.raises(InvalidArgument, match="too large to hold"):
        interval_to_fractions(mpmath.iv.mpf([1, mpmath.mpf(2) ** 5_000_000]))
