"""Discrete Laplace and discrete Gaussian: exact maps, enclosures against an independent
high-precision reference, published test vectors, and the rounding direction."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms.calibration.discrete import (
    discrete_gaussian_delta,
    discrete_gaussian_rho,
    discrete_gaussian_sigma_squared,
    discrete_gaussian_tail_bound,
    discrete_laplace_epsilon,
    discrete_laplace_pmf,
    discrete_laplace_scale,
    discrete_laplace_tail,
)
from exactdp.numeric.intervals import enclose, exact_interval, interval_to_fractions

MP = mpmath.mp.clone()
MP.dps = 60


def mpf_fraction(x) -> Fraction:
    man, exp = MP.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def contains(interval, reference, rel=Fraction(1, 10**45)) -> bool:
    """The enclosure contains the 60-digit reference, up to the reference's own error."""
    lo, hi = interval_to_fractions(interval) if not isinstance(interval, tuple) else interval
    ref = mpf_fraction(reference)
    slack = abs(ref) * rel
    return lo - slack <= ref <= hi + slack


# --- references, computed independently (plain mpmath at 60 digits, no intervals) ----------

def ref_dlap_pmf(x, t):
    t = MP.mpf(t.numerator) / t.denominator
    return MP.tanh(1 / (2 * t)) * MP.exp(-abs(x) / t)  # (e^{1/t}-1)/(e^{1/t}+1) = tanh(1/(2t))


def ref_gauss_sums(s2: Fraction, lo: int, hi: int):
    s2 = MP.mpf(s2.numerator) / s2.denominator
    return {x: MP.exp(-MP.mpf(x) ** 2 / (2 * s2)) for x in range(lo, hi + 1)}


def ref_dg_delta(eps: Fraction, s2: Fraction, d: int):
    """δ(ε) by brute-force sums over [-R, R], R far past where the terms vanish at 60 digits."""
    r = math.isqrt(math.ceil(2 * s2 * 200)) + 2 + math.ceil(eps * s2 / d) + d
    w = ref_gauss_sums(s2, -r, r)
    z = MP.fsum(w.values())
    a = eps * s2 / d - Fraction(d, 2)
    pa = MP.fsum(v for x, v in w.items() if x > a) / z
    pb = MP.fsum(v for x, v in w.items() if x > a + d) / z
    e = MP.mpf(eps.numerator) / eps.denominator
    return pa - MP.exp(e) * pb


# --- discrete Laplace ------------------------------------------------------------

def test_laplace_epsilon_is_exact():
    assert discrete_laplace_epsilon(1, 1) == 1
    assert discrete_laplace_epsilon(2, "1/2") == 4
    assert discrete_laplace_epsilon(3, "0.3") == 10
    assert discrete_laplace_epsilon(0, 5) == 0
    assert discrete_laplace_epsilon(Fraction(4, 2), 3) == Fraction(2, 3)  # an integer given as a Fraction
    assert discrete_laplace_scale(1, "0.1") == 10
    assert discrete_laplace_epsilon(7, discrete_laplace_scale(7, "3/11")) == Fraction(3, 11)


def test_laplace_pmf_test_vector_t1():
    # anchors §6: t = 1: P[0] = 0.46211715726001
    p0 = discrete_laplace_pmf(0, 1)
    lo, hi = interval_to_fractions(p0)
    assert hi - lo < Fraction(1, 10**17)
    assert round(float(lo), 14) == round(float(hi), 14) == 0.46211715726001
    assert contains(p0, ref_dlap_pmf(0, Fraction(1)))


@pytest.mark.parametrize("t", [Fraction(1), Fraction(5, 2), Fraction(1, 3), Fraction(40)])
def test_laplace_pmf_sums_to_one_within_the_enclosure(t):
    n = 20
    total = enclose(lambda iv: sum((discrete_laplace_pmf(x, t, prec=iv.prec) for x in range(-n, n + 1)),
                                   iv.mpf(0)) + 2 * discrete_laplace_tail(n, t, prec=iv.prec), prec=80)
    lo, hi = interval_to_fractions(total)
    assert lo <= 1 <= hi and hi - lo < Fraction(1, 10**15)
    for x in (0, 1, -3, 17):
        assert contains(discrete_laplace_pmf(x, t, prec=100), ref_dlap_pmf(x, t))


