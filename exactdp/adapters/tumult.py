"""Tumult Core (``tmlt.core``): read its exact claims, run its Spark code, model Spark's sums.

Tumult Core states every claim as a function of distances: a transformation's
``stability_function(d_in)`` and a measurement's ``privacy_function(d_in)`` return an
``ExactNumber`` (a SymPy expression). :func:`exact` converts one to a
:class:`~fractions.Fraction` without rounding (an irrational one stays a SymPy expression).

The library runs its queries on Spark DataFrames. :func:`spark_session` starts one local
Spark session per process (``local[1]``: one core, no UI, one shuffle partition) and keeps
it; :func:`run_on_rows` runs a Tumult transformation on a DataFrame whose rows are given
in order and split into given partitions, and returns the library's answer at its exact
binary value.

Spark's ``sum`` is modelled bit for bit by :func:`spark_sum_model`: within each partition
a left fold from the first row (``0 + x1``, then ``+ x2``, ...), every ``+`` rounded to
nearest float64 (for a ``double`` column) or wrapped modulo ``2**64`` into the signed
64-bit range (for a ``bigint`` column, Spark's behaviour with ``spark.sql.ansi.enabled``
off, its default before Spark 4); then the partitions' partial sums folded left in
partition order. :func:`check_spark_sum_model` compares the model with Spark on random
inputs; an audit relies on the model only after that check passed in the same session.

``tmlt.core`` and ``pyspark`` are imported inside the functions that need them; without
them those functions raise :class:`~exactdp.errors.MissingDependency` naming the
``tumult`` extra. Tumult Core pins ``numpy<2`` on CPython < 3.13, so it usually lives in
an environment of its own (``docs/tumult-environment.md``).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import from_float
from exactdp.numeric.floatsum import float_sum
from exactdp.adapters._calls import call_library
from exactdp.checkers.sensitivity import sensitivity
from exactdp.queries.base import Query
from exactdp.spaces.datasets import Multisets
from exactdp.spaces.metrics import ChangeDistance, SymmetricDistance
from exactdp.spaces.universe import ExactSet

__all__ = [
    "DISTRIBUTION", "EXTRA", "check_spark_sum_model", "enumerate_library", "exact",
    "float_domain", "integer_domain", "library_values", "require", "run_on_rows", "spark_session",
    "spark_sum_model", "stop_spark", "sum_call_model", "version", "wrap_int64",
]

DISTRIBUTION = "tmlt.core"
EXTRA = "tumult"

_INT64 = 2**64
_SESSION: list[Any] = []


def require() -> None:
    """Import ``tmlt.core`` (and pyspark), or raise :class:`MissingDependency` naming the extra."""
    _optional.require("pyspark", "tmlt.core", library=DISTRIBUTION, extra=EXTRA)


def version() -> str:
    """The installed version of Tumult Core."""
    return _optional.version(DISTRIBUTION, EXTRA)


def exact(value: Any) -> Any:
    """A Tumult ``ExactNumber`` (or a SymPy expression, an int) as an exact value.

    A rational becomes a :class:`~fractions.Fraction`, an irrational stays a SymPy
    expression, and infinity is refused (a claim of infinity is not a number to compare).
    Floats are refused: Tumult's own claims are exact, and a float here is a mistake.
    """
    import sympy

    expr = getattr(value, "expr", value)
    if isinstance(expr, (bool, float)):
        raise InvalidArgument(f"value={value!r} is not an exact Tumult number; pass an "
                              "ExactNumber, an int or a SymPy expression")
    if isinstance(expr, int):
        return Fraction(expr)
    expr = sympy.sympify(expr)
    if expr.is_infinite:
        raise InvalidArgument(f"value={value!r} is infinite: no finite claim to compare")
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    return expr


def spark_session():
    """The process's local Spark session (started once: one core, no UI, quiet logs)."""
    require()
    if _SESSION:
        return _SESSION[0]
    from pyspark.sql import SparkSession

    # Spark's Python workers (a row map, a flat map) run this interpreter, the one with
    # Tumult Core, unless the user chose another
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    spark = (SparkSession.builder.master("local[1]").appName("exactdp-audit-tumult")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.default.parallelism", "1")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    _SESSION.append(spark)
    return spark


def stop_spark() -> None:
    """Stop the session :func:`spark_session` started (a test module's teardown)."""
    if _SESSION:
        _SESSION.pop().stop()


def float_domain(column: str = "X"):
    """A Tumult DataFrame domain with one non-null, finite ``double`` column."""
    require()
    from tmlt.core.domains.spark_domains import (
        SparkDataFrameDomain,
        SparkFloatColumnDescriptor,
    )

    return SparkDataFrameDomain({column: SparkFloatColumnDescriptor(
        allow_nan=False, allow_inf=False, allow_null=False)})


def integer_domain(column: str = "X"):
    """A Tumult DataFrame domain with one non-null ``bigint`` column."""
    require()
    from tmlt.core.domains.spark_domains import (
        SparkDataFrameDomain,
        SparkIntegerColumnDescriptor,
    )

    return SparkDataFrameDomain({column: SparkIntegerColumnDescriptor(allow_null=False)})


def _frame(partitions: Sequence[Sequence[Any]], kind: str, column: str = "X"):
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    spark = spark_session()
    if kind == "float":
        field, cast = DoubleType(), float
    elif kind == "int":
        field, cast = LongType(), int
    else:
        raise InvalidArgument(f"kind={kind!r}: expected 'float' or 'int'")
    schema = StructType([StructField(column, field, False)])
    parts = [list(p) for p in partitions] or [[]]
    rows = [(cast(v),) for part in parts for v in part]
    if len(parts) == 1:
        return spark.createDataFrame(rows, schema) if rows else spark.createDataFrame(
            spark.sparkContext.emptyRDD(), schema)
    # one RDD partition per given part, in order (parallelize slices contiguously;
    # an empty part is kept by building the RDD from an explicit index)
    rdd = spark.sparkContext.parallelize(list(range(len(parts))), len(parts)).flatMap(
        lambda i, parts=parts, cast=cast: [(cast(v),) for v in parts[i]])
    return spark.createDataFrame(rdd, schema)


def run_on_rows(transformation: Any, partitions: Sequence[Sequence[Any]], kind: str = "float",
                *, what: str = "the transformation") -> Fraction:
    """Run a Tumult transformation on a one-column DataFrame; its answer, exactly.

    ``partitions`` lists the rows of each Spark partition, in order (``[[1.0, 2.0]]``: one
    partition). Values are taken at their exact binary value (float64 or int64). A library
    exception becomes :class:`~exactdp.errors.LibraryCallFailed`.
    """
    df = _frame(partitions, kind)
    out = call_library(what, transformation, df)
    if isinstance(out, (float,)) or type(out).__name__ in ("float64", "float32"):
        return from_float(float(out))
    return Fraction(int(out))


def wrap_int64(n: int) -> int:
    """``n`` wrapped into the signed 64-bit range, as Java's ``long`` addition does."""
    return (n + 2**63) % _INT64 - 2**63


def spark_sum_model(partitions: Sequence[Sequence[Any]], kind: str = "float") -> Fraction:
    """What Spark's ``sum`` returns on these partitions, exactly (see the module docstring).

    An empty input sums to 0 (Spark returns null there and Tumult Core turns it into 0).

    >>> spark_sum_model([[1.0, 3 * 2.0**-52, 1.0]]) - 2
    Fraction(1, 1125899906842624)
    >>> spark_sum_model([[2**62, 2**62]], "int") == -2**63
    True
    """
    if kind == "float":
        partials = [float_sum(list(p), "sequential") for p in partitions if len(p)]
        return float_sum(partials, "sequential") if partials else Fraction(0)
    if kind == "int":
        total = 0
        for part in partitions:
            if len(part):
                partial = 0
                for v in part:
                    partial = wrap_int64(partial + int(v))
                total = wrap_int64(total + partial)
        return Fraction(total)
    raise InvalidArgument(f"kind={kind!r}: expected 'float' or 'int'")


def _random_float(rng: random.Random) -> float:
    choice = rng.random()
    if choice < 0.3:
        return rng.uniform(-1, 1)
    if choice < 0.6:
        return rng.choice([-1, 1]) * rng.random() * 2.0 ** rng.randint(-60, 60)
    return rng.choice([1.0, -1.0, 2.0**-52, 3 * 2.0**-52, 2.0**53, 0.1, 1e16, -1e16])


def check_spark_sum_model(sum_of: Callable[[Sequence[Sequence[Any]], str], Fraction], *,
                          trials: int = 20, seed: int = 0, kind: str = "float",
                          max_rows: int = 40, max_parts: int = 4) -> list[dict]:
    """Compare :func:`spark_sum_model` with ``sum_of`` (Spark) on random partitioned inputs.

    ``sum_of(partitions, kind)`` returns Spark's exact answer. Returns the mismatches
    (empty when the model matched on every trial), each with the input and both answers.
    """
    rng = random.Random(seed)
    bad = []
    for _ in range(trials):
        n_parts = rng.randint(1, max_parts)
        parts = []
        for _ in range(n_parts):
            size = rng.randint(0, max_rows // n_parts)
            if kind == "float":
                parts.append([_random_float(rng) for _ in range(size)])
            else:
                parts.append([rng.choice([1, -1]) * rng.randint(0, 2**63 - 1) for _ in range(size)])
        got, want = sum_of(parts, kind), spark_sum_model(parts, kind)
        if got != want:
            bad.append({"partitions": parts, "spark": got, "model": want})
    return bad


def library_values(transformation: Any, datasets: Iterable[tuple[Fraction, ...]], kind: str,
                   *, what: str) -> dict[tuple[Fraction, ...], Fraction]:
    """The transformation's own answer on every dataset (rows in the given order, one
    partition), keyed by the dataset."""
    out = {}
    for ds in datasets:
        rows = [float(v) if kind == "float" else int(v) for v in ds]
        out[ds] = run_on_rows(transformation, [rows], kind, what=what)
    return out


def _multisets(universe: Sequence[Fraction], sizes: tuple[int, int]) -> list[tuple[Fraction, ...]]:
    from itertools import combinations_with_replacement

    values = sorted(set(universe))
    return [c for n in range(sizes[0], sizes[1] + 1) for c in combinations_with_replacement(values, n)]


def enumerate_library(transformation: Any, universe: Sequence[Any], sizes: tuple[int, int],
                      kind: str = "float", *, d_in: int = 1, what: str = "the transformation",
                      metric: str = "symmetric"):
    """Exact sensitivity of a Tumult transformation's own answers over a small space.

    Every multiset over ``universe`` with size in ``sizes`` is run through the library
    (rows in ascending order, one Spark partition); exactdp's enumeration engine
    (:func:`exactdp.checkers.sensitivity.sensitivity`, symmetric distance ``d_in``, or
    ``metric="substitute"``: ``d_in`` rows changed, Tumult's ``HammingDistance``) then finds
    the neighbouring pair whose answers differ most. Returns the
    :class:`~exactdp.checkers.results.SensitivityResult` and the answers by dataset.
    """
    exact_universe = [from_float(v) if isinstance(v, float) else Fraction(v) for v in universe]
    answers = library_values(transformation, _multisets(exact_universe, sizes), kind, what=what)

    def prepare(values: tuple[Fraction, ...]):
        def f(counts: tuple[int, ...]) -> Fraction:
            ds = tuple(v for v, c in zip(values, counts) for _ in range(c))
            return answers[ds]
        return f

    query = Query(f"tumult {what}", prepare)
    space = Multisets(ExactSet(exact_universe), sizes=sizes)
    if metric not in ("symmetric", "substitute"):
        raise InvalidArgument(f"metric={metric!r}: expected 'symmetric' or 'substitute'")
    chosen = SymmetricDistance() if metric == "symmetric" else ChangeDistance()
    return sensitivity(query, space, chosen, d_in, progress=False), answers


def sum_call_model(sum_transformation: Any, partitions: Sequence[Sequence[Any]], kind: str = "float") -> Fraction:
    """What Tumult's ``Sum.__call__`` returns, exactly: each value clamped to the library's
    own float bounds (``lower.to_float(round_up=True)``; ``upper.to_float(round_up=False)``,
    or the lower one when ``lower == upper``), then :func:`spark_sum_model`."""
    lo = call_library("Sum.lower.to_float", sum_transformation.lower.to_float, round_up=True)
    hi = lo if sum_transformation.lower == sum_transformation.upper else call_library(
        "Sum.upper.to_float", sum_transformation.upper.to_float, round_up=False)
    lo_x = from_float(lo) if isinstance(lo, float) else Fraction(lo)
    hi_x = from_float(hi) if isinstance(hi, float) else Fraction(hi)

    def clamp(v: Fraction) -> Fraction:
        return lo_x if v < lo_x else min(v, hi_x)

    cast = float if kind == "float" else int
    clamped = [[cast(clamp(from_float(v) if isinstance(v, float) else Fraction(v))) for v in p]
               for p in partitions]
    return spark_sum_model(clamped, kind)
