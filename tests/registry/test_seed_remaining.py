"""Issue 20, items 8-9: the seed statements that were still missing or partial, as built-in
claims of exactdp.registry.seed_remaining (exact values, witnesses and verdicts)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp import registry
from exactdp.checkers.results import Verdict
from exactdp.numeric.decide import compare
from exactdp.registry.seed_remaining import seed_remaining_claims

IDS = ("s001/add-rows-with-id/truncation", "s002/bounded/edits-vs-add-remove",
       "s003/limitations/count-bounded", "s003/definition/group-privacy/k=2",
       "s004/mixture/variance", "s004/experiments/error-vs-epsilon")


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
