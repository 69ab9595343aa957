"""The certified grid accountant beyond the Gaussian (issue 17, parts 1-3): the continuous
Laplace mechanism, Poisson-subsampled Laplace, randomized response and discrete Laplace, and
lists mixing them with Gaussians.

Every reference is built here without exactdp, with mpmath at 50 digits:

* the continuous Laplace mechanism composed k times, from its privacy-loss distribution
  (under ``P``: an atom ``1/2`` at ``eps``, an atom ``e^-eps/2`` at ``-eps`` and the density
  ``e^((l - eps)/2)/4`` on ``(-eps, eps)``): the sum of ``j`` continuous parts has the density
  ``(e^(-eps/2)/4)^j e^(s/2)`` times the slice volume of the cube ``(-eps, eps)^j`` (an
  Irwin-Hall density), so ``delta_k(e) = E[(1 - e^(e - S))_+]`` is a finite sum of
  one-dimensional quadratures; checked at k = 1 against the closed form
  ``1 - e^((e - eps)/2)`` and a quadrature of the densities;
* one step of a subsampled Laplace mechanism: a quadrature of ``(p - e^e q)_+`` over the
  densities (both directions of add/remove, the larger);
* subsampled randomized response and discrete Laplace composed k = 1..10 times: exact
  multinomial sums over the likelihood-ratio classes of the composed pair.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest

from exactdp import cli
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import account

mp = mpmath.mp


def _mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


# --- references -------------------------------------------------------------------------------


def _irwin_hall(j: int, x):
    """The density of the sum of ``j`` uniforms on [0, 1] at ``x``."""
    if x <= 0 or x >= j:
        return mpmath.mpf(0)
    return sum((-1) ** i * mpmath.binomial(j, i) * (x - i) ** (j - 1)
               for i in range(int(mpmath.floor(x)) + 1)) / mpmath.factorial(j - 1)


def _laplace_delta(eps_mech, k: int, e):
    """``delta_k(e)`` of the Laplace mechanism with ``eps_mech = sensitivity / scale``, composed
    ``k`` times, at 50 digits (see the module docstring)."""
    with mpmath.workdps(50):
        em, e = _mp(eps_mech), _mp(e)
        c = mpmath.exp(-em / 2) / 4
        total = mpmath.mpf(0)
        for a in range(k + 1):  # atoms at +eps
            for b in range(k - a + 1):  # atoms at -eps
                j = k - a - b
                coef = (mpmath.factorial(k) / (mpmath.factorial(a) * mpmath.factorial(b) * mpmath.factorial(j))
                        * mpmath.mpf(1) / 2**a * (mpmath.exp(-em) / 2) ** b)
                shift = (a - b) * em
                if j == 0:
                    total += coef * max(mpmath.mpf(0), 1 - mpmath.exp(e - shift))
                    continue
                lo, hi = max(-j * em, e - shift), j * em  # where the sum exceeds e - shift
                if lo >= hi:
                    continue

                def f(s, j=j, shift=shift):
                    volume = (2 * em) ** (j - 1) * _irwin_hall(j, (s + j * em) / (2 * em))
                    return c**j * mpmath.exp(s / 2) * volume * (1 - mpmath.exp(e - shift - s))

                knots = [lo] + [-j * em + 2 * em * i for i in range(1, j) if lo < -j * em + 2 * em * i < hi] + [hi]
                total += coef * mpmath.quad(f, knots, method="gauss-legendre")
        return total


def _laplace_pdf(mu, u):
    return mpmath.exp(-abs(u - mu)) / 2


def _subsampled_laplace_one(q, eps_mech, e):
    """One step of the Poisson-subsampled Laplace mechanism: the larger direction's
    ``int (p - e^e q)_+`` by quadrature over the densities (in units of the scale)."""
    with mpmath.workdps(50):
        q, em, ee = _mp(q), _mp(eps_mech), mpmath.exp(_mp(e))
        p0 = lambda u: _laplace_pdf(0, u)  # noqa: E731
        mix = lambda u: q * _laplace_pdf(em, u) + (1 - q) * p0(u)  # noqa: E731

        def crossing(c):  # where p1/p0 = e^clip(2u - em, -em, em) crosses c (it increases with u)
            if c <= mpmath.exp(-em):
                return -mpmath.inf
            if c >= mpmath.exp(em):
                return mpmath.inf
            return (mpmath.log(c) + em) / 2

        def integral(f, lo, hi):  # over (lo, hi), split where the densities have kinks
            knots = [lo] + [x for x in (0, em) if lo < x < hi] + [hi]
            return mpmath.quad(f, knots) if lo < hi else mpmath.mpf(0)

        # remove: mix/p0 = 1 - q + q p1/p0 > e^e above the crossing; add: below it
        remove = integral(lambda u: mix(u) - ee * p0(u), crossing((ee - 1 + q) / q), mpmath.inf)
        add = integral(lambda u: p0(u) - ee * mix(u), -mpmath.inf, crossing((1 / ee - 1 + q) / q))
        return max(remove, add)


def _finite_classes(base: str, args: tuple):
    """``(p1_c, p0_c)`` of the base pair, at 50 digits (independent of exactdp's)."""
    if base == "randomized-response":
        e = mpmath.exp(_mp(args[0]))
        return [(1 / (1 + e), e / (1 + e)), (e / (1 + e), 1 / (1 + e))]
    t, d = args
    r = mpmath.exp(-1 / _mp(t))
    p0 = {z: (1 - r) / (1 + r) * r ** abs(z) for z in range(-60 * int(t), d + 60 * int(t) + 1)}
    # exact sums by class (the ratio p1/p0 takes d + 1 values): z <= 0, 0 < z < d, z >= d
    out = [(r**d / (1 + r), 1 / (1 + r))]
    out += [((1 - r) / (1 + r) * r ** (d - z), p0[z]) for z in range(1, d)]
    out.append((1 / (1 + r), r**d / (1 + r)))
    return out


def _finite_delta(q, base: str, args: tuple, k: int, e):
    """``max`` over add/remove of ``sum (P - e^e Q)_+`` over the outputs of ``k`` steps of the
    subsampled finite pair, grouped by class counts (multinomial)."""
    with mpmath.workdps(50):
        q, ee = _mp(q), mpmath.exp(_mp(e))
        cls = _finite_classes(base, args)
        best = mpmath.mpf(0)
        for direction in ("remove", "add"):
            pairs = [((q * p1 + (1 - q) * p0, p0) if direction == "remove" else (p0, q * p1 + (1 - q) * p0))
                     for p1, p0 in cls]
            total = mpmath.mpf(0)

            def walk(i, left, coef, pp, qq):
                nonlocal total
                if i == len(pairs) - 1:
                    pp, qq = pp * pairs[i][0] ** left, qq * pairs[i][1] ** left
                    total += coef * max(mpmath.mpf(0), pp - ee * qq)
                    return
                for n in range(left + 1):
                    walk(i + 1, left - n, coef * mpmath.binomial(left, n), pp * pairs[i][0] ** n,
                         qq * pairs[i][1] ** n)

            walk(0, k, mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(1))
            best = max(best, total)
        return best


def _inside(result, ref) -> bool:
    with mpmath.workdps(60):
        return _mp(result.lower) <= ref <= _mp(result.upper)


# --- the continuous Laplace mechanism ---------------------------------------------------------


def test_the_laplace_reference_is_the_closed_form_at_one_step():
    for e in ("0", "0.3", "0.9"):
        with mpmath.workdps(50):
            closed = 1 - mpmath.exp((_mp(e) - 1) / 2)
            assert abs(_laplace_delta(1, 1, e) - closed) < mpmath.mpf(10) ** -40
            quad = _subsampled_laplace_one(1, 1, e)  # rate 1: the mechanism's own densities
            assert abs(quad - closed) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("k", range(1, 11))
def test_laplace_k_fold_encloses_the_exact_composition(k):
    e = Fraction(k, 3)  # inside (0, k eps) with eps = 1/2 ... k/2
    r = account("laplace", k, epsilon=e, params={"scale": 2}, width="1e-2")
    ref = _laplace_delta(Fraction(1, 2), k, e)
    assert r.width_met and _inside(r, ref) and r.upper - r.lower <= Fraction(1, 100) * r.upper


def test_laplace_pure_epsilon_is_k_times_sensitivity_over_scale():
    for k in (1, 7, 10):
        r = account("laplace", k, delta=0, params={"scale": "5/2", "sensitivity": 3})
        assert (r.epsilon_lower, r.epsilon_upper) == (Fraction(6 * k, 5), Fraction(6 * k, 5))
    # at epsilon = k * eps the composed delta is 0, decided exactly (this refined the grid to
    # 2**-20 for 6 s, a relative width of 1 never met); just below it the grid gives a bound
    r = account("laplace", 4, epsilon=2, params={"scale": 2})
    assert (r.lower, r.upper) == (0, 0) and "delta = 0 exactly" in r.notes
    r = account("laplace", 4, epsilon="1.9", params={"scale": 2}, width="1e-2")
    assert 0 < r.lower and _inside(r, _laplace_delta(Fraction(1, 2), 4, Fraction(19, 10)))


def test_laplace_epsilon_of_delta_at_one_step_brackets_the_root():
    # delta(e) = 1 - e^((e - 1)/2): e = 1 + 2 log(1 - delta)
    r = account("laplace", 1, delta="1e-3", params={"scale": 1})
    root = 1 + 2 * mpmath.log(1 - mpmath.mpf("1e-3"))
    assert _inside(r, root) and r.width_met


def test_a_narrower_width_is_met_and_still_encloses():
    e = Fraction(1)
    ref = _laplace_delta(Fraction(1, 2), 3, e)
    wide = account("laplace", 3, epsilon=e, params={"scale": 2}, width="1e-2")
    narrow = account("laplace", 3, epsilon=e, params={"scale": 2}, width="1e-4")
    assert wide.width_met and narrow.width_met and _inside(wide, ref) and _inside(narrow, ref)
    assert narrow.upper - narrow.lower <= Fraction(1, 10**4) * narrow.upper < wide.upper - wide.lower


# --- Poisson-subsampled Laplace ---------------------------------------------------------------


@pytest.mark.parametrize("q, e", [("0.1", "0.05"), ("0.1", "0"), ("1/2", "0.3"), ("0.01", "0.001")])
def test_one_subsampled_laplace_step_encloses_the_quadrature(q, e):
    r = account("laplace", 1, epsilon=e, params={"scale": 1, "sampling": "poisson", "rate": q})
    assert r.width_met and _inside(r, _subsampled_laplace_one(q, 1, e))


def test_rate_one_is_the_mechanism_itself():
    a = account("laplace", 2, delta="1e-6", params={"scale": 2, "sampling": "poisson", "rate": 1}, width="1e-2")
    b = account("laplace", 2, delta="1e-6", params={"scale": 2}, width="1e-2")
    assert (a.lower, a.upper) == (b.lower, b.upper) and a.mechanisms == b.mechanisms
    r = account("discrete-laplace", 5, delta="1e-6", params={"scale": 2, "sampling": "poisson", "rate": 1})
    assert r.notes == "" and r.width_met  # the exact lattice, not the grid


def test_subsampled_laplace_pure_epsilon_is_the_amplified_one():
    r = account("laplace", 3, delta=0, params={"scale": 1, "sampling": "poisson", "rate": "0.1"})
    with mpmath.workdps(50):
        exact = 3 * mpmath.log(1 + mpmath.mpf(1) / 10 * (mpmath.e - 1))
    assert _inside(r, exact) and r.upper - r.lower < Fraction(1, 10**8)


# --- subsampled randomized response and discrete Laplace: exact sums ---------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7, 10])
def test_subsampled_randomized_response_encloses_the_exact_sum(k):
    e = Fraction(k, 20)
    r = account("randomized-response", k, epsilon=e, params={"epsilon": 1, "sampling": "poisson", "rate": "0.1"},
                width="1e-2")
    assert _inside(r, _finite_delta("0.1", "randomized-response", (1,), k, e))


@pytest.mark.parametrize("k", [1, 4, 10])
def test_subsampled_discrete_laplace_encloses_the_exact_sum(k):
    e = Fraction(k, 50)
    params = {"scale": 2, "sensitivity": 2, "sampling": "poisson", "rate": "0.2"}
    r = account("discrete-laplace", k, epsilon=e, params=params, width="1e-2")
    assert _inside(r, _finite_delta("0.2", "discrete-laplace", (2, 2), k, e))


def test_subsampled_randomized_response_epsilon_of_delta():
    r = account("randomized-response", 10, delta="1e-6",
                params={"epsilon": 1, "sampling": "poisson", "rate": "0.1"}, width="1e-2")
    lo, hi = r.epsilon_lower, r.epsilon_upper
    ref = lambda x: _finite_delta("0.1", "randomized-response", (1,), 10, x)  # noqa: E731
    with mpmath.workdps(50):
        assert ref(lo) > mpmath.mpf(1) / 10**6 >= ref(hi) and r.width_met


# --- lists on one grid -------------------------------------------------------------------------


def _gauss_profile(mu, a):
    if a <= 0:
        return mpmath.mpf(1)
    la = mpmath.log(a)
    return mpmath.ncdf(mu / 2 - la / mu) - a * mpmath.ncdf(-mu / 2 - la / mu)


def test_laplace_with_a_gaussian_encloses_the_quadrature():
    """One Laplace (eps = 1/2) and one Gaussian (mu = 1/4): delta(e) = E over the Laplace loss of
    the Gaussian's profile at e^(e - L)."""
    e = Fraction(1, 2)
    with mpmath.workdps(50):
        em, mu, ee = mpmath.mpf(1) / 2, mpmath.mpf(1) / 4, mpmath.exp(_mp(e))
        ref = (_gauss_profile(mu, ee * mpmath.exp(-em)) / 2 + mpmath.exp(-em) / 2 * _gauss_profile(mu, ee * mpmath.exp(em))
               + mpmath.quad(lambda l: mpmath.exp((l - em) / 2) / 4 * _gauss_profile(mu, ee * mpmath.exp(-l)), [-em, 0, em]))
    r = account([("laplace", {"scale": 2}), ("gaussian", {"sigma": 4})], 1, epsilon=e, width="1e-2")
    assert r.width_met and _inside(r, ref)


def test_a_lattice_mechanism_beside_a_gaussian_is_on_the_grid():
    """Randomized response (epsilon 1) and a Gaussian (mu = 1/4), once each: the grid encloses
    E over the response's loss of the Gaussian's profile."""
    e = Fraction(1)
    with mpmath.workdps(50):
        one = mpmath.e / (1 + mpmath.e)
        ee, mu = mpmath.exp(_mp(e)), mpmath.mpf(1) / 4
        ref = one * _gauss_profile(mu, ee / mpmath.e) + (1 - one) * _gauss_profile(mu, ee * mpmath.e)
    r = account([("randomized-response", {"epsilon": 1}), ("gaussian", {"sigma": 4})], 1, epsilon=e, width="1e-2")
    assert r.width_met and _inside(r, ref) and "loss grid" in r.notes


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name, params, message", [
    ("laplace", {"scale": 1, "sampling": "poisson", "rate": 0}, "rate=0 is outside (0, 1]"),
    ("laplace", {"scale": 1, "sampling": "poisson", "rate": "3/2"}, "rate='3/2' is outside (0, 1]"),
    ("laplace", {"scale": 0}, "scale=0 is not positive"),
    ("laplace", {"scale": 1, "rate": "0.1"}, "goes with sampling=poisson"),
    ("discrete-laplace", {"scale": 1, "sampling": "poisson"}, "sampling=poisson needs rate=Q"),
    ("randomized-response", {"epsilon": 1, "sampling": "without-replacement", "rate": "0.1"},
     "sampling='without-replacement' is not one"),
    ("laplace", {"sigma": 1}, "laplace has no parameter sigma"),
])
def test_bad_input_is_refused(name, params, message):
    escaped = message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")
    with pytest.raises(InvalidArgument, match=escaped):
        account(name, 10, delta="1e-6", params=params)


