"""``exactdp audit opendp --depth full``: the severity steps of the sum-of-squared-deviations
and make_variance audits (issue 18), on reduced grids with OpenDP 0.16.0's real values; the
O(log n) models they scan with, against the list models the quick audits check on OpenDP."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest

dp = pytest.importorskip("opendp.prelude")

from exactdp.adapters import opendp as od  # noqa: E402
from exactdp.audits import runner  # noqa: E402
from exactdp.audits import suite_opendp as suite  # noqa: E402
from exactdp.errors import InvalidArgument  # noqa: E402

ON_016 = od.version().startswith("0.16.")


@pytest.fixture
def small_grid(monkeypatch):
    """M in {2**50, 2**52}, widths 1 and 4 spacings, n in {2**4, 2**10, 2**12}: 12 settings."""
    monkeypatch.setattr(suite, "_SEVERITY_EXPONENTS", (50, 52))
    monkeypatch.setattr(suite, "_SEVERITY_WIDTHS", (1, 4))
    monkeypatch.setattr(suite, "_SEVERITY_SIZES", (2**4, 2**10, 2**12))


# -- the O(log n) models ---------------------------------------------------------------------


def test_one_change_models_equal_the_list_models():
    from exactdp.numeric.floatsum import float_sum_float
    rng = random.Random(18)
    for _ in range(60):
        e = rng.choice((0, 30, 48, 50, 52, 57, 60))
        M, k = 2.0 ** e, rng.randint(1, 4)
        u = math.ulp(M)
        n = rng.choice((1, 2, 3, 7, 8, 100, 257, 1024, 3001))
        a, b = M + u * rng.randint(0, k), M + u * rng.randint(0, k)
        x = [b] + [a] * (n - 1)
        assert od.pairwise_one_change(b, a, n) == float_sum_float(x, "opendp-pairwise")
        assert od.ssd_one_change(b, a, n) == od.ssd_model(x)
        if n > 1:
            ddof = rng.randint(0, 1)
            assert od.variance_one_change(b, a, n, (M, M + k * u), ddof) == od.variance_model(x, (M, M + k * u), ddof)


def test_pairwise_one_change_is_opendps_pairwise_sum():
    from exactdp.numeric.floatsum import float_sum_float
    for first, rest, n in ((1.0, 2.0**-53, 3), (2.0**52, 0.5, 1000), (0.1, 0.7, 4097), (5.0, 5.0, 1)):
        assert od.pairwise_one_change(first, rest, n) == float_sum_float([first] + [rest] * (n - 1), "opendp-pairwise")
    # 2**20 records in O(log n), the full-depth witness: the exact sum is 2**80 + 2**28 - 256, the
    # Pairwise sum loses a whole spacing (2**28), so the mean is 2**60, not ~2**60 + 256
    assert od.pairwise_one_change(2.0**60, 2.0**60 + 256, 2**20) == 2.0**80


@pytest.mark.parametrize("call, message", [
    (lambda: od.pairwise_one_change(1.0, 1.0, 0), "n=0: expected a positive integer"),
    (lambda: od.pairwise_one_change(1.0, 1.0, True), "n=True: expected a positive integer"),
    (lambda: od.variance_one_change(1.0, 1.0, 2, (0.0, 1.0), ddof=2), "ddof=2 with n=2: expected an integer"),
])
def test_one_change_models_refuse_bad_sizes(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()


# -- the severity steps on a reduced grid (OpenDP's own claims, the worst pair replayed) -------


@pytest.mark.skipif(not ON_016, reason="values pinned on OpenDP 0.16.0")
def test_ssd_severity_on_a_small_grid(small_grid):
    s = suite._scan_variance("ssd", 1, "Pairwise<f64>").enforced()
    assert (s.status, s.replay.value, s.evidence.value) == ("exceeds", "confirmed", "bit-exact")
    assert s.worst == 4095 and s.claim == F(6175548254588593, 8796093022208)   # claim ~702.08
    assert s.ratio == F(36020000925941760, 6175548254588593)                   # ~5.83
    w = s.witness
    assert (w["M"], w["bounds"], w["n"], w["fx"], w["fx_prime"]) == (
        "2**52", "(2**52, 2**52 + 1)", 4096, "0.0", "4095.0")
    assert (w["x"], w["x_prime"]) == ("[2**52 + 1] * 4096", "[2**52 + 0] + [2**52 + 1] * 4095")
    assert (w["settings"], w["settings_exceeding"]) == (12, 8)
    assert list(w["worst_ratio_by_size"]) == ["2**4", "2**10", "2**12"]
    assert w["worst_ratio_by_size"]["2**4"] < 1 < w["worst_ratio_by_size"]["2**10"] < w["worst_ratio_by_size"]["2**12"]
    # the excess grows with M**2: 16 times from 2**50 to 2**52
    assert w["worst_excess_by_M"]["2**52"] == pytest.approx(16 * w["worst_excess_by_M"]["2**50"])


@pytest.mark.skipif(not ON_016, reason="values pinned on OpenDP 0.16.0")
@pytest.mark.parametrize("ddof, worst, claim", [
    (1, F(70437480435713, 70368744177664), F(3827399976371837, 18014398509481984)),
    (0, F(4099, 4096), F(7652931105098961, 36028797018963968)),
])
def test_variance_severity_on_a_small_grid(small_grid, ddof, worst, claim):
    s = suite._scan_variance("variance", ddof, "Pairwise<f64>").enforced()
    assert (s.status, s.replay.value, s.worst, s.claim) == ("exceeds", "confirmed", worst, claim)
    assert float(s.ratio) == pytest.approx(4.711290981570173)   # the same ratio at ddof 0 and 1
    w = s.witness
    assert (w["bounds"], w["n"], w["x_prime"]) == ("(2**52, 2**52 + 4)", 4096, "[2**52 + 4] + [2**52 + 1] * 4095")
    assert "ratio to the claim does not depend on M" in s.note and "#2923" in s.note


@pytest.mark.skipif(not ON_016, reason="values pinned on OpenDP 0.16.0")
def test_a_model_that_disagrees_with_opendp_is_not_certified(small_grid, monkeypatch):
    # exactdp's model off by one spacing on the changed dataset: the replay disagrees
    real = od.variance_one_change
    monkeypatch.setattr(od, "variance_one_change",
                        lambda b, a, n, bounds, ddof=1: real(b, a, n, bounds, ddof) + (0.0 if a == b else 2.0**-40))
    s = suite._scan_variance("variance", 1, "Pairwise<f64>").enforced()
    assert (s.status, s.replay.value) == ("undecided", "model-mismatch")
    assert "did not reproduce in the library (model mismatch): not certified" in s.note


@pytest.mark.skipif(not ON_016, reason="values pinned on OpenDP 0.16.0")
def test_the_runner_runs_the_steps_at_full_depth_only(small_grid):
    audits = {a.id: a for a in runner.suite("opendp")}
    with_step = sorted(i for i, a in audits.items() if a.severity is not None)
    assert with_step == ["opendp/variance/sum-of-squared-deviations", "opendp/variance/variance",
                         "opendp/variance/variance-ddof0", "opendp/variance/variance-sequential"]
    a = audits["opendp/variance/variance-sequential"]
    assert runner.run_one(a, od.version()).severity is None
    full = runner.run_one(a, od.version(), depth="full")
    assert full.verdict == "violated" and full.severity.status == "exceeds"
    assert full.severity.worst == F(70437480435713, 70368744177664)   # S is ignored: Pairwise's value
    assert "make_variance(ddof=1, S='Sequential<f64>')" in full.severity.scope
    assert full.to_dict()["severity"]["replay"] == "confirmed"
