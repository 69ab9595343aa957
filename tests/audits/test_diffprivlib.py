"""The diffprivlib adapter and audit suite, against the installed diffprivlib (0.6.6)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from importlib import metadata

import pytest

pytest.importorskip("diffprivlib")

import diffprivlib
import diffprivlib.mechanisms as mechs
import numpy as np

from exactdp.adapters import diffprivlib as A
from exactdp.audits import runner
from exactdp.audits import suite_diffprivlib as S
from exactdp.errors import InvalidArgument, MissingDependency

ON_066 = diffprivlib.__version__ == "0.6.6"
needs_066 = pytest.mark.skipif(not ON_066, reason="verdicts and witnesses pinned on diffprivlib 0.6.6")

# --- the float models against NumPy and the library -------------------------------------


def _random_arrays(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.choice([1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 33, 100, 129])
        kind = rng.randrange(4)
        if kind == 0:
            xs = [rng.random() for _ in range(n)]
        elif kind == 1:
            xs = [rng.uniform(-1e6, 1e6) * 2.0 ** rng.randint(-60, 60) for _ in range(n)]
        elif kind == 2:
            xs = [rng.choice([0.0, 1.0, 0.1, 0.3, 1 - 2**-53, 2**-53, 1e16, -1e16]) for _ in range(n)]
        else:
            xs = [float(rng.randint(-10, 10)) / rng.choice([1, 3, 7, 10]) for _ in range(n)]
        yield xs


@pytest.mark.parametrize("model, numpy_fn", [(A.np_sum_model, np.sum), (A.np_mean_model, np.mean),
                                             (A.np_var_model, np.var)])
def test_float_models_match_numpy_bit_for_bit(model, numpy_fn):
    for xs in _random_arrays(seed=20261124, count=3000):
        want = float(numpy_fn(np.array(xs, dtype=np.float64)))
        got = model(xs)
        assert got == want or (np.isnan(got) and np.isnan(want)), (xs, got, want)


@pytest.mark.parametrize("tool, model", [("sum", A.np_sum_model), ("mean", A.np_mean_model),
                                         ("var", A.np_var_model), ("std", A.np_var_model)])
def test_float_models_match_the_library_statistic(tool, model):
    rng = random.Random(7)
    for _ in range(150):
        xs = [rng.choice([0.0, 1.0, 0.1, 0.7, rng.random()]) for _ in range(rng.randint(1, 12))]
        call = A.tool_release(tool, xs, bounds=(0.0, 1.0))
        assert A.exact(call.value) == Fraction(model(xs)), xs


def test_spy_reads_claims_and_restores_classes_even_after_an_error():
    before = {name: (getattr(mechs, name).__dict__.get("__init__"), getattr(mechs, name).__dict__.get("randomise"))
              for name in ("LaplaceTruncated", "GeometricTruncated", "Exponential")}
    call = A.tool_release("sum", [0, 5, -1], bounds=(0, 3), dtype=int)
    assert (call.mechanism, call.params["sensitivity"], int(call.value)) == ("GeometricTruncated", 3, 3)
    with pytest.raises(RuntimeError), A.spy():
        raise RuntimeError("boom")
    after = {name: (getattr(mechs, name).__dict__.get("__init__"), getattr(mechs, name).__dict__.get("randomise"))
             for name in before}
    assert after == before


def test_spy_refuses_an_unknown_mechanism():
    with pytest.raises(InvalidArgument, match="'Nope' is not a class of diffprivlib.mechanisms"), A.spy("Nope"):
        pass


def test_laplace_scale_is_the_librarys_own_float():
    # 0.6.6: scale = sensitivity / (epsilon - log(1 - delta)), float
    for eps, dlt, sens in [(3.0, 0.0, 1.0), (0.5, 1e-6, 2.0), (0.1, 0.0, 1.0)]:
        assert A.laplace_scale(eps, dlt, sens) == Fraction(sens / (eps - np.log(1 - dlt)))


# --- the sampler models against the library's samplers ---------------------------------


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 5.0, 0.01])
def test_binary_model_matches_library_draw_for_draw(eps):
    keep = A.binary_keep_count(eps)
    mech = mechs.Binary(epsilon=eps, value0="a", value1="b")
    rng = random.Random(int(eps * 1000))
    ks = [keep - 2, keep - 1, keep, keep + 1, 0, (1 << 53) - 1] + [rng.randrange(1 << 53) for _ in range(300)]
    for k in ks:
        mech._rng = A.FixedDraws([k])
        assert mech.randomise("a") == ("a" if k < keep else "b"), k


def test_binary_distribution_exact_values():
    P = A.binary_distribution(0.1, 0)
    assert P.p(0) == Fraction(4728592146214841, 2**53)
    assert P.p(1) == 1 - P.p(0)


def test_exponential_counts_match_library_draw_for_draw():
    rng = random.Random(3)
    for _ in range(40):
        m = rng.randint(1, 6)
        utility = [float(rng.randint(-80, 0)) for _ in range(m)]
        mech = mechs.Exponential(epsilon=rng.choice([0.5, 1.0, 4.0]), sensitivity=1.0, utility=utility)
        counts = A.exponential_counts(list(mech._probabilities))
        assert sum(counts.values()) == 1 << 53
        bounds, start = [], 0
        for i in sorted(k for k in counts if k != "error"):
            bounds.append((start, start + counts[i] - 1, i))
            start += counts[i]
        draws = [b for lo, hi, _ in bounds for b in (lo, hi)] + [rng.randrange(1 << 53) for _ in range(50)]
        for k in draws:
            want = next(i for lo, hi, i in bounds if lo <= k <= hi)
            mech._rng = A.FixedDraws([k])
            assert mech.randomise() == want, (utility, k)


def test_fixed_draws_refuses_a_draw_off_the_grid():
    with pytest.raises(InvalidArgument, match=r"draw k=-1 is not a whole number in \[0, 2\*\*53\)"):
        A.FixedDraws([-1])


# --- the suite on 0.6.6 -----------------------------------------------------------------


@pytest.fixture(scope="module")
def results():
    return {r.id: r for r in runner.run_audits("diffprivlib")}


EXPECTED = {
    "diffprivlib/tools/sum/float-rounding": "violated",
    "diffprivlib/tools/nansum/nan-as-zero": "violated",
    "diffprivlib/tools/sum/integer-clamped": "holds-on-grid",
    "diffprivlib/tools/count_nonzero": "holds-on-grid",
    "diffprivlib/tools/mean/float-rounding": "violated",
    "diffprivlib/tools/var/float-rounding": "violated",
    "diffprivlib/tools/nanmean/nan-count": "violated",
    "diffprivlib/tools/nanvar/nan-count": "violated",
    "diffprivlib/tools/histogram": "holds-on-grid",
    "diffprivlib/tools/quantile/utility-sensitivity": "violated",
    "diffprivlib/validation/clip_to_bounds": "holds-on-grid",
    "diffprivlib/mechanisms/laplace/scale": "violated",
    "diffprivlib/mechanisms/laplace/scale-formula": "violated",
    "diffprivlib/mechanisms/laplace-bounded-domain/scale": "violated",
    "diffprivlib/mechanisms/laplace-bounded-domain/effective-epsilon": "violated",
    "diffprivlib/mechanisms/gaussian/sigma": "holds-ideal-noise",
    "diffprivlib/mechanisms/gaussian/sigma-formula": "violated",
    "diffprivlib/mechanisms/gaussian-analytic/sigma": "violated",
    "diffprivlib/mechanisms/gaussian-discrete/scale": "violated",
    "diffprivlib/mechanisms/laplace/float-precision": "violated",
    "diffprivlib/mechanisms/binary/sampler": "violated",
    "diffprivlib/mechanisms/exponential/sampler": "violated",
    "diffprivlib/mechanisms/geometric/sampler-tail": "violated",
    "diffprivlib/accountant/budget-check": "violated",
    "diffprivlib/accountant/total-with-slack": "violated",
    "diffprivlib/models/linear-regression/diagonal-sensitivity": "violated",
    "diffprivlib/models/labels-from-data": "violated",
    # issue 25: every mechanism class at the edges, the remaining tools, clip_to_norm, the models'
    # budgets and the accountant's reported numbers
    "diffprivlib/mechanisms/Laplace/objects": "violated",
    "diffprivlib/mechanisms/LaplaceTruncated/objects": "violated",
    "diffprivlib/mechanisms/LaplaceFolded/objects": "violated",
    "diffprivlib/mechanisms/LaplaceBoundedDomain/objects": "violated",
    "diffprivlib/mechanisms/LaplaceBoundedNoise/objects": "violated",
    "diffprivlib/mechanisms/Gaussian/objects": "holds-ideal-noise",
    "diffprivlib/mechanisms/GaussianAnalytic/objects": "violated",
    "diffprivlib/mechanisms/GaussianDiscrete/objects": "violated",
    "diffprivlib/mechanisms/Geometric/objects": "violated",
    "diffprivlib/mechanisms/GeometricTruncated/objects": "violated",
    "diffprivlib/mechanisms/GeometricFolded/objects": "holds-ideal-noise",
    "diffprivlib/mechanisms/Binary/objects": "violated",
    "diffprivlib/mechanisms/Exponential/objects": "violated",
    "diffprivlib/mechanisms/PermuteAndFlip/objects": "violated",
    "diffprivlib/mechanisms/ExponentialCategorical/objects": "violated",
    "diffprivlib/mechanisms/ExponentialHierarchical/objects": "violated",
    "diffprivlib/mechanisms/Staircase/objects": "violated",
    "diffprivlib/mechanisms/Uniform/objects": "violated",
    "diffprivlib/mechanisms/Snapping/objects": "undecided",
    "diffprivlib/tools/median/utility-sensitivity": "holds-on-grid",
    "diffprivlib/tools/percentile/utility-sensitivity": "violated",
    "diffprivlib/tools/histogram2d": "holds-on-grid",
    "diffprivlib/tools/histogramdd": "holds-on-grid",
    "diffprivlib/validation/clip_to_norm": "violated",
    "diffprivlib/models/LinearRegression/spend": "violated",
    "diffprivlib/models/PCA/spend": "violated",
    "diffprivlib/models/StandardScaler/spend": "holds-on-grid",
    "diffprivlib/models/LogisticRegression/spend": "holds-on-grid",
    "diffprivlib/models/GaussianNB/spend": "holds-on-grid",
    "diffprivlib/models/KMeans/spend": "violated",
    "diffprivlib/models/DecisionTreeClassifier/spend": "holds-on-grid",
    "diffprivlib/models/RandomForestClassifier/spend": "holds-on-grid",
    "diffprivlib/accountant/reported-numbers": "violated",
}


@needs_066
def test_every_verdict_on_066(results):
    assert {i: r.verdict for i, r in results.items()} == EXPECTED
    for r in results.values():
        assert r.expected == r.verdict, r.id  # the suite's own expectations agree
        assert r.version == "0.6.6"
        if r.verdict == "violated":
            assert r.replay == "confirmed", r.id
        assert r.seconds < 10, r.id


def test_suite_module_constants_and_corpus():
    assert (S.DISTRIBUTION, S.EXTRA) == ("diffprivlib", "diffprivlib")
    corpus = {a.id: a for a in S.audits() if a.corpus}
    assert set(corpus) == {"diffprivlib/models/linear-regression/diagonal-sensitivity",
                           "diffprivlib/models/labels-from-data", "diffprivlib/mechanisms/laplace/float-precision"}
    assert corpus["diffprivlib/mechanisms/laplace/float-precision"].source.endswith("/issues/94")
    assert corpus["diffprivlib/models/linear-regression/diagonal-sensitivity"].source.endswith("/issues/105")
    assert corpus["diffprivlib/models/labels-from-data"].source.endswith("/issues/106")
    assert all(a.library == "diffprivlib" and a.id.startswith("diffprivlib/") for a in S.audits())


@needs_066
def test_witnesses_exact(results):
    w = results["diffprivlib/tools/var/float-rounding"].witness
    assert (w["x"], w["x_prime"]) == ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    assert Fraction(w["fx_prime"]) == Fraction(float(np.var([1.0, 0.0, 0.0]))) == Fraction(8006399337547549, 2**55)
    assert results["diffprivlib/tools/var/float-rounding"].claim.startswith("sensitivity")
    claim = Fraction(A.tool_release("var", [0.0] * 3, bounds=(0, 1)).params["sensitivity"])
    assert claim == Fraction(0.2222222222222222) < Fraction(2, 9) < Fraction(8006399337547549, 2**55)

    w = results["diffprivlib/tools/mean/float-rounding"].witness
    assert (w["x"], w["x_prime"]) == ([0.0, 0.1, 0.1], [1.0, 0.1, 0.1])
    d = Fraction(float(np.mean([1.0, 0.1, 0.1]))) - Fraction(float(np.mean([0.0, 0.1, 0.1])))
    assert d == Fraction(24019198012642651, 2**56) > Fraction(1 / 3)

    w = results["diffprivlib/tools/nanmean/nan-count"].witness
    assert (w["x"], w["x_prime"], w["fx"], w["fx_prime"]) == ([0.0, "nan", "nan"], [1.0, "nan", "nan"], "0", "1")
    claim = A.tool_release("nanmean", [0.0, np.nan, np.nan], bounds=(0, 1)).sensitivity
    assert claim == Fraction(1 / 3) < 1
    w = results["diffprivlib/tools/nanvar/nan-count"].witness
    assert (w["x"], w["x_prime"], w["fx_prime"]) == ([0.0, 0.0, "nan"], [0.0, 1.0, "nan"], "1/4")

    w = results["diffprivlib/tools/histogram"].witness
    assert (w["hist_x"], w["hist_x_prime"], w["substitute_l1"]) == ([0, 0, 0], [1, 0, 0], 2)

    w = results["diffprivlib/tools/sum/float-rounding"].witness
    fx, fxp = (Fraction(float(np.sum(np.array(v)))) for v in (w["x"], w["x_prime"]))
    assert fxp - fx == Fraction(2**53 + 5, 2**53) > 1

    w = results["diffprivlib/mechanisms/laplace/scale"].witness
    assert (w["epsilon"], w["delta"], w["sensitivity"]) == (3.0, 0.0, 1.0)
    assert Fraction(w["scale"]) == Fraction(6004799503160661, 2**54) < Fraction(1, 3)

    for which in ("scale", "effective-epsilon"):
        r = results[f"diffprivlib/mechanisms/laplace-bounded-domain/{which}"]
        assert (r.witness["epsilon"], r.witness["upper"], r.witness["effective_epsilon"]) == (1.0, 0.25, 0.9049535396181084)
        assert Fraction(r.witness["scale"]) == Fraction(8847304294678221, 2**55)
        assert r.truth == ">= [1.0000000000000000475, 1.0000000000000000476]"
    assert results["diffprivlib/mechanisms/laplace-bounded-domain/scale"].claimed == "1"

    w = results["diffprivlib/mechanisms/gaussian-analytic/sigma"].witness
    assert (w["epsilon"], w["delta"], w["sigma"]) == (1.0, 1e-05, 3.7306316348148236)
    assert w["delta_of_sigma"][0] > 1e-05

    w = results["diffprivlib/mechanisms/exponential/sampler"].witness
    assert (w["utility"], w["utility_prime"], w["output"]) == ([0.0, -73.0], [0.0, -74.0], 1)
    assert (w["draws_x"], w["draws_x_prime"], w["cumulative_x_prime"]) == (1, 0, [1.0, 1.0])
    r = results["diffprivlib/mechanisms/exponential/sampler"]
    assert (r.claimed, r.truth) == ("1.0", "inf")

    w = results["diffprivlib/mechanisms/geometric/sampler-tail"].witness
    assert (w["support_x"], w["support_x_prime"], w["output"]) == ([-36, 36], [-35, 37], 37)
    mech = mechs.Geometric(epsilon=1.0)
    mech._rng = A.FixedDraws([2**52 + 1])
    assert mech.randomise(1) == 37

    w = results["diffprivlib/accountant/budget-check"].witness
    assert (w["accepted"], Fraction(w["exact_total"])) == (10, 10 * Fraction(0.1))
    assert Fraction(w["exact_total"]) > 1

    w = results["diffprivlib/accountant/total-with-slack"].witness
    assert (w["spends"], w["slack"], w["library_total"]) == ("100 x (0.5, 0)", 0.001, 30.83054406443464)
    assert w["exact_total"].startswith("[30.83054406443464867")

    w = results["diffprivlib/tools/quantile/utility-sensitivity"].witness
    assert abs(Fraction(w["utility_x"]) - Fraction(w["utility_x_prime"])) == 1 + Fraction(1, 2**52)

    w = results["diffprivlib/models/linear-regression/diagonal-sensitivity"]
    assert (w.claimed, w.truth, w.witness["x"], w.witness["x_prime"]) == ("0", "10000", [0.0, 0.0], [100.0, 0.0])

    w = results["diffprivlib/models/labels-from-data"].witness
    assert w["classes_LogisticRegression"] == w["classes_GaussianNB"] == [[0, 1], [0, 1, 2]]

    w = results["diffprivlib/mechanisms/binary/sampler"].witness
    assert (w["epsilon"], w["keep_draws"]) == (0.1, 4728592146214841)


# --- a parameter below the library's own formula ---------------------------------------


@needs_066
def test_gaussian_sigma_one_ulp_below_its_formula_while_the_privacy_claim_holds(results):
    """Issue 16: Gaussian(epsilon=1, delta=1e-5, sensitivity=1) stores sigma one float below
    sqrt(2 log(1.25/delta)) sensitivity/epsilon; (epsilon, delta) still holds (the classic
    formula has slack), and that was all the audit said. Now the formula is its own finding."""
    import math

    import mpmath
    import sympy

    from exactdp.numeric.rounding import float_at_least

    assert results["diffprivlib/mechanisms/gaussian/sigma"].verdict == "holds-ideal-noise"
    r = results["diffprivlib/mechanisms/gaussian/sigma-formula"]
    assert (r.verdict, r.replay, r.evidence) == ("violated", "confirmed", "bit-exact")
    w = r.witness
    assert (w["epsilon"], w["delta"], w["sensitivity"], w["sigma"]) == (1.0, 1e-05, 1.0, 4.844805262605389)
    sigma = Fraction(w["sigma_exact"])
    assert sigma == Fraction(2727382896919031, 2**49) == Fraction(mechs.Gaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)._scale)
    assert (w["ulps_below"], w["settings_below"]) == (1, "3 of 4")
    assert w["formula_value"] == "[4.8448052626053894043, 4.8448052626053894044]"
    assert r.claimed == "2727382896919031/562949953421312 (~4.844805262605389)"
    # an independent 50-digit evaluation of the formula at the exact binary delta
    with mpmath.workdps(50):
        d = Fraction(1e-5)
        formula = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / (mpmath.mpf(d.numerator) / d.denominator)))
        assert mpmath.mpf(sigma.numerator) / sigma.denominator < formula
        assert mpmath.nstr(formula, 20) == "4.8448052626053894044"
    exact = sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / sympy.Rational(d.numerator, d.denominator)))
    assert float_at_least(exact) == math.nextafter(4.844805262605389, math.inf)


@needs_066
def test_laplace_scale_below_its_formula(results):
    r = results["diffprivlib/mechanisms/laplace/scale-formula"]
    assert (r.verdict, r.replay, r.evidence) == ("violated", "confirmed", "bit-exact")
    w = r.witness
    assert (w["epsilon"], w["delta"], w["sensitivity"], w["ulps_below"], w["settings_below"]) == (3.0, 0.0, 1.0, 1, "3 of 6")
    assert Fraction(w["scale_exact"]) == Fraction(6004799503160661, 2**54) == Fraction(1 / 3) < Fraction(1, 3)
    assert r.truth.startswith("[0.33333333333333333333, 0.33333333333333333334] = the formula at "
                              "(epsilon, delta, sensitivity) = (3.0, 0.0, 1.0)")


def test_formula_at_or_above_is_a_hold_on_the_grid_of_settings(monkeypatch):
    """A library float rounded up to the formula holds on the settings checked: holds-on-grid,
    never plain holds (the settings are a grid)."""
    from exactdp.checkers.results import Evidence, Verdict
    from exactdp.numeric.rounding import float_at_least

    name, text, formula_of, _, table, how = S._FORMULAS["gaussian"]
    rounded_up = lambda e, d, s: Fraction(float_at_least(formula_of(e, d, s)))  # noqa: E731
    monkeypatch.setitem(S._FORMULAS, "gaussian", (name, text, formula_of, rounded_up, table, how))
    f = S._check_formula("gaussian")()
    assert (f.verdict, f.evidence, f.claim) == (Verdict.HOLDS, Evidence.BIT_EXACT_GRID, "each setting's sigma")
    assert f.enforced().verdict is Verdict.HOLDS_ON_GRID
    assert f.scope.startswith("4 (epsilon, delta, sensitivity) settings [[1.0, 1e-05, 1.0], ")


# --- the CLI and bad inputs -------------------------------------------------------------


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "exactdp", "audit", "diffprivlib", *args],
                          capture_output=True, text=True, timeout=120, check=False)


@needs_066
def test_cli_json():
    p = _cli("--json")
    assert p.returncode == 1, p.stderr
    out = json.loads(p.stdout)
    assert {r["id"]: r["verdict"] for r in out} == EXPECTED
    assert all(r["replay"] == "confirmed" for r in out if r["verdict"] == "violated")
    assert all(r["version"] == "0.6.6" for r in out)
    # issue 16's done-when: no holds / holds-tight without bit-exact evidence
    assert not [r["id"] for r in out if r["verdict"] in ("holds", "holds-tight") and r["evidence"] != "bit-exact"]
    assert {r["id"]: r["evidence"] for r in out if r["evidence"] != "bit-exact"} == {
        "diffprivlib/tools/sum/integer-clamped": "bit-exact-grid",
        "diffprivlib/tools/count_nonzero": "bit-exact-grid",
        "diffprivlib/tools/histogram": "bit-exact-grid",
        "diffprivlib/validation/clip_to_bounds": "bit-exact-grid",
        "diffprivlib/mechanisms/laplace/scale": "ideal-noise",
        "diffprivlib/mechanisms/laplace-bounded-domain/scale": "ideal-noise",
        "diffprivlib/mechanisms/laplace-bounded-domain/effective-epsilon": "ideal-noise",
        "diffprivlib/mechanisms/gaussian/sigma": "ideal-noise",
        "diffprivlib/mechanisms/gaussian-analytic/sigma": "ideal-noise",
        "diffprivlib/mechanisms/gaussian-discrete/scale": "ideal-noise",
        # issue 25's audits
        "diffprivlib/mechanisms/Laplace/objects": "ideal-noise",
        "diffprivlib/mechanisms/LaplaceTruncated/objects": "ideal-noise",
        "diffprivlib/mechanisms/LaplaceFolded/objects": "ideal-noise",
        "diffprivlib/mechanisms/LaplaceBoundedDomain/objects": "ideal-noise",
        "diffprivlib/mechanisms/LaplaceBoundedNoise/objects": "ideal-noise",
        "diffprivlib/mechanisms/Gaussian/objects": "ideal-noise",
        "diffprivlib/mechanisms/GaussianAnalytic/objects": "ideal-noise",
        "diffprivlib/mechanisms/GaussianDiscrete/objects": "ideal-noise",
        "diffprivlib/mechanisms/GeometricFolded/objects": "ideal-noise",
        "diffprivlib/mechanisms/PermuteAndFlip/objects": "ideal-noise",
        "diffprivlib/mechanisms/Staircase/objects": "ideal-noise",
        "diffprivlib/mechanisms/Uniform/objects": "ideal-noise",
        "diffprivlib/mechanisms/Snapping/objects": None,
        "diffprivlib/tools/median/utility-sensitivity": "bit-exact-grid",
        "diffprivlib/tools/histogram2d": "bit-exact-grid",
        "diffprivlib/tools/histogramdd": "bit-exact-grid",
        "diffprivlib/models/StandardScaler/spend": "bit-exact-grid",
        "diffprivlib/models/LogisticRegression/spend": "bit-exact-grid",
        "diffprivlib/models/GaussianNB/spend": "bit-exact-grid",
        "diffprivlib/models/DecisionTreeClassifier/spend": "bit-exact-grid",
        "diffprivlib/models/RandomForestClassifier/spend": "bit-exact-grid",
    }
    assert {r["id"]: r["tight"] for r in out if r["tight"]} == {
        "diffprivlib/tools/sum/integer-clamped": True, "diffprivlib/tools/count_nonzero": True,
        "diffprivlib/tools/histogram": True,
        # issue 25: the claim equals the truth on their grids too
        "diffprivlib/tools/histogram2d": True, "diffprivlib/tools/histogramdd": True,
        "diffprivlib/tools/median/utility-sensitivity": True}
    var = next(r for r in out if r["id"] == "diffprivlib/tools/var/float-rounding")
    assert (var["claimed"], var["truth"]) == ("2001599834386887/9007199254740992", ">= 8006399337547549/36028797018963968")


def test_cli_unknown_only_id():
    p = _cli("--only", "diffprivlib/nope")
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        ("exactdp: error: audit id 'diffprivlib/nope' is not in the diffprivlib suite: "
         f"'exactdp audit diffprivlib --list' shows the {len(S.audits())} ids")]


def test_a_library_call_that_raises_is_an_error_result(monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("simulated failure")

    monkeypatch.setattr(diffprivlib.tools, "sum", broken)
    audit = next(a for a in S.audits() if a.id == "diffprivlib/tools/sum/integer-clamped")
    r = runner.run_one(audit, diffprivlib.__version__)
    assert r.verdict == "error"
    assert r.note == "diffprivlib.tools.sum raised ZeroDivisionError: simulated failure"


def test_missing_library_names_the_extra(monkeypatch):
    def not_found(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_found)
    with pytest.raises(MissingDependency) as e:
        runner.installed_version("diffprivlib")
    assert "pip install 'exactdp[diffprivlib]'" in str(e.value)

    monkeypatch.setitem(sys.modules, "diffprivlib", None)  # `import diffprivlib` now fails
    with pytest.raises(MissingDependency, match=r"diffprivlib is not installed .*pip install 'exactdp\[diffprivlib\]'"):
        A.require()


def test_missing_library_cli_exits_2_naming_the_extra(monkeypatch, capsys):
    from exactdp import cli

    def not_found(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_found)
    assert cli.main(["audit", "diffprivlib"]) == 2
    assert capsys.readouterr().err == ("exactdp: error: diffprivlib is not installed: install it with "
                                       "pip install 'exactdp[diffprivlib]'\n")


def test_adapter_and_suite_import_without_the_library():
    code = ("import sys; sys.modules['diffprivlib'] = None\n"
            "import exactdp.adapters.diffprivlib as A, exactdp.audits.suite_diffprivlib as S\n"
            "assert len(S.audits()) == 60\n"  # 27 before issue 25 added the generated audits

            "try:\n    S.audits()[0].check()\nexcept ImportError as e:\n    print(type(e).__name__, e)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("MissingDependency diffprivlib is not installed (")
    assert p.stdout.rstrip().endswith("install it with pip install 'exactdp[diffprivlib]'")
