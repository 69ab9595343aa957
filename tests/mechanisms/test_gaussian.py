"""Gaussian calibration: anchors.md §6 test vectors, and the safe side against mpmath."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.calibration.gaussian import analytic_sigma, check_sigma, classic_sigma, delta_of_sigma
from exactdp.numeric.rounding import decimal_at_least


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _delta_reference(sigma: Fraction, eps: Fraction, sens: Fraction, prec: int = 400) -> mpmath.mpf:
    """δ(σ) of Balle & Wang's characterization, by mpmath's own ncdf at ``prec`` bits."""
    with mpmath.workprec(prec):
        s, e, d = _mp(sigma), _mp(eps), _mp(sens)
        return +(mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(-d / (2 * s) - e * s / d))


def _in(value: mpmath.mpf, pair, slack=Fraction(0)) -> bool:
    lo, hi = pair
    with mpmath.workprec(400):
        return _mp(lo - slack) <= value <= _mp(hi + slack)


# --- anchors.md §6 ---------------------------------------------------------------


def test_classic_sigma_vector():
    r = classic_sigma("0.5", "1e-5", sensitivity=1)
    assert r.exact == 2 * sympy.sqrt(2) * sympy.sqrt(sympy.log(125000))
    assert repr(r.safe_float).startswith("9.68961052521078")
    assert r.safe_float == 9.68961052521078
    with mpmath.workdps(40):
        exact = 2 * mpmath.sqrt(2 * mpmath.log(125000))
        assert mpmath.mpf(r.safe_float) >= exact > mpmath.mpf(math.nextafter(r.safe_float, 0))


def test_analytic_sigma_vector():
    r = analytic_sigma("0.5", "1e-5", sensitivity=1)
    assert r.safe_float == 7.031826675582492
    assert r.extra["smallest"] is True
    lo, hi = r.exact
    assert lo <= Fraction("7.03182667558249144272") and Fraction("7.03182667558249144271") <= hi
    assert hi - lo < Fraction(1, 10**25)
    assert r.approx_text(21) == "[7.03182667558249144271, 7.03182667558249144272]"


def test_classic_sigma_achieves_tiny_delta():
    sigma = classic_sigma("0.5", "1e-5").safe_float
    r = delta_of_sigma(sigma, "0.5")
    assert f"{float(r.exact[0]):.6g}" == "1.60785e-08"
    assert r.safe_float == 1.607853993087425e-08


def test_rounding_hazard_sigma_shown_rounded_down():
    # sigma* shown to 15 digits, rounded down: delta = 1.0000000000000003e-5 > 1e-5
    assert check_sigma("7.03182667558249", "0.5", "1e-5") is False
    r = delta_of_sigma("7.03182667558249", "0.5")
    assert r.exact[0] > Fraction("1e-5")
    assert r.approx_text(20) == "[0.000010000000000000030841, 0.000010000000000000030842]"
    # ... whereas rounding the display up is safe
    shown = decimal_at_least(analytic_sigma("0.5", "1e-5").exact[1], 15)
    assert shown == Decimal("7.03182667558250")
    assert check_sigma(str(shown), "0.5", "1e-5") is True


def test_rounding_hazard_float_of_sigma_star_is_fine():
    assert check_sigma(7.031826675582492, "0.5", "1e-5") is True
    r = delta_of_sigma(7.031826675582492, "0.5")
    assert r.approx_text(18) == "[0.00000999999999999999110, 0.00000999999999999999111]"
    assert r.exact[1] < Fraction("1e-5")
    # the float just below is not private enough: the analytic result is the smallest float
    assert check_sigma(math.nextafter(7.031826675582492, 0), "0.5", "1e-5") is False


# --- properties against mpmath -----------------------------------------------------


def _random_case(rng: random.Random) -> tuple[Fraction, Fraction, Fraction]:
    eps = Fraction(rng.randrange(1, 10**6), 10 ** rng.randrange(3, 8))  # 1e-7 .. 1000
    delta = Fraction(rng.randrange(1, 10), 10 ** rng.randrange(2, 40))
    sens = Fraction(rng.randrange(1, 1000), rng.randrange(1, 100))
    return eps, delta, sens


def test_analytic_sigma_is_smallest_certified_float_against_mpmath():
    rng = random.Random(2018)
    for _ in range(4):
        eps, delta, sens = _random_case(rng)
        if eps > 50:
            eps = eps / 100
        r = analytic_sigma(eps, delta, sens)
        f = r.safe_float
        with mpmath.workprec(400):
            target = _mp(delta)
            # mpmath at 400 bits agrees: f is private enough, the float below is not
            assert _delta_reference(Fraction(f), eps, sens) <= target, (eps, delta, sens)
            if r.extra["smallest"]:
                assert _delta_reference(Fraction(math.nextafter(f, 0)), eps, sens) > target
            # and the enclosure of sigma* brackets the root
            lo, hi = r.exact
            assert _delta_reference(lo, eps, sens) >= target >= _delta_reference(hi, eps, sens)
        assert lo <= Fraction(f) and hi - lo < lo / 2**80


@settings(max_examples=15, deadline=None)
@given(
    st.floats(min_value=1e-3, max_value=1e3),
    st.builds(Fraction, st.integers(1, 10**4), st.integers(1, 10**3)),
    st.builds(Fraction, st.integers(1, 100), st.integers(1, 100)),
)
def test_delta_of_sigma_encloses_reference_and_rounds_up(sigma, eps, sens):
    r = delta_of_sigma(sigma, eps, sens)
    ref = _delta_reference(Fraction(sigma), eps, sens)
    assert _in(ref, r.exact)
    with mpmath.workprec(400):
        assert mpmath.mpf(r.safe_float) >= ref


def test_classic_sigma_rounds_up_against_mpmath():
    rng = random.Random(14)
    for _ in range(150):
        eps = Fraction(rng.randrange(1, 10**6), 10**6)  # (0, 1)
        delta = Fraction(rng.randrange(1, 100), 10 ** rng.randrange(2, 300))
        sens = Fraction(rng.randrange(1, 10**4), rng.randrange(1, 10**3))
        r = classic_sigma(eps, delta, sens)
        with mpmath.workprec(300):
            ref = _mp(sens) * mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / _mp(delta))) / _mp(eps)
            assert mpmath.mpf(r.safe_float) >= ref > mpmath.mpf(math.nextafter(r.safe_float, 0))


def test_delta_below_the_smallest_float_and_near_one():
    # exp(-5e17)-sized: enclosed as [0, 2**-1074] instead of a Fraction of 10**17 bits
    r = delta_of_sigma(1000.0, 10**4, "1/100")
    assert r.exact == (Fraction(0), Fraction(1, 2**1074)) and r.safe_float == 5e-324
    # erfc of a large negative argument (the series would need 10**9 terms): delta ~ 1
    r = delta_of_sigma(1e-3, "1/1000", 100)
    assert r.safe_float == 1.0 and Fraction(1) - r.exact[0] < Fraction(1, 10**15)


def test_classic_is_never_below_analytic():
    for eps, delta in [("0.5", "1e-5"), ("0.9", "1e-3"), ("0.01", "1e-12")]:
        assert classic_sigma(eps, delta).safe_float > analytic_sigma(eps, delta).safe_float


def test_result_dict():
    d = analytic_sigma("0.5", "1e-5").to_dict()
    assert d["safe_float"] == "7.031826675582492" and d["quantity"] == "sigma"
    lo, hi = (Fraction(t) for t in d["exact"])
    assert lo < hi and d["extra"] == {"smallest": True}
    assert d["inputs"] == {"epsilon": "1/2", "delta": "1/100000", "sensitivity": "1"}


@pytest.mark.parametrize(
    "fn, args, error, text",
    [
        (classic_sigma, ("1", "1e-5"), InvalidArgument, "epsilon='1' is >= 1.*analytic_sigma"),
        (classic_sigma, ("2.5", "1e-5"), InvalidArgument, "use analytic_sigma"),
        (classic_sigma, ("0.5", "1"), InvalidArgument, "delta='1' is not strictly between 0 and 1"),
        (classic_sigma, ("0.5", "0"), InvalidArgument, "delta='0'"),
        (classic_sigma, ("0.5", 1e-5), InexactInput, "delta=1e-05 is a float"),
        (analytic_sigma, ("0", "1e-5"), InvalidArgument, "epsilon='0' is not positive"),
        (analytic_sigma, ("0.5", "1e-5", "-1"), InvalidArgument, "sensitivity='-1' is not positive"),
        (delta_of_sigma, ("0", "0.5"), InvalidArgument, "sigma='0' is not positive"),
        (delta_of_sigma, (-1.0, "0.5"), InvalidArgument, "sigma=-1.0 is not positive"),
        (check_sigma, (1.0, "0.5", "2"), InvalidArgument, "delta='2'"),
        (check_sigma, (1.0, 0.5, "1e-5"), InexactInput, "epsilon=0.5 is a float"),
    ],
)
def test_invalid_arguments(fn, args, error, text):
    with pytest.raises(error, match=text):
        fn(*args)


# --- tiny epsilon and delta: delta(sigma) cancels about log2(1/delta) bits ----------------


@pytest.mark.parametrize("eps, delta, sigma_star", [
    ("1e-100", "1e-100", "2.76029804798143e99"),
    ("1e-300", "1e-300", "2.76029804798143e299"),  # mpmath at 6,000 bits: 2.7603e299
])
def test_analytic_sigma_tiny_epsilon_and_delta(eps, delta, sigma_star):
    # was: Undecided "no float near sigma*=1.6e+77 could be certified": the 256-bit bisection
    # lost delta(sigma) - delta ~ 1e-100 to cancellation and converged to the wrong root
    import time

    start = time.perf_counter()
    r = analytic_sigma(eps, delta)
    elapsed = time.perf_counter() - start
    e, d, one = Fraction(eps), Fraction(delta), Fraction(1)
    f = r.safe_float
    assert r.extra["smallest"] is True
    assert abs(Fraction(f) / Fraction(sigma_star) - 1) < Fraction(1, 10**13)
    with mpmath.workprec(5000):
        target = _mp(d)
        assert _delta_reference(Fraction(f), e, one, prec=5000) <= target
        assert _delta_reference(Fraction(math.nextafter(f, 0)), e, one, prec=5000) > target
        lo, hi = r.exact
        assert lo <= Fraction(f) and lo <= hi
        assert _delta_reference(lo, e, one, prec=5000) >= target >= _delta_reference(hi, e, one, prec=5000)
    assert check_sigma(f, eps, delta) is True
    assert elapsed < 30, f"analytic_sigma({eps}, {delta}) took {elapsed:.1f} s"  # about 0.2-0.4 s here


# --- hardening: huge sigma, delta near 1, huge epsilon ------------------------------------


@pytest.mark.parametrize("sigma", [5000.0, 10000.0, 1e6, 1e100, 1e308])
def test_check_sigma_decides_a_huge_safe_sigma(sigma):
    """δ(σ) is near 2**-18,000,000 at σ = 10⁴: its enclosure's ends were converted to
    Fractions (refused beyond 2**-4,000,000), so every σ above about 4,500 was Undecided."""
    assert check_sigma(sigma, "0.5", "1e-5") is True
    assert check_sigma(sigma, "0.5", "1e-300") is True
    assert check_sigma(sigma, "0.5", "0.9999999999999999999") is True


def _complement_reference(sigma: Fraction, eps: Fraction, sens: Fraction, prec: int = 400):
    """1 − δ(σ) = Φ(b − a) + e^ε Φ(−a − b), by mpmath's ncdf (no cancellation near δ = 1)."""
    with mpmath.workprec(prec):
        s, e, d = _mp(sigma), _mp(eps), _mp(sens)
        a, b = d / (2 * s), e * s / d
        return +(mpmath.ncdf(b - a) + mpmath.exp(e) * mpmath.ncdf(-a - b))


