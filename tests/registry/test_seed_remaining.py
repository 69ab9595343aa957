"""Issue 20, items 8-9: the seed statements that were still missing or partial, as built-in
claims of exactdp.registry.seed_remaining (exact values, witnesses and verdicts)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
import sympy

from exactdp import registry
from exactdp.checkers.results import Evidence, Verdict
from exactdp.cli import main
from exactdp.numeric.decide import compare
from exactdp.registry import seed_remaining
from exactdp.registry.seed_remaining import seed_remaining_claims

IDS = ("s001/add-rows-with-id/truncation", "s002/bounded/edits-vs-add-remove",
       "s003/limitations/count-bounded", "s003/definition/group-privacy/k=2",
       "s004/mixture/variance", "s004/experiments/error-vs-epsilon",
       "s002/gaussian/not-pure-dp", "s004/experiments/error-figure")


@pytest.fixture(scope="module")
def results():
    out = {}
    for c in seed_remaining_claims():
        r = c.check()
        assert c.meets_expectation(r), (c.id, r.verdict)
        out[c.id] = r
    return out


def test_the_claims_are_registered_once_as_privacy_claims_quoting_their_seed():
    ids = [c.id for c in registry.claims("privacy")]
    assert all(ids.count(i) == 1 for i in IDS)
    mine = {c.id: c for c in seed_remaining_claims()}
    assert tuple(mine) == IDS
    for id_, c in mine.items():
        assert c.source.startswith(f"seed 00{id_[3]} ("), c.source
    assert "two times the number of additions and removals" in mine[IDS[1]].statement
    assert "also of 1 in bounded" in mine[IDS[2]].statement


def test_truncation_untruncated_grows_and_max_rows_per_id_is_r(results):
    r = results["s001/add-rows-with-id/truncation"]
    assert r.verdict is Verdict.HOLDS_TIGHT
    assert r.data["untruncated"] == {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5}
    assert r.data["max_rows_per_id"] == {"1": 1, "2": 2, "3": 3, "4": 4}
    assert "f(x)=(0, 0), f(x')=(5, 0), distance 5" in r.text
    assert "f(x)=(0, 0), f(x')=(4, 0), distance 4" in r.text


def test_edits_are_half_the_additions_and_removals(results):
    r = results["s002/bounded/edits-vs-add-remove"]
    assert r.verdict is Verdict.VIOLATED
    assert r.data["witness"] == {"x": [0], "x_prime": [1], "change": 1, "symmetric": 2}
    assert r.data["pairs"] == r.data["symmetric_is_twice_change"] == 126
    assert "additions and removals = 2 x edits" in r.text


def test_bounded_count_is_zero_not_one(results):
    r = results["s003/limitations/count-bounded"]
    assert r.verdict is Verdict.VIOLATED
    assert (r.data["bounded"], r.data["unbounded"], r.data["printed"]) == ("0", "1", ["0"])
    assert "x = [5, 5, 7, 8, 9, 9], x' = [1, 5, 5, 7, 8, 9, 9]" in r.text
    assert "counts 6 and 6" in r.text


def test_group_privacy_at_hamming_distance_two(results):
    r = results["s003/definition/group-privacy/k=2"]
    assert r.verdict is Verdict.HOLDS_TIGHT and r.epsilon == 2
    assert str(r.witness).startswith("x=[], x'=[0, 0]: f(x)=0, f(x')=2")


def test_mixture_variance_identity_and_value(results):
    r = results["s004/mixture/variance"]
    assert r.verdict is Verdict.HOLDS_TIGHT
    assert r.data == {"variance": "877/8", "sigma": "sqrt(1754)/4"}
    assert sympy.Rational(877, 8) == sympy.Rational(1, 2) * (49 + sympy.Rational(169, 4)) + 64
    assert "[10.47, 10.48] cm" in r.text


def test_error_scales_with_the_sensitivity_over_epsilon(results):
    r = results["s004/experiments/error-vs-epsilon"]
    assert r.verdict is Verdict.HOLDS
    f = {k: sympy.sympify(v) for k, v in r.data["true_epsilon_factors"].items()}
    for label, lo, hi in (("E[Delta f]", "25.01", "25.02"), ("E[Delta f] + sigma", "13.35", "13.36"),
                          ("E[Delta f] + 2 sigma", "9.109", "9.110")):
        assert compare(f[label], Fraction(lo)) > 0 and compare(f[label], Fraction(hi)) < 0, label
    assert "[13.35, 13.36] epsilon" in r.text and "[9.109, 9.110] epsilon" in r.text


# --- seed 002: the Gaussian is not pure DP (issue 20, the last partial statements) --------


def test_gaussian_privacy_loss_is_unbounded(results):
    r = results["s002/gaussian/not-pure-dp"]
    assert r.verdict is Verdict.UNBOUNDED and r.evidence is Evidence.BIT_EXACT
    assert (r.data["loss"], r.data["limit"], r.data["family"]) == (
        "(2*y - 1)/(2*sigma**2)", "oo", "y_t = sigma**2*t + 1/2")
    rows = {(w["sigma"], w["epsilon"]): w for w in r.data["witnesses"]}
    assert len(rows) == 9
    for (sigma, eps), w in rows.items():
        s, e, y = Fraction(sigma), Fraction(eps), Fraction(w["output"])
        assert y == s * s * (e + 1) + Fraction(1, 2)  # y_t at t = epsilon + 1
        assert Fraction(w["loss"]) == (2 * y - 1) / (2 * s * s) == e + 1
        assert (w["checker"], w["checker_epsilon"]) == ("violated", "oo")
        assert Fraction(w["delta"][0]) > 0
    assert rows[("1", "1")]["delta"] == ["0.1269", "0.1270"]
    assert rows[("2", "2")]["delta"] == ["0.000009439", "0.000009440"]
    # delta(1) at sigma = 1 recomputed independently: Phi(-1/2) - e Phi(-3/2)
    phi = lambda x: sympy.erfc(-x / sympy.sqrt(2)) / 2  # noqa: E731
    delta = (phi(sympy.Rational(-1, 2)) - sympy.E * phi(sympy.Rational(-3, 2))).evalf(30)
    assert sympy.Float("0.1269", 30) < delta < sympy.Float("0.1270", 30)
    assert "output y = 5/2 has loss 2 > 1" in r.text


def test_verify_shows_the_gaussian_claim_as_unbounded(capsys):
    assert main(["verify", "--only", "s002/gaussian/not-pure-dp", "--no-catalogue"]) == 0
    out = capsys.readouterr().out
    assert out.lstrip().startswith("UNBOUNDED   s002/gaussian/not-pure-dp: the gaussian distribution")
    assert out.rstrip().endswith("1 built-in privacy claims checked: 1 unbounded; "
                                 "0 departed from what was expected")


# --- seed 004: the error-against-epsilon figure --------------------------------------------


def test_laplace_sum_tail_small_n():
    t, s = sympy.symbols("t s", nonnegative=True)
    # n = 1: P(Lap(1) > s) = e^-s/2; n = 2, 3: the tails of the sums of two and three Lap(1),
    # whose densities e^-s (1 + s)/4 and e^-s (3 + 3s + s^2)/16 (s >= 0) are textbook
    assert seed_remaining._laplace_sum_tail(1) == ((1,), 2)
    assert seed_remaining._laplace_sum_tail(2) == ((4, 2), 8)
    for n, density in ((2, sympy.exp(-s) * (1 + s) / 4),
                       (3, sympy.exp(-s) * (3 + 3 * s + s**2) / 16)):
        A, D = seed_remaining._laplace_sum_tail(n)
        tail = sympy.exp(-s) * sum(sympy.Rational(A[i], D) * s**i / sympy.factorial(i)
                                   for i in range(n))
        assert sympy.simplify(-sympy.diff(tail, s) - density) == 0
        assert tail.subs(s, 0) == sympy.Rational(1, 2)
    for n in range(1, 8):  # E|S_n| = 2 int_0^oo P(S_n > s) ds = 2n C(2n, n)/4^n
        A, D = seed_remaining._laplace_sum_tail(n)
        assert Fraction(2 * sum(A), D) == Fraction(2 * n * math.comb(2 * n, n), 4**n)
    lo, hi = seed_remaining._error_tail(Fraction(0))
    assert lo <= 1 == hi  # P(|mean| > 0) = 1


def test_error_figure_mean_quantiles_and_crossing(results):
    r = results["s004/experiments/error-figure"]
    assert r.verdict is Verdict.HOLDS_IDEAL_NOISE and r.evidence is Evidence.IDEAL_NOISE
    mean = Fraction(2 * math.comb(1000, 500), 4**500)
    assert Fraction("0.0504500") < mean < Fraction("0.0504501")
    assert r.data["mean_factor_decimal"] == "[0.0504500, 0.0504501]"
    assert r.data["quantiles"] == {"1/20": "[0.00396, 0.00397]", "1/2": "[0.04263, 0.04264]",
                                   "19/20": "[0.12398, 0.12399]"}
    assert r.data["mean_error_cm"]["E[Delta f]"] == {"epsilon=0.001": "[605.0, 605.1]",
                                                     "epsilon=19.951": "[0.03032, 0.03033]"}
    assert r.data["mean_error_cm"]["E[Delta f] + 2 sigma"]["epsilon=0.001"] == "[1661, 1662]"
    assert r.data["below_chance"] == {"E[Delta f] + sigma": ["0.3063", "0.3183"],
                                      "E[Delta f] + 2 sigma": ["0.2181", "0.2268"]}
    assert "a band of a factor over 31 around each curve" in r.text
    assert json.loads(json.dumps(r.to_dict()))["evidence"] == "ideal-noise"
