"""``exactdp compose``: exact totals, exit status, JSON schema, one-line errors."""

from __future__ import annotations

import json
from fractions import Fraction

import re

import pytest
import sympy

from exactdp.cli import main


def run(capsys, *argv):
    # these tests are of --method sequential (the default is optimal: tests/test_compose_optimal.py);
    # a later --method in argv wins
    code = main(["compose", "--method", "sequential", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_exact_split_fits_opendp_2131(capsys):
    code, out, err = run(capsys, "--spend", "0.1", "--spend", "0.9", "--budget", "1")
    assert code == 0 and err == ""
    assert "total:     epsilon = 1, delta = 0" in out
    assert "remaining: epsilon = 0, delta = 0" in out
    assert out.rstrip().endswith("FITS")


def test_overspend_exits_1_and_names_the_spend(capsys):
    code, out, _ = run(capsys, "--spend", "0.5,1e-6", "--spend", "0.6", "--budget", "1,1e-6")
    assert code == 1
    assert "total:     epsilon = 11/10 (<= 1.1), delta = 1/1000000 (<= 1.0000000000000002e-06)" in out
    assert "remaining: epsilon = -1/10 (>= -0.1) OVERSPENT" in out
    assert ("OVERSPENDS: spend #2 '--spend 0.6' (epsilon=3/5, delta=0) would exceed the budget: "
            "epsilon: spent 1/2 + 3/5 = 11/10 > budget 1. Left: epsilon=1/2, delta=0.") in out


def test_json_sequential(capsys):
    code, out, _ = run(capsys, "--spend", "1/3,1e-7x3", "--budget", "1,1e-6", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["method"] == "sequential" and d["fits"] is True and d["overspend"] == []
    assert d["spends"] == [{"epsilon": "1/3", "delta": "1/10000000", "count": 3}]
    assert d["total"]["epsilon"] == {"exact": "1", "float_at_least": 1.0}
    # deltas compose optimally at epsilon = the sum: 1 - (1 - 1e-7)^3, a little below 3e-7
    composed = 1 - (1 - Fraction(1, 10**7)) ** 3
    assert d["total"]["delta"]["exact"] == str(composed) == "299999970000001/1000000000000000000000"
    assert Fraction(d["total"]["delta"]["float_at_least"]) >= composed
    assert d["basic_total"]["delta"]["exact"] == "3/10000000"
    left = (Fraction(1, 10**6) - composed) / (1 - composed)  # the largest next delta that fits
    assert d["remaining"]["delta"]["exact"] == str(left)
    assert Fraction(d["remaining"]["delta"]["float_at_most"]) <= left
    assert d["rule"] == "optimal-at-sum"
    assert d["budget"] == {"epsilon": "1", "delta": "1/1000000", "rho": None}
    assert d["total"]["rho"] is None and d["undecided"] is None


def test_rho_account(capsys):
    code, out, _ = run(capsys, "--rho", "1/8x4", "--rho-budget", "1/2", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["total"]["rho"]["exact"] == "1/2" and d["remaining"]["rho"]["exact"] == "0"
    code, out, _ = run(capsys, "--rho", "1/8x4", "--rho", "1e-9", "--rho-budget", "1/2")
    assert code == 1
    assert "OVERSPENDS: spend #2 '--rho 1e-9' (rho=1/1000000000)" in out


def test_both_accounts_must_fit(capsys):
    code, out, _ = run(capsys, "--spend", "1", "--budget", "1", "--rho", "0.6", "--rho-budget", "0.5")
    assert code == 1
    assert "rho: spent 0 + 3/5 = 3/5 > budget 1/2" in out
    code, _, _ = run(capsys, "--spend", "1", "--budget", "1", "--rho", "0.5", "--rho-budget", "0.5")
    assert code == 0


def test_a_budget_alone_reports_it_whole(capsys):
    code, out, _ = run(capsys, "--budget", "1,1e-6", "--rho", "0.1", "--rho-budget", "1", "--json")
    d = json.loads(out)
    assert code == 0 and d["remaining"]["epsilon"]["exact"] == "1" and d["total"]["epsilon"]["exact"] == "0"
    assert d["remaining"]["rho"]["exact"] == "9/10"


def test_advanced_composition_test_vector(capsys):
    # k = 100, eps = 0.1, delta' = 1e-6 -> 6.30823095051 (anchors §6); basic composition: 10
    code, out, _ = run(capsys, "--spend", "0.1x100", "--method", "advanced", "--delta-prime", "1e-6",
                       "--budget", "6.31,1e-6", "--json")
    assert code == 0
    d = json.loads(out)
    eps = d["total"]["epsilon"]
    assert round(eps["float_at_least"], 11) == 6.30823095051
    lo, hi = (Fraction(x) for x in eps["interval"])
    assert lo <= hi <= Fraction(eps["float_at_least"])
    assert abs(sympy.sympify(eps["exact"]).evalf(30) - sympy.Float("6.30823095051340822674", 30)) < 1e-18
    assert d["advanced"] == {"k": 100, "epsilon_each": "1/10", "delta_each": "0", "delta_prime": "1/1000000"}
    assert d["sequential_total"]["epsilon"]["exact"] == "10"
    # remaining = 6.31 - eps, with eps < 6.3082309505134082267473 (enclosed at 90 bits)
    left = Fraction(d["remaining"]["epsilon"]["float_at_most"])
    bound = Fraction("6.31") - Fraction("6.3082309505134082267473")
    assert bound - Fraction(1, 10**18) < left <= bound
    # and one step tighter than the true value is an overspend
    code, out, _ = run(capsys, "--spend", "0.1x100", "--method", "advanced", "--delta-prime", "1e-6",
                       "--budget", "6.30823095051,1e-6")
    assert code == 1
    assert "OVERSPENDS: advanced composition gives epsilon > 630823095051/100000000000 = the budget" in out


def test_advanced_uses_the_largest_parameters_and_checks_delta(capsys):
    code, out, _ = run(capsys, "--spend", "0.1,1e-8x50", "--spend", "0.2x50", "--method", "advanced",
                       "--delta-prime", "1e-6", "--budget", "100,1e-6", "--json")
    d = json.loads(out)
    assert d["advanced"] == {"k": 100, "epsilon_each": "1/5", "delta_each": "1/100000000",
                             "delta_prime": "1/1000000"}
    assert d["total"]["delta"]["exact"] == "1/500000"  # 100 * 1e-8 + 1e-6
    assert code == 1 and any("k*delta + delta' = 1/500000 > budget 1/1000000" in m for m in d["overspend"])


def test_advanced_text_says_when_sequential_is_better(capsys):
    code, out, _ = run(capsys, "--spend", "1x3", "--method", "advanced", "--delta-prime", "1e-6", "--budget", "20,1e-6")
    assert code == 0
    assert "(sequential composition would give epsilon = 3, delta = 0: no worse here, try --method sequential)" in out


BAD = [
    ((), "nothing to compose"),
    (("--spend", "0.1"), "--spend needs --budget"),
    (("--rho", "0.1"), "--rho needs --rho-budget"),
    (("--spend", "0.1", "--budget", "1", "--method", "advanced"), "--method advanced needs --delta-prime"),
    (("--spend", "0.1", "--budget", "1", "--delta-prime", "1e-6"), "only used by --method advanced"),
    (("--rho", "0.1", "--rho-budget", "1", "--method", "advanced", "--delta-prime", "1e-6"), "composes --spend values"),
    (("--spend", "-1", "--budget", "1"), "--spend epsilon='-1' is negative"),
    (("--spend", "0.1,2", "--budget", "1"), "--spend delta='2' is above 1"),
    (("--spend", "0.1,1e-6,3", "--budget", "1"), "is not 'EPS' or 'EPS,DELTA'"),
    (("--spend", "abc", "--budget", "1"), "'abc' is not an exact number"),
    (("--spend", "0.1x0", "--budget", "1"), "asks for 0 copies"),
    (("--spend", "0.1", "--budget", "1,1.5"), "--budget delta='1.5' is above 1"),
    (("--rho", "0.1", "--rho-budget", "-1"), "--rho-budget='-1' is negative"),
    (("--spend", "0.1x10", "--method", "advanced", "--delta-prime", "0", "--budget", "1"), "--delta-prime='0' is not in (0, 1)"),
    (("--spend", "0.1,1.5x10", "--budget", "5,1"), "--spend delta='1.5' is above 1"),  # each copy is a probability
    (("--spend", "1e400", "--budget", "1e401"), "--spend epsilon='1e400' is beyond the largest float"),
    (("--spend", "1", "--budget", "1e401"), "--budget epsilon='1e401' is beyond the largest float"),
    (("--rho", "1e309", "--rho-budget", "1"), "--rho='1e309' is beyond the largest float"),
    (("--spend", "800x10", "--method", "advanced", "--delta-prime", "1e-6", "--budget", "1"),
     "--method advanced: epsilon 800 composed k = 10 times gives an epsilon beyond the largest float"),
]


@pytest.mark.parametrize("argv, fragment", BAD)
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("exactdp: error: ") and err.count("\n") == 1
    assert fragment in err
    assert "Fraction(" not in err and len(err) < 400


# --- regressions --------------------------------------------------------------------------


def test_copies_whose_deltas_add_past_one_compose_below_one(capsys):
    # each copy's delta 0.2 is a probability; ten of them add up to 2, but compose
    # (optimally, at epsilon = the sum) to 1 - 0.8^10 < 1: within a budget delta of 1, and
    # an overspend of a budget delta of 0.5 (exit 1), never bad input (exit 2)
    composed = 1 - Fraction(4, 5) ** 10
    code, out, err = run(capsys, "--spend", "0.1,0.2x10", "--budget", "5,1")
    assert code == 0 and err == ""
    assert f"total:     epsilon = 1, delta = {composed} (<= 0.8926258176)" in out
    assert "(basic composition, the sum of the deltas, would give delta = 2)" in out
    code, out, err = run(capsys, "--spend", "0.1,0.2x10", "--budget", "5,0.5")
    assert code == 1 and err == ""
    assert ("OVERSPENDS: spend #1 '--spend 0.1,0.2x10' (10 copies of epsilon=1/10, delta=1/5) would exceed "
            f"the budget: delta: 1 - (1 - 1/5)^10 = {composed} > budget 1/2. Left: epsilon=5, delta=1/2.") in out
    code, out, err = run(capsys, "--spend", "0.1,0.6", "--spend", "0.1,0.6", "--budget", "5,0.8")
    assert code == 1 and err == ""
    assert "delta: 1 - (1 - 3/5)(1 - 3/5) = 21/25 > budget 4/5" in out
    code, out, _ = run(capsys, "--spend", "0.1,0.2x10", "--budget", "5,0.5", "--json")
    d = json.loads(out)
    assert code == 1 and d["fits"] is False
    assert d["total"]["delta"]["exact"] == str(composed)
    assert d["basic_total"]["delta"] == {"exact": "2", "float_at_least": 2.0}
    assert d["spends"] == [{"epsilon": "1/10", "delta": "1/5", "count": 10}]
    # the first spend after which the budget is exceeded is named
    code, out, _ = run(capsys, "--spend", "0,0.5x2", "--spend", "0,0.5", "--budget", "1,0.8")
    assert code == 1 and "spend #2 '--spend 0,0.5'" in out
    assert "delta: 1 - (1 - 3/4)(1 - 1/2) = 7/8 > budget 4/5" in out


def test_advanced_total_delta_past_one_overspends(capsys):
    # k*delta + delta' = 100 * 0.1 + 1e-6 > 1: a vacuous guarantee, which fits no budget
    code, out, err = run(capsys, "--spend", "0.1,0.1x100", "--method", "advanced", "--delta-prime", "1e-6",
                         "--budget", "7,1")
    assert code == 1 and err == ""
    assert "OVERSPENDS: delta: k*delta + delta' = 10000001/1000000 > budget 1" in out
    assert "advanced composition gives epsilon" not in out  # epsilon 6.308... fits 7
    code, out, _ = run(capsys, "--spend", "0.1,0.1x100", "--method", "advanced", "--delta-prime", "1e-6",
                       "--budget", "7,1", "--json")
    d = json.loads(out)
    assert d["fits"] is False and d["total"]["delta"]["exact"] == "10000001/1000000"
    assert d["advanced"]["delta_each"] == "1/10"


def test_totals_beyond_the_float_range_overspend_with_short_messages(capsys):
    # each spend and the budget are floats; ten copies are not: exact totals, no float, exit 1
    code, out, err = run(capsys, "--spend", "1e308x10", "--budget", "1e308", "--json")
    assert code == 1 and err == ""
    d = json.loads(out)
    assert d["total"]["epsilon"] == {"exact": "1" + "0" * 309, "float_at_least": None}
    assert d["remaining"]["epsilon"]["float_at_most"] is None
    (message,) = d["overspend"]
    assert len(message) < 500 and re.search(r"10 copies of epsilon=100000000000\d*\.\.\.0+ \(309 characters\)", message)
    assert re.search(r"epsilon: spent 0 \+ 100000000000\d*\.\.\.0+ \(310 characters\) = ", message)
    code, out, err = run(capsys, "--rho", "1e308x10", "--rho-budget", "1")
    assert code == 1 and err == "" and "(beyond the largest float)" in out


def test_help_has_description_examples_and_copy_limit():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "exactdp", "compose", "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0
    assert "Exit status: 0 everything fits; 1 something overspends" in r.stdout
    assert "K at most 1,000,000,000,000" in " ".join(r.stdout.split())
    assert sum(line.strip().startswith("exactdp compose") for line in r.stdout.splitlines()) == 4
    assert "delta = 1 - prod(1 - delta_i), exact" in " ".join(r.stdout.split())
