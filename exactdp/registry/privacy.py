"""The published privacy statements (kind ``"privacy"``): the built-in privacy claims that
``exactdp verify`` re-checks, statements about mechanisms (not sensitivities), each a
:class:`~exactdp.checkers.privacy_claims.PrivacyClaim` checked by :func:`check_mechanism`
on exact output distributions, with what the check is expected to find.

* **exactdp's own example** (seed 003 only names randomized response as the usual
  mechanism of local DP, with no parameter): with ``p = 3/4`` it is ``log(3)``-DP, exactly
  and tightly (``exactdp/randomized-response/p=3/4``).
* **seed 002**'s exponential mechanism with temperature ``tau = epsilon`` and the median's
  quantile score (its Python form ``-|#(x <= c) - n/2|``, sensitivity 1/2) is
  ``epsilon``-DP: it holds, loosely (exact ``log(1/3 + 2e/3)`` ~ 0.763 at ``epsilon = 1``
  over multisets of up to 3 records from 0..4). The "monotone" form ``exp(epsilon u /
  Delta)`` is only for monotone scores; on this one it is violated (exact ~1.660).
* **seed 004** calibrates Laplace noise to a "typical" sensitivity of one height: the
  expected ``E|h - h'| ~ 11.99`` cm of its Gaussian mixture, or the sampled 47.38. On
  heights in [0, 300] cm the pair (0, 300) moves by 300, so the true epsilon is
  ``300 epsilon / Delta_typ``: about 25.01 and 6.33 times the claim. Violated.
* **seed 004** also treats the sensitivity sampler's estimate as a sensitivity: what the
  sampler gives is (epsilon, gamma)-random DP, not epsilon-DP (violated; modelled with the
  configuration of the library the seed ran, Sherpa.ai's shfl: m = k = 1325); its closed form of
  ``E|h - h'|`` equals the SymPy derivation with every parameter symbolic (holds, tight).
* **seed 001** says Laplace noise has the smaller variance for low sensitivities and
  comparable budgets: false when budgets are compared through zCDP (the Gaussian is
  smaller by exactly ``2g``), true at equal ``(1, 1e-5)`` for ``g <= 6``.
* **seed 002** gives the classic Gaussian ``sigma = Delta sqrt(2 ln(1.25/delta)) /
  epsilon`` (section "A Private Mechanism on l2 Sensitivity"); valid for ``epsilon < 1`` only. Used at ``epsilon = 10``, ``delta = 1e-5`` its
  true ``delta(10)`` is about ``2.3e-5``: violated, with the pair of query values (0, 1).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import sympy

from exactdp.checkers.privacy import PrivacyResult, check_mechanism
from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.numeric.exact import from_float
from exactdp.numeric.rounding import float_at_least, float_at_most
from exactdp.mechanisms.distribution import shown
from exactdp.mechanisms.calibration.noise_choice import compare_noise, laplace_better_below
from exactdp.mechanisms.calibration.typical import expected_sensitivity, sensitivity_sampler_plan
from exactdp.registry.seed004 import check_seed_closed_form, height_mixture
from exactdp.spaces import ExactSet, IntegerRange, Multisets
from exactdp.symbolic.constructors import make_quantile_score

__all__ = ["claims", "privacy_claims"]


def claims(all_k: bool = False) -> list[PrivacyClaim]:
    """The registry's entry point: every built-in privacy claim (``all_k`` does not apply)."""
    return privacy_claims()


def _classic_sigma(epsilon, delta) -> sympy.Expr:
    """The classic sigma for sensitivity 1, exact (irrational)."""
    return sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / sympy.Rational(delta))) / sympy.Rational(epsilon)


def _gaussian_classic(epsilon: str, delta: str) -> Callable[[], PrivacyResult]:
    """Check the classic sigma through its float neighbours: "holds" at the float below it
    carries over to the exact sigma (more noise is more private), "violated" at the float
    above it too; anything else is undecided."""

    def run():
        exact = _classic_sigma(epsilon, delta)

        def at(sigma):
            m = make_mechanism("gaussian", sigma=from_float(sigma))
            return check_mechanism(m, values=(0, 1), epsilon=epsilon, delta=delta)

        below = at(float_at_most(exact))
        if below.ok:
            return below
        above = at(float_at_least(exact))
        if above.verdict is Verdict.VIOLATED:
            return above
        return replace(above, verdict=Verdict.UNDECIDED)

    return run