@pytest.mark.parametrize("n", [-5, -1, 0, 3])
def test_laplace_tail_matches_a_direct_sum(n):
    t = Fraction(3, 2)
    direct = MP.fsum(ref_dlap_pmf(x, t) for x in range(n + 1, n + 400))
    assert contains(discrete_laplace_tail(n, t, prec=100), direct, rel=Fraction(1, 10**40))


def test_laplace_loss_is_exactly_delta_over_t():
    # P[x] / P[x + Δ] = e^{Δ/t} for x >= 0: the privacy loss the epsilon map claims
    t, d = Fraction(3, 4), 2
    eps = discrete_laplace_epsilon(d, t)
    assert eps == Fraction(8, 3)
    ratio = enclose(lambda iv: discrete_laplace_pmf(1, t, prec=iv.prec) / discrete_laplace_pmf(1 + d, t, prec=iv.prec)
                    - iv.exp(exact_interval(eps)), prec=90)
    lo, hi = interval_to_fractions(ratio)
    assert lo <= 0 <= hi and hi - lo < Fraction(1, 10**20)


# --- discrete Gaussian: exact maps ---------------------------------------------------

def test_gaussian_rho_is_exact():
    assert discrete_gaussian_rho(1, 1) == Fraction(1, 2)
    assert discrete_gaussian_rho(3, "0.5") == 9
    assert discrete_gaussian_sigma_squared(1, "1/2") == 1
    assert discrete_gaussian_sigma_squared(2, "0.02") == 100
    assert discrete_gaussian_rho(5, discrete_gaussian_sigma_squared(5, "3/7")) == Fraction(3, 7)


def test_gaussian_delta_test_vector():
    # anchors §6: σ² = 1, Δ = 1: δ(ε = 1) = 0.141351339405622 (Steinke dg_delta(1,1) = 0.14135133940562192)
    r = discrete_gaussian_delta(1, 1)
    assert round(float(r.lower), 15) == round(r.delta_float, 15) == 0.141351339405622
    assert r.upper - r.lower <= r.upper / 2**60
    assert Fraction(r.delta_float) >= r.upper
    assert contains((r.lower, r.upper), ref_dg_delta(Fraction(1), Fraction(1), 1))
    assert r.at_most("0.14135133940562191") is True and r.at_most("0.1413513394056219") is False


@pytest.mark.parametrize("eps, s2, d", [
    (Fraction(0), Fraction(1), 1),          # δ(0) = P[X = 0] = 1/Z
    (Fraction(1, 2), Fraction(1, 3), 1),
    (Fraction(1, 2), Fraction(9, 2), 2),
    (Fraction(3), Fraction(25), 3),
    (Fraction(5), Fraction(1), 1),
    (Fraction(1, 10), Fraction(1, 100), 1),  # almost no noise: δ close to 1
])
def test_gaussian_delta_contains_the_reference(eps, s2, d):
    r = discrete_gaussian_delta(eps, s2, d)
    ref = ref_dg_delta(eps, s2, d)
    assert contains((r.lower, r.upper), ref)
    assert contains(r.delta_interval, ref)
    assert r.lower <= r.upper <= Fraction(r.delta_float)
    assert Fraction(r.delta_float) <= mpf_fraction(ref) * (1 + Fraction(1, 2**50))  # tight, not only safe


