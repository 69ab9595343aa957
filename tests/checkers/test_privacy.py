"""Exact output distributions, divergences and the end-to-end privacy checker."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from exactdp import IntegerRange, Multisets
from exactdp.checkers.privacy import check_mechanism
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.distribution import (
    INFINITY, Distribution, hockey_stick, max_log_ratio, pure_epsilon, renyi, shown,
    total_variation,
)
from exactdp.mechanisms._params import parse_params
from exactdp.mechanisms.mechanism import make_mechanism


def rr(**params):
    return make_mechanism("randomized-response", **params)


# -- distributions and divergences ------------------------------------------------------

def test_randomized_response_epsilon_is_log_p_over_1_minus_p_exactly():
    for p, k in [("3/4", 2), ("9/10", 2), ("1/2", 3), ("7/10", 4)]:
        m = rr(p=p, k_values=k)
        q = Fraction(p)
        expected = sympy.log(sympy.Rational(q * (k - 1) / (1 - q)))
        assert sympy.simplify(m.epsilon(0, 1).value - expected) == 0
        assert m.epsilon(0, 1).output == 0  # P(report 0 | 0) / P(report 0 | 1) is the largest
    assert rr(epsilon=1).epsilon(0, 1).value == 1  # given epsilon: exactly epsilon
    assert rr(epsilon="1/3", k_values=5).epsilon(2, 4).value == Fraction(1, 3)


def _brute_force_delta(P, Q, ratio):
    """max over every event S of P(S) - ratio * Q(S) (ratio = e^epsilon, rational)."""
    outs = sorted(set(P.support) | set(Q.support))
    best = Fraction(0)
    for r in range(len(outs) + 1):
        for event in itertools.combinations(outs, r):
            best = max(best, sum((P.p(o) - ratio * Q.p(o) for o in event), Fraction(0)))
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=2, max_size=5),
       st.lists(st.integers(0, 6), min_size=2, max_size=5), st.integers(1, 4))
def test_hockey_stick_matches_brute_force_over_events(wp, wq, s):
    n = min(len(wp), len(wq))
    if not any(wp[:n]) or not any(wq[:n]):
        return
    P = Distribution.from_weights(dict(enumerate(wp[:n])))
    Q = Distribution.from_weights(dict(enumerate(wq[:n])))
    eps = sympy.log(s)  # e^epsilon = s: rational, so the brute force is exact
    assert hockey_stick(P, Q, eps) == _brute_force_delta(P, Q, Fraction(s))


def test_infinite_epsilon_names_the_output_one_side_lacks():
    P = Distribution({0: "1/2", 1: "1/2"})
    Q = Distribution({0: 1})
    loss = max_log_ratio(P, Q)
    assert loss.infinite and loss.output == 1
    assert pure_epsilon(Q, P).infinite and pure_epsilon(Q, P).output == 1
    assert hockey_stick(P, Q, 5) == Fraction(1, 2)  # the mass Q cannot produce
    assert renyi(P, Q, 2) is INFINITY
    assert shown(INFINITY) == "inf"


def test_renyi_and_total_variation_exact():
    P, Q = Distribution({0: "3/4", 1: "1/4"}), Distribution({0: "1/4", 1: "3/4"})
    assert renyi(P, Q, 2) == sympy.log(sympy.Rational(7, 3))  # log(9/16*4 + 1/16*4/3)
    assert total_variation(P, Q) == Fraction(1, 2)


@pytest.mark.parametrize("build, error, fragment", [
    (lambda: Distribution({0: "3/2", 1: "-1/2"}), InvalidArgument, "not a probability"),
    (lambda: Distribution({0: "1/2", 1: "1/4"}), InvalidArgument, "sum to 3/4, not 1"),
    (lambda: Distribution({0: 0.5, 1: 0.5}), InexactInput, "is a float"),
    (lambda: Distribution({}), InvalidArgument, "no output of positive probability"),
    (lambda: Distribution.from_weights({0: -1, 1: 2}), InvalidArgument, "is negative"),
    (lambda: Distribution.from_weights({}), InvalidArgument, "empty"),
    (lambda: hockey_stick(Distribution({0: 1}), Distribution({0: 1}), -1), InvalidArgument, "negative"),
    (lambda: rr(p="1/4"), InvalidArgument, "outside [1/k, 1)"),
    (lambda: rr(p="3/4", epsilon=1), InvalidArgument, "exactly one"),
    (lambda: rr(p=0.75), InexactInput, "is a float"),
    (lambda: rr(p="3/4", k_values=1), InvalidArgument, "k_values=1"),
    (lambda: make_mechanism("nope"), InvalidArgument, "is not known"),
    # a negative number as a claim was once judged (VIOLATED) instead of refused
    (lambda: check_mechanism(rr(p="3/4"), values=(0, 1), epsilon=-1), InvalidArgument,
     "epsilon=-1 is negative"),
    (lambda: check_mechanism(rr(p="3/4"), values=(0, 1), epsilon="-1/2"), InvalidArgument,
     "epsilon='-1/2' is negative"),
    (lambda: check_mechanism(rr(p="3/4"), values=(0, 1), epsilon=1, delta="-1"), InvalidArgument,
     "delta='-1' is negative"),
    (lambda: check_mechanism(make_mechanism("gaussian", sigma=1), values=(0, 1), rho="-1"),
     InvalidArgument, "rho='-1' is negative"),
    (lambda: make_mechanism("randomized-response", q=1), InvalidArgument, "its parameters"),
    (lambda: parse_params(["p"]), InvalidArgument, "is not KEY=VALUE"),
    (lambda: rr(p="3/4").distribution(2), InvalidArgument, "not an input"),
])
def test_bad_arguments(build, error, fragment):
    with pytest.raises(error, match=fragment.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        build()


# -- the checker ------------------------------------------------------------------------

def test_check_on_two_values_tight_violated_and_delta():
    m = rr(p="3/4")
    r = check_mechanism(m, values=(0, 1), epsilon="log(3)")
    assert r.verdict is Verdict.HOLDS_TIGHT and r.epsilon == sympy.log(3)
    r = check_mechanism(m, values=(0, 1), epsilon=1)
    assert r.verdict is Verdict.VIOLATED and r.witness.output == 0
    r = check_mechanism(m, values=(0, 1), epsilon=1, delta="1/10")
    assert r.verdict is Verdict.HOLDS
    assert sympy.simplify(r.delta - (sympy.Rational(3, 4) - sympy.E / 4)) == 0
    r = check_mechanism(m, values=(0, 1), epsilon=1, delta="7/100")  # 0.0704... > 0.07
    assert r.verdict is Verdict.VIOLATED


def test_check_over_every_neighbouring_pair_of_a_space():
    m = rr(p="3/4")
    space = Multisets(IntegerRange(0, 3), sizes=(0, 1))  # count is 0 or 1
    r = check_mechanism(m, "count", space, epsilon="log(3)")
    assert r.verdict is Verdict.HOLDS_TIGHT and r.value_pairs == 1
    assert (list(r.witness.x), list(r.witness.x_prime)) == ([], [0])
    assert (r.witness.fx, r.witness.fx_prime, r.witness.output) == (0, 1, 0)
    assert r.scope.pairs == 4
    r = check_mechanism(m, "count", Multisets(IntegerRange(0, 3), size=1), epsilon=1)
    assert r.verdict is Verdict.VACUOUS and not r.ok


def test_a_query_value_the_mechanism_cannot_take_is_named():
    with pytest.raises(InvalidArgument, match=r"value=2 .* takes it on x=\[0, [01]\]"):
        check_mechanism(rr(p="3/4"), "count", Multisets(IntegerRange(0, 1), sizes=(0, 2)))


# -- the command --------------------------------------------------------------------------

def test_privacy_command_json_and_exit_codes(capsys):
    code = main(["privacy", "--mechanism", "randomized-response", "--param", "p=3/4",
                 "--query", "count", "--universe", "0..3", "--sizes", "0..1",
                 "--epsilon", "log(3)", "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"mechanism", "params", "epsilon", "delta", "claim", "verdict", "witness", "scope"} <= set(obj)
    assert (obj["epsilon"], obj["verdict"], obj["params"]["p"]) == ("log(3)", "holds-tight", "3/4")
    assert obj["witness"]["output"] == "0" and obj["witness"]["x_prime"] == ["0"]
    code = main(["privacy", "--mechanism", "randomized-response", "--param", "p=3/4",
                 "--values", "0,1", "--epsilon", "1"])
    out = capsys.readouterr().out
    assert code == 1 and "VIOLATED" in out and "output 0" in out
    code = main(["privacy", "--mechanism", "randomized-response", "--param", "p=0.75",
                 "--values", "0,1"])
    assert code == 0  # '0.75' on the command line is the exact decimal 3/4
    capsys.readouterr()
    code = main(["privacy", "--mechanism", "randomized-response", "--param", "p=3/4",
                 "--values", "0,1", "--rho", "1"])
    assert code == 2 and "has no zCDP rho" in capsys.readouterr().err


# -- built-in privacy claims (exactdp verify) ----------------------------------------------

def test_every_builtin_privacy_claim_meets_its_expectation():
    from exactdp.registry.privacy import privacy_claims

    claims = {c.id: c for c in privacy_claims()}
    results = {k: c.check() for k, c in claims.items()}
    assert all(claims[k].meets_expectation(r) for k, r in results.items())
    exp = results["s002/exponential/median/2delta"]
    assert sympy.simplify(exp.epsilon - sympy.log(sympy.Rational(1, 3) + 2 * sympy.E / 3)) == 0
    assert (list(exp.witness.x), list(exp.witness.x_prime), exp.witness.output) == ([2, 4], [4], 0)
    mono = results["s002/exponential/median/monotone"]
    assert sympy.simplify(mono.epsilon - sympy.log(sympy.Rational(1, 3) + 2 * sympy.exp(2) / 3)) == 0
    from exactdp.mechanisms.calibration.typical import expected_sensitivity
    from exactdp.registry.seed004 import height_mixture

    sampled = results["s004/laplace/sampled-sensitivity"]
    assert sampled.epsilon == Fraction(15000, 2369)  # 300 / 47.38
    assert (list(sampled.witness.x), list(sampled.witness.x_prime), sampled.witness.output) == ([0], [300], 300)
    typical = results["s004/laplace/expected-sensitivity"]
    assert sympy.simplify(typical.epsilon - 300 / expected_sensitivity(height_mixture())) == 0
    lo, hi = results["s002/gaussian-classic/eps=10"].delta  # the true delta(10): an enclosure
    assert Fraction(2, 10**5) < lo <= hi < Fraction(3, 10**5)


def test_verify_json_has_the_privacy_rows(capsys):
    code = main(["verify", "--only", "exactdp/randomized", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0 and len(rows) == 1
    assert rows[0]["kind"] == "privacy" and rows[0]["verdict"] == "holds-tight"
    assert rows[0]["as_expected"] is True and rows[0]["epsilon"] == "log(3)"


def test_zcdp_rho_claims():
    g = make_mechanism("gaussian", sigma=2)
    r = check_mechanism(g, values=(0, 1), rho="1/8")  # (a - b)^2 / (2 sigma^2), exactly
    assert r.verdict is Verdict.HOLDS_TIGHT and r.rho == Fraction(1, 8)
    assert check_mechanism(g, values=(0, 3), rho="1/8").verdict is Verdict.VIOLATED  # 9/8
    dg = make_mechanism("discrete-gaussian", sigma=2)  # 1/8 is an upper bound only
    assert check_mechanism(dg, values=(0, 1), rho="1/8").verdict is Verdict.HOLDS
    assert check_mechanism(dg, values=(0, 1), rho="1/10").verdict is Verdict.UNDECIDED
    space = Multisets(IntegerRange(0, 3), sizes=(0, 2))
    r = check_mechanism(g, "count", space, rho="1/8")
    assert r.verdict is Verdict.HOLDS_TIGHT and r.witness.fx_prime - r.witness.fx == 1
    with pytest.raises(InvalidArgument, match="no zCDP rho"):
        check_mechanism(make_mechanism("laplace", scale=1), values=(0, 1), rho=1)
    with pytest.raises(InvalidArgument, match="stands alone"):
        check_mechanism(g, values=(0, 1), rho=1, epsilon=1)


def test_statement_claims_of_seeds_001_and_004():
    from exactdp.registry.privacy import privacy_claims

    claims = {c.id: c for c in privacy_claims()}
    sampler = claims["s004/sensitivity-sampler"].check()
    assert sampler.verdict is Verdict.VIOLATED and sampler.data["is_differential_privacy"] is False
    assert (sampler.data["m"], sampler.data["k"]) == (1325, 1325)  # shfl's configuration, the seed's run
    assert sampler.data["library"] == "shfl"
    closed = claims["s004/expected-sensitivity/closed-form"].check()
    assert closed.verdict is Verdict.HOLDS_TIGHT and closed.data["difference"] == "0"
    zcdp = claims["s001/noise-choice/zcdp"].check()
    assert zcdp.verdict is Verdict.VIOLATED and zcdp.data["ratio"] == "2"
    approx = claims["s001/noise-choice/approx-dp"].check()
    assert approx.verdict is Verdict.HOLDS and approx.data["gaussian_from_groups"] == 7