def _exponential_median(form: str) -> Callable[[], PrivacyResult]:
    def run():
        score = make_quantile_score([1, 2, 3], "1/2", form="code")
        query = score.exact_form({"alpha": "1/2", "d_in": 1})[0]
        m = make_mechanism("exponential", epsilon=1, sensitivity="1/2", form=form)
        return check_mechanism(m, query, Multisets(IntegerRange(0, 4), sizes=(0, 3)),
                               "add-remove", 1, epsilon=1)

    return run


def _seed004(typical: str) -> Callable[[], PrivacyResult]:
    def run():
        if typical == "expected":  # irrational: a few heights, the domain's ends included
            scale, heights = expected_sensitivity(height_mixture()), ExactSet([0, 75, 150, 225, 300])
        else:
            scale, heights = typical, IntegerRange(0, 300)
        m = make_mechanism("laplace", scale=scale)  # b = typical / epsilon with epsilon = 1
        return check_mechanism(m, "sum", Multisets(heights, size=1), "substitute", 1, epsilon=1)

    return run


def _sampler_claim() -> StatementResult:
    g = sensitivity_sampler_plan("0.05", library="shfl")  # the library the seed ran
    verdict = Verdict.HOLDS if g.is_differential_privacy else Verdict.VIOLATED
    return StatementResult(
        verdict, f"what the sensitivity sampler gives is {g.statement()}",
        "the guarantee of Rubinstein and Aldà (2017), gamma target 0.05, shfl's configuration "
        "(the seed's run; proof: proofs/s004-sensitivity-sampler.md)",
        {"m": g.m, "k": g.k, "library": g.library,
         "is_differential_privacy": g.is_differential_privacy},
    )


def _closed_form_claim() -> StatementResult:
    diff = check_seed_closed_form()  # symbolic: every parameter a symbol
    verdict = Verdict.HOLDS_TIGHT if diff == 0 else Verdict.VIOLATED
    return StatementResult(
        verdict, f"E|h - h'| derived in SymPy minus the seed's closed form simplifies to {diff}; "
                 f"at the seed's parameters E[Delta f] = {shown(expected_sensitivity(height_mixture()), 8)} cm",
        "E|h - h'| for h, h' independent from 1/2 N(mu_M, sigma_M^2) + 1/2 N(mu_F, sigma_F^2), "
        "all four parameters symbolic (proof: proofs/s004-expected-sensitivity.md)",
        {"difference": str(diff)},
    )


def _noise_choice_claim(way: str) -> StatementResult:
    if way == "zcdp":  # the lowest sensitivity, g = r = 1: does Laplace have the smaller variance?
        c = compare_noise(1, 1, 1)
        return StatementResult(
            Verdict.HOLDS if c.laplace_variance < c.gaussian_variance_zcdp else Verdict.VIOLATED,
            f"compared through zCDP (rho = epsilon^2/2) the Gaussian's variance is smaller by "
            f"exactly 2g for every g: at g = 1, r = 1, epsilon = 1 Laplace {c.laplace_variance} "
            f"vs Gaussian {c.gaussian_variance_zcdp}",
            "per-group noise variance, MaxGroupsPerID(g), MaxRowsPerGroupPerID(r), every g >= 1",
            {"ratio": str(c.ratio_zcdp)},
        )
    g = laplace_better_below(1, "1e-5")
    low = compare_noise(1, 1, 1, "1e-5")  # the lowest sensitivity
    return StatementResult(
        Verdict.HOLDS if low.laplace_smaller_approx else Verdict.VIOLATED,
        f"at the same (epsilon, delta) = (1, 1e-5) Laplace has the smaller variance exactly for "
        f"g <= {g - 1} groups, the Gaussian from g = {g} on",
        "per-group noise variance, analytic Gaussian sigma certified by interval arithmetic",
        {"gaussian_from_groups": g},
    )


