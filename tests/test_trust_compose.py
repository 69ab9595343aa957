"""Issue 16, parts 3 and 4: composition by the optimal theorem where it is exact, and a
non-finite claim refused everywhere (with user input quoted short).

The optimal composition theorem (Kairouz, Oh, Viswanath 2015; Murtagh & Vadhan 2016) at
``epsilon >= sum epsilon_i`` gives exactly ``delta = 1 - prod(1 - delta_i)``; ``exactdp
compose`` and ``BudgetLedger`` summed the deltas and called such a spend OVERSPENDS.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import check_mechanism, make_mechanism
from exactdp.cli import main
from exactdp.errors import ExactDPError, InexactInput, InvalidArgument
from exactdp.mechanisms import (
    BudgetExceeded,
    BudgetLedger,
    advanced_composition,
    analytic_sigma,
    compose_sequential,
    compose_zcdp,
    epsilon_of_rho,
    laplace_scale,
)
from exactdp.mechanisms.accounting.composition import (
    OPTIMAL_RULE,
    compose_optimal,
    optimal_delta,
    optimal_delta_of_copies,
)

RULE_LINE = "  rule:      optimal composition at epsilon = sum (delta = 1 - prod(1 - delta_i), exact)"


def _compose(capsys, *argv):
    # the sequential rule (optimal at the sum of the epsilons); a later --method in argv wins
    code = main(["compose", "--method", "sequential", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- the regression of the issue -------------------------------------------------------


def test_two_spends_of_half_and_a_tenth_fit_a_budget_of_nineteen_hundredths(capsys):
    # 1 - 0.9^2 = 0.19 exactly: within the budget (was OVERSPENDS, exit 1: 0.1 + 0.1 = 0.2)
    code, out, err = _compose(capsys, "--spend", "0.5,0.1x2", "--budget", "1,0.19")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "sequential composition of 2 (epsilon, delta) spends",
        RULE_LINE,
        "  total:     epsilon = 1, delta = 19/100 (<= 0.19)",
        "  budget:    epsilon = 1, delta = 19/100",
        "  remaining: epsilon = 0, delta = 0",
        "  (basic composition, the sum of the deltas, would give delta = 1/5 (<= 0.2))",
        "FITS",
    ]
    # two separate spends: the same
    code, _, _ = _compose(capsys, "--spend", "0.5,0.1", "--spend", "0.5,0.1", "--budget", "1,0.19")
    assert code == 0


def test_one_thousandth_less_overspends_with_the_exact_delta_needed(capsys):
    code, out, err = _compose(capsys, "--spend", "0.5,0.1", "--spend", "0.5,0.1", "--budget", "1,0.189")
    assert code == 1 and err == ""
    assert "  total:     epsilon = 1, delta = 19/100 (<= 0.19)" in out
    assert "  excess:    the spends exceed the budget: delta by 1/1000 (~0.001)" in out
    assert out.splitlines()[-1] == (
        "OVERSPENDS: spend #2 '--spend 0.5,0.1' (epsilon=1/2, delta=1/10) would exceed the budget: "
        "delta: 1 - (1 - 1/10)(1 - 1/10) = 19/100 > budget 189/1000. Left: epsilon=1/2, delta=89/900. "
        "Spend at most what is left (smaller parameters, i.e. more noise), or start from a larger budget")
    # 'Left' is the largest delta the second spend could have had: 1 - 0.9 (1 - 89/900) = 0.189
    assert 1 - Fraction(9, 10) * (1 - Fraction(89, 900)) == Fraction(189, 1000)


def test_json_names_the_rule_and_the_basic_sum(capsys):
    code, out, _ = _compose(capsys, "--spend", "0.5,0.1x2", "--budget", "1,0.19", "--json")
    d = json.loads(out)
    assert code == 0 and d["fits"] is True
    assert d["rule"] == "optimal-at-sum" and d["rule_text"] == OPTIMAL_RULE
    assert d["total"]["delta"] == {"exact": "19/100", "float_at_least": 0.19}
    assert d["basic_total"]["delta"] == {"exact": "1/5", "float_at_least": 0.2}
    assert d["remaining"]["delta"] == {"exact": "0", "float_at_most": 0.0}
    assert "rule_note" not in d
    code, out, _ = _compose(capsys, "--spend", "0.1x10", "--method", "advanced", "--delta-prime", "1e-6",
                            "--budget", "7,1e-6", "--json")
    d = json.loads(out)
    assert d["rule"] == "advanced" and d["rule_text"].startswith("advanced composition (Dwork-Rothblum-Vadhan)")


def test_a_budget_epsilon_above_the_sum_is_said_and_claims_no_smaller_delta(capsys):
    code, out, _ = _compose(capsys, "--spend", "0.5,0.1x2", "--budget", "3,0.19", "--json")
    d = json.loads(out)
    assert code == 0 and d["total"]["delta"]["exact"] == "19/100"
    assert d["rule_note"] == ("budget epsilon 3 > sum 1: the composed delta is exact there too (the optimal "
                              "theorem's delta at every epsilon >= the sum)")
    code, out, _ = _compose(capsys, "--spend", "0.5,0.1x2", "--budget", "3,0.1899")
    assert code == 1  # a larger epsilon does not buy a smaller delta from the theorem
    assert ("  (the budget epsilon is above the sum of the epsilons: the composed delta is the optimal "
            "theorem's at every epsilon >= 1, not smaller there)") in out


def test_a_budget_epsilon_below_the_sum_overspends_and_points_to_advanced(capsys):
    code, out, _ = _compose(capsys, "--spend", "0.5,0.1x2", "--budget", "0.9,0.5")
    assert code == 1
    assert "(2 copies of epsilon=1/2, delta=1/10) would exceed the budget: epsilon: spent 0 + 1 = 1 > budget 9/10" in out
    assert ("  (a budget epsilon below the sum of the epsilons: the optimal theorem there is #P-hard in "
            "general; --method advanced may fit)") in out


def test_ledger_accepts_the_tight_split_and_refuses_one_thousandth_less():
    ledger = BudgetLedger(epsilon=1, delta="0.19")
    ledger.spend(epsilon="0.5", delta="0.1", label="a")
    assert ledger.remaining() == {"epsilon": Fraction(1, 2), "delta": Fraction(1, 10), "rho": None}
    ledger.spend(epsilon="0.5", delta="0.1", label="b")
    assert ledger.spent() == {"epsilon": 1, "delta": Fraction(19, 100), "rho": None}
    assert ledger.remaining() == {"epsilon": 0, "delta": 0, "rho": None}
    assert ledger.rule == OPTIMAL_RULE and ledger.to_dict()["rule"] == OPTIMAL_RULE
    assert BudgetLedger(rho=1).to_dict()["rule"] is None

    short = BudgetLedger(epsilon=1, delta="0.189")
    short.spend(epsilon="0.5", delta="0.1")
    with pytest.raises(BudgetExceeded) as info:
        short.spend(epsilon="0.5", delta="0.1", label="b")
    assert ("delta: 1 - (1 - 1/10)(1 - 1/10) = 19/100 > budget 189/1000. Left: epsilon=1/2, "
            "delta=89/900") in str(info.value)
    assert len(short.history) == 1 and short.spent()["delta"] == Fraction(1, 10)


# --- the theorem, checked independently ---------------------------------------------------


def _worst_pair(a: Fraction, d: Fraction):
    """Kairouz-Oh-Viswanath's worst (epsilon, delta)-DP pair at e^epsilon = a (rational):
    output 0 only under P (probability d), 3 only under Q, and a randomized response."""
    p = {0: d, 1: (1 - d) * a / (1 + a), 2: (1 - d) / (1 + a), 3: Fraction(0)}
    q = {0: Fraction(0), 1: (1 - d) / (1 + a), 2: (1 - d) * a / (1 + a), 3: d}
    return p, q


def _hockey_stick(pairs, scale: Fraction) -> Fraction:
    """sup over events of P(E) - scale * Q(E) for the product of the pairs, exactly."""
    total = Fraction(0)
    for outs in itertools.product(range(4), repeat=len(pairs)):
        p = q = Fraction(1)
        for (pi, qi), o in zip(pairs, outs):
            p *= pi[o]
            q *= qi[o]
        total += max(p - scale * q, Fraction(0))
    return total


_small = st.fractions(min_value=0, max_value=Fraction(1, 2), max_denominator=20)


@settings(max_examples=60, deadline=None)
@given(spends=st.lists(st.tuples(st.integers(1, 4), _small), min_size=1, max_size=4),
       above=st.integers(1, 3))
def test_optimal_delta_is_the_worst_pairs_delta_at_and_above_the_sum(spends, above):
    # e^(epsilon_i) = a_i rational, so e^(sum epsilon_i) = prod a_i: everything exact
    pairs = [_worst_pair(Fraction(a), d) for a, d in spends]
    scale = Fraction(1)
    for a, _ in spends:
        scale *= a
    expected = optimal_delta([d for _, d in spends])
    assert _hockey_stick(pairs, scale) == expected  # tight: attained at epsilon = the sum
    assert _hockey_stick(pairs, scale * above) == expected  # and no smaller at a larger epsilon
    assert expected <= sum(d for _, d in spends)  # never more than basic composition


def test_optimal_delta_of_copies_exact_and_enclosed_agree():
    exact = optimal_delta_of_copies([("0.1", 2), ("1e-6", 3)])
    assert exact.exact == 1 - Fraction(9, 10) ** 2 * (1 - Fraction(1, 10**6)) ** 3
    # a million copies of 1e-6: 40 million bits, enclosed and compared by refinement
    big = optimal_delta_of_copies([("1e-6", 10**6)])
    assert big.exact is None
    lo, hi = big.interval
    assert Fraction("0.6321204") < lo <= hi < Fraction("0.6321208")  # 1 - e^-1 ~ 0.63212056
    assert big.at_most(Fraction("0.6321208")) and not big.at_most(Fraction("0.6321204"))
    assert optimal_delta_of_copies([("1", 1), ("1e-6", 10**12)]).exact == 1
    assert optimal_delta_of_copies([("0", 10**12)]).exact == 0


def test_compose_many_copies_is_enclosed_not_expanded(capsys):
    code, out, _ = _compose(capsys, "--spend", "0,1e-12x100000", "--budget", "1,1e-6", "--json")
    d = json.loads(out)
    assert code == 0 and d["total"]["delta"]["exact"] is None
    lo, hi = (Fraction(x) for x in d["total"]["delta"]["interval"])
    # 1 - (1 - 1e-12)^100000 = 1e-7 - C(100000, 2) 1e-24 + ... ~ 1e-7 - 5e-15
    assert Fraction(1, 10**7) - Fraction(6, 10**15) < lo <= hi < Fraction(1, 10**7) - Fraction(4, 10**15)
    assert d["basic_total"]["delta"]["exact"] == "1/10000000"
    code, out, _ = _compose(capsys, "--spend", "0.1,1e-6x1000000000000", "--budget", "1000000000000,0.5")
    assert code == 1 and "1,000,000,000,000 copies of epsilon=1/10, delta=1/1000000" in out


def test_api_docstring_values():
    assert compose_optimal([("0.5", "0.1"), ("0.5", "0.1")]) == (1, Fraction(19, 100))
    assert compose_sequential([("0.5", "0.1"), ("0.5", "0.1")]) == (1, Fraction(1, 5))
    assert optimal_delta([]) == 0


# --- non-finite claims, refused everywhere -------------------------------------------------

_PRIVACY = ["privacy", "--mechanism", "gaussian", "--param", "sigma=1", "--values", "0,1"]

NON_FINITE_CLI = [
    (_PRIVACY + ["--epsilon", "{v}"], "--epsilon="),
    (_PRIVACY + ["--epsilon", "1", "--delta", "{v}"], "--delta="),
    (_PRIVACY + ["--rho", "{v}"], "--rho="),
    (["privacy", "--mechanism", "randomized-response", "--param", "epsilon={v}", "--values", "0,1"], "epsilon="),
    (_PRIVACY[:-1] + ["0,{v}"], "--values 0,"),
    (["compose", "--spend", "{v}", "--budget", "1"], "--spend epsilon="),
    (["compose", "--spend", "0.1,{v}", "--budget", "1"], "--spend delta="),
    (["compose", "--spend", "0.1", "--budget", "{v}"], "--budget epsilon="),
    (["compose", "--spend", "0.1", "--budget", "1,{v}"], "--budget delta="),
    (["compose", "--rho", "{v}", "--rho-budget", "1"], "--rho="),
    (["compose", "--rho", "0.1", "--rho-budget", "{v}"], "--rho-budget="),
    (["compose", "--spend", "0.1", "--method", "advanced", "--delta-prime", "{v}", "--budget", "1"],
     "--delta-prime="),
    (["calibrate", "gaussian-analytic", "--epsilon", "{v}", "--delta", "1e-5"], "epsilon="),
    (["calibrate", "gaussian-analytic", "--epsilon", "1", "--delta", "{v}"], "delta="),
    (["calibrate", "laplace", "--epsilon", "1", "--sensitivity", "{v}"], "sensitivity="),
    (["calibrate", "zcdp-to-approx", "--rho", "{v}", "--delta", "1e-6"], "rho="),
    (["account", "--mechanism", "gaussian", "--param", "sigma=2", "--k", "5", "--epsilon", "{v}"], "epsilon="),
    (["account", "--mechanism", "gaussian", "--param", "sigma=2", "--k", "5", "--delta", "{v}"], "delta="),
    (["account", "--mechanism", "gaussian", "--param", "sigma={v}", "--k", "5", "--delta", "1e-6"], "sigma="),
    (["floatsum", "--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--claim", "{v}"], "--claim="),
    (["sensitivity", "--query", "sum", "--universe", "0..3", "--sizes", "0..2", "--claim", "{v}"], "claim="),
]


@pytest.mark.parametrize("value", ["inf", "nan", "Infinity", "oo"])
@pytest.mark.parametrize("argv, names", NON_FINITE_CLI, ids=[" ".join(a[:4]) for a, _ in NON_FINITE_CLI])
def test_a_non_finite_number_is_refused_in_one_line(capsys, argv, names, value):
    code = main([a.replace("{v}", value) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("exactdp")
    assert names in err and value in err
    assert "HOLDS" not in err and "Traceback" not in err


@pytest.mark.parametrize("option", ["--epsilon", "--rho"])
@pytest.mark.parametrize("value", ["inf", "-inf", "nan", " INF ", "oo", "1e999"])
def test_privacy_claim_names_the_option(capsys, option, value):
    # was: --epsilon inf -> 'HOLDS, tight', exit 0 (and --rho inf -> 'HOLDS')
    code = main(_PRIVACY + [option, value])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"exactdp: error: {option}={value!r} is ")
    expected = "is beyond the largest float" if value == "1e999" else "is not finite"
    assert expected in err


def test_privacy_binary_reading_refuses_1e999(capsys):
    code = main(["privacy", "--floats", "binary"] + _PRIVACY[1:] + ["--epsilon", "1e999"])
    _, err = capsys.readouterr()
    assert code == 2 and "--epsilon=1e999 is beyond the largest float64" in err


_GAUSS = make_mechanism("gaussian", sigma=1)

NON_FINITE_API = [
    ("check_mechanism epsilon", lambda v: check_mechanism(_GAUSS, values=(0, 1), epsilon=v)),
    ("check_mechanism delta", lambda v: check_mechanism(_GAUSS, values=(0, 1), epsilon=1, delta=v)),
    ("check_mechanism rho", lambda v: check_mechanism(_GAUSS, values=(0, 1), rho=v)),
    ("BudgetLedger epsilon", lambda v: BudgetLedger(epsilon=v)),
    ("BudgetLedger delta", lambda v: BudgetLedger(epsilon=1, delta=v)),
    ("BudgetLedger rho", lambda v: BudgetLedger(rho=v)),
    ("BudgetLedger.spend", lambda v: BudgetLedger(epsilon=1).spend(epsilon=v)),
    ("BudgetLedger binary", lambda v: BudgetLedger(epsilon=1, floats="binary").spend(epsilon=v)),
    ("compose_sequential", lambda v: compose_sequential([(v, 0)])),
    ("compose_optimal", lambda v: compose_optimal([(1, v)])),
    ("optimal_delta", lambda v: optimal_delta([v])),
    ("compose_zcdp", lambda v: compose_zcdp([v])),
    ("advanced_composition", lambda v: advanced_composition(v, 0, 10, "1e-6")),
    ("laplace_scale", lambda v: laplace_scale(v, 1)),
    ("analytic_sigma", lambda v: analytic_sigma(v, "1e-5", 1)),
    ("epsilon_of_rho", lambda v: epsilon_of_rho(v, "1e-6")),
    ("make_mechanism", lambda v: make_mechanism("gaussian", sigma=v)),
]


@pytest.mark.parametrize("value", [float("inf"), float("nan"), float("1e999"), "inf", "-inf", "nan",
                                   sympy.oo, sympy.zoo, sympy.nan])
@pytest.mark.parametrize("name, call", NON_FINITE_API, ids=[n for n, _ in NON_FINITE_API])
def test_the_api_refuses_a_non_finite_number(name, call, value):
    with pytest.raises((InvalidArgument, InexactInput)) as info:
        call(value)
    assert "not finite" in str(info.value)


def test_a_finite_expression_claim_still_works():
    r = check_mechanism(make_mechanism("randomized-response", p="3/4"), values=(0, 1), epsilon="log(3)")
    assert r.verdict.value == "holds-tight" and r.ok


# --- user input quoted short ----------------------------------------------------------------


@pytest.mark.parametrize("values, fragment", [
    ("0," * 2500, "has an empty entry"),
    ("1;" * 2499 + "1", "gives 2500 vectors; give exactly two"),  # gaussian takes vectors
    ("x" * 4998 + ",1", "has 4,998 characters, more than 4,000"),
])
def test_a_long_values_is_quoted_short(capsys, values, fragment):
    # was: a 5,155-character error line echoing --values
    code = main(_PRIVACY[:-1] + [values])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and fragment in err
    assert len(err) < 400, len(err)
    assert "... (4,999 characters)" in err or "... (5,000 characters)" in err


def test_an_unknown_float_like_text_is_quoted_short():
    with pytest.raises(ExactDPError) as info:
        BudgetLedger(epsilon="y" * 3000)
    assert len(str(info.value)) < 300


def test_readme_compose_paragraph_runs_as_it_says(capsys):
    from pathlib import Path

    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_guide", Path(__file__).with_name("readme_guide.py"))
    guide = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(guide)
    text = " ".join(guide.text().split())  # the README and the guide pages it links
    command = "exactdp compose --spend 0.5,0.1x2 --budget 1,0.19"
    assert f"`{command}` fits" in text
    assert "under `--method sequential` a budget delta of 0.189 overspends with 19/100 shown" in text
    assert "`exactdp compose --spend 0.1x10 --budget 0.8,1e-3` fits" in text
    code, out, _ = main(["compose", "--spend", "0.1x10", "--budget", "0.8,1e-3"]), *capsys.readouterr()
    assert code == 0 and "delta at the budget epsilon 0.8: <= 0.000288234" in out
    assert "(enclosure [0.753573, 0.753574])" in out
    code, out, _ = _compose(capsys, *command.split()[2:])
    assert code == 0 and out.rstrip().endswith("FITS")
    code, out, _ = _compose(capsys, "--spend", "0.5,0.1x2", "--budget", "1,0.189")
    assert code == 1 and "= 19/100 > budget 189/1000" in out
