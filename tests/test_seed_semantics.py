"""Issue 20: data-dependent parameters, UNBOUNDED as a verdict, relation mismatches flagged."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy

from exactdp import registry
from exactdp.checkers.data_dependent import (
    DataDependentSum, check_data_dependent, tail_log_ratio, tail_witness,
)
from exactdp.checkers.relation_mismatch import compare_relations
from exactdp.checkers.results import Verdict, verdict_counts
from exactdp.cli import main
from exactdp.cli._status import OK
from exactdp.errors import InvalidArgument, TooLarge
from exactdp.mechanisms.distribution import INFINITY
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
from exactdp.queries import clipped, count, mean, sum_, user_query, variance
from exactdp.registry.seed004 import seed004_typical_relations
from exactdp.spaces import ExactSet, IntegerRange, Multisets
from exactdp.symbolic.unbounded import B, check_unbounded, witness_family

F = Fraction
SMALL = Multisets(IntegerRange(0, 4), sizes=(1, 3))


# -- the verdict word ------------------------------------------------------------------

def test_unbounded_is_a_verdict_neither_holding_nor_proven():
    v = Verdict("unbounded")
    assert v is Verdict.UNBOUNDED and not v.holding and not v.proven
    assert verdict_counts({"violated": 1, "unbounded": 2, "holds": 3}) == "3 holds, 2 unbounded, 1 violated"


# -- data-dependent parameters ---------------------------------------------------------

def test_min_max_bounds_give_an_infinite_loss_at_a_point_mass():
    r = check_data_dependent(DataDependentSum("min-max", epsilon=1), SMALL, epsilon=1)
    assert r.verdict is Verdict.VIOLATED and r.loss is INFINITY
    w = r.witness
    assert (w.x, w.x_prime, w.fx, w.fx_prime, w.output) == ((F(4),), (F(0), F(4)), (F(4), F(0)), (F(4), F(4)), F(4))
    assert r.witness_text() == (
        "x=[4], x'=[0, 4]: bounds [4, 4] and [0, 4], noise scale 0 and 4; output 4 has probability "
        "1 under x (no noise: every record is equal) and 0 under x' (a continuous Laplace)")
    assert r.privacy.scope.pairs == 100 and r.privacy.value_pairs == 94
    d = r.to_dict()
    assert (d["verdict"], d["epsilon"], d["evidence"], d["rule"]) == ("violated", "inf", "bit-exact", "min-max")


def test_upper_bound_from_the_data_gives_an_infinite_loss_through_the_tails():
    r = check_data_dependent(DataDependentSum("max", epsilon=1), SMALL, epsilon=1)
    assert r.verdict is Verdict.VIOLATED and r.loss is INFINITY
    w = r.witness
    (c1, b1), (c2, b2) = w.fx, w.fx_prime
    assert b1 != b2 and b1 > 0 and b2 > 0
    z = w.output
    assert z == tail_witness((c1, b1), (c2, b2), 1)
    assert tail_log_ratio((c1, b1), (c2, b2), z) > 1  # the event output >= z
    assert z == max(c1, c2) or tail_log_ratio((c1, b1), (c2, b2), z - 1) <= 1  # the smallest such z
    assert "growing without bound with z" in r.witness_text()


def test_tail_witness_exact_values():
    # scales 1 and 2, both centred at 0: log-ratio z/2 > 1 first at z = 3
    assert tail_witness((F(0), F(1)), (F(0), F(2)), 1) == 3
    assert tail_log_ratio((F(0), F(1)), (F(0), F(2)), 3) == F(3, 2)
    # [3] and [3, 4] under the max rule: scales 3 and 4, centres 3 and 7
    assert tail_witness((F(3), F(3)), (F(7), F(4)), 1) == 7
    assert tail_log_ratio((F(3), F(3)), (F(7), F(4)), 7) == F(4, 3)
    with pytest.raises(InvalidArgument, match="not two different positive scales"):
        tail_witness((F(0), F(1)), (F(0), F(1)), 1)


def test_a_public_scale_has_its_exact_finite_loss():
    r = check_data_dependent(DataDependentSum("min-max", epsilon=1, scale=4), SMALL, epsilon=1)
    assert r.verdict is Verdict.HOLDS_TIGHT and r.loss == 1
    assert (r.witness.x, r.witness.x_prime, r.witness.output) == ((F(4),), (F(4), F(4)), F(8))
    half = check_data_dependent(DataDependentSum("max", epsilon=1, scale=2), SMALL, epsilon=1)
    assert half.verdict is Verdict.VIOLATED and half.loss == 2  # sensitivity 4 over scale 2


def test_data_dependent_budget_is_checked_before_work_in_one_line():
    with pytest.raises(TooLarge) as e:
        check_data_dependent(DataDependentSum(), Multisets(IntegerRange(0, 60), sizes=(1, 4)), epsilon=1)
    message = str(e.value)
    assert "\n" not in message and "max_datasets=200,000" in message and "datasets in" in message


@pytest.mark.parametrize("make, match", [
    (lambda: DataDependentSum("median"), "rule='median' is not one of min-max, max"),
    (lambda: DataDependentSum(epsilon=0), "epsilon=.*is not positive"),
    (lambda: DataDependentSum(scale=-1), "scale=.*is not positive"),
    (lambda: DataDependentSum(epsilon=0.5), "float"),
    (lambda: check_data_dependent("min-max", SMALL), "is not a DataDependentSum"),
    (lambda: check_data_dependent(DataDependentSum(), Multisets(IntegerRange(0, 2), sizes=(0, 2))),
     "bounds of an empty dataset do not exist"),
])
def test_data_dependent_bad_arguments(make, match):
    with pytest.raises((InvalidArgument, TypeError), match=match):
        make()


# -- unbounded ---------------------------------------------------------------------------

def symmetric(sizes):
    return lambda b: Multisets(IntegerRange(-b, b), sizes=sizes)


def test_sum_is_unbounded_with_its_family_and_rows():
    r = check_unbounded(sum_, symmetric((0, 2)), ([], ["B"]), at=(1, 2, 4), formula="B")
    assert r.verdict is Verdict.UNBOUNDED and not r.ok
    assert [(row.parameter_value, row.value, row.family_gap) for row in r.rows] == [
        (1, F(1), F(1)), (2, F(2), F(2)), (4, F(4), F(4))]
    assert r.family.gap == B and r.family.limit == sympy.oo and r.family.distance == 1
    assert r.formula_limit == sympy.oo
    d = r.to_dict()
    assert (d["verdict"], d["sensitivity"], d["family"]["gap"], d["family"]["limit"]) == (
        "unbounded", "unbounded", "B", "oo")
    assert r.summary().startswith("UNBOUNDED: the sensitivity of sum grows without bound in B")


def test_a_finite_claim_is_violated_where_the_family_passes_it():
    r = check_unbounded(sum_, symmetric((0, 2)), ([], ["B"]), at=(1, 2), claim=125)
    assert r.verdict is Verdict.VIOLATED and r.exceeded_at == 126 and r.family.gap_at(126) == 126
    sq = check_unbounded(variance(1), symmetric((2, 3)), (["-B", "-B"], ["-B", "-B", "B"]), at=(1,),
                         claim=100)
    assert sq.exceeded_at == 9  # 4*81/3 = 108 > 100 >= 4*64/3


def test_mean_variance_and_x_squared_families():
    m = witness_family(mean, (["-B"], ["-B", "B"]))
    assert (m.fx, m.fx_prime, m.gap) == (-B, 0, B)
    v = witness_family(variance(1), (["-B", "-B"], ["-B", "-B", "B"]))
    assert v.gap == 4 * B**2 / 3 and v.distance == 1
    sq = witness_family(user_query(lambda xs: len(xs) ** 2, name="x*x"), ({1: "B - 1"}, {1: "B"}),
                        symbolic=lambda n, s1, s2: n**2)
    assert sq.gap == 2 * B - 1 and sq.limit == sympy.oo
    sub = witness_family(sum_, (["-B"], ["B"]), "substitute")
    assert (sub.distance, sub.gap) == (1, 2 * B)


def test_a_bounded_query_is_not_called_unbounded():
    r = check_unbounded(count, symmetric((0, 2)), ([], ["B"]), at=(1, 3))
    assert r.verdict is Verdict.UNDECIDED and r.family.limit == 1
    assert [row.value for row in r.rows] == [1, 1]
    assert r.summary().startswith("UNDECIDED: no growth shown")


@pytest.mark.parametrize("call, match", [
    (lambda: witness_family(sum_, ([], ["B", "B"])), "distance 2 > d_in=1"),
    (lambda: witness_family(sum_, ([], {"B": "B"})), "not the same for every B"),
    (lambda: witness_family(sum_, ([], ["C"])), "only B may appear"),
    (lambda: witness_family(sum_, ([], [0.5])), "float"),
    (lambda: witness_family(sum_, ([], ["B"]), "substitute"), "same size"),
    (lambda: witness_family(clipped(sum_, 0, 1), ([], ["B"])), "no built-in moment form"),
    (lambda: witness_family(sum_, "B"), "not a pair"),
    (lambda: check_unbounded(sum_, symmetric((0, 2)), ([], ["B"]), at=()), "empty"),
    (lambda: check_unbounded(sum_, symmetric((0, 2)), ([], ["B"]), at=(0,)), "whole numbers >= 1"),
    (lambda: check_unbounded(sum_, symmetric((0, 2)), ([], ["B"]), at=(1, 2), formula="2*B"),
     "formula=2\\*B gives 2 at B=1, the enumeration 1"),
    (lambda: check_unbounded(sum_, symmetric((0, 2)), ([], ["B"]), symbolic=lambda n, s1, s2: 2 * s1,
                             at=(1,)), "the moment form is not this query's"),
    (lambda: check_unbounded(sum_, 3, ([], ["B"])), "is not callable"),
])
def test_unbounded_bad_arguments(call, match):
    with pytest.raises(InvalidArgument, match=match):
        call()


def test_unbounded_budget_is_checked_before_any_enumeration():
    calls = []

    def spaces(b):
        calls.append(b)
        return Multisets(IntegerRange(-b, b), sizes=(0, 3))

    with pytest.raises(TooLarge, match=r"datasets in .* \(B=1000\), over max_datasets=10,000; pass "
                                       r"smaller values of B, or raise max_datasets"):
        check_unbounded(sum_, spaces, ([], ["B"]), at=(1, 1000), max_datasets=10_000)
    assert calls == [1, 1000]


# -- relation mismatch ---------------------------------------------------------------------

def test_seed004_typical_sensitivity_under_both_relations():
    r = seed004_typical_relations()
    assert r.verdict is Verdict.VIOLATED
    assert (r.stated.relation, r.stated.role, r.used.relation, r.used.role) == (
        "add-remove", "stated", "substitute", "used")
    assert (str(decimal_at_most(r.stated.value, 10)), str(decimal_at_least(r.stated.value, 10))) == (
        "170.0000000", "170.0000001")
    assert str(decimal_at_most(r.used.value, 6)) == "11.9939"
    assert (str(decimal_at_most(r.factor, 4)), str(decimal_at_least(r.factor, 4))) == ("14.17", "14.18")
    assert "the stated quantity is 14.17 to 14.18 times the value used" in r.summary()
    assert json.loads(json.dumps(r.to_dict()))["stated"]["enclosure"][0].startswith("170.0000000")


def test_compare_relations_by_enumeration():
    r = compare_relations(clipped(sum_, 2, 10), (Multisets(IntegerRange(0, 12), sizes=(0, 2)), "add-remove"),
                          (Multisets(IntegerRange(0, 12), size=2), "substitute"))
    assert (r.verdict, r.stated.value, r.used.value, r.factor) == (Verdict.VIOLATED, 10, 8, F(5, 4))
    assert "witness x=[], x'=[10]" in r.stated.witness
    heights = compare_relations(sum_, (Multisets(IntegerRange(0, 30), sizes=(0, 1)), "add-remove"),
                                (Multisets(IntegerRange(0, 30), size=1), "substitute"))
    assert heights.verdict is Verdict.HOLDS_TIGHT and heights.stated.value == heights.used.value == 30
    with pytest.raises(InvalidArgument, match="both add-remove: there is no mismatch"):
        compare_relations(sum_, (SMALL, "add-remove"), (SMALL, "add-remove"))
    with pytest.raises(InvalidArgument, match="is not a pair"):
        compare_relations(sum_, SMALL, (SMALL, "substitute"))


# -- the built-in claims -------------------------------------------------------------------

EXPECTED = {
    "s000/unbounded/x-squared": ("unbounded", [1, 3, 7, 15, 31], "2*B - 1"),
    "s000/unbounded/sum": ("unbounded", [1, 2, 4, 8], "B"),
    "s000/unbounded/sum/claim=125": ("violated", [1, 2, 4, 8], "B"),
    "s002/table/sum/any/unbounded": ("unbounded", [1, 2, 4, 8], "B"),
    "s002/table/mean/any/unbounded": ("unbounded", [1, 2, 4, 8], "B"),
    "s002/table/variance/any/unbounded": ("unbounded", [F(4, 3), F(16, 3), F(64, 3)], "4*B**2/3"),
    "s004/unbounded/height": ("unbounded", [1, 10, 100, 300], "B"),
}


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_builtin_unbounded_claims(claim_id):
    claim = registry.claim(claim_id)
    verdict, values, gap = EXPECTED[claim_id]
    result = claim.check()
    assert claim.kind == "sensitivity" and claim.expect == verdict
    assert result.verdict.value == verdict and claim.meets_expectation(result)
    assert [row.value for row in result.rows] == values
    assert [row.family_gap for row in result.rows] == values  # the family attains every row
    assert str(result.family.gap) == gap and result.family.limit == sympy.oo


def test_builtin_relation_and_data_dependent_claims():
    typical = registry.claim("s004/relation/typical")
    r = typical.check()
    assert r.verdict is Verdict.VIOLATED and typical.meets_expectation(r)
    glob = registry.claim("s004/relation/global").check()
    assert glob.verdict is Verdict.HOLDS_TIGHT and glob.stated.value == glob.used.value == 300
    for rule in ("min-max", "max"):
        claim = registry.claim(f"s000/data-dependent-bounds/{rule}")
        result = claim.check()
        assert claim.kind == "privacy" and result.loss is INFINITY
        assert result.verdict is Verdict.VIOLATED and claim.meets_expectation(result)


def test_verify_shows_the_new_claims(capsys):
    assert main(["verify", "--only", "s004/unbounded", "--no-catalogue"]) == OK
    out = capsys.readouterr().out
    assert out.startswith("UNBOUNDED   s004/unbounded/height: since the height is not bounded")
    assert "family x_B=[], x'_B=[B] (distance 1 for every B >= 1): |f(x_B) - f(x'_B)| = B -> oo" in out
    assert out.rstrip().endswith("1 built-in claims checked: 1 unbounded; 0 departed from what was expected")
    assert main(["verify", "--only", "s000/data-dependent-bounds/min-max", "--json"]) == OK
    [row] = json.loads(capsys.readouterr().out)
    assert (row["id"], row["verdict"], row["epsilon"], row["as_expected"]) == (
        "s000/data-dependent-bounds/min-max", "violated", "inf", True)
    assert row["witness"]["x"] == ["4"] and row["witness"]["x_prime"] == ["0", "4"]
    assert main(["verify", "--only", "s004/relation/typical", "--json"]) == OK
    [row] = json.loads(capsys.readouterr().out)
    assert (row["verdict"], row["stated"]["relation"], row["used"]["relation"]) == (
        "violated", "add-remove", "substitute")