@pytest.mark.parametrize("delta", ["0.99", "0.9999999999", "0.9999999999999999999",
                                   Fraction(1) - Fraction(1, 10**1000)])
def test_analytic_sigma_for_delta_near_one(delta):
    """σ* → 0 as δ → 1 (δ(σ) → 1 as σ → 0); at δ = 1 − 1e-19 the bisection used to compute
    δ(σ) − δ at too few bits to tell δ(σ) from 1, found a wrong root, and the command said
    "this should not happen: please report it"."""
    r = analytic_sigma("0.5", delta)
    f = r.safe_float
    assert r.extra["smallest"] is True
    assert check_sigma(f, "0.5", delta) is True
    assert check_sigma(math.nextafter(f, 0.0), "0.5", delta) is False
    lo, hi = r.exact
    assert lo <= Fraction(f) and Fraction(math.nextafter(f, 0.0)) < hi
    # independently: 1 − δ(σ) at the float is at least 1 − δ, at its predecessor below
    one_minus = 1 - Fraction(delta)
    with mpmath.workprec(4000):
        assert _complement_reference(Fraction(f), Fraction(1, 2), Fraction(1), 4000) >= _mp(one_minus)
        below = Fraction(math.nextafter(f, 0.0))
        assert _complement_reference(below, Fraction(1, 2), Fraction(1), 4000) < _mp(one_minus)


