"""The seeds' last statements (issue 28): exactdp.registry.seed_last."""

from __future__ import annotations

from fractions import Fraction

from exactdp import registry
from exactdp.checkers.results import Verdict
from exactdp.mechanisms.models.samplers import float_exponential_sampler_distribution


def _run(id):
    c = registry.claim(id)
    r = c.check()
    assert c.meets_expectation(r)
    return r


def test_float_sampler_gives_infinite_epsilon_at_the_first_vanishing_step():
    r = _run("s002/exponential/float-sampler")
    assert r.verdict is Verdict.VIOLATED
    w = r.witness
    # the witness pair: candidate 1 reachable from one score vector and not from the other
    assert w.output == 1 and w.fx[0] == w.fx_prime[0] == 0 and w.fx_prime[1] == w.fx[1] - 1
    assert r.to_dict()["epsilon"] in ("inf", "oo", "infinity") or "inf" in str(r.to_dict()["epsilon"])
    s = int(-w.fx[1])
    p = float_exponential_sampler_distribution((0, -s), 1.0, 1.0).p(1)
    q = float_exponential_sampler_distribution((0, -s - 1), 1.0, 1.0).p(1)
    assert p == Fraction(1, 2**53) and q == 0
    # and it is the first such gap
    assert all(float_exponential_sampler_distribution((0, -t), 1.0, 1.0).p(1) > 0
               for t in range(60, s + 1))


def test_duplicate_exercise_raises_name_error():
    r = _run("s002/exercise/duplicate/code-runs")
    assert r.verdict is Verdict.VIOLATED
    assert r.to_dict()["error"] == "NameError" and "instanceof" in r.to_dict()["message"]


def test_adult_printed_arithmetic():
    r = _run("s000/adult/education-counts-add-up")
    assert r.verdict is Verdict.HOLDS and r.to_dict()["sum"] == 32563
    m = _run("s000/adult/mean-is-sum-over-count")
    d = m.to_dict()
    assert m.verdict is Verdict.HOLDS and d["exact"] == "441431/10517"
    assert d["float"] == d["printed"] == "41.973091185699346"


def test_larger_k_does_not_always_increase_the_sensitivity():
    from exactdp.registry.seed003 import seed003_claims

    r = _run("s003/conclusions/larger-k-increases")
    d = r.to_dict()
    assert r.verdict is Verdict.VIOLATED and d["series"] == 120 and d["undecided"] == []
    # no series falls; the flat steps include the bounded count, 0 at every k
    assert d["falls"] == [] and d["flat"] > 0
    bounded_counts = {c.id: c.check().sensitivity.value for c in seed003_claims(None)
                      if c.id.startswith("s003/a/school_year/bounded/") and c.id.endswith("/count")}
    assert set(bounded_counts.values()) == {0} and len(bounded_counts) == 4


def test_noise_overwhelms_the_signal_only_at_the_largest_log_bound():
    from math import isqrt

    r = _run("s000/clip-sweep/noise-overwhelms-signal")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS and d["bounds_over"] == [2**14]
    # sqrt(2) * 16384 * 100 = 2317047.6...: floor, and 2^13 stays below the signal
    assert d["sd_floor_at_top"] == isqrt(2 * 1638400**2) == 2317047
    assert 2 * 819200**2 < 1360238**2 < 2 * 1638400**2


def test_universe_sweep_counts_the_notebooks_datasets():
    from math import comb

    r = _run("s003/limitations/universe-size-sweep")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS and d["sizes"] == [10, 20, 40, 80, 160]
    # N = 10, n = 5, k = 1: 252 releases, each with 5 smaller and 5 larger neighbours
    assert int(d["datasets"][0]) == 252 * 11 == comb(10, 5) * (1 + 5 + 5)
    f = [Fraction(x) for x in d["factors"]]
    assert f[0] == Fraction(comb(20, 10) * 21, comb(10, 5) * 11) and all(a < b for a, b in zip(f, f[1:]))


def test_a_high_percentile_as_sensitivity_is_not_epsilon_dp():
    from exactdp.mechanisms.calibration.typical import exceedance_probability
    from exactdp.numeric.decide import compare
    from exactdp.registry.seed004 import height_mixture

    r = _run("s004/laplace/high-percentile")
    d = r.to_dict()
    lo, hi = (Fraction(q) for q in d["quantile"])
    assert r.verdict is Verdict.VIOLATED and hi - lo <= Fraction(1, 100)
    # the bracket straddles the 99th percentile: above lo more than 1% exceed, at hi at most 1%
    mix = height_mixture()
    assert compare(exceedance_probability(lo, mix), Fraction(1, 100)) > 0
    assert compare(exceedance_probability(hi, mix), Fraction(1, 100)) <= 0
    assert Fraction(d["true_epsilon"]) == 300 / hi > 8
    assert d["witness"] == {"x": "0", "x_prime": "300", "output": "300"}
