"""The certified accountant: every enclosure contains an independent high-precision
reference (mpmath at 60 digits: binomial sums, brute-force convolutions, closed forms)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.mechanisms import delta_of_sigma, discrete_gaussian_delta, discrete_laplace_epsilon
from exactdp.mechanisms.accounting.accountant import account


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _frac(x) -> Fraction:
    return Fraction(mpmath.nstr(x, 70, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))


# --- references (mpmath, 60+ digits) ------------------------------------------------------


def _delta_of_pld(points, eps):
    """sum p (1 - e^(eps - l))_+ over (loss, probability) points, mp numbers."""
    e = _mp(eps)
    return mpmath.fsum(p * (1 - mpmath.exp(e - l)) for l, p in points if l > e)


def _compose(points, k):
    """Brute-force k-fold composition of a finite loss distribution (merging equal losses
    given as exact keys): points are (key, loss, probability)."""
    out = {0: (mpmath.mpf(0), mpmath.mpf(1))}
    for _ in range(k):
        nxt: dict = {}
        for key, (l, p) in out.items():
            for key2, l2, p2 in points:
                kk = key + key2
                old = nxt.get(kk, (l + l2, mpmath.mpf(0)))
                nxt[kk] = (old[0], old[1] + p * p2)
        out = nxt
    return [(l, p) for l, p in out.values()]


def _dl_points(t: Fraction, d: int = 1):
    q = mpmath.exp(-1 / _mp(t))
    pts = [(d, d / _mp(t), 1 / (1 + q))]
    pts += [(d - 2 * z, (d - 2 * z) / _mp(t), (1 - q) / (1 + q) * q**z) for z in range(1, d)]
    pts.append((-d, -d / _mp(t), q**d / (1 + q)))
    return pts


def _dl_binomial_delta(t: Fraction, k: int, eps: Fraction):
    """The binomial sum: P[Bin(k, b) = j] (1 - e^(eps - (k-2j)/t)) over (k-2j)/t > eps."""
    q = mpmath.exp(-1 / _mp(t))
    a, b = 1 / (1 + q), q / (1 + q)
    e = _mp(eps)
    return mpmath.fsum(mpmath.binomial(k, j) * a ** (k - j) * b**j * (1 - mpmath.exp(e - (k - 2 * j) / _mp(t)))
                       for j in range(k + 1) if (k - 2 * j) / _mp(t) > e)


def _root(fn, delta: Fraction, hi):
    """epsilon with fn(epsilon) = delta by bisection at the current precision (fn decreasing)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(hi)
    d = _mp(delta)
    for _ in range(230):
        m = (lo + hi) / 2
        if fn(m) > d:
            lo = m
        else:
            hi = m
    return (lo + hi) / 2


def _contains(r, reference) -> bool:
    x = _frac(reference)
    slack = Fraction(1, 10**50)  # the reference's own error at 60+ digits
    return r.lower - slack <= x <= r.upper + slack


# --- valid cases ------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 7, 60])
@pytest.mark.parametrize("t", [Fraction(10), Fraction(3, 2)])
def test_discrete_laplace_delta_of_epsilon_contains_binomial_sum(k, t):
    eps = Fraction(k, 3) / t
    with mpmath.workdps(70):
        ref = _dl_binomial_delta(t, k, eps)
        r = account("discrete-laplace", k, epsilon=eps, params={"scale": t})
        assert r.width_met and _contains(r, ref)


@pytest.mark.parametrize("k", [1, 5, 100])
def test_discrete_laplace_epsilon_of_delta_contains_reference(k):
    t, delta = Fraction(10), Fraction(1, 10**6)
    with mpmath.workdps(70):
        ref = _root(lambda e: _dl_binomial_delta(t, k, _frac(e)), delta, k / _mp(t))
        r = account("discrete-laplace", k, delta=delta, params={"scale": t})
    assert r.width_met and r.relative_width() <= Fraction(1, 10**9)
    assert _contains(r, ref)


def test_discrete_laplace_k1_delta0_is_one_over_t_exactly():
    r = account("discrete-laplace", 1, delta=0, params={"scale": 10})
    assert r.epsilon_lower == r.epsilon_upper == discrete_laplace_epsilon(1, 10) == Fraction(1, 10)
    r = account("discrete-laplace", 250, delta=0, params={"scale": "3/2", "sensitivity": 2})
    assert r.epsilon_lower == r.epsilon_upper == Fraction(1000, 3)
    assert r.check("1000/3").verdict == "holds" and r.check("333.3").verdict == "violated"


