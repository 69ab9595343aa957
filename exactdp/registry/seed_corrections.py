"""Seed statements corrected or judged by exactdp, as built-in claims (kind ``"privacy"``,
each a :class:`~exactdp.checkers.privacy_claims.PrivacyClaim` whose result is a
:class:`~exactdp.checkers.privacy_claims.StatementResult`): the corrections exactdp
computed only when called by hand (issue 20), the sampler the seed really ran, the
distribution of what that sampler printed, and two textbook guarantees computed exactly.

Every claim quotes its seed by document and section, computes its values with the
functions that define them (nothing is typed in), and states its witness and scope.

* seed 001: for large ``MaxGroupsPerID`` the Gaussian's sensitivity is *smaller* than the
  Laplace's (``2 sqrt 3`` against ``6`` at ``g = 3, r = 2``); the variances cross at
  ``g = 7`` (equal ``(1, 1e-5)``);
* seed 002: the chapter's Python score function is not its formula (``x = [2, 2, 2]``);
  a higher temperature makes the lowest-score pick *less* likely; the exponential
  mechanism's utility guarantee, computed exactly;
* seed 003: counting only added records is not "equally good" (median, ``k = 2``: 2
  instead of 6);
* seed 004: the true epsilon of the ``E + sigma`` and ``E + 2 sigma`` calibrations;
  diffpriv's sampler configuration beside shfl's; the printed 47.38 and 11.89 judged by
  the distribution of the sampler's output;
* seed 000: noisy sum / noisy count is DP by post-processing, the budgets add.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import sympy

from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict
from exactdp.numeric.decide import compare, to_sympy
from exactdp.numeric.exact import format_exact
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
from exactdp.mechanisms.accounting.composition import compose_sequential
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.mechanisms.calibration.noise_choice import laplace_better_below
from exactdp.mechanisms.calibration.typical import sampler_mean, sampler_output, sensitivity_sampler_plan, true_epsilon
from exactdp.queries.builtin import median
from exactdp.registry.seed003 import seed003_tables
from exactdp.registry.seed004 import (
    SEED004_PRINTED_MEAN,
    SEED004_PRINTED_SENSITIVITY,
    SEED_DOMAIN,
    height_mixture,
    typical_sensitivities,
)
from exactdp.relational.entries import id_count_truth
from exactdp.symbolic.constructors import make_quantile_score
from exactdp.symbolic.entries_seed000 import average_epsilon

__all__ = ["claims", "seed_correction_claims"]

_S000 = "seed 000 (Programming DP, Sensitivity), section Average Queries"
_S001 = ("seed 001 (Tumult, Understanding sensitivity), section 'Queries on tables using "
         "AddRowsWithID' (MaxGroupsPerID x MaxRowsPerGroupPerID)")
_S002_SCORE = "seed 002 (Hands-on DP, ch. 6), section 'A Stable Transformation into l-inf Sensitivity'"
_S002_EM = "seed 002 (Hands-on DP, ch. 6), section 'A Private Mechanism on l-inf Sensitivity'"
_S003 = "seed 003 (Global Sensitivity From Scratch), Note 1 (unbounded sensitivity)"
_S004_TYP = "seed 004 (Sherpa.ai, The Laplace mechanism), section 4 (experiments with E[Delta f] + sigma, + 2 sigma)"
_S004_SAMPLER = "seed 004 (Sherpa.ai, The Laplace mechanism), section 3 (the sensitivity sampler, gamma = 0.05)"



def _d(x, digits: int = 6) -> str:
    """``[lo, hi]`` decimals around an exact real."""
    return f"[{decimal_at_most(x, digits)}, {decimal_at_least(x, digits)}]"


# --- seed 001 ------------------------------------------------------------------------------


def _groups_sensitivity() -> StatementResult:
    g, r = 3, 2
    base = {"r": r, "g": g, "K": g + 1, "rows_per_id": r * g + 1, "constraint": "groups"}
    lap = id_count_truth(dict(base, norm="l1"))
    gau = id_count_truth(dict(base, norm="l2"))
    larger = compare(gau.value, lap.value) > 0
    cross = laplace_better_below(1, "1e-5")
    return StatementResult(
        Verdict.HOLDS if larger else Verdict.VIOLATED,
        f"at g = {g}, r = {r} the Gaussian's (L2) sensitivity is {gau.value} and the Laplace's "
        f"(L1) is {lap.value}: the Gaussian's is the smaller (r sqrt(g) < g r for every g >= 2); "
        f"what grows is the Laplace's, and the Gaussian's variance becomes the smaller from "
        f"g = {cross} on (equal (epsilon, delta) = (1, 1e-5)). Witness: one id adds "
        f"{len(gau.witness.x_prime[0])} rows, {r} in each of {g} groups (counts "
        f"{gau.witness.fx} -> {gau.witness.fx_prime})",
        f"group-by count after MaxGroupsPerID({g}), MaxRowsPerGroupPerID({r}), AddRowsWithID: "
        f"{gau.scope}",
        {"gaussian_sensitivity": str(gau.value), "laplace_sensitivity": str(lap.value),
         "gaussian_variance_smaller_from_groups": cross},
    )


# --- seed 002 ------------------------------------------------------------------------------

_CANDIDATES = (1, 2, 3)


def _scores(form: str, x):
    query = make_quantile_score(_CANDIDATES, "1/2", form=form).exact_form({"alpha": "1/2", "d_in": 1})[0]
    return tuple(query(list(x)))


def _show(v) -> str:
    return "(" + ", ".join(format_exact(c) for c in v) + ")"


def _score_code() -> StatementResult:
    x = (2, 2, 2)
    formula, code = _scores("seed", x), _scores("code", x)
    same = formula == code
    return StatementResult(
        Verdict.HOLDS if same else Verdict.VIOLATED,
        f"on x = {list(x)}, candidates {list(_CANDIDATES)}, alpha = 1/2 the formula "
        f"-|(1 - alpha) #(x < c) - alpha #(x > c)| gives {_show(formula)} but the Python "
        f"-|#(x <= c) - alpha n| gives {_show(code)}: the code cannot prefer the median 2 "
        f"(ties are counted as below the candidate)",
        "seed 002's formula and its score_quantile_discrete, exact scores on one dataset",
        {"x": list(x), "formula": [format_exact(v) for v in formula],
         "code": [format_exact(v) for v in code]},
    )


def _temperature() -> StatementResult:
    x = (1, 2, 2)
    scores = _scores("seed", x)
    low = min(range(len(scores)), key=lambda i: scores[i])
    probs = {}
    for tau in ("1/2", "4"):
        em = make_mechanism("exponential", epsilon=tau, sensitivity="1/2")
        probs[tau] = sympy.simplify(em.distribution(scores).p(low))
    rises = compare(probs["4"], probs["1/2"]) > 0
    return StatementResult(
        Verdict.HOLDS if rises else Verdict.VIOLATED,
        f"on x = {list(x)}, candidates {list(_CANDIDATES)} (scores {_show(scores)}, sensitivity "
        f"1/2), the lowest-score candidate {_CANDIDATES[low]} is picked with probability "
        f"{probs['1/2']} in {_d(probs['1/2'], 4)} at tau = 1/2 and {probs['4']} in "
        f"{_d(probs['4'], 4)} at tau = 4: a higher tau makes low-score picks less likely (tau "
        f"multiplies the scores, as epsilon does; it is an inverse temperature)",
        "the exponential mechanism exp(tau x_i / (2 Delta)) of seed 002, exact probabilities",
        {"x": list(x), "candidate": _CANDIDATES[low], "p_tau_1/2": str(probs["1/2"]),
         "p_tau_4": str(probs["4"])},
    )


def _utility_guarantee() -> StatementResult:
    candidates = tuple(range(11))
    x = [4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6]
    query = make_quantile_score(candidates, "1/2").exact_form({"alpha": "1/2", "d_in": 1})[0]
    u = tuple(query(x))
    delta, eps = sympy.Rational(1, 2), sympy.Integer(1)
    dist = make_mechanism("exponential", epsilon=1, sensitivity="1/2").distribution(u)
    opt = max(u)
    rows, worst = [], None
    for t in (1, 2, 3):
        threshold = to_sympy(opt) - 2 * delta / eps * (sympy.log(len(candidates)) + t)
        below = [i for i in range(len(u)) if compare(to_sympy(u[i]), threshold) <= 0]
        p = sympy.Add(*[dist.p(i) for i in below]) if below else sympy.Integer(0)
        bound = sympy.exp(-t)
        ok = compare(p, bound) <= 0
        rows.append((t, below, p, ok))
        if not ok and worst is None:
            worst = t
    text = "; ".join(
        f"t = {t}: P(u <= OPT - (2 Delta/epsilon)(ln {len(candidates)} + t)) = "
        f"{_d(p, 4) if p != 0 else '0'} <= e^-{t} (candidates {[candidates[i] for i in below]})"
        for t, below, p, ok in rows)
    return StatementResult(
        Verdict.HOLDS if worst is None else Verdict.VIOLATED,
        f"the exponential mechanism (epsilon = 1, Delta = 1/2, median score) on x = {x} over "
        f"candidates 0..10 (OPT = {format_exact(opt)}): {text}",
        "Pr[u(M(x)) <= OPT - (2 Delta/epsilon)(ln|R| + t)] <= e^-t (McSherry and Talwar 2007; "
        "Dwork and Roth Thm 3.11), exact probabilities at t = 1, 2, 3",
        {"x": x, "candidates": list(candidates),
         "probabilities": {str(t): str(p) for t, _, p, _ in rows}},
    )


# --- seed 003 ------------------------------------------------------------------------------


def _one_way_sensitivity(values, release: int, k: int, way: str):
    """``max |median(x) - median(x')|`` over releases ``x`` (``release`` of ``values``) and
    ``x'`` = ``x`` with ``k`` records of the rest added (``"add"``) or ``k`` of its own
    removed (``"remove"``): the notebook's release-centred unbounded sensitivity, one way."""
    best = (Fraction(-1), None)
    n = len(values)
    for idx in combinations(range(n), release):
        x = [values[i] for i in idx]
        fx = median(x)
        if way == "add":
            rest = [values[i] for i in range(n) if i not in idx]
            changes = (sorted(x + [rest[i] for i in a]) for a in combinations(range(len(rest)), k))
            moved = ([rest[i] for i in a] for a in combinations(range(len(rest)), k))
        else:
            changes = ([x[i] for i in range(release) if i not in r] for r in combinations(range(release), k))
            moved = ([x[i] for i in r] for r in combinations(range(release), k))
        for xp, m in zip(changes, moved):
            d = abs(median(xp) - fx)
            if d > best[0]:
                best = (d, (x, m))
    return best


def _add_only() -> StatementResult:
    data = seed003_tables()
    run = data["runs"]["a"]
    values = run["universe"]["absence_days"]
    k = 2
    printed = next(r["value"] for r in data["tables"]
                   if (r["scenario"], r["column"], r["mode"], r["k"], r["query"])
                   == ("a", "absence_days", "unbounded", k, "median"))
    add, (ax, added) = _one_way_sensitivity(values, run["release_size"], k, "add")
    rem, (rx, removed) = _one_way_sensitivity(values, run["release_size"], k, "remove")
    equal = add == rem
    return StatementResult(
        Verdict.HOLDS if equal else Verdict.VIOLATED,
        f"median of absence_days, k = {k}: adding records only gives {format_exact(add)} "
        f"(x = {ax} plus {added}), removing only gives {format_exact(rem)} (x = {rx} minus "
        f"{removed}); the notebook, taking both, printed {printed}: add-only underestimates by "
        f"{format_exact(rem - add)}",
        f"scenario (a): releases of {run['release_size']} of the universe {values}, neighbours "
        f"at exactly k = {k} records added from the rest or removed, every release (exact "
        f"enumeration)",
        {"add_only": format_exact(add), "remove_only": format_exact(rem), "printed": printed},
    )


# --- seed 004 ------------------------------------------------------------------------------


def _typical_true_epsilon(label: str) -> StatementResult:
    typ = typical_sensitivities()[label]
    r = true_epsilon(typ, 1, SEED_DOMAIN)
    verdict = Verdict.VIOLATED if r.verdict == "violated" else Verdict(r.verdict)
    return StatementResult(
        verdict,
        f"Laplace noise of scale ({label})/epsilon, {label} = {_d(typ)} cm, on one height in "
        f"[0, 300] cm is exactly (300/({label})) epsilon-DP, {_d(r.factor, 4)} times epsilon "
        f"(witness heights 0 and 300, any output >= 300)",
        "the ideal Laplace mechanism, one record replaced, heights in [0, 300] cm "
        "(proof: proofs/s004-true-epsilon.md)",
        {"factor": str(r.factor), "witness": {"x": [0], "x_prime": [300], "output": 300}},
    )


def _diffpriv_sampler() -> StatementResult:
    g = sensitivity_sampler_plan("0.05", library="diffpriv")
    return StatementResult(
        Verdict.HOLDS if g.is_differential_privacy else Verdict.VIOLATED,
        f"what the sensitivity sampler gives is {g.statement()}",
        "the guarantee of Rubinstein and Aldà (2017), gamma target 0.05, diffpriv's "
        "configuration (proof: proofs/s004-sensitivity-sampler.md)",
        {"m": g.m, "k": g.k, "library": g.library, "is_differential_privacy": False},
    )


def _printed(which: str) -> StatementResult:
    plan = sensitivity_sampler_plan("0.05", library="shfl")  # the seed's run
    if which == "output":
        judged = sampler_output(plan.m, plan.k, mixture=height_mixture()).judge(SEED004_PRINTED_SENSITIVITY)
        other = sensitivity_sampler_plan("0.05", library="diffpriv")
        alt = sampler_output(other.m, other.k, mixture=height_mixture()).cdf(SEED004_PRINTED_SENSITIVITY)
        extra = (f"; with diffpriv's m = {other.m}: P(X <= {SEED004_PRINTED_SENSITIVITY}) in "
                 f"[{decimal_at_most(alt[0], 4)}, {decimal_at_least(alt[1], 4)}]")
        scope = ("X = the largest of shfl's m = k = 1325 independent |h - h'|, h, h' from 1/2 "
                 "N(178, 7^2) + 1/2 N(162, 6.5^2); exact erf form in Arb balls (proof: "
                 "proofs/s004-sampler-output.md)")
    else:
        judged = sampler_mean(plan.m, mixture=height_mixture()).judge(SEED004_PRINTED_MEAN)
        mom = sampler_mean(plan.m, mixture=height_mixture()).moments()
        lo, hi = mom["sd_of_mean"]
        extra = (f"; E X = E|h - h'| in [{decimal_at_most(mom['mean'][0], 6)}, "
                 f"{decimal_at_least(mom['mean'][1], 6)}], sd of X in [{decimal_at_most(lo, 4)}, "
                 f"{decimal_at_least(hi, 4)}]")
        scope = ("X = the mean of shfl's m = 1325 independent |h - h'|; Berry-Esseen enclosure "
                 "(C = 0.4748) with exact moments (proof: proofs/s004-sampler-output.md)")
    verdict = {"plausible": Verdict.HOLDS, "implausible": Verdict.VIOLATED}.get(judged.verdict,
                                                                                 Verdict.UNDECIDED)
    data = judged.to_dict()
    data["judgement"] = data.pop("verdict")  # the result's verdict is the claim's
    return StatementResult(verdict, judged.statement() + extra, scope, data)


# --- seed 000 ------------------------------------------------------------------------------


def _post_processing() -> StatementResult:
    lower, upper, each = 0, 125, Fraction(1, 2)
    total, _ = compose_sequential([(each, 0), (each, 0)])
    expr = average_epsilon()
    names = {s.name: s for s in expr.free_symbols}
    exact = sympy.nsimplify(expr.subs({names["L"]: lower, names["U"]: upper,
                                       names["epsilon"]: to_sympy(each)}))
    sign = compare(exact, to_sympy(total))
    verdict = Verdict.HOLDS_TIGHT if sign == 0 else Verdict.HOLDS if sign < 0 else Verdict.VIOLATED
    return StatementResult(
        verdict,
        f"noisy sum (ages clipped to [{lower}, {upper}], Laplace scale {upper - lower}/epsilon) and "
        f"noisy count (scale 1/epsilon) at epsilon = {format_exact(each)} each: the pair is "
        f"exactly {exact}-DP, the sequential composition's budget {format_exact(total)} "
        f"(= {format_exact(each)} + {format_exact(each)}); their quotient is post-processing of "
        f"the pair, so the noisy average is {format_exact(total)}-DP (witness: a record of age "
        f"{upper} added, both answers move their full sensitivity)",
        "one record added or removed, independent Laplace noise; the catalogue entry "
        "s000/average/sequential-composition gives the exact epsilon for every [L, U]",
        {"epsilon_pair": str(exact), "budget": format_exact(total)},
    )


def seed_correction_claims() -> list[PrivacyClaim]:
    """The claims of this module, in registry order."""
    return [
        PrivacyClaim(
            "s000/average/post-processing-budget", _S000,
            "the noisy sum divided by the noisy count is differentially private, and its cost "
            "is the sum of the two budgets (sequential composition)",
            _post_processing, "holds-tight"),
        PrivacyClaim(
            "s001/noise-choice/large-groups-sensitivity", _S001,
            "for large values of MaxGroupsPerID the sensitivity used with Gaussian noise will be "
            "much larger than that of Laplace noise",
            _groups_sensitivity, "violated"),
        PrivacyClaim(
            "s002/quantile-score/code-is-formula", _S002_SCORE,
            "an equivalent way to write the score function F(x)_i = -|(1-alpha)#(x<C_i) - "
            "alpha#(x>C_i)| in Python is -abs(num_leq - alpha*len(x))",
            _score_code, "violated"),
        PrivacyClaim(
            "s002/exponential/temperature", _S002_EM,
            "the higher the temperature tau, the more likely the mechanism selects candidates with "
            "lower scores",
            _temperature, "violated"),
        PrivacyClaim(
            "s002/exponential/utility-guarantee", _S002_EM,
            "the exponential in the likelihood lends nice utility guarantees (the mechanism picks "
            "a near-best candidate)",
            _utility_guarantee, "holds"),
        PrivacyClaim(
            "s003/unbounded/add-only-equally-good", _S003,
            "unbounded sensitivity can be computed by adding or by removing records; you could "
            "choose either, as both equally protect the individuals",
            _add_only, "violated"),
        PrivacyClaim(
            "s004/laplace/expected-plus-sigma", _S004_TYP,
            "Laplace noise of scale (E[Delta f] + sigma)/epsilon on one height is epsilon-DP",
            lambda: _typical_true_epsilon("E[Delta f] + sigma"), "violated"),
        PrivacyClaim(
            "s004/laplace/expected-plus-2sigma", _S004_TYP,
            "Laplace noise of scale (E[Delta f] + 2 sigma)/epsilon on one height is epsilon-DP",
            lambda: _typical_true_epsilon("E[Delta f] + 2 sigma"), "violated"),
        PrivacyClaim(
            "s004/sampler/diffpriv", _S004_SAMPLER + ", diffpriv's configuration",
            "the sensitivity sampler's estimate gives epsilon-DP (diffpriv's configuration, "
            "m = k = 1305)",
            _diffpriv_sampler, "violated"),
        PrivacyClaim(
            "s004/sampler/output/47.38", _S004_SAMPLER,
            "the sampler printed 'Sensitivity from sampling: 47.38' (a plausible draw of the "
            "sampler's output)",
            lambda: _printed("output"), "holds"),
        PrivacyClaim(
            "s004/sampler/mean/11.89", _S004_SAMPLER,
            "the sampler printed 'Mean sensitivity from sampling: 11.89', 'approximately the "
            "expected value' 11.99 (a plausible draw of the mean of its samples)",
            lambda: _printed("mean"), "holds"),
    ]


def claims(all_k: bool = False) -> list:
    return seed_correction_claims()
