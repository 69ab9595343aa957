"""The audit suite of Tumult Core (``exactdp audit tumult``).

Each audit runs Tumult Core's own code: the noise measurements' ``privacy_function`` and
the noise parameter their samplers really use (``ExactNumber.to_float(round_up=True)``),
and the Spark transformations ``Count`` and ``Sum`` on every dataset of a small space in a
local Spark session, their answers taken at their exact binary values. The exact truth
comes from exactdp: the calibrations of :mod:`exactdp.mechanisms`, the enumeration engine
of :mod:`exactdp.checkers.sensitivity`, and the bit-exact model of Spark's partitioned sum
(:func:`exactdp.adapters.tumult.spark_sum_model`), checked against Spark on random inputs
before an audit relies on it. Every witness is replayed through the library.

Tumult Core pins ``numpy<2`` (CPython < 3.13) and needs pyspark and Java: it runs in an
environment of its own (``docs/tumult-environment.md``, ``.ci/tumult``).

Versions: checked on tmlt.core 0.20.0 and on 0.19.1, the version tmlt.analytics 0.21.0 (the
newest) pins (``tmlt-core<0.20,>=0.19.1``). Between the two, the code these audits run
differs in types and in how the samplers call Arb (0.19.1 bundles its own bindings, 0.20.0
uses python-flint), not in the claims, the noise parameters or Spark's sum; every audit
gives the same verdict on both.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.audits import objects_tumult, suite_tumult_api
from exactdp.audits.base import Audit, Finding, Settings, Severity
from exactdp.checkers.results import Evidence, Verdict, format_value
from exactdp.numeric.exact import from_float
from exactdp.adapters import tumult
from exactdp.adapters._calls import Replay, call_library
from exactdp.checkers.float_witness import search_float_witness
from exactdp.errors import LibraryCallFailed
from exactdp.mechanisms.calibration.discrete import discrete_gaussian_rho, discrete_laplace_epsilon
from exactdp.mechanisms.calibration.laplace import laplace_epsilon
from exactdp.numeric.decide import compare as exact_compare

__all__ = ["DISTRIBUTION", "EXTRA", "LIBRARY", "CHECKED_ON", "SUPPORTED", "audits", "primitives", "NOT_AUDITED"]

DISTRIBUTION = "tmlt.core"
EXTRA = "tumult"
INSTALL_NOTE = "in an environment of its own: numpy<2, pyspark and Java 17; .ci/tumult and docs/tumult-environment.md"
"""Said when Tumult Core is missing: it cannot share the test extra's environment."""
LIBRARY = "tmlt.core"
CHECKED_ON = ("0.19.1", "0.20.0")
"""The tmlt.core versions the suite was run and reviewed on (0.19.1 beside tmlt.analytics 0.21.0)."""
SUPPORTED = ">=0.19.1"
"""The range the suite applies to (the ``tumult`` extra's); another version is refused
unless ``--any-version``."""

_PACKAGES = ("tmlt.core.transformations", "tmlt.core.measurements")

_NOT_PRIMITIVES = {
    # Transformations on one Spark Row, with NullMetric on both sides: no stability claim of
    # their own; they are the row maps inside Map, FlatMap, FlatMapByID (audited there)
    "tmlt.core.transformations.spark_transformations.map.RowToRowTransformation",
    "tmlt.core.transformations.spark_transformations.map.RowToRowsTransformation",
    "tmlt.core.transformations.spark_transformations.map.RowsToRowsTransformation",
    # the base of the add_remove_ids *Value transformations: its constructor refuses to be
    # called directly ("Use one of the subclasses deriving this"); the subclasses are listed
    "tmlt.core.transformations.spark_transformations.add_remove_ids.TransformValue",
}

_ACCOUNTANTS = (
    # what keeps a privacy budget: the accountant, and the queryable of SequentialComposition
    # that spends it (the other queryables answer or forward queries and keep no budget)
    "tmlt.core.measurements.interactive_measurements.PrivacyAccountant",
    "tmlt.core.measurements.interactive_measurements.SequentialQueryable",
)


def primitives() -> list[str]:
    """Every public, concrete Transformation and Measurement class of Tumult Core's
    ``tmlt.core.transformations`` and ``tmlt.core.measurements`` packages (walked, so the list
    grows with the library), without the row functions and the uninstantiable base above,
    and the budget accountants of ``interactive_measurements``."""
    import importlib
    import inspect
    import pkgutil

    from tmlt.core.measurements.base import Measurement
    from tmlt.core.transformations.base import Transformation

    found = []
    for package_name in _PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            module = importlib.import_module(info.name)
            for name, obj in sorted(vars(module).items()):
                if (inspect.isclass(obj) and obj.__module__ == module.__name__ and not name.startswith("_")
                        and issubclass(obj, (Transformation, Measurement)) and not inspect.isabstract(obj)):
                    qualified = f"{module.__name__}.{name}"
                    if qualified not in _NOT_PRIMITIVES:
                        found.append(qualified)
    return sorted(found) + list(_ACCOUNTANTS)


_WHERE = {
    "AddGaussianNoise": "noise_mechanisms", "NoisyQuantile": "pandas_measurements.series",
    "AggregateByColumn": "pandas_measurements.dataframe", "ApplyInPandas": "spark_measurements",
    "SparseVectorPrefixSums": "spark_measurements", "GeometricPartitionSelection": "spark_measurements",
    "RhoZCDPToApproxDP": "converters",
}