def test_discrete_laplace_k1_closed_form():
    # one release, sensitivity 1: delta(eps) = (1 - e^eps q)/(1 + q) for eps < 1/t
    t, eps = Fraction(4), Fraction(1, 10)
    with mpmath.workdps(70):
        q = mpmath.exp(-1 / _mp(t))
        ref = (1 - mpmath.exp(_mp(eps)) * q) / (1 + q)
        assert _contains(account("discrete-laplace", 1, epsilon=eps, params={"scale": t}), ref)


def test_discrete_laplace_sensitivity_3_brute_force():
    t, k, eps = Fraction(2), 4, Fraction(1)
    with mpmath.workdps(70):
        ref = _delta_of_pld(_compose(_dl_points(t, 3), k), eps)
        assert _contains(account("discrete-laplace", k, epsilon=eps,
                                         params={"scale": t, "sensitivity": 3}), ref)


@pytest.mark.parametrize("params,k", [({"p": "3/4"}, 9), ({"epsilon": "1/2"}, 12),
                                      ({"p": "1/2", "k_values": 4}, 6), ({"epsilon": 1, "k_values": 3}, 5)])
def test_randomized_response_brute_force(params, k):
    kv = int(params.get("k_values", 2))
    with mpmath.workdps(70):
        if "p" in params:
            p = _mp(Fraction(params["p"]))
            o = (1 - p) / (kv - 1)
        else:
            e = mpmath.exp(_mp(Fraction(params["epsilon"])))
            p, o = e / (e + kv - 1), 1 / (e + kv - 1)
        c = mpmath.log(p / o)
        pts = [(1, c, p), (-1, -c, o)] + ([(0, mpmath.mpf(0), (kv - 2) * o)] if kv > 2 else [])
        eps = Fraction(1, 2)
        ref = _delta_of_pld(_compose(pts, k), eps)
        assert _contains(account("randomized-response", k, epsilon=eps, params=params), ref)
        delta = Fraction(1, 1000)
        ref_e = _root(lambda x: _delta_of_pld(_compose(pts, k), _frac(x)), delta, k * c)
        assert _contains(account("randomized-response", k, delta=delta, params=params), ref_e)


def test_randomized_response_k1_pure_epsilon():
    r = account("randomized-response", 1, delta=0, params={"p": "3/4"})
    with mpmath.workdps(70):
        assert _contains(r, mpmath.log(3))
    assert r.epsilon_upper - r.epsilon_lower <= Fraction(1, 10**9)


def test_discrete_gaussian_brute_force_convolution():
    s2, k, eps = Fraction(1, 2), 3, Fraction(1, 3)
    with mpmath.workdps(70):
        zs = range(-30, 31)
        w = [mpmath.exp(-mpmath.mpf(z * z) / (2 * _mp(s2))) for z in zs]
        norm = mpmath.fsum(w)
        pts = [(-2 * z, (1 - 2 * z) / (2 * _mp(s2)), x / norm) for z, x in zip(zs, w)]
        ref = _delta_of_pld(_compose(pts, k), eps)  # the tails beyond |z| = 30 are below 1e-390
        assert _contains(account("discrete-gaussian", k, epsilon=eps, params={"sigma_squared": s2}), ref)


def test_discrete_gaussian_k1_matches_single_release():
    r = account("discrete-gaussian", 1, epsilon=1, params={"sigma_squared": 1})
    single = discrete_gaussian_delta(1, 1)
    assert r.lower <= single.upper and single.lower <= r.upper
    assert r.lower <= Fraction(single.delta_float) <= r.upper + Fraction(1, 10**15)


def test_discrete_gaussian_k1000_cross_check():
    # k-fold N_Z(0, s2) differs from N_Z(0, k s2) at sensitivity k only by Poisson-summation
    # terms near exp(-2 pi^2 s2) (1e-857 here): a cross-check, not a proof
    r = account("discrete-gaussian", 1000, delta="1e-6", params={"sigma": 10}, width="1e-6")
    assert r.width_met
    below = discrete_gaussian_delta(r.epsilon_lower, 100_000, 1000)
    above = discrete_gaussian_delta(r.epsilon_upper, 100_000, 1000)
    assert below.lower > Fraction(1, 10**6) >= above.upper


