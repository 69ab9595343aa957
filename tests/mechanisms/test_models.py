"""Mechanism models: exact output distributions and exact privacy losses, each checked
against an independent computation (closed forms, mpmath brute force over the outputs,
exact integration, enumeration of permutations)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp.errors import InexactInput, InvalidArgument, TooLarge, Undecided
from exactdp.mechanisms.models._exppoly import ExpPoly
from exactdp.mechanisms.distribution import INFINITY, hockey_stick, pure_epsilon
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.numeric.decide import compare, to_sympy

MP = mpmath.mp.clone()
MP.dps = 50
TOL = mpmath.mpf(10) ** -40


def same(a, b) -> bool:
    """Exact equality of two exact reals (exponential expressions are simplified)."""
    return sympy.simplify(sympy.together(to_sympy(a) - to_sympy(b))) == 0


def same_log(a, b) -> bool:
    """Exact equality of two logarithms of exponential expressions."""
    return same(sympy.exp(to_sympy(a)), sympy.exp(to_sympy(b)))


def num(x):
    """A 50-digit value of an exact number."""
    return MP.mpf(sympy.N(to_sympy(x), 50)) if not isinstance(x, Fraction) else MP.mpf(x.numerator) / x.denominator


def rat(x) -> sympy.Rational:
    x = Fraction(x)
    return sympy.Rational(x.numerator, x.denominator)


# --- randomized response ------------------------------------------------------------


@pytest.mark.parametrize("p", ["3/4", "2/3", "9/10", "1/2", "99/100"])
def test_randomized_response_epsilon_is_log_odds(p):
    p = Fraction(p)
    loss = make_mechanism("randomized-response", p=p).epsilon(0, 1)
    if p == Fraction(1, 2):
        assert loss.value == 0
    else:
        assert same(loss.value, sympy.log(rat(p / (1 - p))))


@pytest.mark.parametrize("p,k", [("1/2", 3), ("7/10", 4), ("1/3", 3)])
def test_k_ary_randomized_response_epsilon(p, k):
    p = Fraction(p)
    loss = make_mechanism("randomized-response", p=p, k_values=k).epsilon(0, k - 1)
    expected = p * (k - 1) / (1 - p)
    assert (loss.value == 0 if expected == 1 else same(loss.value, sympy.log(rat(expected))))


def test_randomized_response_given_epsilon_is_exactly_that_epsilon():
    loss = make_mechanism("randomized-response", epsilon="1/2").epsilon(0, 1)
    assert loss.value == Fraction(1, 2)


# --- the exponential mechanism -----------------------------------------------------------


def test_exponential_probabilities_exact():
    em = make_mechanism("exponential", epsilon=1, sensitivity=1)
    d = em.distribution((3, 1, 2))
    e = sympy.exp
    z = e(rat("3/2")) + e(rat("1/2")) + e(1)
    assert same(d.p(0), e(rat("3/2")) / z)
    assert same(d.p(1), e(rat("1/2")) / z)
    assert same(d.p(2), e(1) / z)
    # the monotone form doubles the exponent
    dm = make_mechanism("exponential", epsilon=1, sensitivity=1, form="monotone").distribution((3, 1, 2))
    assert same(dm.p(1), e(1) / (e(3) + e(1) + e(2)))
    # ties give equal probabilities; rational utilities with a common sensitivity
    assert em.distribution(("1/2", "1/2", "1/2", "1/2")).p(3) == Fraction(1, 4)


@pytest.mark.parametrize("shift", [7, -3, "5/2", 10**6])
def test_exponential_invariant_under_subtracting_a_constant(shift):
    em = make_mechanism("exponential", epsilon="3/2", sensitivity=2)
    u = (Fraction(3), Fraction(-1), Fraction(1, 2), Fraction(3))
    shifted = tuple(x - Fraction(shift) for x in u)
    assert em.distribution(u) == em.distribution(shifted)  # the same exact expressions
    # and equal to the unshifted textbook formula exp(c u_o) / sum_j exp(c u_j)
    c = Fraction(3, 2) / (2 * 2)
    z = ExpPoly()
    for x in u:
        z = z + ExpPoly.monomial(c * x)
    for o, x in enumerate(u):
        n, d = em.fractions(shifted)[o]
        assert (n * z - ExpPoly.monomial(c * x) * d).is_zero()


def test_exponential_pure_epsilon_exact_and_below_epsilon():
    em = make_mechanism("exponential", epsilon=1, sensitivity=1)
    loss = em.epsilon((0, 0), (1, -1))
    assert same_log(loss.value, sympy.log((1 + sympy.E) / 2))
    assert loss.output == 1
    assert same_log(loss.value, pure_epsilon(em.distribution((0, 0)), em.distribution((1, -1))).value)
    assert compare(loss.value, 1) < 0
    # the bound epsilon is approached, never reached: scores far apart, the top one drops
    far = em.epsilon((0, 20), (1, 19)).value
    assert compare(far, 1) < 0 and compare(far, 1 - Fraction(1, 10**4)) > 0
    h = sympy.Rational(1, 2)
    assert same_log(far, sympy.log(sympy.exp(h) * (1 + sympy.exp(10)) / (sympy.exp(h) + sympy.exp(19 * h))))


def test_exponential_never_above_epsilon_on_every_neighbouring_pair():
    em = make_mechanism("exponential", epsilon="1/2", sensitivity=1)
    vectors = list(itertools.product(range(3), repeat=3))
    worst = Fraction(0)
    for u in vectors[::3]:
        for w in itertools.product(*[(x - 1, x, x + 1) for x in u]):
            v = em.epsilon(u, w).value
            assert compare(v, Fraction(1, 2)) < 0
            if compare(v, worst) > 0:
                worst = v
    assert compare(worst, Fraction(1, 4)) > 0


def test_monotone_form_spends_up_to_twice_on_a_non_monotone_pair():
    em = make_mechanism("exponential", epsilon=1, sensitivity=1, form="monotone")
    assert compare(em.epsilon((0, 0), (1, 1)).value, 1) <= 0  # monotone pair: within epsilon
    assert em.epsilon((0, 0), (1, 1)).value == 0
    assert compare(em.epsilon((0, 0, 0), (1, 1, 0)).value, 1) < 0
    loss = em.epsilon((0, 0), (1, -1)).value  # non-monotone: more than epsilon
    assert same_log(loss, sympy.log((1 + sympy.exp(2)) / 2))
    assert compare(loss, 1) > 0 and compare(loss, 2) < 0


def _brute_delta(P, Q, eps):
    """max over both directions of sum_o max(0, P(o) - e^eps Q(o)), 50 digits."""
    ee = MP.exp(num(eps))
    one = sum(max(MP.mpf(0), P[o] - ee * Q[o]) for o in P)
    two = sum(max(MP.mpf(0), Q[o] - ee * P[o]) for o in P)
    return max(one, two)


@pytest.mark.parametrize("u,w,eps", [
    ((0, 0), (1, -1), 0), ((0, 0), (1, -1), "1/2"), ((3, 1, 2), (2, 2, 1), "1/4"),
    ((0, 5, 2, 2), (1, 4, 1, 3), "1/10"), ((0, 0, 0), (1, 1, 1), 0),
])
def test_exponential_delta_against_brute_force(u, w, eps):
    em = make_mechanism("exponential", epsilon=1, sensitivity=1)

    def probs(v):
        ws = [MP.exp(MP.mpf(x) / 2) for x in v]
        return {o: x / sum(ws) for o, x in enumerate(ws)}

    value = em.delta(u, w, eps)
    assert abs(num(value) - _brute_delta(probs(u), probs(w), Fraction(eps))) < TOL
    # the generic hockey-stick over the two distributions agrees exactly
    P, Q = em.distribution(u), em.distribution(w)
    generic = max(num(hockey_stick(P, Q, eps)), num(hockey_stick(Q, P, eps)))
    assert abs(generic - num(value)) < TOL


def test_exponential_delta_at_its_epsilon_is_zero_and_tight_ties_decided():
    em = make_mechanism("exponential", epsilon=1, sensitivity=1)
    eps = em.epsilon((0, 0), (1, -1)).value  # log((1+e)/2), irrational
    assert em.delta((0, 0), (1, -1), eps) == 0  # exactly tight: no Undecided
    assert em.delta((0, 0), (1, -1), 1) == 0
    value = em.delta((0, 0), (1, -1), sympy.log(sympy.Rational(5, 4)))
    assert same(value, (4 - 6 * sympy.exp(-1)) / (8 * sympy.exp(-1) + 8))
    # all utilities move together: the distributions are identical
    assert em.delta((0, 2), (1, 3), 0) == 0


# --- report-noisy-max and permute-and-flip ----------------------------------------------


def test_gumbel_noisy_max_is_the_exponential_mechanism():
    rnm = make_mechanism("report-noisy-max", noise="gumbel", epsilon=2, sensitivity=1)
    em = make_mechanism("exponential", epsilon=2, sensitivity=1)
    assert rnm.distribution((0, 3, 1)) == em.distribution((0, 3, 1))


def _noisy_max_by_integration(u, eps, sens):
    """P(argmax_o u_o + E_o = r), E_o ~ Exp(rate eps/(2 sens)), by exact integration."""
    x = sympy.Symbol("x", real=True)
    lam = rat(Fraction(eps) / (2 * Fraction(sens)))
    top = max(u)
    out = []
    for r, ur in enumerate(u):
        f = lam * sympy.exp(-lam * (x - ur))
        for s, us in enumerate(u):
            if s != r:
                f *= 1 - sympy.exp(-lam * (x - us))
        out.append(sympy.integrate(sympy.expand(f), (x, top, sympy.oo)))
    return out


def _permute_and_flip_by_permutations(u, eps, sens):
    c = rat(Fraction(eps) / (2 * Fraction(sens)))
    top = max(u)
    p = [sympy.exp(c * (x - top)) for x in u]
    m = len(u)
    out = [sympy.Integer(0)] * m
    for perm in itertools.permutations(range(m)):
        stay = sympy.Integer(1)
        for r in perm:
            out[r] += stay * p[r] / math.factorial(m)
            stay *= 1 - p[r]
    return out


@pytest.mark.parametrize("u", [(0, -1), (0, 0), (2, 0, 1), (0, "-1/2", -2)])
def test_permute_and_flip_equals_exponential_noisy_max(u):
    u = tuple(Fraction(x) for x in u)
    pf = make_mechanism("permute-and-flip", epsilon=2, sensitivity=1)
    rnm = make_mechanism("report-noisy-max", noise="exponential", epsilon=2, sensitivity=1)
    d = pf.distribution(u)
    assert rnm.distribution(u) == d
    by_int = _noisy_max_by_integration(u, 2, 1)
    by_perm = _permute_and_flip_by_permutations(u, 2, 1)
    for o in range(len(u)):
        assert same(d.p(o), by_int[o])
        assert same(d.p(o), by_perm[o])


def test_permute_and_flip_two_candidates_exact_and_its_epsilon():
    pf = make_mechanism("permute-and-flip", epsilon=2, sensitivity=1)
    d = pf.distribution((0, -1))
    assert same(d.p(1), (1 - 0) * sympy.exp(-1) / 2)
    loss = pf.epsilon((0, -1, -2), (1, -2, -1))
    assert compare(loss.value, 2) <= 0
    expected = sympy.log((sympy.exp(-1) / 2 - sympy.exp(-3) / 6) / (sympy.exp(-3) / 2 - sympy.exp(-5) / 6))
    assert same_log(loss.value, expected) and loss.output == 1


# --- discrete Laplace -------------------------------------------------------------------


def _dl_brute(a, b, t, eps, N):
    """Both directions' sum over outputs -N..N+|a-b| (shifted so min(a,b)=0) and the
    bound on what the truncation drops: outputs below -N, P(Z < -N) = q^(N+1)/(1+q)."""
    q = MP.exp(-1 / num(Fraction(t)))
    k = abs(a - b)

    def pmf(z):
        return (1 - q) / (1 + q) * q ** abs(z)

    ee = MP.exp(num(eps))
    s = sum(max(MP.mpf(0), pmf(o) - ee * pmf(o - k)) for o in range(-N, N + k + 1))
    return s, q ** (N + 1) / (1 + q)


@pytest.mark.parametrize("a,b,t,eps", [
    (0, 3, 1, 0), (0, 3, 1, 1), (0, 3, 1, "1/2"), (0, 3, 1, sympy.log(2)), (5, 1, "3/2", "1/3"),
    (0, 1, "1/2", 1), (0, 7, 2, "5/4"), (2, 2, 1, 0), (0, 4, 1, 4), (0, 4, 1, 5),
])
def test_discrete_laplace_delta_closed_form_against_truncated_lattice(a, b, t, eps):
    dl = make_mechanism("discrete-laplace", scale=t)
    value = dl.delta(a, b, eps)
    assert dl.delta(b, a, eps) == value  # symmetric
    brute, dropped = _dl_brute(a, b, t, eps if isinstance(eps, sympy.Basic) else Fraction(eps), 120)
    v = num(value)
    assert brute - TOL <= v <= brute + dropped + TOL
    assert dropped < MP.mpf(10) ** -20  # the check is sharp (q^121 <= e^-60)


def test_discrete_laplace_epsilon_and_witness():
    dl = make_mechanism("discrete-laplace", scale="1/2")
    loss = dl.epsilon(-1, 2)
    assert loss.value == 6 and loss.output == 2
    # the witness output attains it: log P_2(2)/P_-1(2) = 3/t
    assert dl.delta(-1, 2, 6) == 0
    assert compare(dl.delta(-1, 2, Fraction(59, 10)), 0) > 0


def test_discrete_laplace_delta_exact_form():
    dl = make_mechanism("discrete-laplace", scale=1)
    q = sympy.exp(-1)
    assert same(dl.delta(0, 1, 0), (1 - q) / (1 + q))  # total variation of a shift by 1
    assert same(dl.delta(0, 3, 1), (1 - q**2) / (1 + q))


def test_clamped_discrete_laplace_exact():
    c = make_mechanism("discrete-laplace", scale=1, variant="clamped", lower=0, upper=3)
    d = c.distribution(1)
    q = sympy.exp(-1)
    assert same(d.p(0), q / (1 + q)) and same(d.p(3), q**2 / (1 + q))
    assert same(d.p(1), (1 - q) / (1 + q)) and same(d.p(2), (1 - q) * q / (1 + q))
    assert same(sum((to_sympy(d.p(o)) for o in range(4)), sympy.Integer(0)), 1)
    assert c.epsilon(1, 2).value == 1  # clamping does not change epsilon inside the range
    # an input outside the range piles everything at an end
    far = c.distribution(10)
    assert same(far.p(3), 1 - q**8 / (1 + q))


def test_truncated_discrete_laplace_spends_more_than_its_scale_says():
    t = make_mechanism("discrete-laplace", scale=1, variant="truncated", lower=0, upper=2)
    loss = t.epsilon(0, 1)
    e = sympy.exp
    assert same_log(loss.value, sympy.log((1 + 2 * e(-1)) / (e(-1) + e(-2) + e(-3))))
    assert compare(loss.value, 1) > 0  # |a-b|/t = 1 is not its epsilon
    assert loss.output == 0
    assert t.epsilon(0, 2).value == 2


# --- discrete Gaussian, Laplace, Gaussian --------------------------------------------


def test_discrete_gaussian_infinite_epsilon_and_delta_enclosure():
    dg = make_mechanism("discrete-gaussian", sigma_squared=1)
    loss = dg.epsilon(0, 1)
    assert loss.value is INFINITY and loss.output is None
    assert dg.epsilon(3, 3).value == 0
    lo, hi = dg.delta_enclosure(0, 1, 1)
    ws = {z: MP.exp(-MP.mpf(z) ** 2 / 2) for z in range(-60, 62)}
    zsum = sum(ws[z] for z in range(-60, 61))
    P = {o: ws[o] / zsum for o in range(-59, 60)}
    Q = {o: ws[o - 1] / zsum for o in range(-59, 60)}
    ref = _brute_delta(P, Q, Fraction(1))
    assert num(lo) - TOL <= ref <= num(hi) + TOL
    assert hi - lo < Fraction(1, 10**15)
    with pytest.raises(Undecided, match="delta_enclosure"):
        dg.delta(0, 1, 1)
    # the witness against any finite claim: the first output whose loss exceeds it
    o = dg.output_exceeding(0, 1, 5)
    assert Fraction(2 * o - 1, 2) > 5 >= Fraction(2 * (o - 1) - 1, 2)
    assert make_mechanism("discrete-gaussian", sigma=2).delta_enclosure(0, 1, 1) == \
        make_mechanism("discrete-gaussian", sigma_squared=4).delta_enclosure(0, 1, 1)


def test_laplace_closed_forms_against_integration():
    lap = make_mechanism("laplace", scale=2)
    loss = lap.epsilon(0, 1)
    assert loss.value == Fraction(1, 2) and loss.output == 1
    for eps in (0, Fraction(1, 4), Fraction(1, 2), 1):
        value = lap.delta(0, 1, eps)
        ee = MP.exp(num(Fraction(eps)))

        def f(x, m):
            return MP.exp(-abs(x - m) / 2) / 4

        kink = (1 - 2 * num(Fraction(eps))) / 2  # where f(x, 0) = e^eps f(x, 1)
        cuts = [-MP.inf, 0] + ([kink] if 0 < kink < 1 else []) + [1, MP.inf]
        ref = MP.quad(lambda x, ee=ee: max(MP.mpf(0), f(x, 0) - ee * f(x, 1)), cuts)
        assert abs(num(value) - ref) < MP.mpf(10) ** -25
    assert lap.delta(0, 1, 0) == 1 - sympy.exp(-sympy.Rational(1, 4))


def test_gaussian_infinite_epsilon_and_enclosure():
    g = make_mechanism("gaussian", sigma=1)
    assert g.epsilon(0, 1).value is INFINITY
    lo, hi = g.delta_enclosure(0, 1, Fraction(1, 2))
    f = lambda x, m: MP.npdf(x, m, 1)
    ee = MP.exp(MP.mpf(1) / 2)
    ref = MP.quad(lambda x: max(MP.mpf(0), f(x, 0) - ee * f(x, 1)), [-MP.inf, 0, 1, MP.inf])
    assert num(lo) - MP.mpf(10) ** -25 <= ref <= num(hi) + MP.mpf(10) ** -25
    lo2, hi2 = g.delta_enclosure(0, 1, sympy.log(2))  # an irrational epsilon, bracketed
    assert lo2 <= hi2 < lo


# --- bad input, one table -------------------------------------------------------------


def _mk(name, **kw):
    return lambda: make_mechanism(name, **kw)


BAD = [
    (_mk("randomized-response", p="3/2"), InvalidArgument),
    (_mk("randomized-response", p="-1/2"), InvalidArgument),
    (_mk("randomized-response", p=0.75), InexactInput),
    (_mk("exponential", epsilon=-1), InvalidArgument),
    (_mk("exponential", epsilon="nan"), InvalidArgument),
    (_mk("exponential", epsilon=0.5), InexactInput),
    (_mk("exponential", epsilon=1, form="linear"), InvalidArgument),
    (lambda: make_mechanism("exponential", epsilon=1).distribution(()), InvalidArgument),
    (lambda: make_mechanism("exponential", epsilon=1).distribution(""), InvalidArgument),
    (lambda: make_mechanism("exponential", epsilon=1).distribution(3), InvalidArgument),
    (lambda: make_mechanism("exponential", epsilon=1).distribution((0, 0.5)), InexactInput),
    (lambda: make_mechanism("exponential", epsilon=1).epsilon((0, 1), (0,)), InvalidArgument),
    (lambda: make_mechanism("exponential", epsilon=1).distribution(range(201)), TooLarge),
    (lambda: make_mechanism("exponential", epsilon=1).delta((0, 1), (1, 0), -1), InvalidArgument),
    (lambda: make_mechanism("exponential", epsilon=1).delta((0, 1), (1, 0), "nan"), InvalidArgument),
    (_mk("report-noisy-max", noise="laplace", epsilon=1), InvalidArgument),
    (_mk("permute-and-flip", epsilon=1, colour="red"), InvalidArgument),
    (_mk("discrete-laplace", scale=0), InvalidArgument),
    (_mk("discrete-laplace", scale=1, variant="rounded"), InvalidArgument),
    (_mk("discrete-laplace", scale=1, variant="clamped", lower=3, upper=3), InvalidArgument),
    (_mk("discrete-laplace", scale=1, variant="clamped", lower=0), InvalidArgument),
    (_mk("discrete-laplace", scale=1, lower=0, upper=3), InvalidArgument),
    (_mk("discrete-laplace", scale=1, variant="truncated", lower=0, upper=10**6), TooLarge),
    (lambda: make_mechanism("discrete-laplace", scale=1).epsilon(0, "1/2"), InvalidArgument),
    (lambda: make_mechanism("discrete-laplace", scale=1).delta(0, 1, "-1/2"), InvalidArgument),
    (lambda: make_mechanism("discrete-laplace", scale=1).distribution(0), NotImplementedError),
    (_mk("discrete-gaussian", sigma=1, sigma_squared=1), InvalidArgument),
    (_mk("discrete-gaussian"), InvalidArgument),
    (lambda: make_mechanism("laplace", scale=1).delta(0, 1, -1), InvalidArgument),
    (lambda: make_mechanism("gaussian", sigma=1).delta_enclosure(0, 1, sympy.nan), InvalidArgument),
    (_mk("gaussian", sigma="-1"), InvalidArgument),
]


@pytest.mark.parametrize("call,error", BAD)
def test_bad_input(call, error):
    with pytest.raises(error):
        call()