NOT_AUDITED = {f"tmlt.core.measurements.{module}.{name}": f"exactdp cannot judge it: {objects_tumult.REFUSED[name]}"
               for name, module in _WHERE.items()}
"""The listed classes with no audit, with the reader's reason (objects_tumult.REFUSED)."""

_SRC = "tmlt.core 0.20.0: tmlt/core/"
_NOISE = "tmlt.core.measurements.noise_mechanisms."
_AGG = "tmlt.core.transformations.spark_transformations.agg."
_SUM_SRC = _SRC + "transformations/spark_transformations/agg.py (Sum.stability_function, Sum.__call__)"
_NOISE_SRC = _SRC + "measurements/noise_mechanisms.py (privacy_function, __call__)"


def _adapter():
    tumult.require()
    return tumult


def _text(value: Any) -> str:
    return format_value(value)


# --- noise measurements: the claimed privacy vs the noise the sampler really adds ----------


def _noise_cases(kind: str):
    """(constructor text, measurement factory, parameter, d_in values) per case: ordinary
    parameters, then the edges (a parameter of 1e-6/3, so epsilon near 3e6; one of
    1e300/3, so epsilon near 3e-300)."""
    import sympy

    _EDGES = [sympy.Rational(1, 3 * 10**6), sympy.Rational(10**300, 3)]
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain
    from tmlt.core.measurements.noise_mechanisms import (
        AddDiscreteGaussianNoise,
        AddGeometricNoise,
        AddLaplaceNoise,
    )

    if kind == "laplace":
        params = [1, sympy.Rational(1, 3), sympy.Rational(10, 3), sympy.Rational(7, 2), sympy.sqrt(2),
                  sympy.Rational(10**20, 3)] + _EDGES
        return [(f"AddLaplaceNoise(NumpyFloatDomain(), scale={p})",
                 AddLaplaceNoise(NumpyFloatDomain(), scale=p), p, [1, 3, sympy.Rational(1, 2)])
                for p in params]
    if kind == "geometric":
        # alpha < 10 samples two geometrics of parameter exp(-1/alpha_float); alpha >= 10
        # samples _sample_dlaplace(alpha_float): both paths are covered
        params = [1, sympy.Rational(1, 3), sympy.Rational(10, 3), 12, sympy.Rational(100, 7)] + _EDGES
        return [(f"AddGeometricNoise(alpha={p})", AddGeometricNoise(alpha=p), p, [1, 2, 5])
                for p in params]
    params = [1, sympy.Rational(1, 3), 2, sympy.Rational(25, 7), sympy.Rational(10**6, 3)] + _EDGES
    return [(f"AddDiscreteGaussianNoise(sigma_squared={p})", AddDiscreteGaussianNoise(sigma_squared=p),
             p, [1, 2, 3]) for p in params]


def _noise_truth(kind: str, sampled: Fraction, d_in: Any) -> Fraction:
    if kind == "laplace":
        return laplace_epsilon(str(sampled), str(d_in)).exact
    if kind == "geometric":
        return discrete_laplace_epsilon(int(d_in), sampled)
    return discrete_gaussian_rho(int(d_in), sampled)


_NOISE_SCOPE = {
    "laplace": ("the sampler (tmlt.core.random.laplace) draws p uniformly as a shrinking arb "
                "ball and returns the one float64 the ball's inverse-CDF image rounds to: a "
                "rounding of an exact Laplace(b_float) sample, i.e. post-processing, so its "
                "epsilon is d_in/b_float exactly; b_float = scale.to_float(round_up=True) read "
                "from the library"),
    "geometric": ("the sampler draws the exact discrete Laplace of scale alpha_float = "
                  "alpha.to_float(round_up=True) (a difference of two geometrics with "
                  "x = 1/Fraction(alpha_float) below 10, _sample_dlaplace(alpha_float) above): "
                  "epsilon = d_in/alpha_float exactly"),
    "discrete-gaussian": ("the sampler is sample_dgauss(sigma2_float) (Canonne-Kamath-Steinke, "
                          "exact rational arithmetic) with sigma2_float = "
                          "sigma_squared.to_float(round_up=True): rho = d_in**2/(2 sigma2_float) "
                          "exactly (CKS20 Thm 4)"),
}


def _sp(value):
    import sympy

    return sympy.sympify(value)


