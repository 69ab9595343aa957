"""The seeds' last statements (issue 28): exactdp.registry.seed_last."""

from __future__ import annotations

from fractions import Fraction

from exactdp.checkers.results import Verdict
from exactdp.mechanisms.models.samplers import float_exponential_sampler_distribution




def test_float_sampler_gives_infinite_epsilon_at_the_first_vanishing_step(checked_claim):
    r = checked_claim("s002/exponential/float-sampler")
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


def test_duplicate_exercise_raises_name_error(checked_claim):
    r = checked_claim("s002/exercise/duplicate/code-runs")
    assert r.verdict is Verdict.VIOLATED
    assert r.to_dict()["error"] == "NameError" and "instanceof" in r.to_dict()["message"]


def test_adult_printed_arithmetic(checked_claim):
    r = checked_claim("s000/adult/education-counts-add-up")
    assert r.verdict is Verdict.HOLDS and r.to_dict()["sum"] == 32563
    m = checked_claim("s000/adult/mean-is-sum-over-count")
    d = m.to_dict()
    assert m.verdict is Verdict.HOLDS and d["exact"] == "441431/10517"
    assert d["float"] == d["printed"] == "41.973091185699346"


def test_larger_k_does_not_always_increase_the_sensitivity(checked_claim):
    from exactdp.registry.seed003 import seed003_claims

    r = checked_claim("s003/conclusions/larger-k-increases")
    d = r.to_dict()
    assert r.verdict is Verdict.VIOLATED and d["series"] == 120 and d["undecided"] == []
    # no series falls; the flat steps include the bounded count, 0 at every k
    assert d["falls"] == [] and d["flat"] > 0
    bounded_counts = {c.id: c.check().sensitivity.value for c in seed003_claims(None)
                      if c.id.startswith("s003/a/school_year/bounded/") and c.id.endswith("/count")}
    assert set(bounded_counts.values()) == {0} and len(bounded_counts) == 4


def test_noise_overwhelms_the_signal_only_at_the_largest_log_bound(checked_claim):
    from math import isqrt

    r = checked_claim("s000/clip-sweep/noise-overwhelms-signal")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS and d["bounds_over"] == [2**14]
    # sqrt(2) * 16384 * 100 = 2317047.6...: floor, and 2^13 stays below the signal
    assert d["sd_floor_at_top"] == isqrt(2 * 1638400**2) == 2317047
    assert 2 * 819200**2 < 1360238**2 < 2 * 1638400**2


def test_universe_sweep_counts_the_notebooks_datasets(checked_claim):
    from math import comb

    r = checked_claim("s003/limitations/universe-size-sweep")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS and d["sizes"] == [10, 20, 40, 80, 160]
    # N = 10, n = 5, k = 1: 252 releases, each with 5 smaller and 5 larger neighbours
    assert int(d["datasets"][0]) == 252 * 11 == comb(10, 5) * (1 + 5 + 5)
    f = [Fraction(x) for x in d["factors"]]
    assert f[0] == Fraction(comb(20, 10) * 21, comb(10, 5) * 11) and all(a < b for a, b in zip(f, f[1:]))


def test_a_high_percentile_as_sensitivity_is_not_epsilon_dp(checked_claim):
    from exactdp.mechanisms.calibration.typical import exceedance_probability
    from exactdp.numeric.decide import compare
    from exactdp.registry.seed004 import height_mixture

    r = checked_claim("s004/laplace/high-percentile")
    d = r.to_dict()
    lo, hi = (Fraction(q) for q in d["quantile"])
    assert r.verdict is Verdict.VIOLATED and hi - lo <= Fraction(1, 100)
    # the bracket straddles the 99th percentile: above lo more than 1% exceed, at hi at most 1%
    mix = height_mixture()
    assert compare(exceedance_probability(lo, mix), Fraction(1, 100)) > 0
    assert compare(exceedance_probability(hi, mix), Fraction(1, 100)) <= 0
    assert Fraction(d["true_epsilon"]) == 300 / hi > 8
    assert d["witness"] == {"x": "0", "x_prime": "300", "output": "300"}