def test_cli_subsampled_laplace(capsys):
    assert cli.main(["account", "--mechanism", "laplace", "--param", "scale=1", "--param", "sampling=poisson",
                     "--param", "rate=0.1", "--k", "10", "--epsilon", "0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"] == {"scale": "1", "sensitivity": "1", "sampling": "poisson", "rate": "1/10"}
    assert Fraction(out["delta_lower"]) <= Fraction(out["delta_upper"]) and out["width_met"] is True
    assert cli.main(["account", "--mechanism", "laplace", "--param", "scale=1", "--param", "sampling=poisson",
                     "--param", "rate=2", "--k", "10", "--epsilon", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rate='2' is outside (0, 1]" in err and err.startswith("exactdp")


# --- regressions ---------------------------------------------------------------------------------


def test_a_large_epsilon_has_a_float_grid_range():
    """log1p(e^-40 - 1) was a math domain error (1 - e^-40 rounds to 1): the range now comes
    from log(1 - q + q e^x) computed in logs."""
    from exactdp.mechanisms.accounting.profiles import PoissonFinite, PoissonLaplace

    assert PoissonLaplace(Fraction(1), Fraction(40)).loss_range("remove") == (-40.0, 40.0)
    lo, hi = PoissonLaplace(Fraction(1, 2), Fraction(800)).loss_range("add")
    assert lo == pytest.approx(-(800 + math.log(0.5))) and hi == pytest.approx(-math.log(0.5))
    assert PoissonFinite(Fraction(1), "discrete-laplace", (Fraction(1, 50), 1)).loss_range("remove") == (-50.0, 50.0)


def test_an_uncertified_lower_pair_falls_back_to_the_pair_without_loss():
    """Laplace eps = 10 at rate 1/1000 on the grid 2**-9: the lower hull's start kink cannot be
    certified (the grid is refined from there); at the last precision the lower pair is the pair
    with no loss (profile (1 - a)_+, below every profile), the upper pairs are kept."""
    from exactdp.mechanisms.accounting.profiles import PoissonLaplace
    from exactdp.mechanisms.accounting.subsampling import LatticePair, _lattice_pairs, _Uncertified

    model = PoissonLaplace(Fraction(1, 1000), Fraction(10))
    with pytest.raises(_Uncertified):
        _lattice_pairs(model, 9, 64, 128, {}, 80)
    pairs = _lattice_pairs(model, 9, 64, 128, {}, 80, last=True)
    assert pairs["lower"] == LatticePair(0, [2**64], 0, 64) and pairs["remove"].top > 1500


def test_a_rate_too_small_for_the_grid_still_certifies_an_upper_end():
    """rate 1e-6: the loss spans a few cells of the finest grid; epsilon(1e-7) of 10 steps had the
    enclosure [0, inf]; now [0, b], b certified (delta(0) is not certified above 1e-7)."""
    r = account("laplace", 10, delta="1e-7", params={"scale": 1, "sampling": "poisson", "rate": "1e-6"})
    assert r.lower == 0 and 0 < r.upper < Fraction(1, 10**4) and not r.width_met
    assert "the lower end is only the trivial 0" in r.notes


def test_the_grid_pairs_of_a_finite_pair_at_rate_one_enclose_the_exact_lattice():
    """The discrete Laplace (t = 2, sensitivity 2) at rate 1 on the grid (the form it takes beside
    a Gaussian), composed 5 times, against the exact lattice accountant's (width 1e-30)."""
    from exactdp.mechanisms.accounting import accountant as A
    from exactdp.mechanisms.accounting.profiles import PoissonFinite
    from exactdp.mechanisms.accounting.subsampling import lattice_pairs

    e = Fraction(3, 2)
    exact = account("discrete-laplace", 5, epsilon=e, params={"scale": 2, "sensitivity": 2}, width="1e-30")
    pairs = lattice_pairs(PoissonFinite(Fraction(1), "discrete-laplace", (Fraction(2), 2)), 11, 80)
    unit = A._Unit(Fraction(1, 2**11))
    ev = A._PairEvaluator(*[[A._LatticeEvaluator(A._power(A._pair_lattice(pairs[d]), 5), unit) for d in ds]
                            for ds in (("lower",), ("remove", "add"))])
    lo, hi = ev(e)
    assert lo <= exact.lower <= exact.upper <= hi and hi - lo < Fraction(1, 100) * hi


# --- the subsampled discrete Gaussian ----------------------------------------------------------


def _discrete_gaussian_delta(q, sigma, e, k):
    """``max`` over add/remove of the hockey-stick sum of ``k`` steps (k <= 2), over ``-40 <= z <= 41``
    (the rest is below 1e-80 at sigma = 2), the normalising constant summed over ``|z| <= 200``."""
    with mpmath.workdps(50):
        q, c, ee = _mp(q), 1 / (2 * _mp(sigma) ** 2), mpmath.exp(_mp(e))
        zs = range(-40, 42)
        norm = sum(mpmath.exp(-c * z * z) for z in range(-200, 201))
        p0 = {z: mpmath.exp(-c * z * z) / norm for z in zs}
        mix = {z: q * mpmath.exp(-c * (z - 1) ** 2) / norm + (1 - q) * p0[z] for z in zs}
        best = mpmath.mpf(0)
        for p, qq in ((mix, p0), (p0, mix)):
            if k == 1:
                v = sum(max(0, p[z] - ee * qq[z]) for z in zs)
            else:
                v = sum(max(0, p[z] * p[w] - ee * qq[z] * qq[w]) for z in zs for w in zs)
            best = max(best, v)
        return best


@pytest.mark.parametrize("k, e", [(1, "0.05"), (2, "0.05")])
def test_subsampled_discrete_gaussian_encloses_the_exact_sum(k, e):
    r = account("discrete-gaussian", k, epsilon=e, params={"sigma": 2, "sampling": "poisson", "rate": "0.1"},
                width="1e-2")
    assert r.width_met and _inside(r, _discrete_gaussian_delta("0.1", 2, e, k))


@pytest.mark.parametrize("name, params", [
    ("discrete-laplace", {"scale": 2, "sampling": "poisson", "rate": "0.01"}),
    ("randomized-response", {"epsilon": 1, "sampling": "poisson", "rate": "0.01"}),
    ("discrete-gaussian", {"sigma": 2, "sampling": "poisson", "rate": "0.01"}),
])
def test_the_rdp_view_refuses_subsampled_mechanisms_it_does_not_subsample(name, params):
    """rdp() printed the unsubsampled RDP (0.2273 at order 2 for the discrete Laplace) as the
    certified [lower, upper] of the subsampled one, whose RDP is far smaller."""
    from exactdp.mechanisms.accounting.rdp import rdp

    with pytest.raises(InvalidArgument, match="has no Renyi DP computation yet"):
        rdp(name, 1, params=params, orders=[2])
