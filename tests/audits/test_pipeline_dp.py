"""The pipeline-dp adapter and audit suite, against the installed pipeline-dp (0.3.1)."""

from __future__ import annotations

from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("pipeline_dp")

from exactdp.adapters import pipeline_dp as A
from exactdp.audits import runner
from exactdp.audits import suite_pipeline_dp as S
from exactdp.errors import InvalidArgument

ON_031 = metadata.version("pipeline-dp") == "0.3.1"
needs_031 = pytest.mark.skipif(not ON_031, reason="verdicts and witnesses pinned on pipeline-dp 0.3.1")


def _audit(suffix: str):
    (a,) = [a for a in S.audits() if a.id == f"pipeline-dp/{suffix}"]
    return a


def test_aggregate_spies_noiseless_values_and_sensitivities():
    values, log = A.aggregate([(1, "a", 0.5), (1, "b", 0.2), (2, "a", 1.0)], ["COUNT", "SUM"],
                              partitions=["a", "b", "c"], max_partitions_contributed=2,
                              max_contributions_per_partition=1, min_value=0.0, max_value=1.0)
    assert values == {"a": {"count": 2, "sum": Fraction(3, 2)},
                      "b": {"count": 1, "sum": Fraction(3602879701896397, 18014398509481984)},  # 0.2
                      "c": {"count": 0, "sum": 0}}
    assert {(c.mechanism, c.sensitivity, c.noise_parameter) for c in log} == {("LaplaceMechanism", 2, 4)}
    # the spy is gone afterwards: add_noise adds noise again
    from pipeline_dp import dp_computations as dc
    assert dc.AdditiveMechanism.add_noise.__qualname__ == "AdditiveMechanism.add_noise"


def test_aggregate_refuses_bad_arguments():
    with pytest.raises(InvalidArgument, match="noise_kind='uniform'"):
        A.aggregate([], ["COUNT"], partitions=["a"], noise_kind="uniform")
    with pytest.raises(InvalidArgument, match="metrics=\\['MEDIAN_X'\\]"):
        A.aggregate([], ["MEDIAN_X"], partitions=["a"])
    with pytest.raises(InvalidArgument, match="weights has 1 entries; expected n=2"):
        A.naive_budgets(1.0, 0.0, 2, weights=[1.0])


def test_naive_budgets_exceed_the_total():
    budgets = A.naive_budgets(1.0, 1e-6, 10)
    assert {e for e, _ in budgets} == {0.1}
    assert sum(A.exact(e) for e, _ in budgets) == 1 + Fraction(1, 2**54)


@needs_031
def test_float_sum_and_mean_violated_and_replayed():
    for which in ("sum", "mean"):
        f = _audit(f"{which}/float-rounding").check().enforced()
        assert (f.verdict.value, f.replay.value, f.claim) == ("violated", "confirmed", "1"), which
        assert f.witness["difference"] == "9007199254740997/9007199254740992"


@needs_031
def test_contribution_bounding_holds_tight_on_the_grid():
    count = _audit("count/contribution-bounding").check()
    assert (count.verdict.value, count.claim, count.truth) == ("holds-tight", "2", "2")
    assert count.enforced().verdict.value == "holds-on-grid"
    total = _audit("sum/contribution-bounding").check()
    assert (total.verdict.value, total.claim, total.truth) == ("holds-tight", "4", "4")


@needs_031
def test_budget_and_l2_violations():
    budget = _audit("budget/naive-split").check().enforced()
    assert (budget.verdict.value, budget.witness["excess"]) == ("violated", "1/18014398509481984")
    l2 = _audit("gaussian/l2-sensitivity").check().enforced()
    assert (l2.verdict.value, l2.replay.value, l2.witness["max_partitions_contributed"]) == ("violated", "confirmed", 3)
    assert l2.witness["l2_exact"] == "3900231685776981/2251799813685248"


@needs_031
def test_suite_meets_its_expectations():
    results = runner.run_audits("pipeline-dp")
    assert len(results) == 25  # issue 25 added the generic audits (and the bounders, thresholding, add_dp_noise)
    assert all(r.verdict == r.expected for r in results), [(r.id, r.verdict, r.expected) for r in results]
