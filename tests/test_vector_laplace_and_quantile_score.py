"""Issue 28 ("Smaller"): the quantile-score query on the command line (seed 002) and the
Laplace and Gaussian mechanisms on vector query values (seeds 000/002: L1 for Laplace, L2
for the Gaussian). Every expected value is computed here from first principles
(enumeration written out in the test, mpmath at high precision), never typed in."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp import Multisets, sensitivity
from exactdp.checkers.privacy import check_mechanism
from exactdp.cli import main
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.mechanisms.distribution import INFINITY, Divergence
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.mechanisms.models.noise import MAX_LAPLACE_COORDINATES
from exactdp.queries import QUERY_NAMES, parse_query
from exactdp.queries.scores import quantile_score, quantile_score_values
from exactdp.spaces.universe import IntegerRange
from exactdp.symbolic.constructors import make_quantile_score



@pytest.fixture(autouse=True)
def _precision():
    """60 digits for this file's first-principles computations, restored afterwards."""
    with mpmath.workdps(60):
        yield


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# == quantile scores ===========================================================================

def _scores_by_hand(xs, cands, alpha, form):
    """Seed 002's two formulas, written out again."""
    n = len(xs)
    out = []
    for c in cands:
        below = sum(1 for x in xs if x < c)
        above = sum(1 for x in xs if x > c)
        at_most = sum(1 for x in xs if x <= c)
        if form == "seed":
            out.append(-abs((1 - alpha) * below - alpha * above))
        else:
            out.append(-abs(at_most - alpha * n))
    return tuple(out)


def _multisets(universe, sizes):
    for n in sizes:
        yield from itertools.combinations_with_replacement(universe, n)


@pytest.mark.parametrize("form", ["seed", "code"])
@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10)])
def test_query_scores_equal_the_formulas_on_every_dataset(alpha, form):
    cands = (3, 0, Fraction(3, 2), 1)  # any order; the vector follows it
    q = quantile_score(alpha, cands, form)
    for xs in _multisets([0, 1, 2, 3], range(0, 4)):
        expected = _scores_by_hand(xs, cands, alpha, form)
        assert q(list(xs)) == expected
        assert quantile_score_values(xs, cands, alpha, form) == expected


def test_symbolic_constructor_uses_the_same_scores():
    for form in ("seed", "code", "integer"):
        binding = {"d_in": 1} if form == "integer" else {"alpha": Fraction(1, 3), "d_in": 1}
        query = make_quantile_score([1, 2, 3], "1/3", form=form).exact_form(binding)[0]
        for xs in _multisets([0, 1, 2, 3, 4], range(0, 4)):
            assert tuple(query(list(xs))) == quantile_score_values(xs, (1, 2, 3), "1/3", form)


def test_parse_query_and_listed_name():
    assert any(name.startswith("quantile-score:") for name in QUERY_NAMES)
    q = parse_query("quantile-score:1/4:-1,0,5/2:code")
    assert q.name == "quantile-score:1/4:-1,0,5/2:code"
    assert q.output == "vector" and q.norm == "Linf"
    assert q([0, 0, 3]) == _scores_by_hand((0, 0, 3), (-1, 0, Fraction(5, 2)), Fraction(1, 4), "code")


@pytest.mark.parametrize("text", [
    "quantile-score", "quantile-score:1/2", "quantile-score:1/2:", "quantile-score:3/2:0,1",
    "quantile-score:1/2:0,,1", "quantile-score:1/2:0,0", "quantile-score:1/2:0,1:integer",
    "quantile-score:1/2:0,1:seed:x", "quantile-score:x:0,1", "quantile-score:0.5:a",
])
def test_bad_quantile_score_names_refused(text):
    with pytest.raises(InvalidArgument):
        parse_query(text)


def _sensitivity_by_hand(alpha, cands, form, universe, sizes, d_in):
    """Max L-infinity distance between scores over add/remove neighbours (|x' - x| <= d_in)."""
    sets = {xs: _scores_by_hand(xs, cands, alpha, form) for xs in _multisets(universe, sizes)}
    best = Fraction(0)
    for xs, fx in sets.items():
        for k in range(1, d_in + 1):
            for added in itertools.combinations_with_replacement(universe, k):
                ys = tuple(sorted(xs + added))
                if ys in sets:
                    best = max(best, max(abs(a - b) for a, b in zip(fx, sets[ys])))
    return best


