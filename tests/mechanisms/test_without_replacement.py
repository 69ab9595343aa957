"""Sampling without replacement (batch M of N), substitute neighbours, on the certified grid.

The dominating pair (``proofs/accountant-profile.md``, step 8): with ``g = M/N`` and the base
pair ``(P1, P0)`` (sensitivity under substitution), the profile is the remove pair's
``(g P1 + (1 - g) P0, P0)`` for ``a >= 1`` and the add pair's ``(P0, g P1 + (1 - g) P0)`` for
``a < 1``. The references here are built without exactdp: the subsampled mechanism itself on
every substitute pair of a tiny population (mixtures of Gaussians over the C(N, M) batches,
mpmath quadrature), the pair's closed form, a one-dimensional quadrature for two steps, and
exact sums for randomized response."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import mpmath
import pytest

from exactdp import cli
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import account


def _inside(r, ref) -> bool:
    with mpmath.workdps(60):  # the ends are exact rationals; ref is good to about 40 digits
        slack = abs(ref) * mpmath.mpf(10) ** -35
        return (mpmath.mpf(r.lower.numerator) / r.lower.denominator <= ref + slack
                and ref - slack <= mpmath.mpf(r.upper.numerator) / r.upper.denominator)


def _wor(sigma, m, n, **extra):
    return {"sigma": sigma, "sampling": "without-replacement", "batch": m, "population": n, **extra}


# --- the pair's closed form and a two-step quadrature ----------------------------------------


def _sf(t):
    return mpmath.erfc(t / mpmath.sqrt(2)) / 2


def _profile(g, mu, a):
    """H(a) of the pair: remove form for a >= 1, add form for a < 1 (N(0, 1) against N(mu, 1))."""
    half = mu * mu / 2
    if a >= 1:
        x0 = (mpmath.log((a - 1 + g) / g) + half) / mu
        return (1 - g) * _sf(x0) + g * _sf(x0 - mu) - a * _sf(x0)
    x1 = (mpmath.log((1 / a - 1 + g) / g) + half) / mu
    p = 1 - _sf(x1)
    return p - a * ((1 - g) * p + g * (1 - _sf(x1 - mu)))


def _two_steps(g, mu, eps):
    """delta(eps) of two steps: E over the pair's loss L of H(e^(eps - L)). The pair is realised on
    S = {x > mu/2} twice over (P-density g phi(x - mu) + (1 - g) phi(x) at the loss l(x), and
    phi(x) at -l(x)) plus an atom at the loss 0; l(x) = log(1 - g + g e^(mu x - mu^2/2))."""
    phi = mpmath.npdf

    def mix(x):
        return g * phi(x, mu) + (1 - g) * phi(x)

    def loss(x):
        return mpmath.log(1 - g + g * mpmath.exp(mu * x - mu * mu / 2))

    s = mu / 2
    cut = (mpmath.log((mpmath.exp(eps) - 1 + g) / g) + mu * mu / 2) / mu  # l(cut) = eps
    first = mpmath.quad(lambda x: mix(x) * _profile(g, mu, mpmath.exp(eps - loss(x))), [s, cut, cut + 12])
    second = mpmath.quad(lambda x: phi(x) * _profile(g, mu, mpmath.exp(eps + loss(x))), [s, s + 12])
    atom = 1 - (g * _sf(s - mu) + (1 - g) * _sf(s)) - _sf(s)
    return first + second + atom * _profile(g, mu, mpmath.exp(eps))


@pytest.mark.parametrize("k", [1, 2])
def test_gaussian_enclosure_contains_the_quadrature(k):
    g, mu, eps = Fraction(1, 4), Fraction(1, 2), Fraction(1, 2)
    with mpmath.workdps(50):
        gm, mum, em = mpmath.mpf(1) / 4, mpmath.mpf(1) / 2, mpmath.mpf(1) / 2
        ref = _profile(gm, mum, mpmath.exp(em)) if k == 1 else _two_steps(gm, mum, em)
        if k == 1:  # the realisation used for k = 2 gives the same one-step value
            assert abs(_two_steps_one(gm, mum, em) - ref) < mpmath.mpf(10) ** -40
    r = account("gaussian", k, epsilon=eps, params=_wor(2, 1, 4), width="1e-4")
    assert r.width_met and _inside(r, ref), (k, r.lower, r.upper, ref)
    assert "substitute (replace-one) neighbours" in r.notes and "Zhu, Dong and Wang 2022" in r.notes


def _two_steps_one(g, mu, eps):
    """One step through the same realisation: E[(1 - e^(eps - L))_+]."""
    phi = mpmath.npdf

    def loss(x):
        return mpmath.log(1 - g + g * mpmath.exp(mu * x - mu * mu / 2))

    cut = (mpmath.log((mpmath.exp(eps) - 1 + g) / g) + mu * mu / 2) / mu
    return mpmath.quad(lambda x: (g * phi(x, mu) + (1 - g) * phi(x)) * (1 - mpmath.exp(eps - loss(x))),
                       [cut, cut + 12])


# --- the tiny population: every substitute pair, the subsampled mechanism itself -------------


def _hockey(f, h, a, lo=-8, hi=10, scan=60):
    d = lambda x: f(x) - a * h(x)  # noqa: E731
    xs = [mpmath.mpf(lo) + (hi - lo) * mpmath.mpf(i) / scan for i in range(scan + 1)]
    vals = [d(x) for x in xs]
    cuts = [xs[0]]
    for i in range(scan):
        if (vals[i] > 0) != (vals[i + 1] > 0):
            cuts.append(mpmath.findroot(d, (xs[i], xs[i + 1]), solver="anderson"))
    cuts.append(xs[-1])
    return sum((mpmath.quad(d, [u, v]) for u, v in zip(cuts, cuts[1:]) if d((u + v) / 2) > 0), mpmath.mpf(0))


@pytest.fixture(scope="module")
def tiny():
    """N = 4 records in {0, 1}, batches of M = 2, the sum plus N(0, 1): max over every substitute
    pair of H(a) of the two output mixtures (8 distinct pairs), at a = e^-0.3 and e^0.5."""
    n, m = 4, 2
    seen, best = set(), {}
    with mpmath.workdps(20):
        avals = [mpmath.exp(mpmath.mpf(t) / 10) for t in (-3, 5)]
        for data in itertools.product((0, 1), repeat=n):
            for i in range(n):
                other = list(data)
                other[i] = 1 - data[i]
                s = [sum(b) for b in itertools.combinations(data, m)]
                t = [sum(b) for b in itertools.combinations(other, m)]
                key = tuple(sorted(zip(s, t)))
                if key in seen:
                    continue
                seen.add(key)
                f = lambda x, s=s: sum(mpmath.npdf(x, v) for v in s) / len(s)  # noqa: E731
                h = lambda x, t=t: sum(mpmath.npdf(x, v) for v in t) / len(t)  # noqa: E731
                for a in avals:
                    best[a] = max(best.get(a, 0), _hockey(f, h, a))
        pair = {a: _profile(mpmath.mpf(1) / 2, mpmath.mpf(1), a) for a in avals}
    return len(seen), best, pair


def test_tiny_population_attains_the_pair(tiny):
    pairs, best, pair = tiny
    assert pairs == 8
    for a in best:  # tight: the worst substitute pair's profile is the pair's, on both sides of a = 1
        assert abs(best[a] - pair[a]) < mpmath.mpf(10) ** -15, (a, best[a], pair[a])
    r = account("gaussian", 1, epsilon="0.5", params=_wor(1, 2, 4), width="1e-3")
    a = max(best)
    assert _inside(r, best[a])


# --- randomized response: exact sums for k = 1..5 ---------------------------------------------


def _rr_pair(g, e):
    """The pair's classes (P, Q) for randomized response (epsilon e, 2 values): the remove pair's
    classes with a positive loss, the add pair's with a negative one, and an atom at the loss 0."""
    p, o = e / (1 + e), 1 / (1 + e)
    rem = [(g * p1 + (1 - g) * p0, p0) for p1, p0 in ((o, p), (p, o))]
    pos = [(x, y) for x, y in rem if x > y]
    neg = [(y, x) for x, y in pos]
    rest = 1 - sum(x for x, _ in pos) - sum(x for x, _ in neg)
    return pos + neg + [(rest, rest)]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_randomized_response_against_exact_sums(k):
    g, eps = Fraction(1, 5), Fraction(3, 10)
    with mpmath.workdps(50):
        cls = _rr_pair(mpmath.mpf(1) / 5, mpmath.e)
        ee = mpmath.exp(mpmath.mpf(3) / 10)
        ref = mpmath.mpf(0)
        for combo in itertools.product(cls, repeat=k):
            pp = mpmath.fprod(c[0] for c in combo)
            qq = mpmath.fprod(c[1] for c in combo)
            ref += max(pp - ee * qq, 0)
    r = account("randomized-response", k, epsilon=eps,
                params={"epsilon": 1, "sampling": "without-replacement", "batch": 1, "population": 5}, width="1e-3")
    assert r.width_met and _inside(r, ref), (k, r.lower, r.upper, ref)
    assert g == Fraction(1, 5)