def privacy_claims() -> list[PrivacyClaim]:
    """Every built-in privacy claim."""
    src_x = ("exactdp's own example (seed 003, Global Sensitivity From Scratch, names randomized "
             "response as the usual local-DP mechanism but states no parameter)")
    src2 = "seed 002 (Hands-on DP, ch. 6): the exponential mechanism with the quantile score"
    src4 = "seed 004 (Sherpa.ai, The Laplace mechanism): noise calibrated to a typical sensitivity"
    src1 = ("seed 001 (Tumult, Understanding sensitivity): Laplace or Gaussian noise after "
            "MaxGroupsPerID and MaxRowsPerGroupPerID")
    src0 = ("seed 002 (Hands-on DP, ch. 6, A Private Mechanism on l2 Sensitivity): the classic "
            "Gaussian mechanism sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon")
    return [
        PrivacyClaim(
            "exactdp/randomized-response/p=3/4", src_x,
            "randomized response reporting the true bit with p = 3/4 is log(3)-DP",
            lambda: check_mechanism(make_mechanism("randomized-response", p="3/4"),
                                    values=(0, 1), epsilon="log(3)"),
            "holds-tight",
        ),
        PrivacyClaim(
            "s002/exponential/median/2delta", src2,
            "the exponential mechanism with tau = epsilon = 1 on the median's quantile score "
            "(candidates 1, 2, 3; sensitivity 1/2) is 1-DP",
            _exponential_median("2delta"), "holds",
        ),
        PrivacyClaim(
            "s002/exponential/median/monotone", src2 + " (misuse kept as a regression case)",
            "the monotone form exp(epsilon u / Delta) on the same, non-monotone score is 1-DP",
            _exponential_median("monotone"), "violated",
        ),
        PrivacyClaim(
            "s004/laplace/expected-sensitivity", src4,
            "Laplace noise of scale E[Delta f]/epsilon (E[Delta f] = E|h - h'| ~ 11.99 cm) on one "
            "height in [0, 300] cm is epsilon-DP, epsilon = 1",
            _seed004("expected"), "violated",
        ),
        PrivacyClaim(
            "s004/laplace/sampled-sensitivity", src4,
            "Laplace noise of scale 47.38/epsilon (the sensitivity sampler's value) on one height "
            "in [0, 300] cm is epsilon-DP, epsilon = 1",
            _seed004("47.38"), "violated",
        ),
        PrivacyClaim(
            "s004/sensitivity-sampler", src4,
            "the sensitivity sampler's estimate gives epsilon-DP (as the seed uses it; shfl's "
            "configuration, m = k = 1325)",
            _sampler_claim, "violated",
        ),
        PrivacyClaim(
            "s004/expected-sensitivity/closed-form", src4,
            "E[Delta f] = 1/(2 sqrt(pi)) (sigma_M + sigma_F + sqrt(2(sigma_M^2 + sigma_F^2)) "
            "(e^{-m^2} + sqrt(pi) m erf(m))), 11.99 cm",
            _closed_form_claim, "holds-tight",
        ),
        PrivacyClaim(
            "s001/noise-choice/zcdp", src1,
            "for low sensitivity values and comparable budgets Laplace noise has the smaller "
            "variance (budgets compared through zCDP, Tumult's rhoZCDP)",
            lambda: _noise_choice_claim("zcdp"), "violated",
        ),
        PrivacyClaim(
            "s001/noise-choice/approx-dp", src1,
            "the same, budgets compared at equal (epsilon, delta) = (1, 1e-5)",
            lambda: _noise_choice_claim("approx"), "holds",
        ),
        PrivacyClaim(
            "s002/gaussian-classic/eps=1/2", src0,
            "the classic sigma gives (1/2, 1e-5)-DP for sensitivity 1 (epsilon < 1: valid)",
            _gaussian_classic("1/2", "1e-5"), "holds",
        ),
        PrivacyClaim(
            "s002/gaussian-classic/eps=10", src0,
            "the classic sigma gives (10, 1e-5)-DP for sensitivity 1 (used outside epsilon < 1)",
            _gaussian_classic("10", "1e-5"), "violated",
        ),
    ]
