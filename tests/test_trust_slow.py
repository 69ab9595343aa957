"""Issue 16, part 4: the cases that were slow within the default budgets. Each test asserts
the answer (an exact value or an enclosure), never a time."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy

from exactdp.cli import main
from exactdp.mechanisms import make_mechanism
from exactdp.mechanisms.distribution import max_log_ratio, pure_epsilon


# -- pure_epsilon on 3 candidates: SymPy's expand_log(force=True) on the log of a sum ---------
# (over 120 s; the mechanism's own epsilon answers in milliseconds)

@pytest.mark.parametrize("name, params", [
    ("permute-and-flip", {"epsilon": 1}),
    ("report-noisy-max", {"noise": "exponential", "epsilon": 1}),
], ids=["permute-and-flip", "report-noisy-max-exponential"])
def test_generic_pure_epsilon_on_three_candidates(name, params):
    m = make_mechanism(name, **params)
    a, b = (0, 1, 2), (1, 0, 2)
    P, Q = m.distribution(m.check_value(a)), m.distribution(m.check_value(b))
    generic = pure_epsilon(P, Q)
    assert str(generic.value) == "log((E - 3*exp(2))/(E - 3*exp(3/2)))"
    assert generic.output == 1
    # P(1)/Q(1) = (3e - 1)/(3e^(1/2) - 1), in SymPy's form; exactly, not numerically
    half = sympy.Rational(1, 2)
    assert sympy.simplify(sympy.exp(generic.value) * (3 * sympy.exp(half) - 1) - (3 * sympy.E - 1)) == 0
    # the mechanism's own answer is the same number in another form (two equal transcendental
    # numbers: compare() rightly answers Undecided; 100 digits agree)
    own = m.epsilon(a, b)
    assert abs(sympy.N(generic.value - own.value, 100)) < sympy.Float("1e-90")
    assert 0 < generic.value.evalf(30) < 1


def test_tidy_forms_are_kept_where_cheap():
    from exactdp.mechanisms.distribution import Distribution

    P = Distribution({0: "3/4", 1: "1/4"})
    Q = Distribution({0: "1/4", 1: "3/4"})
    assert max_log_ratio(P, Q).value == sympy.log(3)
    P = Distribution({0: "9/10", 1: "1/10"})
    Q = Distribution({0: "2/5", 1: "3/5"})
    assert max_log_ratio(P, Q).value == 2 * sympy.log(3) - 2 * sympy.log(2)  # log(9/4), expanded
    m = make_mechanism("permute-and-flip", epsilon=1)  # the ratio simplifies to exp(1/2)
    P, Q = m.distribution((-1, 0, 0)), m.distribution((Fraction(-1, 2),) * 3)
    assert pure_epsilon(P, Q).value == Fraction(1, 2)


# -- exactdp account: discrete Gaussian, k = 10^7 (21-35 s, then 56 s on a loaded machine) ---

def test_account_discrete_gaussian_ten_million(capsys):
    code = main(["account", "--mechanism", "discrete-gaussian", "--param", "sigma=1", "--k", "10000000",
                 "--delta", "1e-6", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    lower, upper = Fraction(out["epsilon_lower"]), Fraction(out["epsilon_upper"])
    # mu^2 = k / sigma^2 = 10^7: near the Gaussian's mu^2/2 + mu * 4.75 = 5,015,0xx
    assert Fraction("5015030.6777954101") <= lower <= upper <= Fraction("5015030.6824645997")
    assert upper - lower <= Fraction(1, 10**9) * upper


# -- exactdp privacy: randomized response at epsilon = 1e999 (15 s) -----------------------

def test_privacy_randomized_response_huge_epsilon(capsys):
    code = main(["privacy", "--mechanism", "randomized-response", "--param", "epsilon=1e999",
                 "--values", "0,1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["epsilon"] == "1" + "0" * 999  # exactly 10^999
    assert out["witness"]["output"] == "0" and out["evidence"] == "bit-exact"