# --- Poisson (add/remove) against without replacement (substitute) --------------------------


def test_poisson_and_without_replacement_differ_after_one_step():
    """One step: the same curve (the remove pair's, above the add pair's at eps >= 0). Ten steps:
    without replacement is certified above Poisson (its pair composes the add pair's negative
    losses with the remove pair's positive ones)."""
    poisson = {"sigma": 1, "sampling": "poisson", "rate": "0.01"}
    wor = _wor(1, 1, 100)
    one_p = account("gaussian", 1, delta="1e-6", params=poisson)
    one_w = account("gaussian", 1, delta="1e-6", params=wor)
    # one curve: the two enclosures (Poisson's profile on a grid subset, the other's on the whole
    # grid) both hold it, so they meet, and each is within the default width
    assert max(one_p.lower, one_w.lower) <= min(one_p.upper, one_w.upper)
    assert one_p.width_met and one_w.width_met
    ten_p = account("gaussian", 10, delta="1e-6", params=poisson)
    ten_w = account("gaussian", 10, delta="1e-6", params=wor)
    assert ten_w.lower > ten_p.upper
    assert Fraction("0.5963") < ten_w.lower < ten_w.upper < Fraction("0.5969")
    # Poisson's profile is read on a grid subset (wider cells in the tails): an enclosure within the
    # default width that meets the one the whole grid gave, (0.5921, 0.5927)
    assert ten_p.width_met and ten_p.lower < Fraction("0.5927") and ten_p.upper > Fraction("0.5921")


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name, params, message", [
    ("gaussian", _wor(1, 5, 4), "batch=5 is larger than population=4"),
    ("gaussian", _wor(1, 0, 4), "batch=0 is not a whole number >= 1"),
    ("gaussian", _wor(1, "3/2", 4), "batch='3/2' is not a whole number >= 1"),
    ("gaussian", _wor(1, 2, "4.5"), "population='4.5' is not a whole number >= 1"),
    ("gaussian", {"sigma": 1, "sampling": "without-replacement", "batch": 2}, "population is missing"),
    ("gaussian", {"sigma": 1, "sampling": "without-replacement", "population": 9}, "batch is missing"),
    ("gaussian", {"sigma": 1, "batch": 2, "population": 4}, "batch=2 goes with sampling=without-replacement"),
    ("laplace", {"scale": 1, "sampling": "without-replacement", "rate": "0.1"},
     "sampling='without-replacement' is not one that takes rate='0.1'"),
    ("exponential", {"epsilon": 1, "sampling": "without-replacement", "batch": 1, "population": 2},
     "sampling=without-replacement is not one exponential takes"),
])
def test_bad_input_is_refused(name, params, message):
    with pytest.raises(InvalidArgument) as e:
        account(name, 10, delta="1e-6", params=params)
    assert message in str(e.value)


