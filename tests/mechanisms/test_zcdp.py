"""zCDP: exact rho, and rho -> (epsilon, delta) never below the true bound."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.accounting.zcdp import cks_epsilon_at, epsilon_of_rho, rho_of_epsilon, rho_of_sigma


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _cks_reference(rho: Fraction, delta: Fraction, alpha: Fraction) -> mpmath.mpf:
    """The CKS20 bound at alpha, written in its first form (from delta, not epsilon), solved
    for epsilon in mpmath at 300 bits: delta = exp((a-1)(a*rho-eps)) / (a-1) * (1-1/a)**a."""
    with mpmath.workprec(300):
        a, r, d = _mp(alpha), _mp(rho), _mp(delta)
        # log d = (a-1)(a r - eps) - log(a-1) + a log(1-1/a)
        return a * r - (mpmath.log(d) + mpmath.log(a - 1) - a * mpmath.log(1 - 1 / a)) / (a - 1)


def test_anchor_vectors():
    cks = epsilon_of_rho("0.5", "1e-6")
    assert f"{cks.safe_float:.12g}" == "5.22153444453"
    assert cks.safe_float == 5.221534444530169  # Steinke's cdp_eps(0.5, 1e-6) prints this
    assert cks.extra["method"] == "cks" and cks.extra["alpha"] > 1
    lo, hi = cks.exact
    assert lo <= hi and Fraction(cks.safe_float) >= hi
    bs = epsilon_of_rho("0.5", "1e-6", method="bun-steinke")
    assert f"{bs.safe_float:.12g}" == "5.75652176976"
    assert bs.exact == sympy.Rational(1, 2) + sympy.sqrt(2) * sympy.sqrt(sympy.log(1000000))


def test_rho_exact():
    assert rho_of_sigma(2).exact == Fraction(1, 8)
    assert rho_of_sigma("0.5", sensitivity=3).exact == Fraction(18)
    r = rho_of_sigma(0.1)  # the float's exact value: a hair above 1/10, so rho a hair below 50
    assert r.exact == 1 / (2 * Fraction(0.1) ** 2) and r.exact < 50
    assert r.safe_float == 50.0
    assert rho_of_epsilon("0.1").exact == Fraction(1, 200)
    assert rho_of_epsilon(3).safe_float == 4.5


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=1e-100, max_value=1e100),
                          st.builds(Fraction, st.integers(1, 10**9), st.integers(1, 10**6))),
                min_size=20, max_size=20))
def test_rho_of_sigma_rounds_up(cases):  # 1,000 (sigma, sensitivity) pairs
    for sigma, sens in cases:
        r = rho_of_sigma(sigma, sens)
        assert r.exact == sens**2 / (2 * Fraction(sigma) ** 2)
        assert Fraction(r.safe_float) >= r.exact > Fraction(math.nextafter(r.safe_float, 0))


def test_cks_against_mpmath_and_below_bun_steinke():
    rng = random.Random(2020)
    for _ in range(25):
        rho = Fraction(rng.randrange(1, 10**6), 10 ** rng.randrange(1, 8))
        delta = Fraction(rng.randrange(1, 10), 10 ** rng.randrange(2, 60))
        r = epsilon_of_rho(rho, delta)
        ref = _cks_reference(rho, delta, r.extra["alpha"])
        with mpmath.workprec(300):
            assert mpmath.mpf(r.safe_float) >= ref > mpmath.mpf(math.nextafter(r.safe_float, 0))
            assert _mp(r.exact[0]) <= ref <= _mp(r.exact[1])
        bs = epsilon_of_rho(rho, delta, method="bun-steinke")
        assert r.safe_float <= bs.safe_float  # the CKS bound is never worse
        # the chosen alpha is near-optimal: no better at a few others
        for factor in (Fraction(1, 2), Fraction(2)):
            other = 1 + (r.extra["alpha"] - 1) * factor
            assert cks_epsilon_at(rho, delta, other).safe_float >= r.safe_float


def test_cks_large_delta_is_clamped_at_zero():
    # the raw bound at delta = 0.9 is about -1.75: reported as 0 (as Steinke's cdp_eps does)
    r = epsilon_of_rho("0.5", "0.9")
    assert r.safe_float == 0.0 and r.exact == (Fraction(0), Fraction(0))
    assert epsilon_of_rho("0.5", "0.9", method="bun-steinke").safe_float > 0


def test_bun_steinke_rounds_up_against_mpmath():
    rng = random.Random(2016)
    for _ in range(100):
        rho = Fraction(rng.randrange(1, 10**6), 10 ** rng.randrange(1, 8))
        delta = Fraction(rng.randrange(1, 10), 10 ** rng.randrange(2, 300))
        r = epsilon_of_rho(rho, delta, method="bun-steinke")
        with mpmath.workprec(300):
            ref = _mp(rho) + 2 * mpmath.sqrt(_mp(rho) * mpmath.log(1 / _mp(delta)))
            assert mpmath.mpf(r.safe_float) >= ref > mpmath.mpf(math.nextafter(r.safe_float, 0))


def test_cks_any_alpha_is_a_valid_bound():
    assert cks_epsilon_at("0.5", "1e-6", 7).safe_float == 5.324116054990903
    assert cks_epsilon_at("0.5", "1e-6", "1.5").safe_float > 5.221534444530169
    with mpmath.workprec(300):
        assert mpmath.mpf(cks_epsilon_at("0.5", "1e-6", 7).safe_float) >= _cks_reference(
            Fraction(1, 2), Fraction(1, 10**6), Fraction(7))


@pytest.mark.parametrize(
    "fn, args, error, text",
    [
        (epsilon_of_rho, ("0.5", "1e-6", "renyi"), InvalidArgument, "method='renyi'"),
        (epsilon_of_rho, ("0", "1e-6"), InvalidArgument, "rho='0' is not positive"),
        (epsilon_of_rho, ("0.5", "0"), InvalidArgument, "delta='0'"),
        (epsilon_of_rho, (0.5, "1e-6"), InexactInput, "rho=0.5 is a float"),
        (cks_epsilon_at, ("0.5", "1e-6", 1), InvalidArgument, "alpha=1 is not > 1"),
        (rho_of_sigma, (0.0,), InvalidArgument, "sigma=0.0 is not positive"),
        (rho_of_sigma, ("1", "-2"), InvalidArgument, "sensitivity='-2'"),
        (rho_of_epsilon, ("-1",), InvalidArgument, "epsilon='-1'"),
    ],
)
def test_invalid_arguments(fn, args, error, text):
    with pytest.raises(error, match=text):
        fn(*args)


# --- large rho: the best alpha is 1 + about sqrt(ln(1/delta)/rho) ---------------------


def _cks_reference_t(rho: Fraction, delta: Fraction, t: Fraction, prec: int = 4000) -> mpmath.mpf:
    """The CKS20 bound at alpha = 1 + t, max(0, .), in mpmath at ``prec`` bits (enough that
    1 + t is not 1 for t down to 1e-150)."""
    with mpmath.workprec(prec):
        tt, r, d = _mp(t), _mp(rho), _mp(delta)
        a = 1 + tt
        assert a > 1
        return max(mpmath.mpf(0), a * r + (-mpmath.log(d) + tt * mpmath.log(1 - 1 / a) - mpmath.log(a)) / tt)


@pytest.mark.parametrize("rho", ["1e36", "1e40", "1e300"])
def test_cks_at_huge_rho_is_finite_safe_and_not_above_bun_steinke(rho):
    # was: ZeroDivisionError (1e40 .. 1e300) or "log1p ... x=-1" (1e36): alpha = 1 + exp(u)
    # rounded to exactly 1 at 64 bits / in the float
    delta = Fraction(1, 10**6)
    r = epsilon_of_rho(rho, delta)
    bs = epsilon_of_rho(rho, delta, method="bun-steinke")
    assert math.isfinite(r.safe_float) and r.safe_float <= bs.safe_float
    with mpmath.workprec(4000):
        bs_ref = _mp(Fraction(rho)) + 2 * mpmath.sqrt(_mp(Fraction(rho)) * mpmath.log(1 / _mp(delta)))
        if r.extra["method"] == "cks":
            alpha = r.extra["alpha"]
            assert isinstance(alpha, Fraction) and alpha > 1
            ref = _cks_reference_t(Fraction(rho), delta, alpha - 1)
            assert _mp(r.exact[0]) <= ref <= _mp(r.exact[1])
            assert ref < bs_ref  # strictly tighter in exact terms, equal once rounded to floats
        else:  # the documented fallback
            assert "Canonne-Kamath-Steinke" in r.notes
            ref = bs_ref
        assert mpmath.mpf(r.safe_float) >= ref > mpmath.mpf(math.nextafter(r.safe_float, 0))


def test_cks_alpha_next_to_one_is_enclosed():
    # a user's alpha = 1 + 2**-200: computed from alpha - 1, not from a rounded alpha
    t = Fraction(1, 2**200)
    r = cks_epsilon_at("1e60", "1e-6", 1 + t)
    ref = _cks_reference_t(Fraction(10**60), Fraction(1, 10**6), t)
    with mpmath.workprec(4000):
        assert mpmath.mpf(r.safe_float) >= ref > mpmath.mpf(math.nextafter(r.safe_float, 0))


@pytest.mark.parametrize("rho", ["1e36", "1e40"])
def test_cli_zcdp_to_approx_huge_rho(rho):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "exactdp", "calibrate", "zcdp-to-approx", "--rho", rho,
                          "--delta", "1e-6"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "safe float" in out.stdout
