"""Issue 20: the sampler the seed ran (shfl) beside diffpriv's, the distribution of what it
printed, the corrections as built-in claims, and the claims filed under the right seed."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp import registry
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.calibration.typical import (
    SAMPLER_LIBRARIES,
    GaussianMixture,
    exceedance_probability,
    sampler_mean,
    sampler_output,
    sensitivity_sampler_plan,
)
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
from exactdp.registry.seed004 import height_mixture

HEIGHTS = height_mixture()


def _privacy(id_):
    return next(c for c in registry.claims("privacy") if c.id == id_)


def _claim(id_):
    claim = _privacy(id_)
    result = claim.check()
    assert claim.meets_expectation(result), (id_, result.verdict)
    return result


# --- 1. the sampler configurations by library ----------------------------------------------


def test_shfl_and_diffpriv_configurations_at_the_seeds_gamma():
    shfl = sensitivity_sampler_plan("0.05", library="shfl")
    diffpriv = sensitivity_sampler_plan("0.05", library="diffpriv")
    assert (shfl.m, shfl.k, shfl.library) == (1325, 1325, "shfl")
    assert (diffpriv.m, diffpriv.k, diffpriv.library) == (1305, 1305, "diffpriv")
    # rho: the real part of W_1 (shfl) and W_{-1} (diffpriv), certified enclosures
    lo, hi = shfl.rho_enclosure
    assert Fraction("0.00260247032005") < lo <= hi < Fraction("0.00260247032006")
    lo, hi = diffpriv.rho_enclosure
    assert Fraction("0.00418286993269") < lo <= hi < Fraction("0.00418286993270")
    assert str(shfl.rho) == "exp(re(LambertW(-exp(-1/2)/40, 1)) + 1/2)"
    assert str(diffpriv.rho) == "exp(LambertW(-exp(-1/2)/40, -1) + 1/2)"
    # the reached gamma, both below the target: 0.04999204... and 0.04999088...
    assert Fraction("0.0499920") < shfl.gamma_upper < Fraction("0.0499921")
    assert Fraction("0.0499908") < diffpriv.gamma_upper < Fraction("0.0499909")
    assert sensitivity_sampler_plan("0.05").library == "diffpriv"  # the default
    assert "shfl's configuration, m = 1325" in shfl.statement()
    assert shfl.to_dict()["library"] == "shfl" and not shfl.vacuous


def test_the_exact_gamma_agrees_with_its_certified_upper_bound():
    shfl = sensitivity_sampler_plan("0.05", library="shfl")
    value = shfl.gamma.evalf(40)
    assert shfl.gamma_upper - Fraction(str(value)) < Fraction(1, 10**25)
    assert Fraction(str(value)) <= shfl.gamma_upper


@pytest.mark.parametrize("library", ["numpy", "SHFL", "", None, 1])
def test_an_unknown_library_is_refused_naming_the_known_ones(library):
    with pytest.raises(InvalidArgument) as info:
        sensitivity_sampler_plan("0.05", library=library)
    text = str(info.value)
    assert "\n" not in text and f"library={library!r}" in text
    assert "'diffpriv', 'shfl'" in text and sorted(SAMPLER_LIBRARIES) == ["diffpriv", "shfl"]


def test_the_seed_claim_models_shfl_and_diffpriv_has_its_own():
    seed = _claim("s004/sensitivity-sampler")
    assert seed.verdict is Verdict.VIOLATED and (seed.data["m"], seed.data["library"]) == (1325, "shfl")
    other = _claim("s004/sampler/diffpriv")
    assert other.verdict is Verdict.VIOLATED and (other.data["m"], other.data["k"]) == (1305, 1305)
    assert "gamma <= 0.0499909" in other.text


# --- 4. the distribution of the sampler's output -------------------------------------------


def test_the_largest_sample_is_f_to_the_m():
    out = sampler_output(1325, mixture=HEIGHTS)
    lo, hi = out.cdf("47.38")
    f = 1 - exceedance_probability("47.38", HEIGHTS)
    exact = (f ** 1325).evalf(30)
    assert abs(Fraction(str(exact)) - lo) < Fraction(1, 10**25) and hi - lo < Fraction(1, 10**30)
    assert str(decimal_at_most(lo, 4)) == "0.7128"
    assert str(decimal_at_most(sampler_output(1305, mixture=HEIGHTS).cdf("47.38")[0], 4)) == "0.7164"


def test_an_order_statistic_is_a_binomial_tail():
    mix = GaussianMixture.of([(1, 0, 1)])  # |h - h'| with h - h' ~ N(0, 2): F(t) = erf(t/2)
    out = sampler_output(3, 2, mixture=mix)
    lo, hi = out.cdf(1)
    f = sympy.erf(sympy.Rational(1, 2))
    exact = (3 * f**2 * (1 - f) + f**3).evalf(30)
    assert abs(Fraction(str(exact)) - lo) < Fraction(1, 10**25) and hi - lo < Fraction(1, 10**25)
    assert out.cdf(-1) == (0, 0)


def test_the_printed_values_are_judged_plausible():
    judged = sampler_output(1325, mixture=HEIGHTS).judge("47.38")
    assert judged.verdict == "plausible"
    a, b = judged.rounds_to  # P(X in [47.375, 47.385))
    assert Fraction("0.000897") < a <= b < Fraction("0.000898")
    mean = sampler_mean(1325, mixture=HEIGHTS)
    lo, hi = mean.cdf("11.89")
    assert Fraction("0.2199") < lo < Fraction("0.2201") and Fraction("0.4430") < hi < Fraction("0.4432")
    assert mean.judge("11.89").verdict == "plausible"
    # 4 standard deviations above the mean: Berry-Esseen's slack (about 0.11) keeps the
    # enclosure inside [0.025, 0.975] on the upper side: undecided, never a guessed verdict
    assert mean.judge("13").verdict == "undecided"
    assert mean.judge("10").verdict == "undecided"  # the same slack on the lower side
    m = mean.moments()
    assert m["mean"][0] < Fraction("11.9939205884") and m["mean"][1] > Fraction("11.9939205883")
    assert Fraction("75.3958") < m["variance"][0]
    assert sampler_output(1325, mixture=HEIGHTS).judge("60").verdict == "implausible"


def test_the_printed_value_claims():
    out = _claim("s004/sampler/output/47.38")
    assert out.verdict is Verdict.HOLDS and out.data["judgement"] == "plausible"
    assert "P(X <= 47.38) in [0.7128, 0.7129]" in out.text
    assert "with diffpriv's m = 1305: P(X <= 47.38) in [0.7164, 0.7165]" in out.text
    mean = _claim("s004/sampler/mean/11.89")
    assert mean.verdict is Verdict.HOLDS and "P(X <= 11.89) in [0.2200, 0.4431]" in mean.text
    assert mean.to_dict()["verdict"] == "holds"


@pytest.mark.parametrize("call, words", [
    (lambda: sampler_output(0, mixture=HEIGHTS), "below 1"),
    (lambda: sampler_output(10, 11, mixture=HEIGHTS), "above m=10"),
    (lambda: sampler_output(10**7, mixture=HEIGHTS), "samples in the output distribution"),
    (lambda: sampler_output(10, mixture=HEIGHTS).judge("5", level=1), "strictly between"),
    (lambda: sampler_mean(5, mixture=HEIGHTS).cdf(0.5), "float"),
    (lambda: sampler_mean(5, mixture=[(1, 0, 1)]), "not a GaussianMixture"),
])
def test_bad_arguments_of_the_output_distribution(call, words):
    with pytest.raises(Exception) as info:
        call()
    assert words in str(info.value)


# --- 2. the corrections ----------------------------------------------------------------------


def test_seed001_gaussian_sensitivity_is_the_smaller():
    r = _claim("s001/noise-choice/large-groups-sensitivity")
    assert r.verdict is Verdict.VIOLATED
    assert (r.data["gaussian_sensitivity"], r.data["laplace_sensitivity"]) == ("2*sqrt(3)", "6")
    assert r.data["gaussian_variance_smaller_from_groups"] == 7
    assert "(0, 0, 0, 0) -> (2, 2, 2, 0)" in r.text


def test_seed002_score_code_and_temperature():
    r = _claim("s002/quantile-score/code-is-formula")
    assert r.verdict is Verdict.VIOLATED
    assert (r.data["formula"], r.data["code"]) == (["-3/2", "0", "-3/2"], ["-3/2", "-3/2", "-3/2"])
    t = _claim("s002/exponential/temperature")
    assert t.verdict is Verdict.VIOLATED and t.data["candidate"] == 3
    low, high = sympy.sympify(t.data["p_tau_1/2"]), sympy.sympify(t.data["p_tau_4"])
    assert sympy.simplify(high - 1 / (1 + sympy.exp(2) + sympy.exp(4))) == 0
    assert str(decimal_at_most(low, 3)) == "0.254" and str(decimal_at_most(high, 3)) == "0.0158"


def test_seed002_utility_guarantee_exactly():
    r = _claim("s002/exponential/utility-guarantee")
    assert r.verdict is Verdict.HOLDS
    p3 = sympy.sympify(r.data["probabilities"]["3"])
    expected = 8 * sympy.exp(-sympy.Rational(11, 2)) / (
        1 + 2 * sympy.exp(-sympy.Rational(9, 2)) + 8 * sympy.exp(-sympy.Rational(11, 2)))
    assert sympy.simplify(p3 - expected) == 0
    assert "t = 3: P(u <= OPT - (2 Delta/epsilon)(ln 11 + t)) = [0.03099, 0.03100] <= e^-3" in r.text


def test_seed003_add_only_underestimates():
    r = _claim("s003/unbounded/add-only-equally-good")
    assert r.verdict is Verdict.VIOLATED
    assert (r.data["add_only"], r.data["remove_only"], r.data["printed"]) == ("2", "6", "6.0")
    assert "x = [1, 2, 3, 4, 15, 20] minus [1, 2]" in r.text


@pytest.mark.parametrize("id_, words", [
    ("s004/laplace/expected-plus-sigma", "[13.35, 13.36] times epsilon"),
    ("s004/laplace/expected-plus-2sigma", "[9.109, 9.110] times epsilon"),
])
def test_seed004_true_epsilon_of_the_sigma_calibrations(id_, words):
    r = _claim(id_)
    assert r.verdict is Verdict.VIOLATED and words in r.text
    assert r.data["witness"] == {"x": [0], "x_prime": [300], "output": 300}


def test_seed000_post_processing_budget_adds():
    r = _claim("s000/average/post-processing-budget")
    assert r.verdict is Verdict.HOLDS_TIGHT and (r.data["epsilon_pair"], r.data["budget"]) == ("1", "1")


# --- 3. claims filed under the right seed ----------------------------------------------------


def test_claims_filed_under_the_seed_that_says_them():
    ids = {c.id for c in registry.claims("privacy")}
    assert {"s002/gaussian-classic/eps=1/2", "s002/gaussian-classic/eps=10",
            "exactdp/randomized-response/p=3/4"} <= ids
    assert not any(i.startswith(("s000/gaussian-classic", "s003/randomized")) for i in ids)
    rr = _privacy("exactdp/randomized-response/p=3/4")
    assert rr.source.startswith("exactdp's own example")
    assert _privacy("s002/gaussian-classic/eps=10").source.startswith("seed 002")


def test_verify_lists_the_new_claims(capsys):
    code = main(["verify", "--only", "s004/sampler", "--no-catalogue"])
    out = capsys.readouterr().out
    assert code == 0
    assert "VIOLATED    s004/sampler/diffpriv:" in out and "HOLDS       s004/sampler/output/47.38:" in out
    assert out.rstrip().endswith("3 built-in privacy claims checked: 2 holds, 1 violated; "
                                 "0 departed from what was expected")
