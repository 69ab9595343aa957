"""python-dp's generic audits (issue 25): partition-selection probabilities judged exactly,
the quantile tree's node counts, releases at the edges, the pydp.ml accountant, the coverage
map."""

from __future__ import annotations

from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("pydp")

from exactdp.adapters import python_dp as A  # noqa: E402
from exactdp.audits.coverage import NO_AUDIT_YET  # noqa: E402
from exactdp.audits.runner import coverage as coverage_of  # noqa: E402
from exactdp.audits import suite_python_dp as S  # noqa: E402
from exactdp.errors import InvalidArgument  # noqa: E402

needs_115 = pytest.mark.skipif(metadata.version("python-dp") != "1.1.5",
                               reason="verdicts and witnesses pinned on python-dp 1.1.5")


def _audit(suffix: str):
    (a,) = [a for a in S.audits() if a.id == f"python-dp/{suffix}"]
    return a


def test_judge_keep_probabilities_decides_exactly():
    eps, dlt = Fraction(0), Fraction(1, 10)
    assert S.judge_keep_probabilities([Fraction(0), Fraction(1, 10), Fraction(1, 5)], eps, dlt)[:2] == (True, True)
    ok, _, w = S.judge_keep_probabilities([Fraction(0), Fraction(1, 10), Fraction(1, 4)], eps, dlt)
    assert not ok and (w["n"], w["side"]) == (1, "keep")


def test_keep_probabilities_refuses_an_unknown_strategy():
    with pytest.raises(InvalidArgument, match="strategy='uniform'"):
        A.keep_probabilities("uniform", 1.0, 1e-6, 1, [0])


def test_quantile_tree_counts_one_node_per_level():
    counts = A.quantile_tree_counts([1.0], -2.0, 3.0, 4, 16)
    assert sorted(counts.values()) == [1, 1, 1, 1]


@needs_115
def test_truncated_geometric_keep_probability_exceeds_by_an_ulp():
    f = _audit("partition-selection/truncated_geometric/keep-probability").check().enforced()
    assert (f.verdict.value, f.replay.value, f.witness["n"]) == ("violated", "confirmed", 1)
    assert f.witness["p_n_plus_1"] == "1097443092536141/295147905179352825856"
    assert f.settings.count == 9 and "2^20" in f.settings.span


@needs_115
def test_max_releases_nan_at_huge_epsilon():
    f = _audit("algorithms/Max/release-range").check().enforced()
    assert (f.verdict.value, f.replay.value, f.witness["epsilon"], f.witness["released"]) == (
        "violated", "confirmed", 1e300, "NaN")


@needs_115
def test_quantile_tree_holds_on_grid_and_accountant_violated():
    tree = _audit("quantile-tree/node-counts").check()
    assert (tree.verdict.value, tree.enforced().verdict.value) == ("holds-tight", "holds-on-grid")
    acc = _audit("ml/budget-accountant").check().enforced()
    assert (acc.verdict.value, acc.witness["excess"]) == ("violated", "1/18014398509481984")


@needs_115
def test_coverage_map_and_reasons():
    cov = coverage_of("python-dp")
    assert (cov.audited, len(cov.primitives)) == (26, 27)
    broken = {p.name: p.why for p in cov.primitives if not p.audited}
    assert list(broken) == ["pydp.ml.naive_bayes.GaussianNB"] and "np.in1d" in broken["pydp.ml.naive_bayes.GaussianNB"]
    assert all(why != NO_AUDIT_YET for why in broken.values())


@needs_115
def test_ml_laplace_variance_rounds_below_its_formula():
    f = _audit("ml/laplace/variance").check().enforced()
    assert (f.verdict.value, f.replay.value) == ("violated", "confirmed")
    # 2 * (0.7 / 3)**2 in floats: one ulp below the exact 2 * (0.7 / 3)**2 at the float 0.7
    assert (f.witness["epsilon"], f.witness["sensitivity"], f.witness["variance_exact"]) == (
        3.0, 0.7, "1961567837699149/18014398509481984")
    assert f.settings.count == 10


@needs_115
def test_ml_geometric_noise_is_one_sided():
    f = _audit("ml/geometric/one-sided-noise").check().enforced()
    assert (f.verdict.value, f.replay.value, f.evidence.value) == ("violated", "confirmed", "ideal-noise")
    assert (f.witness["epsilon"], f.witness["x"], f.witness["x_prime"], f.witness["output"]) == (1.0, 0, 1, 0)
    assert all(row["least_from_sensitivity"] >= row["sensitivity"] for row in f.witness["settings"])
    tiny = f.witness["settings"][-1]
    assert (tiny["epsilon"], tiny["zeros_from_0"]) == (1e-06, tiny["draws"])  # no noise at all at epsilon 1e-6


@needs_115
def test_ml_bounded_domain_and_parameter_checks():
    f = _audit("ml/laplace-bounded-domain/scale").check().enforced()
    assert (f.verdict.value, f.replay.value, f.witness["epsilon"], f.witness["upper"]) == (
        "violated", "confirmed", 0.5, 10.0)
    assert f.witness["loss"].startswith("[0.5000000000000000082")
    p = _audit("ml/mechanisms/parameter-checks").check().enforced()
    assert p.verdict.value == "violated" and p.witness["first"] == {
        "mechanism": "Laplace", "call": "set_epsilon_delta('nan', 0.0)", "documented": "epsilon >= 0", "accepted": True}
    refused = {(r["mechanism"], r["call"]) for r in p.witness["trials"] if not r["accepted"]}
    assert ("GeometricTruncated", "set_bounds('nan', 1.0)") in refused  # integer bounds are checked


@needs_115
def test_geometric_sampler_holds_statistically():
    f = _audit("distributions/geometric/sampler").check().enforced()
    assert (f.verdict.value, f.settings.count) == ("holds-statistically", 4)
    assert all(row["X < 0"].startswith("0/") for row in f.witness["settings"])
