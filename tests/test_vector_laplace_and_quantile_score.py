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

from exactdp import Multisets, sensitivity
from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.queries import QUERY_NAMES, parse_query
from exactdp.queries.scores import quantile_score, quantile_score_values
from exactdp.spaces.universe import IntegerRange
from exactdp.symbolic.constructors import make_quantile_score

mpmath.mp.dps = 60


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
    query = f"quantile-score:1/2:0,1,2,3" + ("" if form == "seed" else ":code")
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
    import sympy

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