@pytest.mark.parametrize("k", [1, 7, 1000])
def test_gaussian_contains_reference(k):
    sigma, eps = Fraction(3), Fraction(1)
    with mpmath.workdps(70):
        mu = mpmath.sqrt(k) / _mp(sigma)
        ref = mpmath.ncdf(mu / 2 - 1 / mu) - mpmath.e * mpmath.ncdf(-mu / 2 - 1 / mu)
        assert _contains(account("gaussian", k, epsilon=eps, params={"sigma": sigma}), ref)


def test_gaussian_k1_agrees_with_delta_of_sigma():
    r = account("gaussian", 1, epsilon="1/2", params={"sigma": 3})
    lo, hi = delta_of_sigma(3, "1/2").exact
    assert r.lower <= hi and lo <= r.upper


def test_gaussian_list_is_one_gaussian():
    # 2 * (1/9 + 1/16) = 25/72: the composition is the Gaussian with mu^2 = 25/72
    a = account([("gaussian", {"sigma": 3}), ("gaussian", {"sigma": 4})], 2, delta="1e-5")
    with mpmath.workdps(70):
        mu = mpmath.sqrt(mpmath.mpf(25) / 72)
        ref = _root(lambda e: mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu),
                    Fraction(1, 10**5), 40)
    assert _contains(a, ref)


def test_mixture_of_lattice_mechanisms_brute_force():
    with mpmath.workdps(70):
        t1, t2 = Fraction(2), Fraction(3)
        pts1 = [(3 * key, l, p) for key, l, p in _dl_points(t1)]  # unit 1/6
        pts2 = [(2 * key, l, p) for key, l, p in _dl_points(t2)]
        rr = mpmath.exp(mpmath.mpf(1) / 2)
        pts3 = [(3, mpmath.mpf(1) / 2, rr / (rr + 1)), (-3, -mpmath.mpf(1) / 2, 1 / (rr + 1))]
        round_ = [(k1 + k2 + k3, l1 + l2 + l3, p1 * p2 * p3)  # keys: losses in units of 1/6
                  for k1, l1, p1 in pts1 for k2, l2, p2 in pts2 for k3, l3, p3 in pts3]
        composed = _compose(round_, 2)
        ref = _delta_of_pld(composed, Fraction(1, 2))
        r = account([("discrete-laplace", {"scale": t1}), ("discrete-laplace", {"scale": t2}),
                     ("randomized-response", {"epsilon": "1/2"})], 2, epsilon="1/2")
        assert _contains(r, ref)


def test_targets_discrete_laplace_width():
    for k in (100, 1000, 10_000):
        r = account("discrete-laplace", k, delta="1e-6", params={"scale": 10})
        assert r.width_met and r.relative_width() <= Fraction(1, 10**9)


def test_result_views_and_json():
    r = account("discrete-laplace", 100, delta="1e-6", params={"scale": 10})
    d = r.to_dict()
    assert d["mechanism"] == "discrete-laplace" and d["k"] == 100 and d["delta"] == "0.000001"
    assert d["params"] == {"scale": "10", "sensitivity": "1"}
    assert Fraction(d["epsilon_lower"]) <= r.epsilon_lower and Fraction(d["epsilon_upper"]) >= r.epsilon_upper
    with pytest.raises(AttributeError):
        r.delta_lower
    assert r.check(r.epsilon_lower - Fraction(1, 10**12)).verdict == "violated"
    assert r.check(r.epsilon_upper).verdict == "holds"
    assert r.check((r.epsilon_lower + r.epsilon_upper) / 2).verdict == "undecided"
    assert "composed k=100 times" in str(r)


def test_trivial_cases():
    assert account("randomized-response", 5, delta="1e-3", params={"p": "1/2"}).upper == 0
    assert account("discrete-laplace", 5, delta=1, params={"scale": 1}).upper == 0
    g = account("gaussian", 5, delta=0, params={"sigma": 1})
    assert g.lower == g.upper == math.inf and g.check(10**6).verdict == "violated"


# --- the safe side (Hypothesis) -------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(t_num=st.integers(1, 40), t_den=st.integers(1, 8), k=st.integers(1, 25),
       eps_num=st.integers(0, 30))
def test_bounds_are_on_the_safe_side(t_num, t_den, k, eps_num):
    t, eps = Fraction(t_num, t_den), Fraction(eps_num, 10)
    r = account("discrete-laplace", k, epsilon=eps, params={"scale": t}, width="1e-6")
    with mpmath.workdps(60):
        ref = _frac(_dl_binomial_delta(t, k, eps))
    assert r.lower <= ref <= r.upper + Fraction(1, 10**45)
    lo, hi = (Fraction(x) for x in r.decimal_bounds())
    assert lo <= r.lower and hi >= r.upper