@pytest.mark.parametrize("eps, s2, d", [
    (Fraction(1), Fraction(1), 1), (Fraction(1, 2), Fraction(9, 2), 2), (Fraction(3), Fraction(25), 3),
    (Fraction(0), Fraction(2), 1), (Fraction(2, 3), Fraction(1, 2), 4),
    (Fraction(1), Fraction(2), 2), (Fraction(3, 2), Fraction(1), 1),  # a = εσ²/Δ - Δ/2 an integer: 0, 1
])
def test_gaussian_delta_is_the_hockey_stick_divergence(eps, s2, d):
    # The CKS20 formula against the definition: δ(ε) = Σ_x max(0, P[x] - e^ε P[x - Δ]),
    # P = N_Z(0, σ²), summed by brute force over the integers (a check of the formula,
    # including which side each tail is on, not only of its evaluation).
    r_max = math.isqrt(math.ceil(2 * s2 * 200)) + 2 * d + 2
    w = ref_gauss_sums(s2, -r_max - d, r_max + d)
    z = MP.fsum(w[x] for x in range(-r_max, r_max + 1))
    e = MP.exp(MP.mpf(eps.numerator) / eps.denominator)
    hockey = MP.fsum(max(MP.mpf(0), w[x] - e * w[x - d]) for x in range(-r_max, r_max + 1)) / z
    r = discrete_gaussian_delta(eps, s2, d)
    assert contains((r.lower, r.upper), hockey)


def test_laplace_pmf_keeps_its_accuracy_for_a_large_scale():
    t = Fraction(10**9)
    lo, hi = interval_to_fractions(discrete_laplace_pmf(0, t))
    assert hi - lo <= hi / 2**60
    assert contains((lo, hi), ref_dlap_pmf(0, t), rel=Fraction(1, 10**40))


def test_gaussian_delta_at_zero_is_the_probability_of_zero():
    r = discrete_gaussian_delta(0, 2)
    z = MP.fsum(ref_gauss_sums(Fraction(2), -80, 80).values())
    assert contains((r.lower, r.upper), 1 / z)


def test_gaussian_delta_below_the_smallest_float_is_reported_as_such():
    r = discrete_gaussian_delta(5, 100)  # δ about e^{-1250}
    assert (r.lower, r.upper, r.delta_float) == (0, Fraction(1, 2**1074), 5e-324)
    assert r.at_most("1e-300")


def test_gaussian_delta_zero_sensitivity():
    r = discrete_gaussian_delta(1, 1, 0)
    assert (r.lower, r.upper, r.delta_float) == (0, 0, 0.0)


def test_gaussian_delta_budget():
    with pytest.raises(TooLarge, match=r"1,054 terms needed by the discrete Gaussian .* \(64 bits\), over max_terms=1,000") as info:
        discrete_gaussian_delta(0, 10**4, max_terms=1000)
    assert info.value.budget == 1000


def test_gaussian_to_dict():
    d = discrete_gaussian_delta("1/2", "9/2", 2).to_dict()
    assert d["epsilon"] == "1/2" and d["sigma_squared"] == "9/2" and d["sensitivity"] == 2
    lo, hi = (Fraction(x) for x in d["delta"]["interval"])
    assert lo <= hi <= Fraction(d["delta"]["float_at_least"])


# --- the tail bound ---------------------------------------------------------------

@pytest.mark.parametrize("m, s2", [(0, Fraction(1)), (3, Fraction(1)), (0, Fraction(100)), (25, Fraction(10)),
                                   (2, Fraction(1, 7))])
def test_tail_bound_is_above_the_tail(m, s2):
    w = ref_gauss_sums(s2, m + 1, m + 1 + int(30 * math.isqrt(int(s2) + 1)) + 60)
    tail = MP.fsum(w.values())
    lo, _ = interval_to_fractions(discrete_gaussian_tail_bound(m, s2, prec=100))
    assert lo >= mpf_fraction(tail) * (1 + Fraction(1, 10**40))


