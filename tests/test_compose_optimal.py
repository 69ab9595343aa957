"""``exactdp compose --method optimal`` (the default) and its API: the tight composition of
(epsilon, delta) spends (Kairouz-Oh-Viswanath; Murtagh-Vadhan canonical pairs), checked
against references computed here independently: the KOV binomial sum and a brute-force
enumeration of the 2^k outcomes of the randomized responses, both in mpmath at 60 digits."""

from __future__ import annotations

import itertools
import json
import time
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.cli import main
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.mechanisms import compose_optimal_exact, optimal_composition, optimal_epsilon
from exactdp.mechanisms.accounting.composition import optimal_composition_of_copies

TOL = Fraction(1, 10**40)
"""Far above the references' own error (60 digits), far below every width asserted."""


def F(x: mpmath.mpf) -> Fraction:
    """An mpf's exact value (comparisons in Fractions, not at mpmath's working precision)."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _mpf(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def kov_delta(k: int, eps, delta, big_e) -> mpmath.mpf:
    """KOV (Thm 3.3) for k copies of (eps, delta) at total big_e: the binomial sum."""
    with mpmath.workdps(60):
        e, E = _mpf(eps), _mpf(big_e)
        h = mpmath.mpf(0)
        for l in range(k + 1):
            h += mpmath.binomial(k, l) * max(mpmath.mpf(0), mpmath.exp((k - l) * e) - mpmath.exp(E + l * e))
        h /= (1 + mpmath.exp(e)) ** k
        s = (1 - _mpf(delta)) ** k
        return 1 - s + s * h


def brute_delta(spends, big_e) -> mpmath.mpf:
    """The hockey stick of the product of each spend's canonical pair, outcome by outcome:
    (eps, delta) is the pair P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0),
    Q = its mirror image (Murtagh-Vadhan, Lemma 3.2 / KOV)."""
    with mpmath.workdps(60):
        E = mpmath.exp(_mpf(big_e))
        rows = []
        for eps, delta in spends:
            e, d = mpmath.exp(_mpf(eps)), _mpf(delta)
            p = [d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), mpmath.mpf(0)]
            rows.append((p, p[::-1]))
        total = mpmath.mpf(0)
        for outcome in itertools.product(range(4), repeat=len(rows)):
            p = mpmath.fprod(r[0][o] for r, o in zip(rows, outcome))
            q = mpmath.fprod(r[1][o] for r, o in zip(rows, outcome))
            total += max(mpmath.mpf(0), p - E * q)
        return total


def run(capsys, *argv):
    code = main(["compose", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("k, eps, delta", [(1, "0.5", 0), (5, "0.1", 0), (10, "1", "1e-6"), (30, "0.3", "1e-4"),
                                            (200, "0.05", 0)])
def test_identical_spends_match_the_kov_binomial_sum(k, eps, delta):
    c = optimal_composition_of_copies([(eps, delta, k)])
    total = k * Fraction(eps)
    for big_e in (Fraction(0), total / 7, total / 3, total / 2, total - Fraction(1, 1000), total, total + 1):
        lo, hi = c.delta_at(big_e)
        ref = kov_delta(k, eps, delta, big_e)
        assert lo - TOL <= F(ref) <= hi + TOL, (k, eps, big_e)
        assert hi - lo <= Fraction(1, 10**15)


def test_the_binomial_sum_value_by_hand():
    # 10 spends of 0.1 at E = 0.8: only l = 0 counts, (e^1 - e^0.8)/(1 + e^0.1)^10
    lo, hi = compose_optimal_exact([("0.1", 0)] * 10, "0.8")
    with mpmath.workdps(60):
        ref = (mpmath.e - mpmath.exp(mpmath.mpf(8) / 10)) / (1 + mpmath.exp(mpmath.mpf(1) / 10)) ** 10
        assert mpmath.nstr(ref, 25) == "0.0002882338576186479792080745"
    assert lo - TOL <= F(ref) <= hi + TOL


def test_sequential_overspends_where_the_optimal_composition_fits(capsys):
    code, out, _ = run(capsys, "--spend", "0.1x10", "--budget", "0.8,1e-3", "--method", "sequential")
    assert code == 1 and "epsilon: spent 0 + 1 = 1 > budget 4/5" in out
    code, out, err = run(capsys, "--spend", "0.1x10", "--budget", "0.8,1e-3")
    assert code == 0 and err == "" and out.rstrip().endswith("FITS")
    assert "optimal composition of 10 (epsilon, delta) spends (1 distinct positive epsilon, 11 combinations)" in out
    assert "  rule:      optimal composition (Kairouz-Oh-Viswanath 2015; Murtagh-Vadhan 2016" in out
    assert "  delta at the budget epsilon 0.8: <= 0.000288234 (enclosure [0.000288233, 0.000288234])" in out
    assert "  smallest epsilon at the budget delta 0.001: <= 0.753574 (enclosure [0.753573, 0.753574])" in out
    # 0.7 does not fit: delta(0.7) = 0.00178... > 1e-3
    code, out, _ = run(capsys, "--spend", "0.1x10", "--budget", "0.7,1e-3")
    assert code == 1
    assert ("OVERSPENDS: the optimal composition of the 10 spends at epsilon 0.7 needs delta >= "
            "0.0017812923683156569 > budget delta 0.001 (at delta 0.001 it needs epsilon >= 0.75357315487904763)") in out
    assert F(kov_delta(10, "0.1", 0, "0.7")) > Fraction("0.0017812923683156569")


def test_smallest_epsilon_against_an_independent_bisection():
    lo, hi = optimal_epsilon([("0.1", 0)] * 10, "1e-3")
    a, b = mpmath.mpf("0.6"), mpmath.mpf("1")  # delta is decreasing in E
    with mpmath.workdps(60):
        for _ in range(120):
            m = (a + b) / 2
            if F(kov_delta(10, "0.1", 0, F(m))) > Fraction(1, 1000):
                a = m
            else:
                b = m
    assert lo - TOL <= F(a) and F(b) <= hi + TOL
    assert hi - lo <= Fraction(1, 10**12) * hi
    # no epsilon reaches a delta below 1 - prod(1 - delta_i); the sum reaches exactly that
    assert optimal_epsilon([("0.5", "0.1")] * 2, "0.1899") is None
    assert optimal_epsilon([("0.5", "0.1")] * 2, "0.19") == (1, 1)


MIXED = [("0.1", "1e-3"), ("0.3", 0), ("0.3", "2e-3"), ("0.7", 0), ("0.1", 0), ("1/3", "1e-4")]


@pytest.mark.parametrize("big_e", ["0", "0.05", "0.2", "0.5", "0.9", "1.3", "1.7", "1.8", "1.9", "2", "5/3"])
def test_mixed_spends_match_brute_force_over_the_outcomes(big_e):
    c = optimal_composition(MIXED)
    # 0.1 twice, 0.3 twice, 1/3 and 0.7 once: 3 + 3*3 + 9*2 + 18*2 combinations visited (no unit shared
    # by 1/3 and tenths small enough to merge totals before the bound)
    assert c.terms == 3 + 9 + 18 + 36
    lo, hi = c.delta_at(big_e)
    ref = brute_delta(MIXED, big_e)
    assert lo - TOL <= F(ref) <= hi + TOL
    assert hi - lo <= Fraction(1, 10**15)


def test_mixed_verdict_and_json(capsys):
    argv = [x for eps, d in MIXED for x in ("--spend", f"{eps},{d}")]
    ref = brute_delta(MIXED, "1.3")
    code, out, _ = run(capsys, *argv, "--budget", "1.3,0.02", "--json")
    d = json.loads(out)
    assert d["method"] == "optimal" and d["rule"] == "optimal" and d["rule_text"].startswith("optimal composition")
    assert d["fits"] is (F(ref) <= Fraction("0.02"))
    lo, hi = (Fraction(x) for x in d["total"]["delta"]["interval"])
    assert lo <= F(ref) <= hi and d["total"]["delta"]["at_most"] == d["total"]["delta"]["interval"][1]
    assert Fraction(d["total"]["delta"]["float_at_least"]) >= F(ref)
    assert d["optimal"] == {"distinct_epsilons": 4, "combinations": 66, "max_terms": 200000}
    assert d["sequential_total"]["epsilon"] == "1.8333333333333334"  # 11/6 rounded up


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])  # read each run
@given(st.lists(st.tuples(st.integers(0, 12), st.sampled_from(["0", "1e-6", "1e-3", "0.05"])), min_size=1, max_size=5),
       st.integers(0, 60))
def test_the_printed_delta_is_never_below_the_true_one(capsys, spends, e_tenths):
    spends = [(Fraction(n, 10), d) for n, d in spends]
    big_e = Fraction(e_tenths, 20)
    ref = brute_delta(spends, big_e)
    argv = [x for eps, d in spends for x in ("--spend", f"{eps},{d}")]
    code, out, _ = run(capsys, *argv, "--budget", f"{big_e},0.5", "--json")
    d = json.loads(out)
    true = F(ref)
    assert Fraction(d["total"]["delta"]["at_most"]) >= true - TOL
    assert Fraction(d["total"]["delta"]["interval"][0]) <= true + TOL
    assert Fraction(d["total"]["delta"]["float_at_least"]) >= true - TOL
    assert d["fits"] is (true <= Fraction(1, 2)) or d["undecided"]
    code, out, _ = run(capsys, *argv, "--budget", f"{big_e},0.5")
    line = next(x for x in out.splitlines() if x.startswith("  delta at the budget epsilon"))
    shown = line.split(": ", 1)[1].split(" ")
    value = shown[1] if shown[0] == "<=" else shown[0]  # the short decimal, rounded up
    assert Fraction(value) >= true - TOL


def test_exact_prints_fractions_and_decimals_are_the_default(capsys):
    code, out, _ = run(capsys, "--spend", "0.5,0.1x2", "--budget", "1,0.19")
    assert code == 0 and "  delta at the budget epsilon 1: 0.19" in out and "19/100" not in out
    code, out, _ = run(capsys, "--spend", "0.5,0.1x2", "--budget", "1,0.19", "--exact")
    assert code == 0 and "  delta at the budget epsilon 1: 19/100" in out
    code, out, _ = run(capsys, "--spend", "0.1x10", "--budget", "0.8,1e-3", "--exact")
    line = next(x for x in out.splitlines() if x.startswith("  delta at the budget epsilon"))
    assert "/" in line and "0.000288" not in line


def test_long_fractions_are_short_decimals_unless_exact(capsys):
    # sequential: 1 - (1 - 1e-7)^1000 has 14,000 characters as a fraction
    code, out, _ = run(capsys, "--method", "sequential", "--spend", "0.1,1e-7x1000", "--budget", "200,1e-3")
    assert code == 0 and max(len(line) for line in out.splitlines()) < 300
    assert "delta = <= 0.0000999951 (a fraction of 13,998 characters; --exact prints it)" in out
    code, out, _ = run(capsys, "--method", "sequential", "--spend", "0.1,1e-7x1000", "--budget", "200,1e-3", "--exact")
    assert max(len(line) for line in out.splitlines()) > 10_000
    code, out, _ = run(capsys, "--spend", "0.1,1e-7x1000", "--budget", "200,1e-3")
    assert code == 0 and max(len(line) for line in out.splitlines()) < 300


def test_the_combination_budget_is_checked_before_any_work(capsys):
    t = time.perf_counter()
    code, out, err = run(capsys, "--spend", "0.1x1000", "--spend", "0.2x1000", "--spend", "0.3x10", "--budget", "2,1e-3")
    assert time.perf_counter() - t < 2
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    # 1001 + 1001*1001 + 3001*11: the 0.2s visit the 1001 totals of the 0.1s; then at most 3001 totals
    assert "1,036,013 combinations" in err and "--max-terms 1036013" in err and "max_terms=200,000" in err
    with pytest.raises(TooLarge) as info:
        optimal_composition_of_copies([("0.1", 0, 10**6), ("0.2", 0, 10**6)])
    assert info.value.estimate == (10**6 + 1) ** 2 + (10**6 + 1) and info.value.budget == 200_000
    # epsilons sharing a unit merge their totals: 500 copies each of 0.1 and 0.2 are 1,002,002 steps
    # without merging and far fewer with it (at most 501 * 501 + 501)
    assert optimal_composition_of_copies([("0.1", 0, 500), ("0.2", 0, 500)], max_terms=10**6).terms == 501 + 501 * 501
    code, out, _ = run(capsys, "--spend", "0.1x10", "--spend", "0.2x10", "--budget", "2,1e-3", "--max-terms", "132")
    assert code == 0
    code, out, err = run(capsys, "--spend", "0.1x10", "--spend", "0.2x10", "--budget", "2,1e-3", "--max-terms", "131")
    assert code == 2 and "132 combinations" in err  # 11 + 11*11


@pytest.mark.parametrize("argv, fragment", [
    (["--spend", "0.1,2", "--budget", "1"], "delta"),
    (["--spend", "-0.1", "--budget", "1"], "-0.1"),
    (["--spend", "0.1", "--budget", "1,1.5"], "1.5"),
    (["--spend", "0.1", "--budget", "1", "--max-terms", "0"], "--max-terms"),
    (["--spend", "0.1", "--budget", "1", "--delta-prime", "1e-6"], "--delta-prime"),
])
def test_bad_input_is_refused_in_one_line(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and fragment in err


def test_api_refuses_bad_arguments():
    with pytest.raises(InvalidArgument, match="max_terms=0"):
        optimal_composition([("0.1", 0)], max_terms=0)
    with pytest.raises(InvalidArgument, match="not an .epsilon, delta, copies. triple"):
        optimal_composition_of_copies([("0.1", 0)])
    with pytest.raises(InvalidArgument, match="count"):
        optimal_composition_of_copies([("0.1", 0, 0)])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.sampled_from(["0", "1e-6", "1e-3"])), min_size=1, max_size=4),
       st.sampled_from(["1e-5", "1e-3", "0.01", "0.1", "0.3"]))
def test_the_smallest_epsilon_enclosure_holds_the_true_one(spends, target):
    spends = [(Fraction(n, 10), d) for n, d in spends]
    found = optimal_epsilon(spends, target, rel_width=Fraction(1, 10**9))
    floor = 1 - __import__("math").prod(1 - Fraction(d) for _, d in spends)
    if found is None:
        assert floor > Fraction(target)
        return
    lo, hi = found
    assert 0 <= lo <= hi <= sum(e for e, _ in spends)
    assert F(brute_delta(spends, hi)) <= Fraction(target) + TOL  # hi is a valid epsilon
    if lo > 0:
        assert F(brute_delta(spends, lo)) >= Fraction(target) - TOL  # nothing below lo is


def test_an_undecided_comparison_is_said_and_is_not_a_fit(capsys, monkeypatch):
    from exactdp.errors import Undecided
    from exactdp.mechanisms.accounting.composition import OptimalComposition

    def undecided(self, epsilon, delta):
        raise Undecided("not decided at 3392 bits (forced here)")

    monkeypatch.setattr(OptimalComposition, "delta_at_most", undecided)
    code, out, _ = run(capsys, "--spend", "0.1x10", "--budget", "0.8,1e-3")
    assert code == 1 and "FITS" not in out and "OVERSPENDS" not in out
    assert out.rstrip().splitlines()[-1].startswith("UNDECIDED: the optimal delta at epsilon 4/5 against the budget delta")
    code, out, _ = run(capsys, "--spend", "0.1x10", "--budget", "0.8,1e-3", "--json")
    d = json.loads(out)
    assert code == 1 and d["fits"] is False and d["overspend"] == [] and "forced here" in d["undecided"]