def test_analytic_sigma_delta_1e_minus_19_from_one_value():
    assert analytic_sigma("0.5", "0.9999999999999999999").safe_float == 0.05484828674036297


@pytest.mark.parametrize("eps,expected", [("1e300", 7.071067811865476e-151), ("1e400", 7.071067811865476e-201)])
def test_analytic_sigma_huge_epsilon_is_computed(eps, expected):
    """mpmath's ncdf raised OverflowError (a traceback on the command line) far in the tail."""
    r = analytic_sigma(eps, "1e-5")
    assert r.safe_float == expected and r.extra["smallest"] is True
    assert check_sigma(r.safe_float, eps, "1e-5") is True


_EPS = st.builds(Fraction, st.integers(1, 10**6), st.sampled_from([1, 10, 1000, 10**6]))
_DELTA = st.one_of(
    st.builds(lambda k: Fraction(1, 10**k), st.integers(1, 300)),
    st.builds(lambda m, k: Fraction(m, 10**k), st.integers(1, 9), st.integers(1, 20)),
    st.builds(lambda k: 1 - Fraction(1, 10**k), st.integers(1, 40)),
)
_SENS = st.builds(Fraction, st.integers(1, 1000), st.sampled_from([1, 7, 1000]))


def _sigma_upper(eps: Fraction, dlt: Fraction, sens: Fraction) -> mpmath.mpf:
    """A σ at which δ(σ) ≤ δ is certain on paper: δ(σ) ≤ Φ(a − b) ≤ e^(−(b−a)²/2)/2 for
    b ≥ a (Chernoff), ≤ δ once b − a ≥ t = sqrt(2 ln(1/(2δ))) (t = 0 for δ ≥ 1/2); solving
    εσ/Δ − Δ/(2σ) = t gives σ = Δ(t + sqrt(t² + 2ε))/(2ε)."""
    with mpmath.workprec(200):
        e, d = _mp(eps), _mp(sens)
        t = mpmath.sqrt(max(0, 2 * mpmath.log(1 / (2 * _mp(dlt)))))
        return d * (t + mpmath.sqrt(t * t + 2 * e)) / (2 * e)