def _check_noise(kind: str) -> Callable[[], Finding]:
    def check() -> Finding:
        import sympy

        tumult = _adapter()

        worst = None  # (margin sign, case)
        tight = True
        rows = []
        for text, m, param, d_ins in _noise_cases(kind):
            attr = {"laplace": "scale", "geometric": "alpha"}.get(kind, "sigma_squared")
            stored = call_library(f"{text}.{attr}.to_float(round_up=True)",
                                  getattr(m, attr).to_float, round_up=True)
            sampled = from_float(stored) if isinstance(stored, float) else Fraction(stored)
            for d_in in d_ins:
                claim = tumult.exact(call_library(f"{text}.privacy_function({d_in})",
                                                  m.privacy_function, d_in))
                truth = _noise_truth(kind, sampled, d_in)
                sign = compare(claim, truth)
                tight = tight and sign == 0
                rows.append((text, d_in, claim, truth, param))
                if sign < 0 and worst is None:
                    worst = {"measurement": text, "d_in": _text(tumult.exact(d_in)),
                             "claimed": _text(claim), "sampled_parameter": _text(sampled),
                             "true": _text(truth)}
        scope = f"{len(rows)} (parameter, d_in) cases; " + _NOISE_SCOPE[kind]
        params = sorted({float(sympy.N(_sp(r[4]), 6)) for r in rows})
        settings = Settings(len(rows), f"{ {'laplace': 'scale', 'geometric': 'alpha'}.get(kind, 'sigma_squared')} "
                                       f"{params[0]:.3g}..{params[-1]:.3g}, d_in "
                                       f"{', '.join(sorted({_text(tumult.exact(r[1])) for r in rows}))}")
        if worst is not None:
            # replay: the library's own rounding, asked again, is below the exact parameter
            replay = Replay.CONFIRMED if compare(Fraction(worst["sampled_parameter"]),
                                                 Fraction(worst["true"])) != 0 else Replay.MODEL_MISMATCH
            return Finding(claim=worst["claimed"], truth=worst["true"], verdict=Verdict.VIOLATED,
                           witness=worst, replay=replay, evidence=Evidence.IDEAL_NOISE, scope=scope,
                           settings=settings)
        loosest = max(rows, key=lambda r: float(r[2]) / float(r[3]))
        return Finding(
            claim=f"{_text(loosest[2])} ({loosest[0]}, d_in={loosest[1]}: the loosest of "
                  f"{len(rows)} cases)",
            truth=f"{_text(loosest[3])} there; claim >= truth in all {len(rows)} cases",
            verdict=Verdict.HOLDS_TIGHT if tight else Verdict.HOLDS, evidence=Evidence.IDEAL_NOISE,
            scope=scope, settings=settings,
            note="" if tight else (
                "the sampler's parameter, rounded up to a float, makes the noise slightly larger "
                "than the claim assumes: the claim exceeds the truth by a relative "
                f"{float(loosest[2]) / float(loosest[3]) - 1:.2g} at most in these cases"))
    return check


# --- ExactNumber.to_float: the direction every float parameter relies on -------------------


_TO_FLOAT_CLAIM = "to_float(round_up=True) is never below the exact value, round_up=False never above"


def _check_to_float() -> Finding:
    import sympy
    from tmlt.core.utils.exact_number import ExactNumber


    values = [sympy.Rational(1, 3), sympy.Rational(-1, 3), sympy.Rational(10, 3), sympy.Rational(2, 7),
              sympy.Rational(10**20, 3), sympy.Rational(1, 3 * 10**20), sympy.Rational(1, 3 * 10**300),
              sympy.Rational(-1, 3 * 10**300), sympy.Rational(2**60 + 1, 2**60), sympy.sqrt(2),
              sympy.sqrt(3) / 7, sympy.Rational(123456789, 1000)]
    worst = None
    widest = (Fraction(0), None, None, None)
    for v in values:
        for up in (True, False):
            got = call_library(f"ExactNumber({v}).to_float(round_up={up})",
                               ExactNumber(v).to_float, round_up=up)
            g = from_float(got) if isinstance(got, float) else Fraction(got)
            sign = compare(g, v)
            if (up and sign < 0) or (not up and sign > 0):
                worst = worst or {"value": str(v), "round_up": up, "returned": repr(got)}
            if v.is_Rational and v != 0:
                rel = abs(g - Fraction(int(v.p), int(v.q))) / abs(Fraction(int(v.p), int(v.q)))
                if rel > widest[0]:
                    widest = (rel, v, up, got)
    scope = (f"{len(values)} values ({', '.join(str(v) for v in values)}) x round_up in "
             f"(True, False), compared exactly")
    note = ""
    if widest[1] is not None and widest[0] > Fraction(1, 2**40):
        note = (f"direction right, magnitude not: ExactNumber({sympy.N(widest[1], 5)}).to_float(round_up="
                f"{widest[2]}) returns {widest[3]!r} (the fixed nudge of 1e-15 in to_float); "
                "see tumult/sum/tiny-upper-bound for where that matters")
    if worst is not None:
        again = ExactNumber(sympy.sympify(worst["value"])).to_float(round_up=worst["round_up"])
        replay = Replay.of(repr(again) == worst["returned"])
        return Finding(claim=_TO_FLOAT_CLAIM,
                       truth=f"{worst['returned']} is on the wrong side of {worst['value']}",
                       verdict=Verdict.VIOLATED, witness=worst, replay=replay, evidence=Evidence.BIT_EXACT,
                       scope=scope, note=note)
    return Finding(claim=_TO_FLOAT_CLAIM,
                   truth="on the right side in every case", verdict=Verdict.HOLDS,
                   evidence=Evidence.BIT_EXACT_GRID, scope=scope,
                   note=note)


# --- Spark transformations: Count and Sum, enumerated over small spaces ---------------------


def _spark_sum(tumult, kind: str):
    """Spark's own sum through Tumult's Sum with bounds too wide to clamp the test values."""
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    if kind == "float":
        import sympy

        edge = 2**80 + sympy.Rational(1, 2)  # not an integer: Tumult passes a float to Spark
        wide = Sum(tumult.float_domain(), SymmetricDifference(), "X", -edge, edge)
    else:
        wide = Sum(tumult.integer_domain(), SymmetricDifference(), "X", -(2**63), 2**63 - 1)
    return lambda parts, k: tumult.run_on_rows(wide, parts, k, what="Sum (unclamped)")