@settings(max_examples=300, deadline=None)
@given(m=st.integers(0, 30), num=st.integers(1, 400), den=st.integers(1, 20))
def test_tail_bound_property(m, num, den):
    s2 = Fraction(num, den)
    top = m + 1 + 12 * math.isqrt(int(s2) + 1) + 40  # the terms left out are below 1e-60 of the first
    tail = MP.fsum(ref_gauss_sums(s2, m + 1, top).values())
    # the code adds [0, upper end of B] for the tail: that end must be above the tail.
    # (B itself can exceed the tail by less than the enclosure's width, e.g. by e^-45
    # relative for m = 4, sigma_squared = 1/9, so the lower end is not compared here.)
    _, hi = interval_to_fractions(discrete_gaussian_tail_bound(m, s2))
    assert hi >= mpf_fraction(tail) * (1 - Fraction(1, 10**50))


# --- the rounding direction -----------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(eps=st.builds(Fraction, st.integers(0, 40), st.integers(1, 10)),
       s2=st.builds(Fraction, st.integers(1, 300), st.integers(5, 40)),
       d=st.integers(1, 3))
def test_gaussian_delta_safe_float_never_below_the_reference(eps, s2, d):
    r = discrete_gaussian_delta(eps, s2, d)
    ref = mpf_fraction(ref_dg_delta(eps, s2, d))
    assert Fraction(r.delta_float) >= r.upper >= r.lower >= 0
    assert Fraction(r.delta_float) >= ref - abs(ref) / 10**45
    assert r.lower <= ref + abs(ref) / 10**45 + Fraction(1, 10**55)


@settings(max_examples=300, deadline=None)
@given(t=st.builds(Fraction, st.integers(1, 10**6), st.integers(1, 10**6)), d=st.integers(0, 10**6))
def test_laplace_epsilon_property(t, d):
    eps = discrete_laplace_epsilon(d, t)
    assert eps * t == d
    if d:
        assert discrete_laplace_scale(d, eps) == t


BAD = [
    (lambda: discrete_laplace_epsilon("1/2", 1), InvalidArgument, "sensitivity='1/2' is not an integer"),
    (lambda: discrete_laplace_epsilon(Fraction(3, 2), 1), InvalidArgument, "ceil(sensitivity)=2"),
    (lambda: discrete_laplace_epsilon(1.0, 1), InexactInput, "sensitivity=1.0 is a float"),
    (lambda: discrete_laplace_epsilon(-1, 1), InvalidArgument, "sensitivity=-1 is not at least 0"),
    (lambda: discrete_laplace_epsilon(1, 0), InvalidArgument, "scale=0 is not positive"),
    (lambda: discrete_laplace_epsilon(1, 0.5), InexactInput, "scale=0.5 is a float"),
    (lambda: discrete_laplace_scale(1, "-1"), InvalidArgument, "epsilon='-1' is not positive"),
    (lambda: discrete_laplace_pmf(0.0, 1), InvalidArgument, "x=0.0 is not an int"),
    (lambda: discrete_laplace_tail(True, 1), InvalidArgument, "n=True is not an int"),
    (lambda: discrete_gaussian_rho("2.5", 1), InvalidArgument, "sensitivity='2.5' is not an integer"),
    (lambda: discrete_gaussian_rho(1, 0), InvalidArgument, "sigma_squared=0 is not positive"),
    (lambda: discrete_gaussian_sigma_squared(1, 0), InvalidArgument, "rho=0 is not positive"),
    (lambda: discrete_gaussian_tail_bound(-1, 1), InvalidArgument, "m=-1 is negative"),
    (lambda: discrete_gaussian_delta(-1, 1), InvalidArgument, "epsilon=-1 is negative"),
    (lambda: discrete_gaussian_delta(1, 1, "1/3"), InvalidArgument, "sensitivity='1/3' is not an integer"),
    (lambda: discrete_gaussian_delta(1, 1.0), InexactInput, "sigma_squared=1.0 is a float"),
    (lambda: discrete_gaussian_delta(1, 1, max_terms=0), InvalidArgument, "max_terms=0"),
    (lambda: discrete_gaussian_delta(1, 1).at_most(-1), InvalidArgument, "delta=-1 is negative"),
]


@pytest.mark.parametrize("call, exc, fragment", BAD)
def test_bad_arguments(call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment in str(info.value)