@settings(max_examples=3000, deadline=None)
@given(_EPS, _DELTA, _SENS, st.floats(0.001, 300.0))
def test_check_sigma_is_decided_above_a_paper_bound(eps, dlt, sens, log10_factor):
    """Every σ at least 1.001 times a σ proved private on paper (up to the largest float) is
    decided, and decided private: no Undecided for a safe σ, however large."""
    with mpmath.workprec(200):
        target = _sigma_upper(eps, dlt, sens) * mpmath.mpf(10) ** log10_factor * mpmath.mpf("1.001")
        if target > mpmath.mpf(1.7976931348623157e308):
            target = mpmath.mpf(1.7976931348623157e308)
        sigma = float(target)  # within one part in 2**52 of target: still above the paper bound
    assert check_sigma(sigma, eps, dlt, sens) is True


@settings(max_examples=1000, deadline=None)
@given(_EPS, _DELTA, _SENS, st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
def test_check_sigma_is_monotone_and_agrees_with_mpmath(eps, dlt, sens, f1, f2):
    """δ(σ) decreases in σ: a private σ stays private above. Where a 400-bit mpmath
    evaluation (an independent computation) is clear by a wide margin, the verdict agrees."""
    from exactdp.errors import Undecided

    with mpmath.workprec(200):
        base = _sigma_upper(eps, dlt, sens)
        s1, s2 = sorted(float(base * mpmath.mpf(10) ** f) for f in (f1, f2))
    verdicts = []
    for s in (s1, s2):
        try:
            verdicts.append(check_sigma(s, eps, dlt, sens))
        except Undecided:
            verdicts.append(None)
        if verdicts[-1] is None:
            continue
        x = Fraction(s)
        with mpmath.workprec(400):
            if dlt > Fraction(1, 2):
                gap = _complement_reference(x, eps, sens) - _mp(1 - dlt)  # > 0: private
                scale = _mp(1 - dlt)
            else:
                gap = _mp(dlt) - _delta_reference(x, eps, sens)
                scale = _mp(dlt)
            if abs(gap) > scale * mpmath.mpf(2) ** -200:
                assert verdicts[-1] is (gap > 0)
    if verdicts[0] is True and verdicts[1] is not None:
        assert verdicts[1] is True
    if verdicts[1] is False and verdicts[0] is not None:
        assert verdicts[0] is False