@pytest.mark.parametrize("form", ["seed", "code"])
@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10)])
def test_sensitivity_is_seed_002s_bound(alpha, form):
    cands = (0, 1, 2, 3)
    space = Multisets(IntegerRange(0, 3), sizes=(0, 3))
    for d_in in (1, 2):
        result = sensitivity(quantile_score(alpha, cands, form), space, d_in=d_in)
        seed_bound = max(alpha, 1 - alpha) * d_in  # seed 002: max(alpha, 1 - alpha) d_in
        assert result.value == seed_bound
        assert result.value == _sensitivity_by_hand(alpha, cands, form, range(4), range(4), d_in)


def test_sensitivity_cli_json(capsys):
    code, out, err = run(capsys, "sensitivity", "--query", "quantile-score:1/3:0,1,2",
                         "--universe", "0..3", "--sizes", "0..3", "--claim", "2/3", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["sensitivity"] == "2/3"
    assert obj["verdict"] == "holds-tight"
    assert Fraction(obj["sensitivity"]) == _sensitivity_by_hand(
        Fraction(1, 3), (0, 1, 2), "seed", range(4), range(4), 1)


def _exponential_loss(fx, fy, epsilon, delta):
    """Max over outputs of log(P_x(o)/P_y(o)), P_x(o) ∝ exp(epsilon u_o / (2 delta))."""
    c = mpmath.mpf(epsilon.numerator) / epsilon.denominator / (2 * delta)
    zx = mpmath.fsum(mpmath.exp(c * mpmath.mpf(u.numerator) / u.denominator) for u in fx)
    zy = mpmath.fsum(mpmath.exp(c * mpmath.mpf(u.numerator) / u.denominator) for u in fy)
    return max(c * (mpmath.mpf((a - b).numerator) / (a - b).denominator) - mpmath.log(zx) + mpmath.log(zy)
               for a, b in zip(fx, fy))


@pytest.mark.parametrize("form", ["seed", "code"])
def test_exponential_on_quantile_scores_from_the_cli(capsys, form):
    alpha, cands, eps = Fraction(1, 2), (0, 1, 2, 3), Fraction(1)
    query = "quantile-score:1/2:0,1,2,3" + ("" if form == "seed" else ":code")
    code, out, err = run(capsys, "privacy", "--mechanism", "exponential", "--param", "epsilon=1",
                         "--query", query, "--universe", "0..3", "--sizes", "0..3", "--json")
    assert code == 0, err
    obj = json.loads(out)
    # first principles: every add/remove pair, both directions, every output
    sets = {xs: _scores_by_hand(xs, cands, alpha, form) for xs in _multisets(range(4), range(4))}
    worst = mpmath.mpf(0)
    for xs, fx in sets.items():
        for v in range(4):
            ys = tuple(sorted(xs + (v,)))
            if ys in sets:
                fy = sets[ys]
                worst = max(worst, _exponential_loss(fx, fy, eps, 1), _exponential_loss(fy, fx, eps, 1))
    exact = sympy.sympify(obj["epsilon"])
    assert abs(sympy.N(exact, 50) - sympy.Float(mpmath.nstr(worst, 55), 55)) < sympy.Float("1e-45")
    # the witness pair attains it
    w = obj["witness"]
    fx = tuple(Fraction(v) for v in w["fx"].strip("()").split(", "))
    fy = tuple(Fraction(v) for v in w["fx_prime"].strip("()").split(", "))
    assert fx == sets[tuple(int(v) for v in w["x"])] and fy == sets[tuple(int(v) for v in w["x_prime"])]
    at_witness = max(_exponential_loss(fx, fy, eps, 1), _exponential_loss(fy, fx, eps, 1))
    assert abs(at_witness - worst) < mpmath.mpf(10) ** -50
    # within the textbook bound: 2 * (epsilon / (2 * sensitivity param)) * true sensitivity
    assert worst <= eps * max(alpha, 1 - alpha) + mpmath.mpf(10) ** -50


@pytest.mark.parametrize("mechanism, params", [
    ("permute-and-flip", ["--param", "epsilon=1"]),
    ("report-noisy-max", ["--param", "noise=gumbel", "--param", "epsilon=1"]),
    ("report-noisy-max", ["--param", "noise=exponential", "--param", "epsilon=1"]),
])
def test_other_selection_mechanisms_take_the_scores(capsys, mechanism, params):
    code, out, err = run(capsys, "privacy", "--mechanism", mechanism, *params, "--query",
                         "quantile-score:1/2:0,1,2,3", "--universe", "0..3", "--sizes", "0..3",
                         "--epsilon", "1", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["verdict"] in ("holds", "holds-tight")
    assert obj["witness"]["x"] is not None and obj["witness"]["output"] is not None


# == Laplace and Gaussian on vectors ================================================================


def _mp(x):
    """An exact number (Fraction or SymPy) at mpmath's precision."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(sympy.N(x, mpmath.mp.dps + 10))


def _log_ratio_laplace(z, a, b, scale):
    """log p_a(z)/p_b(z) for independent Laplace noise: the densities written out."""
    return sum(abs(zi - bi) - abs(zi - ai) for zi, ai, bi in zip(z, a, b)) / scale


@pytest.mark.parametrize("a, b, scale", [
    ((1, 2), (3, 4), 1),
    ((0, Fraction(1, 2), -3), (1, Fraction(-1, 2), -3), Fraction(3, 2)),
    ((5,), (2,), 2),
])
def test_vector_laplace_epsilon_is_the_l1_norm_over_scale(a, b, scale):
    mech = make_mechanism("laplace", scale=scale)
    loss = mech.epsilon(a, b)
    l1 = sum(abs(Fraction(x) - y) for x, y in zip(a, b))
    assert loss.value == l1 / Fraction(scale)
    # the witness output attains it, and no output on a grid around the values beats it
    assert _log_ratio_laplace(loss.output, a, b, Fraction(scale)) == loss.value
    grid = [Fraction(k, 2) for k in range(-10, 13)]
    for z in itertools.product(grid, repeat=len(a)):
        assert abs(_log_ratio_laplace(z, a, b, Fraction(scale))) <= loss.value


def _laplace_delta_2d(c1, c2, scale, eps):
    """delta(eps) of Laplace noise at a = (0, 0) against b = (c1, c2) (c_i > 0), integrated
    in the output space: int p_a(z) (1 - e^(eps - loss(z)))_+ dz, the inner integral over
    z2 piece by piece (the density and the loss are exponentials and lines on each piece),
    the outer one by quadrature."""
    c1, c2, s, e = _mp(c1), _mp(c2), _mp(scale), _mp(eps)

    def loss(z, c):
        return (abs(z - c) - abs(z)) / s

    def inner(t):  # int p(z2) (1 - e^(t - loss2(z2)))_+ dz2 over {loss2 > t}
        total = mpmath.mpf(0)
        if c2 / s > t:  # z2 <= 0: loss c2/s, mass 1/2
            total += (1 - mpmath.exp(t - c2 / s)) / 2
        # 0 < z2 < c2: loss (c2 - 2 z2)/s > t while z2 < (c2 - t s)/2; density e^(-z/s)/(2s)
        u = min(max((c2 - t * s) / 2, mpmath.mpf(0)), c2)
        total += (1 - mpmath.exp(-u / s)) / 2 - mpmath.exp(t - c2 / s) * (mpmath.exp(u / s) - 1) / 2
        if -c2 / s > t:  # z2 >= c2: loss -c2/s, mass e^(-c2/s)/2
            total += mpmath.exp(-c2 / s) / 2 * (1 - mpmath.exp(t + c2 / s))
        return total

    points = {mpmath.mpf(0), c1}
    for shift in (c2 / s, -c2 / s):
        z = (c1 - (e - shift) * s) / 2
        if 0 < z < c1:
            points.add(z)
    return mpmath.quad(lambda z: mpmath.exp(-abs(z) / s) / (2 * s) * inner(e - loss(z, c1)),
                       [-mpmath.inf, *sorted(points), mpmath.inf])


@pytest.mark.parametrize("c1, c2, scale, eps", [
    (1, 1, 1, 0), (2, 2, 1, 1), (1, 3, 1, Fraction(1, 2)), (1, 3, 1, Fraction(5, 2)),
    (Fraction(1, 2), 2, Fraction(3, 2), Fraction(1, 3)), (1, 2, 1, sympy.log(3)),
    (1, 2, sympy.sqrt(2), Fraction(1, 2)),
])
def test_vector_laplace_delta_against_quadrature(c1, c2, scale, eps):
    with mpmath.workdps(30):
        mech = make_mechanism("laplace", scale=scale)
        exact = mech.delta((0, 0), (c1, c2), eps)
        expected = _laplace_delta_2d(Fraction(c1), Fraction(c2), scale if isinstance(scale, sympy.Basic)
                                     else Fraction(scale), eps if isinstance(eps, sympy.Basic) else Fraction(eps))
        assert abs(_mp(exact) - expected) < mpmath.mpf(10) ** -20
        # both directions and either sign of the shift give the same value
        assert abs(_mp(mech.delta((c1, -c2), (0, 0), eps)) - expected) < mpmath.mpf(10) ** -20


def test_vector_laplace_delta_reduces_to_the_scalar():
    mech = make_mechanism("laplace", scale=Fraction(3, 2))
    for c in (Fraction(1), Fraction(5, 2), 4):
        for eps in (Fraction(0), Fraction(1, 3), Fraction(2)):
            scalar = mech.delta(0, c, eps)
            assert sympy.simplify(sympy.sympify(mech.delta((0,), (c,), eps)) - sympy.sympify(scalar)) == 0
            # a coordinate on which the vectors agree changes nothing
            assert mech.delta((7, 0, 1), (7, c, 1), eps) == mech.delta((0,), (c,), eps)
    assert mech.delta((0, 0), (1, 2), 2) == 0  # eps = ||a-b||_1 / scale: nothing left
    assert mech.delta((0, 0), (1, 2), Fraction(19, 10)) > 0


def test_vector_laplace_delta_is_exact_and_decreasing():
    mech = make_mechanism("laplace", scale=1)
    values = [mech.delta((0, 0, 0), (1, 2, 1), Fraction(k, 4)) for k in range(0, 17)]
    assert all(_mp(x) > _mp(y) for x, y in zip(values, values[1:]))  # strictly until 4
    assert values[-1] == 0
    # exact: an exponential polynomial with rational exponents, e.g. at eps = 0
    assert sympy.sympify(values[0]).free_symbols == set()


def test_vector_laplace_delta_budget():
    mech = make_mechanism("laplace", scale=1)
    d = MAX_LAPLACE_COORDINATES + 1
    with pytest.raises(TooLarge) as info:
        mech.delta(tuple(range(d)), tuple(range(1, d + 1)), 1)
    assert f"{d} coordinates" in str(info.value) and "more than" in str(info.value)
    assert mech.epsilon(tuple(range(40)), tuple(range(1, 41))).value == 40  # epsilon has no limit


def _gaussian_delta_2d(a, b, sigma, eps):
    """delta(eps) of N(a, sigma^2 I) against N(b, sigma^2 I) in the plane: the integral of
    p_a - e^eps p_b over the half-plane where p_a > e^eps p_b, over z2 by the normal CDF
    (b - a not parallel to an axis), over z1 by quadrature."""
    s, e = _mp(sigma), _mp(eps)
    a1, a2, b1, b2 = (_mp(Fraction(v)) for v in (*a, *b))

    def phi(z, c):
        return mpmath.npdf(z, c, s)

    # log p_a - log p_b = (|z-b|^2 - |z-a|^2)/(2 s^2) > e  <=>  w1 z1 + w2 z2 > k
    w1, w2 = 2 * (a1 - b1), 2 * (a2 - b2)
    k = 2 * s * s * e + (a1 ** 2 + a2 ** 2) - (b1 ** 2 + b2 ** 2)

    def inner(z1):
        edge = (k - w1 * z1) / w2
        if w2 > 0:  # z2 > edge
            pa, pb = 1 - mpmath.ncdf(edge, a2, s), 1 - mpmath.ncdf(edge, b2, s)
        else:
            pa, pb = mpmath.ncdf(edge, a2, s), mpmath.ncdf(edge, b2, s)
        return phi(z1, a1) * pa - mpmath.exp(e) * phi(z1, b1) * pb

    return mpmath.quad(inner, [-mpmath.inf, a1, b1, mpmath.inf])


@pytest.mark.parametrize("a, b, sigma, eps", [
    ((0, 0), (1, 1), 1, 1),                          # L2 shift sqrt(2), irrational
    ((0, 0), (1, 2), Fraction(3, 2), Fraction(1, 2)),  # sqrt(5)
    ((0, 0), (3, 4), 2, Fraction(1, 3)),             # 5, rational
])
def test_vector_gaussian_delta_is_the_scalar_at_the_l2_shift(a, b, sigma, eps):
    mech = make_mechanism("gaussian", sigma=sigma)
    lo, hi = mech.delta_enclosure(a, b, eps)
    assert 0 < lo <= hi and hi - lo <= hi / 2 ** 59
    shift2 = sum((Fraction(x) - y) ** 2 for x, y in zip(a, b))
    # the scalar formula (Balle and Wang) at the L2 shift, in mpmath
    with mpmath.workdps(40):
        d, s, e = mpmath.sqrt(_mp(shift2)), _mp(Fraction(sigma)), _mp(Fraction(eps))
        closed = mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(-d / (2 * s) - e * s / d)
        assert _mp(lo) <= closed <= _mp(hi)
        # and the plane itself, integrated numerically from the two densities
        assert abs(_gaussian_delta_2d(a, b, sigma, eps) - closed) < mpmath.mpf(10) ** -25
    root = sympy.sqrt(sympy.Rational(shift2.numerator, shift2.denominator))
    if root.is_Rational:  # a rational shift: exactly the scalar pair's enclosure
        assert (lo, hi) == mech.delta_enclosure(0, Fraction(int(root.p), int(root.q)), eps)
    assert mech.rho_enclosure(a, b) == (shift2 / (2 * Fraction(sigma) ** 2),) * 2
    assert mech.epsilon(a, b) == Divergence(INFINITY, None)
    out = mech.output_exceeding(a, b, 10)
    loss = (sum((o - y) ** 2 for o, y in zip(out, b)) - sum((o - x) ** 2 for o, x in zip(out, a))) \
        / (2 * Fraction(sigma) ** 2)
    assert loss > 10


def test_cli_vector_laplace(capsys):
    code, out, err = run(capsys, "privacy", "--mechanism", "laplace", "--param", "scale=1",
                         "--values", "1,2;3,4", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["epsilon"] == str(abs(1 - 3) + abs(2 - 4))
    assert obj["witness"]["output"] == "(1, 2)"
    code, out, err = run(capsys, "privacy", "--mechanism", "laplace", "--param", "scale=1",
                         "--values", "1,2;3,4", "--epsilon", "1", "--delta", "1/2", "--json")
    assert code == 1  # violated
    obj = json.loads(out)
    with mpmath.workdps(30):
        expected = _laplace_delta_2d(Fraction(2), Fraction(2), Fraction(1), Fraction(1))
        assert abs(_mp(sympy.sympify(obj["delta"])) - expected) < mpmath.mpf(10) ** -20
    assert obj["verdict"] == "violated"


def test_cli_vector_gaussian(capsys):
    code, out, err = run(capsys, "privacy", "--mechanism", "gaussian", "--param", "sigma=1",
                         "--values", "0,0;1,1", "--rho", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["verdict"] == "holds-tight"  # rho = ||(1, 1)||^2 / 2 = 1


@pytest.mark.parametrize("values, fragment", [
    ("1,2;3", "gives vectors of different lengths (2 and 1); give one number per coordinate"),
    ("1,2;3,4;5,6", "gives 3 vectors; give exactly two"),
    ("1,2,3,4,5,6,7;0,0,0,0,0,0,0", "7 coordinates on which the vectors"),
])
def test_cli_vector_laplace_refusals(capsys, values, fragment):
    code, out, err = run(capsys, "privacy", "--mechanism", "laplace", "--param", "scale=1",
                         "--values", values, "--epsilon", "1", "--delta", "0")
    assert code == 2 and out == ""
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_laplace_on_quantile_scores_over_a_space(capsys):
    """The vector query flows into the vector Laplace: epsilon is the worst L1 distance of
    the score vectors over the scale, enumerated here by hand."""
    code, out, err = run(capsys, "privacy", "--mechanism", "laplace", "--param", "scale=2",
                         "--query", "quantile-score:1/2:0,1,2", "--universe", "0..2",
                         "--sizes", "0..2", "--json")
    assert code == 0, err
    sets = {xs: _scores_by_hand(xs, (0, 1, 2), Fraction(1, 2), "seed")
            for xs in _multisets(range(3), range(3))}
    worst = max(sum(abs(u - v) for u, v in zip(fx, sets[tuple(sorted(xs + (w,)))]))
                for xs, fx in sets.items() for w in range(3) if tuple(sorted(xs + (w,))) in sets)
    assert Fraction(json.loads(out)["epsilon"]) == worst / 2


def test_check_pair_refuses_a_number_against_a_vector():
    with pytest.raises(InvalidArgument, match="are a vector and a number"):
        check_mechanism(make_mechanism("laplace", scale=1), values=((0, 1), 2))
    with pytest.raises(InvalidArgument, match="empty vector"):
        make_mechanism("laplace", scale=1).epsilon((), ())