def test_a_list_mixing_the_relations_is_refused():
    with pytest.raises(InvalidArgument, match="different neighbouring relations"):
        account([("gaussian", _wor(1, 1, 100)), ("gaussian", {"sigma": 1, "sampling": "poisson", "rate": "0.01"})],
                10, delta="1e-6")


def test_whole_population_is_the_mechanism():
    r = account("gaussian", 3, epsilon=1, params=_wor(2, 7, 7))
    plain = account("gaussian", 3, epsilon=1, params={"sigma": 2})
    assert (r.lower, r.upper) == (plain.lower, plain.upper) and r.mechanisms == plain.mechanisms


def test_cli(capsys):
    base = ["account", "--mechanism", "gaussian", "--param", "sigma=1", "--param", "sampling=without-replacement"]
    assert cli.main(base + ["--param", "batch=1", "--param", "population=100", "--k", "10", "--delta", "1e-6",
                            "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"] == {"sigma": "1", "sensitivity": "1", "sampling": "without-replacement", "batch": "1",
                             "population": "100"}
    assert Fraction("0.5963") < Fraction(out["epsilon_lower"]) < Fraction(out["epsilon_upper"]) < Fraction("0.5969")
    for bad, text in ((["--param", "batch=3", "--param", "population=2"], "batch=3 is larger than population=2"),
                      (["--param", "batch=1"], "population is missing")):
        assert cli.main(base + bad + ["--k", "10", "--delta", "1e-6"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and text in err and err.startswith("exactdp")
