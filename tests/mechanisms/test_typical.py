"""Seed 004: the height mixture, E|h - h'| against its closed form and an independent
quadrature, the true epsilon of a typical sensitivity on [0, 300], the sensitivity sampler's
random-DP guarantee, and bad arguments in one table."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.calibration.typical import (
    GaussianMixture,
    exceedance_probability,
    expected_abs_normal,
    expected_sensitivity,
    sensitivity_sampler_guarantee,
    sensitivity_sampler_plan,
    true_epsilon,
)
from exactdp.numeric.intervals import interval_of_sympy, interval_to_fractions
from exactdp.registry.seed004 import (
    SEED_DOMAIN,
    SEED_SAMPLED_SENSITIVITY,
    check_seed_closed_form,
    height_mixture,
    seed_closed_form,
    typical_sensitivities,
)

HEIGHTS = height_mixture()

MP = mpmath.mp.clone()
MP.dps = 40


def enclosure(expr, prec=200):
    return interval_to_fractions(interval_of_sympy(sympy.sympify(expr), prec=prec))


def mp_fraction(x) -> Fraction:
    man, exp = MP.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def near(expr, reference, rel=Fraction(1, 10**30)) -> bool:
    lo, hi = enclosure(expr)
    ref = mp_fraction(reference)
    slack = abs(ref) * rel
    return lo - slack <= ref <= hi + slack


# --- the mixture -----------------------------------------------------------------------


def test_seed_mixture_mean_and_variance_are_exact():
    h = height_mixture()
    assert h.weights == (Fraction(1, 2), Fraction(1, 2))
    assert h.sigmas == (Fraction(7), Fraction(13, 2))
    assert h.mean == 170
    assert h.variance == Fraction(877, 8)
    # the seed's formula: 1/2 (sigma_M^2 + sigma_F^2) + 1/4 (mu_M - mu_F)^2
    assert h.variance == Fraction(1, 2) * (49 + Fraction(169, 4)) + Fraction(1, 4) * 16**2
    assert h.sigma == sympy.sqrt(sympy.Rational(877, 8))


def test_variance_of_a_three_component_mixture_against_the_definition():
    m = GaussianMixture.of([("1/6", -1, 1), ("1/3", 2, "1/2"), ("1/2", 5, 3)])
    mean = Fraction(1, 6) * -1 + Fraction(1, 3) * 2 + Fraction(1, 2) * 5
    second = Fraction(1, 6) * (1 + 1) + Fraction(1, 3) * (Fraction(1, 4) + 4) + Fraction(1, 2) * (9 + 25)
    assert m.mean == mean and m.variance == second - mean**2


# --- E|h - h'| -----------------------------------------------------------------------------


def test_expected_abs_normal_is_the_textbook_formula():
    mu, s, e = expected_abs_normal()
    assert sympy.simplify(e.subs(mu, 0) - s * sympy.sqrt(2 / sympy.pi)) == 0
    # a numeric spot check against quadrature, away from mu = 0
    value = e.subs({mu: sympy.Rational(3, 2), s: 2})
    ref = MP.quad(lambda x: abs(x) * MP.npdf(x, 1.5, 2), [-MP.inf, 0, MP.inf])
    assert near(value, ref)


def test_derived_expected_sensitivity_equals_the_seeds_closed_form_symbolically():
    assert check_seed_closed_form() == 0


def test_seed_expected_sensitivity_is_11_99_and_matches_quadrature():
    e = expected_sensitivity(HEIGHTS)
    lo, hi = enclosure(e)
    assert Fraction("11.99392058837") < lo <= hi < Fraction("11.99392058838")
    assert round(float(lo), 2) == 11.99  # the seed's printed value
    # the seed's closed form at its numbers, enclosed independently of the derivation
    assert enclosure(seed_closed_form(178, 162, 7, "13/2"))[0] <= hi
    assert enclosure(seed_closed_form(178, 162, 7, "13/2"))[1] >= lo

    # independent reference: h - h' given the components is N(d, v); E|N(d, v)| by quadrature
    def abs_normal(d, v):
        return MP.quad(lambda x: abs(x) * MP.npdf(x, d, MP.sqrt(v)), [-MP.inf, 0, MP.inf])

    ref = (abs_normal(0, 98) + abs_normal(0, MP.mpf(169) / 2)) / 4 + abs_normal(16, MP.mpf(365) / 4) / 2
    assert near(e, ref, rel=Fraction(1, 10**25))


def test_single_gaussian_expected_difference():
    # h - h' ~ N(0, 2 s^2): E|h - h'| = 2 s / sqrt(pi)
    assert expected_sensitivity(GaussianMixture.of([(1, 10, 3)])) == 6 / sympy.sqrt(sympy.pi)


def test_typical_sensitivities_add_one_and_two_sigma():
    t = typical_sensitivities()
    e, sigma = expected_sensitivity(HEIGHTS), sympy.sqrt(sympy.Rational(877, 8))
    assert sympy.simplify(t["E[Delta f] + sigma"] - e - sigma) == 0
    assert sympy.simplify(t["E[Delta f] + 2 sigma"] - e - 2 * sigma) == 0
    assert Fraction("22.4641") < enclosure(t["E[Delta f] + sigma"])[0] < Fraction("22.4642")


def test_exceedance_probability_of_the_sampled_sensitivity_against_quadrature():
    p = exceedance_probability(SEED_SAMPLED_SENSITIVITY, HEIGHTS)

    def tail(t, d, v):
        sd = MP.sqrt(v)
        return MP.ncdf(-(t - d) / sd) + MP.ncdf(-(t + d) / sd)

    t = MP.mpf(4738) / 100
    ref = (tail(t, 0, 98) + tail(t, 0, MP.mpf(169) / 2)) / 4 + tail(t, 16, MP.mpf(365) / 4) / 2
    assert near(p, ref)
    assert Fraction(25, 10**5) < enclosure(p)[0] and enclosure(p)[1] < Fraction(26, 10**5)
    assert exceedance_probability(0, HEIGHTS) == 1


# --- the true epsilon ----------------------------------------------------------------------


def test_true_epsilon_of_the_expected_sensitivity_is_300_epsilon_over_it():
    e = expected_sensitivity(HEIGHTS)
    r = true_epsilon(e, "1/10", SEED_DOMAIN)
    assert sympy.simplify(r.exact - 30 / e) == 0
    assert sympy.simplify(r.factor - 300 / e) == 0
    assert r.verdict == "violated"
    assert r.witness == {"x": (0,), "x_prime": (300,), "output": 300}
    lo, hi = enclosure(r.factor)
    assert Fraction("25.0126") < lo <= hi < Fraction("25.0127")
    assert "violated" in r.statement() and r.to_dict()["verdict"] == "violated"


@pytest.mark.parametrize("label", ["E[Delta f] + sigma", "E[Delta f] + 2 sigma"])
def test_true_epsilon_with_one_and_two_sigma_still_violated(label):
    s = typical_sensitivities()[label]
    r = true_epsilon(s, 1, SEED_DOMAIN)
    assert sympy.simplify(r.exact - 300 / s) == 0 and r.verdict == "violated"


def test_true_epsilon_of_the_sampled_sensitivity_is_exactly_300_over_47_38():
    r = true_epsilon(SEED_SAMPLED_SENSITIVITY, "1/2", SEED_DOMAIN)
    assert r.exact == sympy.Rational(7500, 2369)
    assert r.factor == sympy.Rational(300 * 100, 4738)
    assert r.verdict == "violated"


def test_true_epsilon_holds_when_the_sensitivity_covers_the_domain():
    assert true_epsilon(300, 1, SEED_DOMAIN).verdict == "holds-tight"
    assert true_epsilon(400, 1, (0, 300)).verdict == "holds"
    assert true_epsilon(2, 1, domain=(0, 1)).exact == sympy.Rational(1, 2)


# --- the sensitivity sampler -----------------------------------------------------------


def test_sampler_guarantee_is_random_dp_with_the_papers_gamma():
    g = sensitivity_sampler_guarantee(100, 90, rho="1/100", epsilon="1/2")
    expected = sympy.Rational(1, 100) + sympy.sqrt(sympy.log(100) / 200) + sympy.Rational(1, 10)
    assert sympy.simplify(g.gamma - expected) == 0
    assert g.gamma_upper >= enclosure(expected)[1]
    assert g.gamma_upper - enclosure(expected)[1] < Fraction(1, 10**25)
    assert g.is_differential_privacy is False and not g.vacuous
    text = g.statement()
    assert "random differential privacy" in text and "NOT epsilon = 1/2-DP" in text


def test_sampler_plan_for_the_seeds_gamma_matches_diffpriv():
    p = sensitivity_sampler_plan("0.05")
    assert (p.m, p.k) == (1305, 1305)  # diffpriv's configuration (lambert W_{-1})
    assert p.gamma_upper <= Fraction(1, 20)
    # shfl takes the real part of lambertw's branch 1 instead: m = k = 1325, also <= 0.05
    shfl = sensitivity_sampler_guarantee(1325, 1325)
    assert shfl.gamma_upper <= Fraction(1, 20)


def test_a_small_sample_gives_a_vacuous_guarantee():
    g = sensitivity_sampler_guarantee(1, 1, rho="1/2")  # gamma = 1/2 + sqrt(ln 2 / 2) > 1
    assert g.vacuous and "nothing is guaranteed" in g.statement()
    assert sensitivity_sampler_guarantee(10, 1, rho="1/2").vacuous


# --- bad arguments ----------------------------------------------------------------------

BAD = [
    (lambda: GaussianMixture.of([("1/2", 178, -7), ("1/2", 162, 6)]), InvalidArgument, "sigma[0]"),
    (lambda: GaussianMixture.of([("1/2", 178, 7.0), ("1/2", 162, 6)]), InexactInput, "float"),
    (lambda: GaussianMixture.of([("1/2", 178, 7), ("1/3", 162, 6)]), InvalidArgument, "sum to 5/6"),
    (lambda: GaussianMixture.of([]), InvalidArgument, "empty"),
    (lambda: GaussianMixture.of([(1, 2)]), InvalidArgument, "triple"),
    (lambda: GaussianMixture.of([(Fraction(1, 2000), 0, 1)] * 2000), TooLarge, "mixture components"),
    (lambda: expected_sensitivity("heights"), InvalidArgument, "not a GaussianMixture"),
    (lambda: height_mixture(sigma_f=6.5), InexactInput, "float"),
    (lambda: true_epsilon(11.99, 1, SEED_DOMAIN), InexactInput, "float"),
    (lambda: true_epsilon(-1, 1, SEED_DOMAIN), InvalidArgument, "not positive"),
    (lambda: true_epsilon(10, 0, SEED_DOMAIN), InvalidArgument, "not positive"),
    (lambda: true_epsilon(10, 1, 300), InvalidArgument, "not a pair (lower, upper)"),
    (lambda: true_epsilon(10, 1, domain=(300, 0)), InvalidArgument, "Cannot have domain upper"),
    (lambda: true_epsilon(sympy.Float(1.5), 1, SEED_DOMAIN), InvalidArgument, "float"),
    (lambda: exceedance_probability(-1, HEIGHTS), InvalidArgument, "negative"),
    (lambda: exceedance_probability(1, "heights"), InvalidArgument, "not a GaussianMixture"),
    (lambda: sensitivity_sampler_guarantee(0, 1), InvalidArgument, "below 1"),
    (lambda: sensitivity_sampler_guarantee(10, 11), InvalidArgument, "above m=10"),
    (lambda: sensitivity_sampler_guarantee(10, 5, rho=1), InvalidArgument, "strictly between"),
    (lambda: sensitivity_sampler_guarantee(10, 5, rho=0.5), InexactInput, "float"),
    (lambda: sensitivity_sampler_guarantee(10**13, 5), TooLarge, "sample size"),
    (lambda: sensitivity_sampler_guarantee(10.0, 5), InvalidArgument, "not an int"),
    (lambda: sensitivity_sampler_plan(0.05), InexactInput, "float"),
    (lambda: sensitivity_sampler_plan(1), InvalidArgument, "strictly between"),
]


@pytest.mark.parametrize("call, error, words", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_arguments(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value)
