"""The seeds' last statements (kind ``"privacy"``; issue 28), each decided by computation:

* ``s002/exponential/float-sampler``: seed 002's ``mechanism_exponential_discrete`` as it
  runs (float64 likelihoods, ``argmax(cdf >= uniform())``;
  :func:`~exactdp.mechanisms.models.samplers.float_exponential_sampler_distribution`)
  "returns an epsilon-DP sample": the first score gap at which a candidate's float cdf
  step vanishes for one score vector and not for its neighbour is searched, and the pair
  is judged by :func:`~exactdp.checkers.privacy.check_mechanism` (infinite epsilon).
* ``s002/exercise/duplicate/code-runs``: exercise 1's ``duplicate`` starts with
  ``assert instanceof(x, list)``; Python has no builtin ``instanceof`` (it has
  ``isinstance``), so the line is run on a list and the error it raises is the witness.
* ``s000/adult/education-counts-add-up`` and ``s000/adult/mean-is-sum-over-count``: the
  arithmetic between seed 000's printed adult-dataset values, which can be checked
  without the dataset (exact integers; the float64 quotient as Python rounds it,
  correctly, from the exact rational).
* ``s003/conclusions/larger-k-increases``: seed 003's conclusion that a larger Hamming
  distance increases the sensitivities, against the exact sensitivity of every printed
  series (scenario, column, mode, query) at every ``k`` the notebook ran: a series that
  stays flat or falls from one ``k`` to the next is the witness (exact comparisons,
  :func:`~exactdp.numeric.decide.compare`).
"""

from __future__ import annotations

import builtins
from fractions import Fraction

from exactdp.checkers.privacy import check_mechanism
from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.mechanisms.models.samplers import float_exponential_sampler_distribution
from exactdp.errors import Undecided
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import format_exact
from exactdp.registry.seed003 import seed003_claims

__all__ = ["claims", "ADULT_PRINTED", "FLOAT_SAMPLER_CASE", "DUPLICATE_FIRST_LINE"]

_S000_COUNT = "seed 000 (Near & Abuah, Sensitivity), sections Counting Queries and Summation Queries"
_S000_MEAN = "seed 000 (Near & Abuah, Sensitivity), section Average Queries"
_S002_EXP = ("seed 002 (Hands-on DP, ch. 6), section A Private Mechanism on l-infinity Sensitivity: "
             "mechanism_exponential_discrete")
_S003_CONC = "seed 003 notebook (Global Sensitivity From Scratch), Conclusions"
_S002_EX1 = "seed 002 (Hands-on DP, ch. 6), Exercises 1: duplicate"

ADULT_PRINTED = {"rows": 32563, "education_above_10": 10517, "education_at_most_10": 22046,
                 "age_sum_education_above_10": 441431, "mean": "41.973091185699346"}
"""The values seed 000 prints from the adult dataset (not shipped)."""

FLOAT_SAMPLER_CASE = {"epsilon": 1, "sensitivity": 1, "gaps": (1, 200)}
"""Two candidates with scores ``(0, -s)`` and the neighbour ``(0, -s - 1)`` (each score
moves by the sensitivity 1), ``s`` searched over ``gaps``, the uniform on the 2^-53 grid."""

DUPLICATE_FIRST_LINE = "assert instanceof(x, list)"
"""The first line of exercise 1's ``duplicate(x)``."""


def _float_sampler_claim():
    c = FLOAT_SAMPLER_CASE
    eps, sens = float(c["epsilon"]), float(c["sensitivity"])
    lo, hi = c["gaps"]
    for s in range(lo, hi):
        p = float_exponential_sampler_distribution((0, -s), eps, sens).p(1)
        q = float_exponential_sampler_distribution((0, -s - 1), eps, sens).p(1)
        if (p == 0) != (q == 0):
            m = make_mechanism("exponential-float-sampler", epsilon=c["epsilon"],
                               sensitivity=c["sensitivity"])
            return check_mechanism(m, values=((0, -s), (0, -s - 1)), epsilon=c["epsilon"])
    return StatementResult(Verdict.UNDECIDED, f"no score gap s in {lo}..{hi - 1} separates the "
                           "neighbours' supports", "seed 002's float sampler, two candidates", {})


def _duplicate_claim() -> StatementResult:
    scope = (f"the exercise's first line {DUPLICATE_FIRST_LINE!r} run by this Python on x = [1, 2] "
             f"with only the builtins in scope")
    try:
        exec(compile(DUPLICATE_FIRST_LINE, "<seed 002 exercise 1>", "exec"),
             {"__builtins__": builtins}, {"x": [1, 2]})
    except NameError as err:
        return StatementResult(Verdict.VIOLATED, f"duplicate([1, 2]) raises NameError: {err} "
                               f"(the builtin is isinstance)", scope,
                               {"error": type(err).__name__, "message": str(err)})
    return StatementResult(Verdict.HOLDS, "duplicate's first line runs", scope, {})


