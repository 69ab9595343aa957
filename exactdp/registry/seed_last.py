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
* ``s000/clip-sweep/noise-overwhelms-signal``: in seed 000's log-scale sweep (bounds
  ``2^0..2^14``, ``epsilon_i = 0.01``) the Laplace noise's standard deviation
  ``sqrt(2) b / epsilon_i`` against the signal, the printed clipped sum 1360238 (every age is
  below 90 by the chapter's histogram, so the sum clipped at any bound from 125 on is that
  one): compared exactly through squares.
* ``s003/limitations/universe-size-sweep``: seed 003's "the functions do not scale with
  the universe's size", as the exact number of datasets its unbounded function builds
  (every release of ``n`` of the ``N`` universe records, with each one's ``C(n, n - k)``
  smaller and ``C(N - n, k)`` larger neighbours) over a sweep of ``N`` at ``n = N/2``,
  ``k = 1``: the growth factor per doubling of ``N`` rises at every step (no polynomial
  bound, whose factor would settle at ``2^degree``).
* ``s004/laplace/high-percentile``: seed 004's "some high percentile" of ``|h - h'|`` as
  the sensitivity: the 99th percentile of its height mixture bracketed to 1/100 cm by
  bisection on the exact ``P(|h - h'| > t)``
  (:func:`~exactdp.mechanisms.calibration.typical.exceedance_probability`, each step
  decided exactly), and Laplace noise calibrated to it judged on heights in [0, 300] cm
  (:func:`~exactdp.mechanisms.calibration.typical.true_epsilon`).
* ``s003/conclusions/curve-shapes``: seed 003's conclusion that the sensitivities plateau,
  grow logarithmically or linearly with k: each printed series with three or four values
  of k sorted by :func:`curve_shape` from its exact steps; a series of none of those shapes
  is the witness.
* ``s004/mixture/density-figure``: seed 004's figure of the heights: the mixture's exact
  density (:meth:`~exactdp.mechanisms.calibration.typical.GaussianMixture.density`), the
  mass the plotted range leaves out, the peaks and dip read from the exact slope's sign,
  and the shaded band's mass; the figure itself is
  :func:`exactdp.plotting.plot_mixture_density`.
* ``s003/conclusions/larger-k-increases``: seed 003's conclusion that a larger Hamming
  distance increases the sensitivities, against the exact sensitivity of every printed
  series (scenario, column, mode, query) at every ``k`` the notebook ran: a series that
  stays flat or falls from one ``k`` to the next is the witness (exact comparisons,
  :func:`~exactdp.numeric.decide.compare`).
"""

from __future__ import annotations

import builtins
from typing import Any
from fractions import Fraction
from math import comb, isqrt

from exactdp.checkers.privacy import check_mechanism
from exactdp.checkers.privacy_claims import PrivacyClaim, StatementResult
from exactdp.checkers.results import Verdict, format_value
from exactdp.mechanisms.calibration.typical import exceedance_probability, true_epsilon
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.mechanisms.models.samplers import float_exponential_sampler_distribution
from exactdp.errors import Undecided
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import format_exact
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
from exactdp.registry.seed003 import seed003_claims
from exactdp.registry.seed004 import height_mixture

__all__ = ["claims", "curve_shape", "ADULT_PRINTED", "CLIP_SWEEP_CASE", "DENSITY_FIGURE", "PERCENTILE_CASE",
           "FLOAT_SAMPLER_CASE", "DUPLICATE_FIRST_LINE", "SHAPES"]

_S000_COUNT = "seed 000 (Near & Abuah, Sensitivity), sections Counting Queries and Summation Queries"
_S000_CLIP = "seed 000 (Near & Abuah, Sensitivity), section Clipping"
_S000_MEAN = "seed 000 (Near & Abuah, Sensitivity), section Average Queries"
_S002_EXP = ("seed 002 (Hands-on DP, ch. 6), section A Private Mechanism on l-infinity Sensitivity: "
             "mechanism_exponential_discrete")
_S003_CONC = "seed 003 notebook (Global Sensitivity From Scratch), Conclusions"
_S002_EX1 = "seed 002 (Hands-on DP, ch. 6), Exercises 1: duplicate"

ADULT_PRINTED: dict[str, Any] = {"rows": 32563, "education_above_10": 10517, "education_at_most_10": 22046,
                 "age_sum_education_above_10": 441431, "mean": "41.973091185699346"}
"""The values seed 000 prints from the adult dataset (not shipped)."""

FLOAT_SAMPLER_CASE: dict[str, Any] = {"epsilon": 1, "sensitivity": 1, "gaps": (1, 200)}
"""Two candidates with scores ``(0, -s)`` and the neighbour ``(0, -s - 1)`` (each score
moves by the sensitivity 1), ``s`` searched over ``gaps``, the uniform on the 2^-53 grid."""

CLIP_SWEEP_CASE: dict[str, Any] = {"epsilon_i": "0.01", "log_bounds": 15, "signal": 1360238, "chosen": 256}
"""Seed 000's log-scale clipping sweep: ``xs = [2**i for i in range(15)]``, the printed
clipped sum as the signal, and the bound it reads off the plot (``2^8``)."""

UNIVERSE_SWEEP: dict[str, Any] = {"sizes": (10, 20, 40, 80, 160), "k": 1}
"""Universe sizes ``N`` (release size ``N/2``) and the Hamming distance of the sweep."""

PERCENTILE_CASE: dict[str, Any] = {"tail": "1/100", "resolution": "1/100", "epsilon": 1, "domain": (0, 300)}
"""The 99th percentile (tail 1/100) of ``|h - h'|``, bracketed to ``resolution`` cm, and the
Laplace calibration judged at ``epsilon`` on one height in ``domain``."""

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


def _noise_vs_signal_claim() -> StatementResult:
    c = CLIP_SWEEP_CASE
    eps, signal = Fraction(c["epsilon_i"]), c["signal"]
    bounds = [2**i for i in range(c["log_bounds"])]
    # sd^2 = 2 (b / eps)^2 against signal^2, exactly
    over = [b for b in bounds if 2 * (b / eps) ** 2 > signal**2]
    top = bounds[-1]
    sd_floor = isqrt(int(2 * (top / eps) ** 2))
    chosen_sd = isqrt(int(2 * (Fraction(c["chosen"]) / eps) ** 2))
    verdict = Verdict.HOLDS if over and over[-1] == top else Verdict.VIOLATED
    text = (f"at the largest bound {top} the noise's standard deviation sqrt(2) * {top} / "
            f"({format_exact(eps)}) (floor {sd_floor:,}) exceeds the signal {signal:,}; of the "
            f"{len(bounds)} bounds it does at {', '.join(map(str, over)) or 'none'}; at the "
            f"chosen {c['chosen']} the standard deviation is {chosen_sd:,} (floor), "
            f"{format_exact(Fraction(chosen_sd, signal))} of the signal")
    scope = (f"the log-scale sweep's {len(bounds)} bounds 2^0..2^{c['log_bounds'] - 1}, "
             f"epsilon_i = {format_exact(eps)}, Laplace scale b / epsilon_i; the signal is the "
             f"printed clip(0, 125) sum (the adult dataset is not shipped); squares compared "
             f"exactly, square roots shown as integer floors")
    return StatementResult(verdict, text, scope,
                           {"bounds_over": over, "sd_floor_at_top": sd_floor, "signal": signal})


def _notebook_work(universe: int, release: int, k: int) -> int:
    """Datasets seed 003's unbounded function builds: each release and its neighbours."""
    return comb(universe, release) * (1 + comb(release, release - k) + comb(universe - release, k))


def _universe_sweep_claim() -> StatementResult:
    sizes, k = UNIVERSE_SWEEP["sizes"], UNIVERSE_SWEEP["k"]
    work = [_notebook_work(n, n // 2, k) for n in sizes]
    factors = [Fraction(b, a) for a, b in zip(work, work[1:])]
    rising = all(f < g for f, g in zip(factors, factors[1:]))
    verdict = Verdict.HOLDS if rising else Verdict.VIOLATED
    text = ("datasets built: " + ", ".join(f"N={n}: {w:.3e}" for n, w in zip(sizes, work))
            + "; growth per doubling: " + ", ".join(f"{float(f):.4g}" for f in factors)
            + (" (rising at every step)" if rising else " (not rising)"))
    scope = (f"seed 003's unbounded function (itertools.combinations of releases, then of their "
             f"smaller and larger neighbours), counted exactly for universes of N = "
             f"{', '.join(map(str, sizes))} distinct records, release size N/2, k = {k}; the "
             f"factors compared as exact fractions (shown rounded)")
    return StatementResult(verdict, text, scope,
                           {"sizes": list(sizes), "datasets": [str(w) for w in work],
                            "factors": [format_exact(f) for f in factors]})


def _percentile_claim() -> StatementResult:
    c = PERCENTILE_CASE
    mix, tail, step = height_mixture(), Fraction(c["tail"]), Fraction(c["resolution"])
    lo, hi = Fraction(c["domain"][0]), Fraction(c["domain"][1])
    while hi - lo > step:  # P(|h - h'| > t) falls in t: lo stays above the tail, hi at or below
        mid = (lo + hi) / 2
        if compare(exceedance_probability(mid, mix), tail) > 0:
            lo = mid
        else:
            hi = mid
    te = true_epsilon(hi, c["epsilon"], c["domain"])
    verdict = Verdict(te.verdict)
    text = (f"the {format_exact(1 - tail)} quantile of |h - h'| lies in [{format_exact(lo)}, "
            f"{format_exact(hi)}] cm; calibrated to its upper end (more noise than the quantile "
            f"itself asks, so the quantile's own epsilon is larger still): "
            f"{te.statement()}")
    scope = (f"seed 004's mixture {mix} (h, h' independent); quantile bracketed by bisection on "
             f"the exact exceedance probability, each step decided exactly; one height in "
             f"[{c['domain'][0]}, {c['domain'][1]}] cm (proof: proofs/s004-true-epsilon.md for "
             f"the true epsilon)")
    return StatementResult(verdict, text, scope,
                           {"quantile": [format_exact(lo), format_exact(hi)],
                            "true_epsilon": format_exact(te.exact),
                            "witness": {k: format_exact(v[0] if isinstance(v, tuple) else v)
                                        for k, v in te.witness.items()}})


def _printed_series() -> dict[str, dict[int, object]]:
    """The exact sensitivity of each of seed 003's printed series (scenario, column, mode,
    query) at every k the notebook ran."""
    series: dict[str, dict[int, object]] = {}
    for c in seed003_claims(None):
        name, k_part, query = c.id.rsplit("/", 2)
        series.setdefault(f"{name}/{query}", {})[int(k_part[2:])] = c.check().sensitivity.value
    return series


def _larger_k_claim() -> StatementResult:
    series = _printed_series()
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
            f"{format_value(va)} at k={a}, {format_value(vb)} at k={b}")
    return StatementResult(Verdict.VIOLATED, text, scope, data)


SHAPES = ("constant", "linear", "plateau", "concave", "falls", "other")
"""The shapes a series of sensitivities against k is sorted into (:func:`curve_shape`)."""


def curve_shape(values: list) -> str:
    """The shape of exact values at consecutive k, from the signs and sizes of the steps
    (exact comparisons): ``constant`` (no step moves), ``linear`` (every step the same
    rise), ``plateau`` (it rises, then every later step is flat), ``concave`` (it rises at
    the last step and no step rises more than the one before: a logarithm's shape, as far
    as a few points can tell), ``falls`` (some step falls), else ``other`` (e.g. a rise
    after a flat step, or a step rising more than the one before it). Raises
    :class:`~exactdp.errors.Undecided` if a comparison cannot be decided.

    >>> curve_shape([1, 2, 3]), curve_shape([1, 2, 2]), curve_shape([9, 18, 26, 33])
    ('linear', 'plateau', 'concave')
    >>> curve_shape([Fraction(1, 2), Fraction(1, 2), 1])
    'other'
    """
    steps = [b - a for a, b in zip(values, values[1:])]
    signs = [compare(d, 0) for d in steps]
    if any(x < 0 for x in signs):
        return "falls"
    if all(x == 0 for x in signs):
        return "constant"
    if all(compare(d, steps[0]) == 0 for d in steps):
        return "linear"
    if signs[-1] == 0:
        first_flat = signs.index(0)
        return "plateau" if all(x == 0 for x in signs[first_flat:]) else "other"
    if all(compare(b, a) <= 0 for a, b in zip(steps, steps[1:])):
        return "concave"
    return "other"


def _shapes_claim() -> StatementResult:
    series = _printed_series()
    shapes: dict[str, str] = {}
    short = []
    for name, by_k in series.items():
        ks = sorted(by_k)
        if len(ks) < 3:
            short.append(name)
            continue
        shapes[name] = curve_shape([by_k[k] for k in ks])
    counts = {shape: sum(v == shape for v in shapes.values()) for shape in SHAPES}
    outside = [name for name, shape in shapes.items() if shape in ("falls", "other")]
    scope = (f"the exact sensitivity of each of seed 003's printed series at every k it ran "
             f"({len(shapes)} series with 3 or 4 values of k; the {len(short)} series of the "
             f"small dataset, run at k = 1 only, have no shape), each step compared exactly; "
             f"'logarithmic' is read as concave growth, all that 3 or 4 points can show")
    data = {"counts": counts, "outside": outside, "series": len(shapes), "no_shape": len(short)}
    fitting = ", ".join(f"{counts[s]} {s}" for s in ("constant", "linear", "plateau", "concave"))
    if not outside:
        return StatementResult(Verdict.HOLDS, f"every series is one of the three shapes ({fitting})",
                               scope, data)
    name = outside[0]
    ks = sorted(series[name])
    values = ", ".join(f"{format_value(series[name][k])} at k={k}" for k in ks)
    text = (f"{len(outside)} of {len(shapes)} series fit none of plateau, logarithmic (concave) "
            f"or linear ({fitting}; {counts['other']} other, {counts['falls']} falling), e.g. "
            f"{name}: {values}")
    return StatementResult(Verdict.VIOLATED, text, scope, data)


DENSITY_FIGURE: dict[str, Any] = {"range": (0, 220), "scan": (150, 190), "missing_below": "1e-9"}
"""Seed 004's plotted range of heights (cm), the integers scanned for the density's slope,
and the bound on the mass the plotted range leaves out."""


def _density_claim() -> StatementResult:
    mix, c = height_mixture(), DENSITY_FIGURE
    lo, hi = c["range"]
    missing = 1 - mix.mass(lo, hi)
    limit = Fraction(c["missing_below"])
    held = compare(missing, limit) < 0
    signs = [(h, compare(mix.slope(h), 0)) for h in range(c["scan"][0], c["scan"][1] + 1)]
    peaks = [h for (h, a), (_, b) in zip(signs, signs[1:]) if a > 0 and b < 0]
    dips = [h for (h, a), (_, b) in zip(signs, signs[1:]) if a < 0 and b > 0]
    sigma = mix.sigma
    band = mix.mass(mix.mean - sigma, mix.mean + sigma)
    band_text = f"[{decimal_at_most(band, 4)}, {decimal_at_least(band, 4)}]"
    text = (f"the general density p(h) = {mix} leaves {decimal_at_least(missing, 3)} (at most) "
            f"of its mass outside the plotted {lo}..{hi} cm"
            f"{' (below ' + c['missing_below'] + ')' if held else ', not below ' + c['missing_below']}; "
            f"it has {len(peaks)} peaks, in "
            + ", ".join(f"[{h}, {h + 1}]" for h in peaks)
            + (" and a dip in " + ", ".join(f"[{h}, {h + 1}]" for h in dips) if dips else "")
            + f" cm (the slope changes sign there); the shaded band mu +- sigma holds {band_text} "
            f"of the heights")
    scope = (f"the mixture's exact density, its mass by erf and its slope's sign at each integer "
             f"{c['scan'][0]}..{c['scan'][1]} cm decided exactly (exactdp.numeric.decide.compare); "
             f"the figure is exactdp.plotting.plot_mixture_density, every point an exact value")
    return StatementResult(Verdict.HOLDS if held else Verdict.VIOLATED, text, scope,
                           {"missing_mass": [str(decimal_at_most(missing, 4)),
                                             str(decimal_at_least(missing, 4))],
                            "peaks": [[h, h + 1] for h in peaks], "dips": [[h, h + 1] for h in dips],
                            "band_mass": [str(decimal_at_most(band, 6)), str(decimal_at_least(band, 6))]})


def claims(all_k: bool = False) -> list[PrivacyClaim]:
    return [
        PrivacyClaim("s002/exponential/float-sampler", _S002_EXP,
                     "mechanism_exponential_discrete (float64 likelihoods, argmax(cdf >= "
                     "np.random.uniform())) returns an epsilon-DP sample", _float_sampler_claim,
                     "violated"),
        PrivacyClaim("s002/exercise/duplicate/code-runs", _S002_EX1,
                     "the exercise's duplicate(x), which starts with assert instanceof(x, list), "
                     "runs on a list", _duplicate_claim, "violated"),
        PrivacyClaim("s000/clip-sweep/noise-overwhelms-signal", _S000_CLIP,
                     "as the upper bound gets really large the noise overwhelms the signal (the "
                     "log-scale sweep fluctuates wildly at its largest bounds)",
                     _noise_vs_signal_claim, "holds"),
        PrivacyClaim("s003/limitations/universe-size-sweep",
                     "seed 003 notebook (Global Sensitivity From Scratch), Limitations",
                     "the functions that calculate the sensitivities do not scale well with the "
                     "size of the universe", _universe_sweep_claim, "holds"),
        PrivacyClaim("s004/laplace/high-percentile",
                     "seed 004 (Sherpa.ai, The Laplace mechanism), section 3) Estimating the "
                     "sensitivity", "some high percentile of |h - h'| could be used as the "
                     "sensitivity of Laplace noise (here the 99th, epsilon = 1)",
                     _percentile_claim, "violated"),
        PrivacyClaim("s003/conclusions/larger-k-increases", _S003_CONC,
                     "a larger Hamming distance increases the sensitivities", _larger_k_claim,
                     "violated"),
        PrivacyClaim("s003/conclusions/curve-shapes", _S003_CONC,
                     "sensitivities, in general, seem to either plateau, have a logarithmic "
                     "behaviour, or be linear (in the Hamming distance k)", _shapes_claim,
                     "violated"),
        PrivacyClaim("s004/mixture/density-figure",
                     "seed 004 (Sherpa.ai, The Laplace mechanism), section 2.1) General "
                     "distribution", "the plot shows the height distribution of the populations "
                     "(male, female and the general mixture) over 0..220 cm", _density_claim,
                     "holds"),
        PrivacyClaim("s000/adult/education-counts-add-up", _S000_COUNT,
                     "the records with education above 10 (10517) and at or below 10 (22046) are "
                     "the dataset's 32563 rows", _counts_claim, "holds"),
        PrivacyClaim("s000/adult/mean-is-sum-over-count", _S000_MEAN,
                     "mean() and sum / count both print 41.973091185699346 for the ages of the "
                     "10517 records with education above 10, whose sum is 441431", _mean_claim,
                     "holds"),
    ]