def _model_verified(tumult, sum_t, kind: str, answers: dict) -> tuple[bool, str]:
    """Whether the model of Sum (Tumult's clamp, then Spark's sum) matched Spark on random
    partitioned inputs and the library on every dataset of the audited space."""
    bad = tumult.check_spark_sum_model(_spark_sum(tumult, kind), trials=6, seed=10, kind=kind)
    if bad:
        return False, f"the Spark sum model differed from Spark on {len(bad)} of 6 random inputs"
    for ds, value in answers.items():
        if tumult.sum_call_model(sum_t, [list(ds)], kind) != value:
            return False, f"the model of Sum differed from the library on {[str(v) for v in ds]}"
    return True, ("modelled bit for bit: Tumult's clamp to its own float bounds, then Spark's sum "
                  "(sequential per partition, partials folded in partition order), checked on 6 "
                  "random partitioned inputs and on every dataset here")


def _sum_finding(tumult, sum_t, universe, sizes, kind: str, *, note: str = "",
                 metric: str = "symmetric") -> Finding:
    claim = tumult.exact(sum_t.stability_function(1))
    result, answers = tumult.enumerate_library(sum_t, universe, sizes, kind, what="Sum",
                                               metric=metric)
    modelled, how = _model_verified(tumult, sum_t, kind, answers)
    truth = result.value
    scope = f"{result.scope.describe()}; rows in ascending order, one Spark partition; {how}"
    sign = compare(truth, claim)
    if sign > 0:
        w = result.witness
        x = [float(v) if kind == "float" else int(v) for v in w.x]
        xp = [float(v) if kind == "float" else int(v) for v in w.x_prime]
        fx = tumult.run_on_rows(sum_t, [x], kind, what="Sum (replay)")
        fxp = tumult.run_on_rows(sum_t, [xp], kind, what="Sum (replay)")
        replay = Replay.of(compare(abs(fx - fxp), claim) > 0)
        witness = {"x": [repr(v) for v in x], "x_prime": [repr(v) for v in xp],
                   "fx": _text(fx), "fx_prime": _text(fxp), "distance": _text(abs(fx - fxp)),
                   "d_in": 1}
        # the library's own sums on the witness, replayed
        return Finding(claim=_text(claim), truth=_text(truth), verdict=Verdict.VIOLATED,
                       witness=witness, replay=replay, evidence=Evidence.BIT_EXACT, scope=scope,
                       note=note)
    verdict = Verdict.HOLDS_TIGHT if sign == 0 else Verdict.HOLDS
    # the library's own answers on every dataset of the space; a model that disagrees with
    # them withholds the verdict (evidence None)
    return Finding(claim=_text(claim), truth=_text(truth), verdict=verdict,
                   evidence=Evidence.BIT_EXACT_GRID if modelled else None, scope=scope, note=note)


def _check_count() -> Finding:
    tumult = _adapter()
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Count

    count = Count(tumult.float_domain(), SymmetricDifference())
    claim = tumult.exact(count.stability_function(1))
    result, answers = tumult.enumerate_library(count, [0.0, 1.0], (0, 3), "float", what="Count")
    exact_counts = all(v == len(ds) for ds, v in answers.items())
    sign = compare(result.value, claim)
    scope = (f"{result.scope.describe()}; the library's own answer on every dataset "
             f"({'each equal to the dataset size' if exact_counts else 'NOT all equal to the size'})")
    if sign > 0:  # pragma: no cover - would be a Spark count bug
        return Finding(claim=_text(claim), truth=_text(result.value), verdict=Verdict.VIOLATED,
                       witness=result.witness.to_dict(), evidence=Evidence.BIT_EXACT, scope=scope,
                       note="witness not replayed: a count difference above 1 would be a Spark bug")
    return Finding(claim=_text(claim), truth=_text(result.value),
                   verdict=Verdict.HOLDS_TIGHT if sign == 0 else Verdict.HOLDS,
                   evidence=Evidence.BIT_EXACT_GRID if exact_counts else None, scope=scope)


def _check_sum_float() -> Finding:
    tumult = _adapter()
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    s = Sum(tumult.float_domain(), SymmetricDifference(), "X", -1, 1)
    return _sum_finding(tumult, s, [-1.0, 1.0, 3 * 2.0**-52], (0, 3), "float",
                        note="float64 rounding: adding the row 1.0 to a sum of 1 + 3*2**-52 rounds "
                             "up (a tie to even), so the sum moves by 1 + 2**-52 > max(|L|, |U|) = 1")


def _check_sum_float_hamming() -> Finding:
    tumult = _adapter()
    from tmlt.core.metrics import HammingDistance
    from tmlt.core.transformations.spark_transformations.agg import Sum

    s = Sum(tumult.float_domain(), HammingDistance(), "X", -1, 1)
    return _sum_finding(tumult, s, [-1.0, 1.0, 3 * 2.0**-52], (3, 3), "float", metric="substitute",
                        note="float64 rounding: changing a row from -1 to 1 in a sum that reaches "
                             "1 + 3*2**-52 moves it by 2 + 2**-52 > U - L = 2")