def _counts_claim() -> StatementResult:
    a = ADULT_PRINTED
    total = a["education_above_10"] + a["education_at_most_10"]
    verdict = Verdict.HOLDS if total == a["rows"] else Verdict.VIOLATED
    return StatementResult(
        verdict, f"{a['education_above_10']} + {a['education_at_most_10']} = {total}, printed rows "
        f"{a['rows']}", "exact integers: the printed counts of 'Education-Num' > 10 and <= 10 "
        "against the printed number of rows (the dataset itself is not shipped)",
        {"sum": total, "rows": a["rows"]})


def _mean_claim() -> StatementResult:
    a = ADULT_PRINTED
    exact = Fraction(a["age_sum_education_above_10"], a["education_above_10"])
    shown = repr(float(exact))  # Fraction -> float is correctly rounded, as int / int is
    verdict = Verdict.HOLDS if shown == a["mean"] else Verdict.VIOLATED
    gap = Fraction(a["mean"]) - exact
    return StatementResult(
        verdict, f"{a['age_sum_education_above_10']}/{a['education_above_10']} = {format_exact(exact)} "
        f"exactly; its float64 prints {shown}, printed {a['mean']} (the printed decimal minus the "
        f"exact quotient: {format_exact(gap)})",
        "the printed sum and count as exact integers; the float64 nearest their quotient (what "
        "pandas' sum / count and mean print for an integer column whose sum is below 2^53)",
        {"exact": format_exact(exact), "float": shown, "printed": a["mean"]})


def _larger_k_claim() -> StatementResult:
    series: dict[str, dict[int, object]] = {}
    for c in seed003_claims(None):
        name, k_part, query = c.id.rsplit("/", 2)
        series.setdefault(f"{name}/{query}", {})[int(k_part[2:])] = c.check().sensitivity.value
    falls, flat, undecided = [], [], []
    for name, by_k in series.items():
        ks = sorted(by_k)
        for a, b in zip(ks, ks[1:]):
            try:
                step = compare(by_k[b], by_k[a])
            except Undecided:
                undecided.append(f"{name} k={a}->{b}")
                continue
            if step < 0:
                falls.append((name, a, b, by_k[a], by_k[b]))
            elif step == 0:
                flat.append((name, a, b, by_k[a], by_k[b]))
    scope = (f"the exact sensitivity of each of seed 003's {len(series)} printed series (scenario, "
             f"column, mode, query) at every k it ran (1..{max(max(v) for v in series.values())}), "
             f"under the notebook's conventions (exactdp.registry.seed003), consecutive k compared "
             f"exactly")
    data = {"series": len(series), "falls": [f"{n} k={a}->{b}" for n, a, b, _, _ in falls],
            "flat": len(flat), "undecided": undecided}
    if not falls and not flat:
        verdict = Verdict.UNDECIDED if undecided else Verdict.HOLDS
        return StatementResult(verdict, f"every series increases with k ({len(undecided)} steps "
                               f"undecided)", scope, data)
    shown = falls[0] if falls else flat[0]
    n, a, b, va, vb = shown
    text = (f"{len(falls)} steps fall and {len(flat)} stay flat as k grows, e.g. {n}: "
            f"{format_exact(va)} at k={a}, {format_exact(vb)} at k={b}")
    return StatementResult(Verdict.VIOLATED, text, scope, data)


def claims(all_k: bool = False) -> list[PrivacyClaim]:
    return [
        PrivacyClaim("s002/exponential/float-sampler", _S002_EXP,
                     "mechanism_exponential_discrete (float64 likelihoods, argmax(cdf >= "
                     "np.random.uniform())) returns an epsilon-DP sample", _float_sampler_claim,
                     "violated"),
        PrivacyClaim("s002/exercise/duplicate/code-runs", _S002_EX1,
                     "the exercise's duplicate(x), which starts with assert instanceof(x, list), "
                     "runs on a list", _duplicate_claim, "violated"),
        PrivacyClaim("s003/conclusions/larger-k-increases", _S003_CONC,
                     "a larger Hamming distance increases the sensitivities", _larger_k_claim,
                     "violated"),
        PrivacyClaim("s000/adult/education-counts-add-up", _S000_COUNT,
                     "the records with education above 10 (10517) and at or below 10 (22046) are "
                     "the dataset's 32563 rows", _counts_claim, "holds"),
        PrivacyClaim("s000/adult/mean-is-sum-over-count", _S000_MEAN,
                     "mean() and sum / count both print 41.973091185699346 for the ages of the "
                     "10517 records with education above 10, whose sum is 441431", _mean_claim,
                     "holds"),
    ]
