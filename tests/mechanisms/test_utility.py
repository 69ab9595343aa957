"""Utility next to privacy: E|noise| and Var against independent computations (SymPy
integration, brute-force sums with rigorous tails, 40-digit mpmath), the noisy mean of n
Laplace reports, the error table, and bad arguments in one table."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.calibration.utility import (
    discrete_gaussian_error,
    discrete_laplace_error,
    error_table,
    gaussian_error,
    laplace_error,
    laplace_sum_abs_coefficient,
    noisy_mean_error,
)
from exactdp.numeric.intervals import (
    enclose,
    exact_interval,
    interval_of_sympy,
    interval_to_fractions,
)
from exactdp.registry.seed004 import typical_sensitivities

MP = mpmath.mp.clone()
MP.dps = 40


def enclosure(expr, prec=200):
    return interval_to_fractions(interval_of_sympy(sympy.sympify(expr), prec=prec))


# --- continuous noise ------------------------------------------------------------------


def test_laplace_error_is_b_and_two_b_squared():
    r = laplace_error("3/2")
    assert r.expected_abs == Fraction(3, 2) and r.variance == Fraction(9, 2)
    b = sympy.Symbol("b", positive=True)
    x = sympy.Symbol("x", real=True)
    density = sympy.exp(-x / b) / (2 * b)  # on x >= 0, symmetric
    assert sympy.simplify(2 * sympy.integrate(x * density, (x, 0, sympy.oo)) - b) == 0
    assert sympy.simplify(2 * sympy.integrate(x**2 * density, (x, 0, sympy.oo)) - 2 * b**2) == 0


def test_gaussian_error_against_integration():
    r = gaussian_error(2)
    assert r.expected_abs == 2 * sympy.sqrt(2) / sympy.sqrt(sympy.pi) and r.variance == 4
    x = sympy.Symbol("x", real=True)
    density = sympy.exp(-x**2 / 8) / (2 * sympy.sqrt(2 * sympy.pi))
    assert sympy.simplify(2 * sympy.integrate(x * density, (x, 0, sympy.oo)) - r.expected_abs) == 0


# --- discrete Laplace: closed forms against brute-force sums with a tail bound --------------


def brute_discrete_laplace(t: Fraction, terms: int, prec: int = 120):
    """E|X| and E X^2 by summing |x| <= terms, plus [0, tail] with a geometric tail bound:
    for x > N the terms x^p q^x fall by at least ((N+2)/(N+1))^p q < 1."""

    def fn(iv, p):
        q = iv.exp(-1 / exact_interval(t))
        total, term = iv.mpf(0), q
        for x in range(1, terms + 1):
            total += x**p * term
            term *= q
        n = terms
        first = iv.mpf(n + 1) ** p * q ** (n + 1)
        r = (iv.mpf(n + 2) / (n + 1)) ** p * q
        assert r.b < 1
        norm = (1 - q) / (1 + q)
        return 2 * norm * (total + iv.mpf([0, (first / (1 - r)).b]))

    return [interval_to_fractions(enclose(lambda iv, p=p: fn(iv, p), prec=prec)) for p in (1, 2)]


@pytest.mark.parametrize("t", [Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(10)])
def test_discrete_laplace_closed_forms_against_brute_force(t):
    r = discrete_laplace_error(t)
    (e_lo, e_hi), (v_lo, v_hi) = brute_discrete_laplace(t, terms=int(60 * t) + 60)
    c_lo, c_hi = enclosure(r.expected_abs)
    assert e_lo <= c_hi and c_lo <= e_hi  # the enclosures overlap
    assert e_hi - e_lo < Fraction(1, 10**15) * e_hi
    c_lo, c_hi = enclosure(r.variance)
    assert v_lo <= c_hi and c_lo <= v_hi
    assert v_hi - v_lo < Fraction(1, 10**15) * v_hi


# --- discrete Gaussian ------------------------------------------------------------------


@pytest.mark.parametrize("s2", [Fraction(1, 4), Fraction(1), Fraction(10), Fraction(400)])
def test_discrete_gaussian_error_contains_a_40_digit_reference(s2):
    r = discrete_gaussian_error(s2)
    s = MP.mpf(s2.numerator) / s2.denominator
    radius = int(MP.sqrt(s) * 30) + 10
    w = [MP.exp(-MP.mpf(x) ** 2 / (2 * s)) for x in range(radius)]
    z = w[0] + 2 * MP.fsum(w[1:])
    e_ref = 2 * MP.fsum(x * w[x] for x in range(radius)) / z
    v_ref = 2 * MP.fsum(x * x * w[x] for x in range(radius)) / z
    for (lo, hi), ref in ((r.expected_abs, e_ref), (r.variance, v_ref)):
        man, exp = ref.man_exp
        ref = Fraction(int(man)) * Fraction(2) ** int(exp)
        slack = ref / 10**35
        assert lo - slack <= ref <= hi + slack
        assert hi - lo <= hi / 2**49
    # Var N_Z(0, s^2) < s^2 (CKS20); the gap is about e^{-2 pi^2 s^2}, below the width for s^2 >= 10
    assert r.variance[0] < s2
    if s2 <= 1:
        assert r.variance[1] < s2


# --- the noisy mean of n Laplace reports ------------------------------------------------------


def laplace_sum_density(n: int, b):
    """The density of L_1 + ... + L_n on s > 0, by SymPy convolution (independent of the
    Gamma-difference derivation the coefficient comes from)."""
    s = sympy.Symbol("s", positive=True)
    x = sympy.Symbol("x", real=True)
    f1 = sympy.Lambda(s, sympy.exp(-s / b) / (2 * b))
    fn = f1
    for _ in range(n - 1):
        # f_{k+1}(s) = int f_k(|x|) f_1(|s - x|) dx, split at 0 and s
        expr = (sympy.integrate(fn(-x) * f1(s - x), (x, -sympy.oo, 0))
                + sympy.integrate(fn(x) * f1(s - x), (x, 0, s))
                + sympy.integrate(fn(x) * f1(x - s), (x, s, sympy.oo)))
        fn = sympy.Lambda(s, sympy.simplify(expr))
    return s, fn(s)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_expected_abs_of_a_laplace_sum_against_sympy_integration(n):
    b = sympy.Symbol("b", positive=True)
    s, density = laplace_sum_density(n, b)
    assert sympy.simplify(2 * sympy.integrate(density, (s, 0, sympy.oo)) - 1) == 0
    e = sympy.simplify(2 * sympy.integrate(s * density, (s, 0, sympy.oo)))
    c = laplace_sum_abs_coefficient(n)
    assert sympy.simplify(e - sympy.Rational(c.numerator, c.denominator) * b) == 0
    var = sympy.simplify(2 * sympy.integrate(s**2 * density, (s, 0, sympy.oo)))
    assert sympy.simplify(var - 2 * n * b**2) == 0


def test_coefficients_and_their_growth():
    assert [laplace_sum_abs_coefficient(n) for n in (1, 2, 3)] == [1, Fraction(3, 2), Fraction(15, 8)]
    c = laplace_sum_abs_coefficient(500)
    # central limit: c_n -> 2 sqrt(n/pi) from below
    assert Fraction(252, 10) < c < 2 * Fraction(math.isqrt(500 * 10**20), 10**10) / Fraction(17724538509, 10**10)


def test_noisy_mean_of_500_reports():
    r = noisy_mean_error("1/2", 500)
    assert r.variance == 2 * Fraction(1, 4) / 500
    assert r.expected_abs == laplace_sum_abs_coefficient(500) / 1000
    lo, hi = r.enclosure()
    assert Fraction("0.025225018") <= lo <= hi <= Fraction("0.025225019")


def test_noisy_mean_with_an_irrational_scale_stays_exact():
    b = 11 / sympy.sqrt(sympy.pi)
    r = noisy_mean_error(b, 2)
    assert r.expected_abs == sympy.Rational(3, 4) * b and r.variance == b**2


def test_error_table_for_the_seed():
    t = error_table(["1/10", 1], typical_sensitivities(), n=500)
    assert len(t.rows) == 6
    label, eps, exact, lo, hi = t.rows[1]
    assert label == "E[Delta f]" and eps == 1 and lo <= hi
    elo, ehi = enclosure(exact)
    assert lo <= ehi and elo <= hi
    assert "E[Delta f] + 2 sigma" in t.table()


def test_the_error_plot_lives_in_plotting_and_checks_its_target_before_computing(tmp_path, monkeypatch):
    # issue 19: mechanisms/calibration/utility.py no longer draws (it imported checkers/ to check the
    # target, an import from a lower layer up); the figure is exactdp.plotting's
    from exactdp.mechanisms.calibration import utility
    from exactdp.plotting import plot_error_vs_epsilon

    monkeypatch.setattr(utility, "error_table", lambda *a, **k: pytest.fail("computed first"))
    with pytest.raises(InvalidArgument, match="does not end in"):
        plot_error_vs_epsilon(str(tmp_path / "error.txt"))
    with pytest.raises(InvalidArgument, match="does not exist"):
        plot_error_vs_epsilon(str(tmp_path / "missing" / "error.png"))


# --- bad arguments ----------------------------------------------------------------------

BAD = [
    (lambda: laplace_error(-1), InvalidArgument, "not positive"),
    (lambda: laplace_error(0.5), InexactInput, "float"),
    (lambda: gaussian_error(-2), InvalidArgument, "not positive"),
    (lambda: gaussian_error(sympy.Float(2.0)), InvalidArgument, "float"),
    (lambda: discrete_laplace_error(0), InvalidArgument, "not positive"),
    (lambda: discrete_gaussian_error(-1), InvalidArgument, "not positive"),
    (lambda: discrete_gaussian_error(10**12, max_terms=1000), TooLarge, "max_terms"),
    (lambda: laplace_sum_abs_coefficient(0), InvalidArgument, "below 1"),
    (lambda: laplace_sum_abs_coefficient(2.0), InvalidArgument, "not an int"),
    (lambda: laplace_sum_abs_coefficient(10**9), TooLarge, "max_n"),
    (lambda: noisy_mean_error(1, 0), InvalidArgument, "below 1"),
    (lambda: noisy_mean_error(1, 10**100), TooLarge, "reports in the noisy mean"),
    (lambda: error_table([]), InvalidArgument, "empty"),
    (lambda: error_table(["-1"]), InvalidArgument, "not positive"),
    (lambda: error_table([0.1]), InexactInput, "float"),
    (lambda: error_table("1"), InvalidArgument, "not a sequence"),
    (lambda: error_table(["1"] * 10_001), TooLarge, "epsilons"),
    (lambda: error_table(["1"], sensitivities={}), InvalidArgument, "non-empty dict"),
    (lambda: error_table(["1"]), InvalidArgument, "sensitivities=None: pass a dict"),
]


@pytest.mark.parametrize("call, error, words", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_arguments(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)