def _check_sum_int_bounded() -> Finding:
    tumult = _adapter()
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    s = Sum(tumult.integer_domain(), SymmetricDifference(), "X", -3, 5)
    return _sum_finding(tumult, s, [-4, 0, 6], (0, 2), "int")


def _check_sum_int_overflow() -> Finding:
    tumult = _adapter()
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    s = Sum(tumult.integer_domain(), SymmetricDifference(), "X", 0, 2**62)
    return _sum_finding(tumult, s, [0, 2**62], (0, 2), "int",
                        note="Spark sums a bigint column in a 64-bit long that wraps around "
                             "(spark.sql.ansi.enabled=false, Spark 3.5's default), while Sum accepts "
                             "integer bounds up to 2**970: two rows of 2**62 sum to -2**63")


def _check_sum_equal_bounds() -> Finding:
    tumult = _adapter()
    import sympy
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    third = sympy.Rational(1, 3)
    s = Sum(tumult.float_domain(), SymmetricDifference(), "X", third, third)
    return _sum_finding(tumult, s, [0.0, 5.0], (0, 1), "float",
                        note="with lower == upper, Sum.__call__ clamps to lower.to_float(round_up=True) "
                             "(the code's TODO(#1023)), a float above the bound the stability "
                             "function uses")


def _check_sum_tiny_upper() -> Finding:
    tumult = _adapter()
    import sympy
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum

    s = Sum(tumult.float_domain(), SymmetricDifference(), "X", 0, sympy.Rational(1, 3 * 10**300))
    return _sum_finding(tumult, s, [0.0, 5.0], (0, 1), "float",
                        note="upper.to_float(round_up=False) nudges by a fixed -1e-15 and returns "
                             "-1e-15 for upper = 1/(3*10**300): every value above it is clamped to "
                             "-1e-15, outside [lower, upper]")


# --- AddUniqueColumn: the ID a row gets, and signed zeros ------------------------------------


def _unhex(identifier: str) -> str:
    """An AddUniqueColumn ID (hex of a JSON text) as its JSON text."""
    return bytes.fromhex(identifier).decode("utf-8")


def _check_add_unique_column() -> Finding:
    tumult = _adapter()
    from collections import Counter
    from itertools import product

    from tmlt.core.transformations.spark_transformations.id import AddUniqueColumn


    t = AddUniqueColumn(tumult.float_domain(), "ID")
    claim = tumult.exact(t.stability_function(1))
    universe = [0.0, -0.0, 1.0]  # -0.0 and 0.0: one value to Spark's grouping, two to to_json

    def key(rows: tuple) -> tuple:  # rows with their signs (0.0 == -0.0 in Python)
        return tuple(repr(v) for v in rows)

    outputs: dict[tuple, Counter] = {}

    def output(rows: tuple) -> Counter:
        if key(rows) not in outputs:
            df = call_library(f"AddUniqueColumn(...)({list(rows)})", t, tumult._frame([list(rows)], "float"))
            outputs[key(rows)] = Counter((repr(r["X"]), r["ID"]) for r in df.collect())
        return outputs[key(rows)]

    def distance(a: Counter, b: Counter) -> int:
        # IfGroupedBy(ID, SymmetricDifference): per ID, the rows' symmetric difference, summed
        return sum(((a - b) + (b - a)).values())

    best, pairs = None, 0
    for n in (0, 1):
        for x in product(universe, repeat=n):
            for u in universe:
                for i in range(n + 1):
                    xp = x[:i] + (u,) + x[i:]
                    pairs += 1
                    d = distance(output(x), output(xp))
                    if best is None or d > best[0]:
                        best = (d, x, xp)
    d, x, xp = best
    scope = (f"{pairs} pairs: x = every row list of length 0..1 over {{0.0, -0.0, 1.0}}, x' = x with "
             "one row inserted at each position (one Spark partition, rows in that order); the "
             "output distance computed as IfGroupedBy(ID, SymmetricDifference) on the collected rows")
    if compare(Fraction(d), claim) <= 0:
        return Finding(claim=_text(claim), truth=str(d), scope=scope, evidence=Evidence.BIT_EXACT_GRID,
                       verdict=Verdict.HOLDS_TIGHT if d == claim else Verdict.HOLDS)
    fx, fxp = tumult._frame([list(x)], "float"), tumult._frame([list(xp)], "float")
    d_in = tumult.exact(call_library("SymmetricDifference().distance", t.input_metric.distance,
                                     fx, fxp, t.input_domain))
    d_out = tumult.exact(call_library("IfGroupedBy(ID, SymmetricDifference()).distance",
                                      t.output_metric.distance, t(fx), t(fxp), t.output_domain))
    replay = Replay.of(d_in == 1 and d_out > claim)
    witness = {"x": [repr(v) for v in x], "x_prime": [repr(v) for v in xp],
               "ids_x": sorted(_unhex(i) for _, i in output(x)),
               "ids_x_prime": sorted(_unhex(i) for _, i in output(xp)),
               "d_in": _text(d_in), "d_out": _text(d_out)}
    return Finding(claim=_text(claim), truth=str(d), verdict=Verdict.VIOLATED, witness=witness,
                   replay=replay, evidence=Evidence.BIT_EXACT, scope=scope + "; the witness's d_in and d_out recomputed by the "
                   "library's own metrics",
                   note="Spark's Window.partitionBy and orderBy treat -0.0 and 0.0 as one value, so "
                        "adding -0.0 before 0.0 takes rank 1 from the existing row: its ID (to_json "
                        "of the row and its rank) changes, and two IDs appear where one should")