def test_curve_shapes_of_the_printed_series(checked_claim):
    from exactdp.registry.seed003 import seed003_claims
    from exactdp.registry.seed_last import curve_shape

    r = checked_claim("s003/conclusions/curve-shapes")
    d = r.to_dict()
    assert r.verdict is Verdict.VIOLATED and d["series"] == 80 and d["no_shape"] == 40
    assert d["counts"] == {"constant": 4, "linear": 12, "plateau": 40, "concave": 9, "falls": 0,
                           "other": 15}
    # the first series outside, re-read from its claims: steps 4/3... rise, shrink, then grow again
    name = d["outside"][0]
    values = [c.check().sensitivity.value for c in seed003_claims(None)
              if c.id.rsplit("/", 2)[0] + "/" + c.id.rsplit("/", 1)[1] == name]
    steps = [b - a for a, b in zip(values, values[1:])]
    assert all(s > 0 for s in steps) and steps[1] < steps[0] and steps[2] > steps[1]
    assert curve_shape(values) == "other"


def test_curve_shape_reads_each_shape():
    from exactdp.registry.seed_last import curve_shape

    assert curve_shape([0, 0, 0]) == "constant"
    assert curve_shape([2, 4, 6, 8]) == "linear" and curve_shape([1, 3, 5]) == "linear"
    assert curve_shape([1, 3, 4, 4]) == "plateau" and curve_shape([1, 1, 2]) == "other"
    assert curve_shape([1, 3, 4, 5]) == "concave" and curve_shape([1, 2, 4]) == "other"
    assert curve_shape([3, 2, 4]) == "falls"


def test_the_density_figure_claim_against_mpmath(checked_claim):
    import mpmath

    r = checked_claim("s004/mixture/density-figure")
    d = r.to_dict()
    assert r.verdict is Verdict.HOLDS
    with mpmath.workdps(50):
        def cdf(x, mu, s):
            return (1 + mpmath.erf((x - mu) / (s * mpmath.sqrt(2)))) / 2

        def slope(h):
            return sum(-(h - mu) / s**2 * mpmath.npdf(h, mu, s) / 2
                       for mu, s in ((178, 7), (162, mpmath.mpf(13) / 2)))

        inside = sum((cdf(220, mu, s) - cdf(0, mu, s)) / 2 for mu, s in ((178, 7), (162, mpmath.mpf(13) / 2)))
        lo, hi = (mpmath.mpf(v) for v in d["missing_mass"])
        assert lo <= 1 - inside <= hi < mpmath.mpf("1e-9")
        signs = [(h, mpmath.sign(slope(h))) for h in range(150, 191)]
    peaks = [[h, h + 1] for (h, a), (_, b) in zip(signs, signs[1:]) if a > 0 > b]
    dips = [[h, h + 1] for (h, a), (_, b) in zip(signs, signs[1:]) if a < 0 < b]
    assert d["peaks"] == peaks == [[163, 164], [176, 177]] and d["dips"] == dips == [[171, 172]]


def test_plot_mixture_density_returns_the_exact_values():
    import pytest

    pytest.importorskip("matplotlib")
    from exactdp.plotting import plot_mixture_density
    from exactdp.registry.seed004 import height_mixture

    mix = height_mixture()
    data = plot_mixture_density(mix, xs=range(160, 181, 5), labels=["male", "female"])
    assert data.figure is not None and data.labels() == ["male", "female", "general"]
    general = data["general"]
    assert general.x == tuple(Fraction(x) for x in range(160, 181, 5))
    assert general.y[2] == mix.density(170)
    import mpmath  # an independent reading of the same density at 170 cm

    with mpmath.workdps(40):
        direct = (mpmath.npdf(170, 178, 7) + mpmath.npdf(170, 162, mpmath.mpf(13) / 2)) / 2
        lo, hi = (mpmath.mpf(b.numerator) / b.denominator for b in (general.lower[2], general.upper[2]))
        assert lo <= direct <= hi and hi - lo < mpmath.mpf(10) ** -16
    assert all(lo <= float(y) <= hi for y, lo, hi in zip(general.y, general.lower, general.upper))
