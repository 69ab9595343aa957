"""PipelineDP's generic audits (issue 25): the spied pydp mechanisms, every metric through one
DPEngine audit, select_partitions, the budget accountants judged by the certified composition,
the dp_computations helpers, the coverage map and the severity step."""

from __future__ import annotations

from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("pipeline_dp")

from exactdp.adapters import pipeline_dp as A  # noqa: E402
from exactdp.audits.coverage import NO_AUDIT_YET  # noqa: E402
from exactdp.audits.runner import coverage as coverage_of  # noqa: E402
from exactdp.audits import suite_pipeline_dp as S  # noqa: E402
from exactdp.errors import InvalidArgument  # noqa: E402

needs_031 = pytest.mark.skipif(metadata.version("pipeline-dp") != "0.3.1",
                               reason="verdicts and witnesses pinned on pipeline-dp 0.3.1")


def _audit(suffix: str):
    (a,) = [a for a in S.audits() if a.id == f"pipeline-dp/{suffix}"]
    return a


def test_run_metric_spies_every_pydp_mechanism():
    keys, log = A.run_metric([(1, "a", 0.5), (1, "b", 2.0), (2, "a", -3.0)], "VARIANCE", partitions=["a", "b"],
                             max_partitions_contributed=2, max_contributions_per_partition=1,
                             min_value=-1.0, max_value=2.0)
    assert keys == ["a", "b"]
    # per partition: count, normalised sum, normalised sum of squares (x - 0.5)**2
    assert [(c.kind, c.sensitivity, c.value) for c in log[:3]] == [
        ("laplace", 2, 2), ("laplace", 3, Fraction(-3, 2)), ("laplace", 4, Fraction(9, 4))]
    from pipeline_dp import dp_computations as dc
    assert dc.dp_mechanisms.__name__ == "pydp.algorithms.numerical_mechanisms"  # restored


def test_run_metric_refuses_an_unknown_metric():
    with pytest.raises(InvalidArgument, match="metric='MEDIAN_X'"):
        A.run_metric([], "MEDIAN_X", partitions=["a"])


@needs_031
def test_variance_sum_of_squares_exceeds_its_sensitivity():
    f = _audit("metric/VARIANCE/sensitivity").check().enforced()
    assert (f.verdict.value, f.replay.value) == ("violated", "confirmed")
    # (x - middle)**2 reaches 2.25 for bounds (-1, 2); the squares' interval (0, 4) gives LInf 2
    assert f.truth.startswith("worst distance / sensitivity = 81/64")
    assert (f.witness["distance"], f.witness["sensitivity_claimed"]) == ("81/16", "4")
    assert f.settings.count == 8


@needs_031
def test_count_metric_holds_tight_on_its_grid():
    f = _audit("metric/COUNT/sensitivity").check()
    assert f.verdict.value == "holds-tight" and f.enforced().verdict.value == "holds-on-grid"
    assert "2^52" in f.settings.span


@needs_031
def test_pld_accountant_ignores_counts_at_delta_zero():
    rows = A.accountant_specs("pld", 1.0, 0.0, [("laplace", 1, 1), ("laplace", 2, 3)])
    assert [r["noise_parameter"] for r in rows] == [3.0, 1.5]  # epsilon 1/3 + 3 * 2/3 = 7/3 > 1
    from exactdp.mechanisms.accounting.accountant import account
    res = account([("laplace", {"scale": Fraction(3)})] + [("laplace", {"scale": Fraction(3, 2)})] * 3, delta=0)
    assert res.check(Fraction(1)).verdict == "violated" and res.lower == Fraction(7, 3)


@needs_031
def test_naive_grid_violated_and_its_severity():
    f = _audit("budget/naive-grid").check().enforced()
    assert (f.verdict.value, f.replay.value, f.witness["mechanisms"]) == (
        "violated", "confirmed", "10 x laplace(weight 1, count 1)")
    assert f.settings.count == 7 and "5e-324" in f.settings.span
    sev = _audit("budget/naive-grid").severity().enforced()
    assert sev.status == "exceeds" and sev.excess == Fraction(5, 2**56)


@needs_031
def test_equal_split_and_gaussian_epsilon():
    split = _audit("dp-computations/equally-split-budget").check().enforced()
    assert (split.verdict.value, split.witness["n"], split.witness["excess_epsilon"]) == (
        "violated", 10, "5/36028797018963968")
    helpers = _audit("dp-computations/gaussian-helpers").check().enforced()
    assert helpers.verdict.value == "violated" and helpers.witness["gaussian_epsilon"] == 0.999473297415534


@needs_031
def test_coverage_map_lists_the_namespace():
    cov = coverage_of("pipeline-dp")
    names = {p.name for p in cov.primitives}
    assert {"pipeline_dp.Metrics.VECTOR_SUM", "pipeline_dp.PLDBudgetAccountant",
            "pipeline_dp.dp_computations.equally_split_budget"} <= names
    assert cov.audited == 62 and len(cov.primitives) == 67
    assert all(p.why != NO_AUDIT_YET for p in cov.primitives if not p.audited)
    weighted = {p.name: p.audits for p in cov.primitives}["pipeline_dp.PartitionSelectionStrategy.WEIGHTED_GAUSSIAN_THRESHOLDING"]
    assert weighted == ("pipeline-dp/select-partitions/WEIGHTED_GAUSSIAN_THRESHOLDING",)  # the audit that runs it


@needs_031
def test_bounders_hold_on_grid_and_each_bounder_ran():
    f = _audit("contribution-bounders/max-contributions-and-no-cross-partition").check()
    assert (f.verdict.value, f.enforced().verdict.value, f.settings.count) == ("holds-tight", "holds-on-grid", 8)
    assert f.witness["bounders"] == ["LinfSampler", "NoOpSampler", "SamplingPerPrivacyIdContributionBounder"]


@needs_031
def test_thresholding_keeps_one_unit_above_its_delta():
    f = _audit("partition-selection/create-thresholding").check().enforced()
    assert (f.verdict.value, f.replay.value, f.witness["function"], f.witness["p_keep_1"]) == (
        "violated", "confirmed", "create_laplace_thresholding", "9007199255/9007199254740992")
    assert [r["sigma"] for r in f.witness["refused"]] == [1e6]  # gaussian_epsilon goes negative there
    post = _audit("aggregate/post-aggregation-thresholding").check().enforced()
    assert (post.verdict.value, post.replay.value, post.witness["n"], post.witness["p_n_plus_1"]) == (
        "violated", "confirmed", 0, "9007199255/9007199254740992")


@needs_031
def test_add_dp_noise_spies_the_mechanism():
    log = A.add_dp_noise([("a", 3.0)], noise_kind="laplace", epsilon=0.5, l0_sensitivity=2, linf_sensitivity=1.5)
    assert [(c.kind, c.sensitivity, c.noise_parameter, c.value) for c in log] == [("laplace", 3, 6, 3)]
    f = _audit("add-dp-noise/calibration").check().enforced()
    assert (f.verdict.value, f.replay.value, f.witness["epsilon"], f.witness["noise_ok"]) == (
        "violated", "confirmed", 1e-06, False)