# --- the privacy accountant: what it lets through against what the noise costs ---------------


def _accountant_runs():
    """(measure, budget, query text, query factory, count) per setting: ``count`` queries
    whose claims add up to the budget exactly, then one more that must be refused."""
    import sympy
    from tmlt.core.measurements.noise_mechanisms import AddDiscreteGaussianNoise, AddGeometricNoise

    return [
        ("PureDP", 1, "AddGeometricNoise(alpha=3)", lambda: AddGeometricNoise(alpha=3), 3),
        ("PureDP", sympy.Rational(1, 10), "AddGeometricNoise(alpha=30)", lambda: AddGeometricNoise(alpha=30), 3),
        ("RhoZCDP", sympy.Rational(1, 2), "AddDiscreteGaussianNoise(sigma_squared=3)",
         lambda: AddDiscreteGaussianNoise(sigma_squared=3), 3),
        ("RhoZCDP", sympy.Rational(1, 10**6), "AddDiscreteGaussianNoise(sigma_squared=3*10**6/2)",
         lambda: AddDiscreteGaussianNoise(sigma_squared=sympy.Rational(3 * 10**6, 2)), 3),
    ]


def _accountant_session(measure: str, budget, factory, count: int) -> dict:
    """One PrivacyAccountant (launched from a SequentialComposition on a NumPy integer, d_in
    = 1): ``count`` queries measured, then one more; what it answered, refused and kept."""
    import numpy as np
    from tmlt.core.domains.numpy_domains import NumpyIntegerDomain
    from tmlt.core.measurements.interactive_measurements import PrivacyAccountant, SequentialComposition
    from tmlt.core.measures import InsufficientBudgetError, PureDP, RhoZCDP
    from tmlt.core.metrics import AbsoluteDifference


    sc = call_library("SequentialComposition(...)", SequentialComposition, NumpyIntegerDomain(),
                      AbsoluteDifference(), {"PureDP": PureDP, "RhoZCDP": RhoZCDP}[measure](), 1, budget)
    acc = call_library("PrivacyAccountant.launch", PrivacyAccountant.launch, sc, np.int64(3))
    answered, claims, true = 0, [], []
    for _ in range(count + 1):
        m = factory()
        claim = objects_tumult.exact_value(call_library("privacy_function(1)", m.privacy_function, 1))
        try:
            acc.measure(m)
        except InsufficientBudgetError:
            break
        except Exception as e:  # noqa: BLE001 - any other library error names the call

            raise LibraryCallFailed(f"PrivacyAccountant.measure raised {type(e).__name__}: {e}") from e
        answered += 1
        claims.append(claim)
        true.append(objects_tumult.privacy_loss(m, 1).hi)
    remaining = objects_tumult.exact_value(acc.privacy_budget)
    return {"answered": answered, "claims": claims, "true": true, "remaining": remaining,
            "refused_extra": answered <= count}


def _check_accountant() -> Finding:
    _adapter()
    rows, bad, count_of = [], None, {}
    for measure, budget, text, factory, count in _accountant_runs():
        count_of[(measure, objects_tumult.exact_value(budget))] = count
        got = _accountant_session(measure, budget, factory, count)
        b = objects_tumult.exact_value(budget)
        spent_true = sum(got["true"], Fraction(0))
        rows.append((measure, b, text, got))
        # safe iff what the noise really cost plus what the accountant says is left is within
        # the budget, and a query beyond the budget is refused
        over = compare(spent_true + got["remaining"], b) > 0
        beyond = compare(sum(got["claims"], Fraction(0)), b) > 0  # answered past its own budget
        if (over or beyond) and bad is None:
            bad = (measure, budget, text, factory, count, got)
    scope = ("a PrivacyAccountant launched from SequentialComposition(NumpyIntegerDomain(), AbsoluteDifference(), "
             "measure, d_in=1, budget) on one integer; queries measured until the budget is spent, then one "
             "more; each query's true loss is the noise's (its sampler's parameter, the noise taken as ideal)")
    settings = Settings(len(rows), "; ".join(f"{m} budget {_text(b)}: {t} x {g['answered']}" for m, b, t, g in rows))
    if bad is not None:
        measure, budget, text, factory, count, got = bad
        b = objects_tumult.exact_value(budget)
        again = _accountant_session(measure, budget, factory, count)
        witness = {"measure": measure, "budget": _text(b), "query": text, "answered": got["answered"],
                   "claims": [_text(c) for c in got["claims"]], "true_losses": [_text(t) for t in got["true"]],
                   "remaining": _text(got["remaining"]), "refused_the_extra_query": got["refused_extra"]}
        return Finding(claim="the budget bounds the loss of what it answers", truth=f"spent {_text(sum(got['true'], Fraction(0)))}",
                       verdict=Verdict.VIOLATED, witness=witness,
                       replay=Replay.of(again["answered"] == got["answered"]
                                        and again["refused_extra"] == got["refused_extra"]),
                       evidence=Evidence.IDEAL_NOISE, scope=scope, settings=settings)
    tight = all(compare(sum(g["true"], Fraction(0)), b) == 0 and g["remaining"] == 0 for _, b, _, g in rows)
    early = [f"{m} budget {_text(b)}" for m, b, _, g in rows if g["answered"] < count_of[(m, b)]]
    return Finding(claim="; ".join(f"{m} budget {_text(b)}: {g['answered']} queries answered, remaining "
                                   f"{_text(g['remaining'])}, the next refused" for m, b, _, g in rows),
                   truth="; ".join(f"true loss spent {_text(sum(g['true'], Fraction(0)))}" for _, _, _, g in rows),
                   verdict=Verdict.HOLDS_TIGHT if tight else Verdict.HOLDS, evidence=Evidence.IDEAL_NOISE,
                   scope=scope, settings=settings,
                   note="; ".join(filter(None, [
                       "" if tight else "the samplers' parameters, rounded up to floats, make the noise slightly larger "
                                        "than the claims: the true loss spent is below the budget",
                       f"refused a query its budget still held ({', '.join(early)}): conservative, not a leak"
                       if early else ""])))