# --- bad input, one table ---------------------------------------------------------------------

BAD = [
    (dict(mechanisms="discrete-laplace", k=0, delta="1e-6", params={"scale": 10}), InvalidArgument, "k=0"),
    (dict(mechanisms="discrete-laplace", k=10**12, delta="1e-6", params={"scale": 10}), TooLarge, "max_k"),
    (dict(mechanisms="discrete-laplace", k=10**6, delta="1e-6", params={"scale": 10}, max_slots=10_000), TooLarge,
     "max_slots"),
    (dict(mechanisms="discrete-gaussian", k=10**6, delta="1e-6", params={"sigma": 1000}), TooLarge,
     "lattice points"),
    (dict(mechanisms="discrete-laplace", k="ten", delta="1e-6", params={"scale": 10}), InvalidArgument, "k="),
    (dict(mechanisms="discrete-laplace", k=True, delta="1e-6", params={"scale": 10}), InvalidArgument, "k="),
    (dict(mechanisms="discrete-laplace", k=5, delta=1e-6, params={"scale": 10}), InexactInput, "float"),
    (dict(mechanisms="discrete-laplace", k=5, delta="1e-6", params={"scale": 0.1}), InexactInput, "float"),
    (dict(mechanisms="discrete-laplace", k=5, delta="2", params={"scale": 10}), InvalidArgument, "above 1"),
    (dict(mechanisms="discrete-laplace", k=5, epsilon="-1", params={"scale": 10}), InvalidArgument, "negative"),
    (dict(mechanisms="discrete-laplace", k=5, params={"scale": 10}), InvalidArgument, "exactly one"),
    (dict(mechanisms="discrete-laplace", k=5, delta="1e-6", epsilon=1, params={"scale": 10}), InvalidArgument,
     "exactly one"),
    (dict(mechanisms="discrete-laplace", k=5, delta="1e-6", params={"scale": -1}), InvalidArgument,
     "not positive"),
    (dict(mechanisms="discrete-laplace", k=5, delta="1e-6", params={"scale": 1, "sensitivity": "1/2"}),
     InvalidArgument, "whole number"),
    (dict(mechanisms="discrete-laplace", k=5, delta="1e-6", params={"sigma": 1}), InvalidArgument,
     "discrete-laplace has no parameter sigma; its parameters are scale, sensitivity"),
    (dict(mechanisms="staircase", k=5, delta="1e-6", params={"scale": 1}), InvalidArgument, "not one the"),
    (dict(mechanisms="randomized-response", k=5, delta="1e-6", params={"p": "3/2"}), InvalidArgument,
     "outside"),
    (dict(mechanisms="randomized-response", k=5, delta="1e-6", params={"p": 1}), InvalidArgument, "outside"),
    (dict(mechanisms="randomized-response", k=5, delta="1e-6", params={"p": "3/4", "epsilon": 1}),
     InvalidArgument, "exactly one"),
    (dict(mechanisms="discrete-gaussian", k=5, delta="1e-6", params={}), InvalidArgument, "exactly one"),
    (dict(mechanisms=[], k=5, delta="1e-6"), InvalidArgument, "empty"),
    (dict(mechanisms=[("gaussian", {"sigma": 1}), ("discrete-gaussian", {"sigma": 1, "sampling": "bernoulli",
                                                                          "rate": "0.1"})], k=5, delta="1e-6"),
     InvalidArgument, "sampling='bernoulli' is not one"),
    (dict(mechanisms=42, k=5, delta="1e-6"), InvalidArgument, "not a name"),
    (dict(mechanisms="gaussian", k=5, delta="1e-6", params={"sigma": 1}, width=0), InvalidArgument, "width"),
    (dict(mechanisms="gaussian", k=5, delta="1e-6", params={"sigma": 1}, width=0.5), InexactInput, "float"),
]


@pytest.mark.parametrize("kwargs,error,text", BAD)
def test_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        account(**kwargs)


def test_a_long_given_delta_is_shown_exactly():
    """The given delta was shown through Decimal's default 28-digit context: a 33-digit delta
    printed rounded (...45679). It is now shown digit for digit."""
    from fractions import Fraction

    delta = Fraction(123456789012345678901234567890123, 10**40)
    r = account("gaussian", 10, delta=delta, params={"sigma": 2})
    assert r._given_text() == "0.0000000123456789012345678901234567890123"
    assert account("gaussian", 10, delta="1e-6", params={"sigma": 2})._given_text() == "0.000001"