# --- severity: the worst excess of Sum's float sum over its claim --------------------------------


_SEVERITY_BOUNDS = ((-1.0, 1.0), (0.0, 1.0))
_SEVERITY_SIZES = (2**10, 2**16, 2**20)


def _sum_severity() -> Severity:
    """The worst excess of Tumult's Sum (a double column, one Spark partition, rows in
    order) over its claimed stability max(|L|, |U|): exactdp's float-witness search in
    maximize mode on Spark's sequential sum (modelled bit for bit), for each bounds and size,
    each pair replayed through Tumult's own Sum in Spark."""
    tumult = _adapter()
    from tmlt.core.metrics import SymmetricDifference
    from tmlt.core.transformations.spark_transformations.agg import Sum


    measure = "|Sum(x') - Sum(x)|"
    best, rows, reproduced = None, [], True
    for lo, hi in _SEVERITY_BOUNDS:
        s = Sum(tumult.float_domain(), SymmetricDifference(), "X", int(lo), int(hi))
        claim = tumult.exact(s.stability_function(1))
        for max_n in _SEVERITY_SIZES:
            res = search_float_witness("sequential", "float64", (lo, hi), max_n, claim, maximize=True,
                                       budget=200, seed=0, floats="binary", same_order=True)
            w = res.largest
            if w is None:  # pragma: no cover - the search always evaluates its constructions
                continue
            x = [float(v) for v, c in w.x for _ in range(c)]
            xp = [float(v) for v, c in w.x_prime for _ in range(c)]
            fx = tumult.run_on_rows(s, [x], "float", what="Sum (severity replay)")
            fxp = tumult.run_on_rows(s, [xp], "float", what="Sum (severity replay)")
            ok = (fx, fxp) == (w.fx, w.fx_prime)
            reproduced = reproduced and ok
            d = abs(fxp - fx)
            rows.append({"bounds": [lo, hi], "max_n": max_n, "n": len(x), "difference": _text(d),
                         "ratio": float(d / claim), "replayed": ok})
            if best is None or d / claim > best[0] / best[1]:
                best = (d, claim, lo, hi, w)
    if best is None:  # pragma: no cover
        return Severity(measure, None, None, note="the search evaluated no pair")
    d, claim, lo, hi, w = best
    witness = {"bounds": [lo, hi], "n": w.sizes[0], "x": [[float(v), c] for v, c in w.x],
               "x_prime": [[float(v), c] for v, c in w.x_prime], "fx": _text(w.fx), "fx_prime": _text(w.fx_prime),
               "construction": w.construction, "by_bounds_and_size": rows}
    scope = (f"bounds {[list(b) for b in _SEVERITY_BOUNDS]}, datasets of at most {list(_SEVERITY_SIZES)} rows, one "
             f"row added (the common rows in the same order); exactdp's float-witness search in maximize mode on "
             f"Spark's sequential sum (one partition), budget 200 each; every pair replayed through Tumult's Sum "
             f"in Spark, its answers compared bit for bit")
    return Severity(measure, claim, d, witness=witness, replay=Replay.of(reproduced), evidence=Evidence.BIT_EXACT,
                    scope=scope, note="a row added moves Spark's float sum by more than max(|L|, |U|): the "
                                      "rounding of every partial sum near n adds up, and the excess grows with n")


_REPRODUCED = ">=0.19.1,<0.21"
"""The versions where the expected verdicts below were reproduced (tmlt.core 0.19.1 and 0.20.0)."""

_EXPECTED = {
    "tumult/laplace/privacy-function": "holds-ideal-noise",
    "tumult/geometric/privacy-function": "holds-ideal-noise",
    "tumult/discrete-gaussian/privacy-function": "holds-ideal-noise",
    "tumult/exact-number/to-float-direction": "holds-on-grid",
    "tumult/count/stability": "holds-on-grid",
    "tumult/add-unique-column/stability": "violated",
    "tumult/sum/integer-bounded": "holds-on-grid",
    "tumult/sum/float-rounding": "violated",
    "tumult/sum/float-rounding-hamming": "violated",
    "tumult/sum/integer-overflow": "violated",
    "tumult/sum/equal-bounds": "violated",
    "tumult/sum/tiny-upper-bound": "violated",
    "tumult/accountant/sequential-budget": "holds-ideal-noise",
}


def audits() -> list[Audit]:
    """The Tumult Core suite (the library is imported only when an audit runs)."""
    from dataclasses import replace

    expected = {**_EXPECTED, **suite_tumult_api.EXPECTED}
    return [replace(a, expect={_REPRODUCED: expected[a.id]}) for a in _audits() + suite_tumult_api.audits()]


def _audits() -> list[Audit]:
    lib = LIBRARY
    return [
        Audit("tumult/laplace/privacy-function", lib, "AddLaplaceNoise",
              "the epsilon of the noise the sampler adds is at most privacy_function(d_in) = "
              "d_in/scale", _check_noise("laplace"), source=_NOISE_SRC, covers=(_NOISE + "AddLaplaceNoise",)),
        Audit("tumult/geometric/privacy-function", lib, "AddGeometricNoise",
              "the epsilon of the discrete Laplace noise the sampler adds is at most "
              "privacy_function(d_in) = d_in/alpha", _check_noise("geometric"), source=_NOISE_SRC,
              covers=(_NOISE + "AddGeometricNoise",)),
        Audit("tumult/discrete-gaussian/privacy-function", lib, "AddDiscreteGaussianNoise",
              "the rho of the discrete Gaussian noise the sampler adds is at most "
              "privacy_function(d_in) = d_in**2/(2 sigma_squared)", _check_noise("discrete-gaussian"),
              source=_NOISE_SRC, covers=(_NOISE + "AddDiscreteGaussianNoise",)),
        Audit("tumult/exact-number/to-float-direction", lib, "ExactNumber.to_float",
              _TO_FLOAT_CLAIM,
              _check_to_float, source=_SRC + "utils/exact_number.py (ExactNumber.to_float)"),
        Audit("tumult/count/stability", lib, "Count (SymmetricDifference)",
              "|Count(x) - Count(x')| for neighbours is at most stability_function(1)",
              _check_count, source=_SRC + "transformations/spark_transformations/agg.py (Count)",
              covers=(_AGG + "Count",)),
        Audit("tumult/add-unique-column/stability", lib, "AddUniqueColumn (SymmetricDifference -> "
              "IfGroupedBy(ID, SymmetricDifference))",
              "the output distance for neighbours is at most stability_function(1)",
              _check_add_unique_column, source=_SRC + "transformations/spark_transformations/id.py "
              "(AddUniqueColumn)", covers=("tmlt.core.transformations.spark_transformations.id.AddUniqueColumn",)),
        Audit("tumult/sum/integer-bounded", lib, "Sum (bigint column, bounds [-3, 5])",
              "|Sum(x) - Sum(x')| for neighbours is at most stability_function(1) = max(|L|, |U|)",
              _check_sum_int_bounded, source=_SUM_SRC, covers=(_AGG + "Sum",)),
        Audit("tumult/sum/float-rounding", lib, "Sum (double column, bounds [-1, 1])",
              "|Sum(x) - Sum(x')| for neighbours is at most stability_function(1) = max(|L|, |U|)",
              _check_sum_float, source=_SUM_SRC, covers=(_AGG + "Sum",), severity=_sum_severity),
        Audit("tumult/sum/float-rounding-hamming", lib, "Sum (double column, bounds [-1, 1], HammingDistance)",
              "|Sum(x) - Sum(x')| when one row changes is at most stability_function(1) = U - L",
              _check_sum_float_hamming, source=_SUM_SRC, covers=(_AGG + "Sum",)),
        Audit("tumult/sum/integer-overflow", lib, "Sum (bigint column, bounds [0, 2**62])",
              "|Sum(x) - Sum(x')| for neighbours is at most stability_function(1) = max(|L|, |U|)",
              _check_sum_int_overflow, source=_SUM_SRC, covers=(_AGG + "Sum",)),
        Audit("tumult/sum/equal-bounds", lib, "Sum (double column, lower = upper = 1/3)",
              "|Sum(x) - Sum(x')| for neighbours is at most stability_function(1) = max(|L|, |U|)",
              _check_sum_equal_bounds, source=_SUM_SRC, covers=(_AGG + "Sum",)),
        Audit("tumult/sum/tiny-upper-bound", lib, "Sum (double column, bounds [0, 1/(3*10**300)])",
              "|Sum(x) - Sum(x')| for neighbours is at most stability_function(1) = max(|L|, |U|)",
              _check_sum_tiny_upper, source=_SUM_SRC, covers=(_AGG + "Sum",)),
        Audit("tumult/accountant/sequential-budget", lib, "PrivacyAccountant (SequentialComposition)",
              "the queries a privacy accountant answers cost, in true privacy loss, at most its budget, "
              "what it reports as left is left, and a query beyond it is refused", _check_accountant,
              source=_SRC + "measurements/interactive_measurements.py (PrivacyAccountant.measure, "
                            "SequentialQueryable); measures.py (PureDPBudget, RhoZCDPBudget)",
              covers=_ACCOUNTANTS + ("tmlt.core.measurements.interactive_measurements.SequentialComposition",)),
    ]


def compare(a, b) -> int:
    """:func:`exactdp.numeric.decide.compare`, imported when an audit runs (it loads SymPy),
    so that listing the suite stays cheap."""
    return exact_compare(a, b)
