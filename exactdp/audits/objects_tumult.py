"""The :func:`~exactdp.audits.objects.audit_object` reader of Tumult Core transformations
and measurements.

A Tumult Core object states its own claim: a transformation's ``stability_function(d_in)``
and a measurement's ``privacy_function(d_in)``, both exact (``ExactNumber``, a dict of them
under a ``DictMetric``, a tuple under ``OnColumns`` or ``ApproxDP``). The reader takes it
from the object, with the object's ``input_domain``, ``input_metric`` and
``output_metric`` / ``output_measure``, and judges it.

**A transformation** is run on every dataset of a small space chosen from its input domain
(options override it): NumPy scalars (a few values), lists and pandas Series (short
sequences), pandas and Spark DataFrames (every multiset of size 0..2 over a few rows whose
cells the column descriptors allow: NaN, infinities and nulls where allowed), grouped
Spark DataFrames (every group key of those rows, fixed), dictionaries of these (every
combination). Neighbours are the pairs whose input distance, computed by exactdp from the
rows (not by the library's metric), is at most ``d_in``; the output distance of each pair
is computed by exactdp from the object's own outputs, collected and read exactly (floats at
their binary value, ``-0.0`` apart from ``0.0``, NaN equal to NaN). Metrics exactdp
computes: ``AbsoluteDifference``, ``SymmetricDifference``, ``HammingDistance``, ``SumOf``,
``RootSumOfSquared``, ``OnColumn``, ``OnColumns``, ``IfGroupedBy``, ``DictMetric``,
``AddRemoveIDs``, each as Tumult Core defines it (``tmlt/core/metrics.py``). The claim holds
on the grid when no pair's output distance exceeds it (``bit-exact-grid``: the library's
own outputs on every dataset, distances exact); a pair beyond it is the witness, replayed:
the object runs again on fresh copies of the pair, and the library's own metrics must give
an input distance within ``d_in`` and an output distance beyond the claim.

**A measurement** is judged where exactdp has a model of its noise: ``AddLaplaceNoise``
(epsilon ``d/b`` at ``b = scale.to_float(round_up=True)``, the parameter its sampler uses),
``AddGeometricNoise`` (``d/alpha_float``), ``AddDiscreteGaussianNoise`` (rho
``d**2/(2 sigma2_float)``), as the Tumult suite's noise audits judge them (the sampler taken
as the ideal distribution: ``ideal-noise``), and through the combinators built on them:
``AddNoiseToSeries``, ``AddNoiseToColumn``, ``ChainTM`` (the transformation's output
distance enumerated as above, the noise's loss at the largest one), ``Composition`` (the sum),
``ParallelComposition`` (the largest part: every model here is convex and 0 at 0),
``PureDPToApproxDP``, ``PureDPToRhoZCDP`` (at most ``epsilon**2/2``), ``MakeInteractive``,
and the post-processings ``PostProcess``, ``NonInteractivePostProcess`` and
``DecorateQueryable`` (at most the measurement's loss). The truth is an interval: a claim at
or above its upper end holds, below its lower end is violated (witnessed and replayed),
between them undecided.

Anything else (``AddGaussianNoise``, whose ``float(value) + gaussian(...)`` rounds after
sampling; the exponential mechanism of ``NoisyQuantile``; a metric or domain exactdp does
not compute) is one line of :class:`~exactdp.errors.InvalidArgument` saying what is missing.
"""

from __future__ import annotations

import datetime
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp.adapters import tumult as _tumult
from exactdp.adapters._calls import Replay, call_library
from exactdp.audits.base import Audit, Finding, Settings, refuse_unknown_options
from exactdp.checkers.results import Evidence, Verdict, format_value
from exactdp.errors import InvalidArgument
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import library_number

__all__ = ["DISTRIBUTION", "EXTRA", "OPTIONS", "REFUSED", "reads", "audit_of", "privacy_loss", "exact_value",
           "TableSpace", "Loss", "distance", "canonical", "INF"]

DISTRIBUTION = "tmlt.core"
EXTRA = "tumult"
OPTIONS = ("d_in", "rows", "sizes", "max_rows", "group_keys")
"""The options :func:`audit_of` takes: ``d_in`` (one input distance or a list; default 1 and
2 for counting metrics, a dict of them under a ``DictMetric``), ``rows`` (the universe: the
values of a scalar or a list, the rows of a table as tuples in the schema's column order; a
dict of them by key for a dictionary domain), ``sizes`` (``(least, most)`` rows per dataset,
default ``(0, 2)``), ``max_rows`` (how many rows the default universe keeps, default 3),
``group_keys`` (the group keys of a grouped domain, as tuples; default every key of the
universe's rows)."""

INF = sympy.oo
"""An infinite distance (sizes that differ under ``HammingDistance``, keys that differ)."""

_BASES = {("tmlt.core.transformations.base", "Transformation"), ("tmlt.core.measurements.base", "Measurement")}
_MAX_DATASETS = 400
"""Most datasets one object's space may hold (each is one run of the library's code)."""


class _Unsupported(InvalidArgument):
    """What the reader cannot handle (one line)."""


def reads(obj: object) -> bool:
    """Whether ``obj`` is a Tumult Core transformation or measurement (by its classes'
    names, without importing Tumult Core)."""
    return any((k.__module__, k.__name__) in _BASES for k in type(obj).__mro__)


def _kind(obj: object) -> str:
    names = {k.__name__ for k in type(obj).__mro__ if (k.__module__, k.__name__) in _BASES}
    return "transformation" if "Transformation" in names else "measurement"


def _name(obj: object) -> str:
    return type(obj).__name__


def _qualified(obj: object) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


# --- canonical values: what exactdp compares -------------------------------------------------


@dataclass(frozen=True)
class _Float:
    """A float cell: equal to another only bit for bit (``-0.0`` is not ``0.0``; NaN is NaN)."""

    hex: str

    @property
    def value(self) -> float:
        return float.fromhex(self.hex)

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class Table:
    """A table: its columns and its rows, in the order the library gave them."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    def counts(self) -> Counter:
        return Counter(self.rows)

    def column(self, name: str) -> tuple:
        i = self.columns.index(name)
        return tuple(r[i] for r in self.rows)

    def to_json(self) -> list:
        return [list(map(_cell_json, r)) for r in self.rows]


@dataclass(frozen=True)
class Grouped:
    """A grouped table: the rows, the grouping columns and the (public) group keys."""

    table: Table
    by: tuple[str, ...]
    keys: tuple[tuple, ...]

    def groups(self) -> dict[tuple, Table]:
        idx = [self.table.columns.index(c) for c in self.by]
        rest = [i for i in range(len(self.table.columns)) if i not in idx]
        columns = tuple(self.table.columns[i] for i in rest)
        out = {}
        for key in self.keys:
            rows = tuple(tuple(r[i] for i in rest) for r in self.table.rows
                         if tuple(r[i] for i in idx) == key)
            out[key] = Table(columns, rows)
        return out

    def to_json(self) -> dict:
        return {"rows": self.table.to_json(), "by": list(self.by), "keys": [list(map(_cell_json, k)) for k in self.keys]}


@dataclass(frozen=True)
class Sequence_:
    """A list or a pandas Series: its items in order."""

    items: tuple
    kind: str = "list"

    def to_json(self) -> list:
        return [_json(v) for v in self.items]


def _cell(value: Any) -> Any:
    """One cell (or scalar) as exactdp compares it."""
    import numbers

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        if f != value and not (f != f):  # pragma: no cover - a type wider than float64
            raise _Unsupported(f"value={value!r} is not a float64; exactdp reads float64 and integer cells")
        return _Float(f.hex())
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value
    return value


def _cell_json(cell: Any) -> Any:
    if isinstance(cell, _Float):
        return repr(cell.value)
    if isinstance(cell, (datetime.date, datetime.datetime)):
        return cell.isoformat()
    return cell


def _json(value: Any) -> Any:
    if isinstance(value, (Table, Grouped, Sequence_)):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return _cell_json(value)


def canonical(value: Any) -> Any:
    """A library value (a Spark or pandas DataFrame, a grouped DataFrame, a Series, a list, a
    dict, a number) as exactdp compares it: rows collected in order, cells exact."""
    module = type(value).__module__ or ""
    name = type(value).__name__
    if module.startswith("pyspark.sql") and name == "DataFrame":
        rows = call_library("DataFrame.collect()", value.collect)
        return Table(tuple(value.columns), tuple(tuple(_cell(v) for v in r) for r in rows))
    if name == "GroupedDataFrame":
        keys = value.group_keys
        key_rows = () if keys is None else tuple(canonical(keys).rows)
        return Grouped(canonical(value.dataframe), tuple(value.groupby_columns), key_rows)
    if module.startswith("pandas") and name == "DataFrame":
        return Table(tuple(str(c) for c in value.columns),
                     tuple(tuple(_cell(v) for v in r) for r in value.itertuples(index=False, name=None)))
    if module.startswith("pandas") and name == "Series":
        return Sequence_(tuple(_cell(v) for v in value.tolist()), "series")
    if isinstance(value, list):
        return Sequence_(tuple(canonical(v) for v in value), "list")
    if isinstance(value, tuple):
        return tuple(canonical(v) for v in value)
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    return _cell(value)


# --- exact numbers and comparisons ------------------------------------------------------------


def _exact(value: Any) -> Any:
    """A claim or a distance as an exact value: Fraction, SymPy (irrational), :data:`INF`;
    dicts and tuples of them."""
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return tuple(_exact(v) for v in value)
    expr = getattr(value, "expr", value)
    if isinstance(expr, bool):
        raise _Unsupported(f"value={value!r} is a bool, not a distance")
    if isinstance(expr, int):
        return Fraction(expr)
    if isinstance(expr, Fraction):
        return expr
    if isinstance(expr, float):
        raise _Unsupported(f"value={value!r} is a float: Tumult's claims are exact; expected an ExactNumber")
    expr = sympy.sympify(expr)
    if expr == sympy.oo:
        return INF
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    return expr


def exact_value(value: Any) -> Any:
    """A Tumult claim or budget (``ExactNumber``, a dict or tuple of them) as exact values:
    ``Fraction``, SymPy (irrational) or :data:`INF`."""
    return _exact(value)


def _number(cell: Any) -> Any:
    """A numeric cell, exactly (:data:`INF` for an infinity; NaN refused)."""
    if isinstance(cell, bool) or cell is None:
        raise _Unsupported(f"cell={cell!r} is not a number")
    if isinstance(cell, int):
        return Fraction(cell)
    if isinstance(cell, Fraction):
        return cell
    if isinstance(cell, _Float):
        f = cell.value
        if f != f:
            return None
        if math.isinf(f):
            return INF if f > 0 else -INF
        return Fraction(f)
    raise _Unsupported(f"cell={cell!r} is not a number")


def _cmp(a: Any, b: Any) -> int:
    """The sign of ``a - b`` for exact numbers and :data:`INF`."""
    if a == INF or b == INF:
        return 0 if a == b else (1 if a == INF else -1)
    return compare(a, b)


def _le(a: Any, b: Any) -> bool:
    """``a <= b``, componentwise for dicts and tuples."""
    if isinstance(a, dict):
        return all(_le(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return all(_le(x, y) for x, y in zip(a, b))
    return _cmp(a, b) <= 0


def _max(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if isinstance(a, dict):
        return {k: _max(a[k], b[k]) for k in a}
    if isinstance(a, tuple):
        return tuple(_max(x, y) for x, y in zip(a, b))
    return a if _cmp(a, b) >= 0 else b


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v) for v in value) + ")"
    if value == INF:
        return "oo"
    return format_value(value)


# --- distances, as Tumult Core defines them ------------------------------------------------------


def _metric_name(metric: Any) -> str:
    return type(metric).__name__


_METRICS = ("AbsoluteDifference", "SymmetricDifference", "HammingDistance", "SumOf", "RootSumOfSquared",
            "OnColumn", "OnColumns", "IfGroupedBy", "DictMetric", "AddRemoveIDs")


def supported_metric(metric: Any) -> None:
    """:class:`InvalidArgument` (one line) unless exactdp computes ``metric``."""
    name = _metric_name(metric)
    if name not in _METRICS:
        raise _Unsupported(f"exactdp does not compute the metric {metric!r}; it computes {', '.join(_METRICS)}")
    for inner in _children(metric):
        supported_metric(inner)


def _children(metric: Any) -> list:
    name = _metric_name(metric)
    if name in ("SumOf", "RootSumOfSquared", "IfGroupedBy"):
        return [metric.inner_metric]
    if name == "OnColumn":
        return [metric.metric]
    if name == "OnColumns":
        return list(metric.on_columns)
    if name == "DictMetric":
        return list(metric.key_to_metric.values())
    return []


def _multiset(value: Any) -> Counter:
    if isinstance(value, Table):
        return value.counts()
    if isinstance(value, Sequence_):
        return Counter(value.items)
    raise _Unsupported(f"a multiset metric on {type(value).__name__}: expected a table or a series")


def _size(value: Any) -> int:
    return sum(_multiset(value).values())


def _grouped(table: Table, columns: Sequence[str], other: Table) -> tuple[Grouped, Grouped]:
    by = tuple(c for c in table.columns if c in set(columns))
    idx = [table.columns.index(c) for c in by]
    keys = sorted({tuple(r[i] for i in idx) for r in table.rows + other.rows}, key=repr)
    return Grouped(table, by, tuple(keys)), Grouped(other, by, tuple(keys))


def _pairs_of(a: Any, b: Any) -> list[tuple[Any, Any]] | None:
    """The components an aggregation metric pairs (None: they cannot be paired)."""
    if isinstance(a, Grouped):
        if set(a.keys) != set(b.keys):
            return None
        ga, gb = a.groups(), b.groups()
        return [(ga[k], gb[k]) for k in a.keys]
    if isinstance(a, Sequence_):
        if len(a.items) != len(b.items):
            return None
        return list(zip(a.items, b.items))
    raise _Unsupported(f"an aggregation metric on {type(a).__name__}: expected grouped data, a list or a series")


def _column_series(a: Table, b: Table, column: str) -> tuple[Sequence_, Sequence_]:
    """A column of two tables as series, rows paired by the other columns where those are
    keys of both tables with the same key set (a grouped count's groups), else in order."""
    i = a.columns.index(column)
    rest = [j for j in range(len(a.columns)) if j != i]

    def keyed(t: Table):
        keys = [tuple(r[j] for j in rest) for r in t.rows]
        return dict(zip(keys, (r[i] for r in t.rows))) if len(set(keys)) == len(keys) else None

    ka, kb = keyed(a), keyed(b)
    if rest and ka is not None and kb is not None and set(ka) == set(kb):
        order = sorted(ka, key=repr)
        return Sequence_(tuple(ka[k] for k in order), "series"), Sequence_(tuple(kb[k] for k in order), "series")
    return Sequence_(a.column(column), "series"), Sequence_(b.column(column), "series")


def distance(metric: Any, a: Any, b: Any) -> Any:
    """The distance of two canonical values (:func:`canonical`) under a Tumult Core metric,
    computed by exactdp as ``tmlt/core/metrics.py`` defines it: an exact number,
    :data:`INF`, a dict (``DictMetric``) or a tuple (``OnColumns``)."""
    name = _metric_name(metric)
    if name == "AbsoluteDifference":
        x, y = _number(a), _number(b)
        if x is None or y is None or INF in (x, y, -x, -y):
            return Fraction(0) if a == b else INF
        return abs(x - y)
    if name in ("SymmetricDifference", "HammingDistance") and isinstance(a, Grouped):
        if name == "HammingDistance" or set(a.keys) != set(b.keys):
            return INF if set(a.keys) != set(b.keys) else _unsupported_grouped(name)
        ga, gb = a.groups(), b.groups()
        total = 0
        for k in a.keys:
            if ga[k].counts() != gb[k].counts():
                total += 1 if not ga[k].rows or not gb[k].rows else 2
        return Fraction(total)
    if name == "SymmetricDifference":
        ca, cb = _multiset(a), _multiset(b)
        return Fraction(sum(((ca - cb) + (cb - ca)).values()))
    if name == "HammingDistance":
        ca, cb = _multiset(a), _multiset(b)
        if sum(ca.values()) != sum(cb.values()):
            return INF
        return Fraction(sum((ca - cb).values()))
    if name in ("SumOf", "RootSumOfSquared"):
        pairs = _pairs_of(a, b)
        if pairs is None:
            return INF
        parts = [distance(metric.inner_metric, x, y) for x, y in pairs]
        if any(p == INF for p in parts):
            return INF
        if name == "SumOf":
            return _total(parts)
        squares = sum((sympy.sympify(_sym(p)) ** 2 for p in parts), sympy.Integer(0))
        return _exact(sympy.sqrt(squares))
    if name == "OnColumn":
        sa, sb = _column_series(a, b, metric.column)
        return distance(metric.metric, sa, sb)
    if name == "OnColumns":
        return tuple(distance(m, a, b) for m in metric.on_columns)
    if name == "IfGroupedBy":
        if not isinstance(a, Table):
            raise _Unsupported(f"IfGroupedBy on {type(a).__name__}: expected a table")
        ga, gb = _grouped(a, sorted(metric.columns), b)
        if not ga.keys:
            return Fraction(0)
        return distance(metric.inner_metric, ga, gb)
    if name == "DictMetric":
        return {k: distance(m, a[k], b[k]) for k, m in metric.key_to_metric.items()}
    if name == "AddRemoveIDs":
        return _add_remove_ids(metric.df_to_id_column, a, b)
    raise _Unsupported(f"exactdp does not compute the metric {metric!r}; it computes {', '.join(_METRICS)}")


def _unsupported_grouped(name: str):
    raise _Unsupported(f"{name} on grouped data: Tumult Core defines SymmetricDifference there, not {name}")


def _sym(value: Any) -> Any:
    return sympy.Rational(value.numerator, value.denominator) if isinstance(value, Fraction) else value


def _add_remove_ids(id_columns: dict, a: dict, b: dict) -> Fraction:
    """``AddRemoveIDs``: an ID in one dictionary only counts 1, an ID in both whose rows
    differ in any table counts 2 (added and removed)."""
    def ids(d: dict) -> dict:
        out: dict = {}
        for key, col in id_columns.items():
            table = d[key]
            i = table.columns.index(col)
            for r in table.rows:
                out.setdefault(r[i], {}).setdefault(key, Counter())[r] += 1
        return out

    ia, ib = ids(a), ids(b)
    total = 0
    for ident in set(ia) | set(ib):
        if ident in ia and ident in ib:
            keys = set(ia[ident]) | set(ib[ident])
            total += 2 if any(ia[ident].get(k, Counter()) != ib[ident].get(k, Counter()) for k in keys) else 0
        else:
            total += 1
    return Fraction(total)


# --- spaces: small datasets of a domain -------------------------------------------------------------


def _spark():
    """The process's one local Spark session (shared with the Tumult suite)."""
    return _tumult.spark_session()


def _column_values(descriptor: Any) -> list:
    """The cells a column descriptor allows, ordinary ones first."""
    name = type(descriptor).__name__
    null = [None] if getattr(descriptor, "allow_null", False) else []
    if name == "SparkIntegerColumnDescriptor":
        return [1, 0] + null
    if name == "SparkFloatColumnDescriptor":
        return ([1.0, 0.0] + ([math.nan] if descriptor.allow_nan else []) + ([math.inf] if descriptor.allow_inf else [])
                + null)
    if name == "SparkStringColumnDescriptor":
        return ["a", "b"] + null
    if name == "SparkDateColumnDescriptor":
        return [datetime.date(2024, 1, 1), datetime.date(2024, 1, 2)] + null
    if name == "SparkTimestampColumnDescriptor":
        return [datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 2)] + null
    raise _Unsupported(f"a column described by {descriptor!r}: exactdp fills integer, float, string, date and "
                       f"timestamp columns")


def _element_values(domain: Any) -> list:
    name = type(domain).__name__
    if name == "NumpyIntegerDomain":
        return [0, 1, 2, -1]
    if name == "NumpyFloatDomain":
        return ([0.0, 1.0, 0.5, -1.0] + ([math.nan] if domain.allow_nan else [])
                + ([math.inf] if domain.allow_inf else []))
    if name == "NumpyStringDomain":
        return ["a", "b"] + ([None] if getattr(domain, "allow_null", False) else [])
    raise _Unsupported(f"elements of {domain!r}: exactdp fills NumPy integer, float and string domains")


def _spread(items: list, keep: int) -> list:
    """``keep`` items spread over ``items`` (its first and last among them)."""
    if len(items) <= keep:
        return list(items)
    if keep == 1:
        return [items[0]]
    step = (len(items) - 1) / (keep - 1)
    return [items[round(i * step)] for i in range(keep)]


def _multisets(universe: list, sizes: tuple[int, int]) -> list[tuple]:
    return [c for n in range(sizes[0], sizes[1] + 1) for c in itertools.combinations_with_replacement(universe, n)]


@dataclass
class Space:
    """Datasets of a domain: ``raws`` (exactdp's own description of each), ``build(raw)``
    (the library value, fresh), ``canon(raw)`` (what exactdp compares) and a text."""

    raws: list
    build: Callable[[Any], Any]
    canon: Callable[[Any], Any]
    text: str


def TableSpace(domain: Any, options: dict) -> Space:  # noqa: N802 - a constructor-like name
    """The space of a Spark or pandas DataFrame domain (see the module's note)."""
    name = type(domain).__name__
    schema = domain.schema
    columns = tuple(schema)
    if "rows" in options:
        universe = [tuple(r) if isinstance(r, (tuple, list)) else (r,) for r in options["rows"]]
        for r in universe:
            if len(r) != len(columns):
                raise InvalidArgument(f"rows={options['rows']!r}: each row has one cell per column of "
                                      f"{list(columns)}")
    else:
        if name == "PandasDataFrameDomain":
            per = [_element_values(schema[c].element_domain)[:2] for c in columns]
        else:
            per = [_column_values(schema[c]) for c in columns]
        universe = _spread(list(itertools.product(*per)), int(options.get("max_rows", 3)))
    sizes = tuple(options.get("sizes", (0, 2)))
    raws = _multisets(universe, sizes)

    def canon(raw):
        return Table(columns, tuple(tuple(_cell(v) for v in r) for r in raw))

    if name == "PandasDataFrameDomain":
        def build(raw):
            import pandas as pd  # lazy: only with Tumult Core

            return pd.DataFrame({c: pd.Series([r[i] for r in raw], dtype=schema[c].element_domain.carrier_type)
                                 for i, c in enumerate(columns)})
    else:
        def build(raw):
            return _spark().createDataFrame(list(raw), schema=domain.spark_schema)
    text = (f"every multiset of {sizes[0]}..{sizes[1]} rows over the {len(universe)} rows "
            f"{[list(map(_cell_json, map(_cell, r))) for r in universe]} of columns {list(columns)}")
    return Space(raws, build, canon, text)


def _space(domain: Any, options: dict) -> Space:
    name = type(domain).__name__
    if name in ("SparkDataFrameDomain", "PandasDataFrameDomain"):
        return TableSpace(domain, options)
    if name == "SparkGroupedDataFrameDomain":
        return _grouped_space(domain, options)
    if name in ("NumpyIntegerDomain", "NumpyFloatDomain", "NumpyStringDomain"):
        values = list(options.get("rows", _element_values(domain)))
        return Space(values, lambda v: v if v is None else domain.carrier_type(v), _cell,
                     f"the values {[_cell_json(_cell(v)) for v in values]}")
    if name in ("ListDomain", "PandasSeriesDomain"):
        element = domain.element_domain
        if type(element).__name__ not in ("NumpyIntegerDomain", "NumpyFloatDomain", "NumpyStringDomain"):
            raise _Unsupported(f"a {name} of {element!r}: exactdp fills lists and series of NumPy scalars")
        values = list(options.get("rows", _element_values(element)[:3]))
        length = getattr(domain, "length", None)
        lo, hi = (length, length) if length is not None else tuple(options.get("sizes", (0, 2)))
        raws = [c for n in range(lo, hi + 1) for c in itertools.product(values, repeat=n)]
        if name == "ListDomain":
            return Space(raws, lambda raw: [element.carrier_type(v) for v in raw],
                         lambda raw: Sequence_(tuple(_cell(v) for v in raw), "list"),
                         f"every list of {lo}..{hi} items over {[_cell_json(_cell(v)) for v in values]}")

        def build(raw):
            import pandas as pd  # lazy: only with Tumult Core

            return pd.Series(list(raw), dtype=element.carrier_type)
        return Space(raws, build, lambda raw: Sequence_(tuple(_cell(v) for v in raw), "series"),
                     f"every series of {lo}..{hi} items over {[_cell_json(_cell(v)) for v in values]}")
    if name == "DictDomain":
        keys = list(domain.key_to_domain)
        rows = options.get("rows", {})
        if rows and not isinstance(rows, dict):
            raise InvalidArgument(f"rows={rows!r}: a dictionary domain takes a dict of rows by key "
                                  f"{keys!r}")
        parts = [_space(domain[k], {**{o: v for o, v in options.items() if o != "rows"},
                                    **({"rows": rows[k]} if k in rows else {})}) for k in keys]
        raws = list(itertools.product(*(p.raws for p in parts)))
        return Space(raws, lambda raw: {k: p.build(r) for k, p, r in zip(keys, parts, raw)},
                     lambda raw: {k: p.canon(r) for k, p, r in zip(keys, parts, raw)},
                     "; ".join(f"{k!r}: {p.text}" for k, p in zip(keys, parts)))
    raise _Unsupported(f"exactdp cannot enumerate the domain {domain!r}: it fills NumPy scalars, lists, pandas "
                       f"Series and DataFrames, Spark DataFrames (grouped too) and dicts of these")


def _grouped_space(domain: Any, options: dict) -> Space:
    from tmlt.core.domains.spark_domains import SparkDataFrameDomain  # lazy: the audited library

    table = TableSpace(SparkDataFrameDomain(domain.schema), options)
    by = tuple(c for c in domain.schema if c in set(domain.groupby_columns))
    idx = [tuple(domain.schema).index(c) for c in by]
    if "group_keys" in options:
        keys = tuple(tuple(k) if isinstance(k, (tuple, list)) else (k,) for k in options["group_keys"])
    else:
        universe = {tuple(r[i] for i in idx) for raw in table.raws for r in raw}
        keys = tuple(sorted(universe, key=repr))
    if not keys:
        raise InvalidArgument("a grouped domain needs at least one group key (option group_keys)")

    def build(raw):
        from tmlt.core.utils.grouped_dataframe import GroupedDataFrame  # lazy: Tumult Core

        spark = _spark()
        key_domain = SparkDataFrameDomain({c: domain.schema[c] for c in by})
        return GroupedDataFrame(table.build(raw), spark.createDataFrame(list(keys), schema=key_domain.spark_schema))

    def canon(raw):
        return Grouped(table.canon(raw), by, tuple(tuple(_cell(v) for v in k) for k in keys))
    return Space(table.raws, build, canon, f"{table.text}, grouped by {list(by)} with the keys "
                                           f"{[list(map(_cell_json, map(_cell, k))) for k in keys]}")


# --- reading the object -------------------------------------------------------------------------------


def _default_d_ins(metric: Any) -> list:
    name = _metric_name(metric)
    if name == "DictMetric":
        return [{k: d for k, d in zip(metric.key_to_metric, combo)}
                for combo in [tuple(_default_d_ins(m)[0] for m in metric.key_to_metric.values())]]
    if name == "AbsoluteDifference":
        return [1]
    return [1, 2]


def _options(options: dict) -> dict:
    refuse_unknown_options(options, OPTIONS, "the Tumult Core reader")
    if "sizes" in options:
        s = options["sizes"]
        if (not isinstance(s, (tuple, list)) or len(s) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                      for v in s) or not 0 <= s[0] <= s[1]):
            raise InvalidArgument(f"sizes={s!r}: expected (least, most) rows per dataset, 0 <= least <= most, "
                                  f"such as (0, 2)")
    if "max_rows" in options:
        m = options["max_rows"]
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise InvalidArgument(f"max_rows={m!r}: expected a positive int, such as 3")
    return options


@dataclass
class _Enumerated:
    """A transformation's outputs over a space and its worst pair at each ``d_in``."""

    transformation: Any
    space: Space
    inputs: list
    outputs: list
    pairs: dict  # d_in index -> list of (i, j, d_in distance, d_out distance)

    def worst(self, k: int) -> tuple[Any, tuple | None]:
        """The largest output distance among the pairs at ``d_ins[k]`` and its pair (for a
        dict or tuple distance, componentwise; the pair is that of the first component)."""
        best, pair = None, None
        for i, j, _, dout in self.pairs[k]:
            if best is None or not _le(dout, best):
                pair = (i, j)
            best = _max(best, dout)
        return best, pair


def _enumerate(t: Any, options: dict, d_ins: list, memo: dict | None = None) -> _Enumerated:
    """The object's outputs on every dataset of its space (run once: kept in ``memo``) and
    the neighbouring pairs within each of ``d_ins`` with their output distances."""
    memo = {} if memo is None else memo
    if "outputs" not in memo:
        space = _space(t.input_domain, options)
        if len(space.raws) > _MAX_DATASETS:
            raise InvalidArgument(f"the space of {_name(t)} holds {len(space.raws)} datasets, more than "
                                  f"{_MAX_DATASETS}: pass fewer rows (rows=..., max_rows=...) or smaller sizes")
        memo["space"] = space
        memo["inputs"] = [space.canon(r) for r in space.raws]
        memo["outputs"] = [canonical(call_library(f"{_name(t)}(<dataset {i}>)", t, space.build(r)))
                           for i, r in enumerate(space.raws)]
    space, inputs, outputs = memo["space"], memo["inputs"], memo["outputs"]
    pairs: dict = {k: [] for k in range(len(d_ins))}
    for i, j in itertools.combinations(range(len(inputs)), 2):
        din = distance(t.input_metric, inputs[i], inputs[j])
        close = [k for k, d in enumerate(d_ins) if _le(din, _exact(d))]
        if not close:
            continue
        dout = distance(t.output_metric, outputs[i], outputs[j])
        for k in close:
            pairs[k].append((i, j, din, dout))
    return _Enumerated(t, space, inputs, outputs, pairs)


def _replay_pair(t: Any, space: Space, raws: tuple, d_in: Any, claim: Any, recorded: tuple) -> tuple[bool, dict]:
    """The pair run again through the object, on fresh library values: whether its outputs
    are those recorded, the library's own input distance is within ``d_in`` and its own
    output distance is beyond ``claim``; what the library's metrics said."""
    x, xp = (space.build(r) for r in raws)
    fx = call_library(f"{_name(t)}(x) (replay)", t, x)
    fxp = call_library(f"{_name(t)}(x') (replay)", t, xp)
    same = (canonical(fx), canonical(fxp)) == recorded
    lib_in = _exact(call_library(f"{t.input_metric!r}.distance (replay)", t.input_metric.distance, space.build(raws[0]),
                                 space.build(raws[1]), t.input_domain))
    lib_out = _exact(call_library(f"{t.output_metric!r}.distance (replay)", t.output_metric.distance, fx, fxp,
                                  t.output_domain))
    ok = same and _le(lib_in, d_in) and not _le(lib_out, claim)
    return ok, {"library_d_in": _text(lib_in), "library_d_out": _text(lib_out), "outputs_reproduced": same}


def _transformation_audit(t: Any, options: dict, d_ins: list) -> Callable[[], Finding]:
    def check() -> Finding:
        claims = [_exact(call_library(f"{_name(t)}.stability_function({_text(_exact(d))})", t.stability_function, d))
                  for d in d_ins]
        run = _enumerate(t, options, d_ins)
        n_pairs = sum(len(p) for p in run.pairs.values())
        scope = (f"{len(run.inputs)} datasets ({run.space.text}); {n_pairs} pairs within d_in "
                 f"{', '.join(_text(_exact(d)) for d in d_ins)} under {t.input_metric!r} (computed by exactdp); "
                 f"the object's own outputs, their {t.output_metric!r} distance computed by exactdp")
        settings = Settings(len(d_ins), f"d_in {', '.join(_text(_exact(d)) for d in d_ins)}; {len(run.inputs)} "
                                        f"datasets, {n_pairs} neighbouring pairs")
        for k, (d, claim) in enumerate(zip(d_ins, claims)):
            for i, j, din, dout in run.pairs[k]:
                if not _le(dout, claim):
                    raws = (run.space.raws[i], run.space.raws[j])
                    ok, said = _replay_pair(t, run.space, raws, d, claim, (run.outputs[i], run.outputs[j]))
                    witness = {"x": _json(run.inputs[i]), "x_prime": _json(run.inputs[j]), "d_in": _text(_exact(d)),
                               "input_distance": _text(din), "fx": _json(run.outputs[i]),
                               "fx_prime": _json(run.outputs[j]), "output_distance": _text(dout), **said}
                    return Finding(claim=_text(claim), truth=_text(dout), verdict=Verdict.VIOLATED, witness=witness,
                                   replay=Replay.of(ok), evidence=Evidence.BIT_EXACT, scope=scope,
                                   settings=settings)
        truths = [run.worst(k)[0] for k in range(len(d_ins))]
        truths = [Fraction(0) if v is None else v for v in truths]
        tight = all(_exact_equal(c, v) for c, v in zip(claims, truths))
        return Finding(claim="; ".join(f"{_text(c)} at d_in={_text(_exact(d))}" for d, c in zip(d_ins, claims)),
                       truth="; ".join(f"{_text(v)} at d_in={_text(_exact(d))}" for d, v in zip(d_ins, truths)),
                       verdict=Verdict.HOLDS_TIGHT if tight else Verdict.HOLDS, evidence=Evidence.BIT_EXACT_GRID,
                       scope=scope, settings=settings)
    return check


def _exact_equal(a: Any, b: Any) -> bool:
    return _le(a, b) and _le(b, a)


# --- measurements: the privacy loss of the noise, where exactdp has a model -----------------------


@dataclass
class Loss:
    """A privacy loss: ``lo <= true loss <= hi`` (exact; tuples for ApproxDP's
    ``(epsilon, delta)``), with the pair that witnesses it (for a chain) and what it rests on."""

    lo: Any
    hi: Any
    witness: dict | None = None
    replay: Callable[[], bool] | None = None
    pairs: int = 0
    notes: tuple[str, ...] = ()


def _float_parameter(m: Any, attr: str) -> Fraction | Any:
    """The noise parameter the sampler uses: ``attr.to_float(round_up=True)``, exactly."""
    value = getattr(m, attr)
    expr = _exact(value)
    if expr == INF or expr == 0:
        return expr
    got = call_library(f"{_name(m)}.{attr}.to_float(round_up=True)", value.to_float, round_up=True)
    return library_number(got, "Tumult Core")


def _square(d: Any) -> Any:
    return _exact(sympy.sympify(_sym(d)) ** 2)


def _noise(kind: str, parameter: Any, d: Any) -> Any:
    if _cmp(d, Fraction(0)) == 0:
        return Fraction(0)
    if parameter == 0 or d == INF:
        return INF
    if parameter == INF:
        return Fraction(0)
    if kind in ("laplace", "geometric"):
        return _exact(sympy.sympify(_sym(d)) / _sym(parameter))
    return _exact(sympy.sympify(_sym(_square(d))) / (2 * _sym(parameter)))


_NOISE = {"AddLaplaceNoise": ("laplace", "scale"), "AddGeometricNoise": ("geometric", "alpha"),
          "AddDiscreteGaussianNoise": ("discrete-gaussian", "sigma_squared")}

REFUSED = {
    "AddGaussianNoise": "its sampler adds float(value) + gaussian(0, sigma2) and rounds the sum after sampling "
                        "(a float-lattice effect, Mironov 2012), which exactdp has no model of",
    "NoisyQuantile": "exactdp has no model of its exponential-mechanism sampler",
    "AggregateByColumn": "its aggregations are NoisyQuantile's exponential mechanism, which exactdp has no model of",
    "ApplyInPandas": "its aggregation (AggregateByColumn of NoisyQuantile) is an exponential mechanism exactdp has "
                     "no model of",
    "SparseVectorPrefixSums": "exactdp has no model of its sparse-vector sampler",
    "GeometricPartitionSelection": "exactdp has no model of its thresholded geometric release",
    "RhoZCDPToApproxDP": "it has no privacy_function (only a privacy_relation), so there is no claimed map to judge",
    "SequentialComposition": "it is an interactive measurement whose privacy_function is its budget; the Tumult "
                             "suite's accountant audit (tumult/accountant/sequential-budget) judges the budget "
                             "it keeps",
}


def _model(m: Any, options: dict) -> Callable[[Any], Loss]:
    """The privacy loss of measurement ``m`` as a function of its input distance (raises
    :class:`_Unsupported` at once for what exactdp has no model of)."""
    name = _name(m)
    if name in REFUSED:
        raise _Unsupported(f"exactdp cannot judge Tumult Core's {name}: {REFUSED[name]}")
    if name in _NOISE:
        kind, attr = _NOISE[name]

        def noise(d):
            value = _noise(kind, _float_parameter(m, attr), d)
            return Loss(value, value, notes=(f"{name}: the sampler's {attr} = {attr}.to_float(round_up=True), "
                                             f"the noise taken as ideal",))
        return noise
    if name == "AddNoiseToSeries":
        return _model(m.noise_measurement, options)
    if name == "AddNoiseToColumn":
        return _model(m.measurement, options)
    if name in ("MakeInteractive",):
        return _model(m.measurement, options)
    if name in ("PostProcess", "NonInteractivePostProcess", "DecorateQueryable"):
        inner = _model(m.measurement, options)

        def post(d):
            loss = inner(d)
            zero = tuple(Fraction(0) for _ in loss.hi) if isinstance(loss.hi, tuple) else Fraction(0)
            return Loss(zero, loss.hi, pairs=loss.pairs,
                        notes=loss.notes + (f"{name}: post-processing, at most the measurement's loss",))
        return post
    if name == "PureDPToApproxDP":
        inner = _model(m.pure_dp_measurement, options)

        def approx(d):
            loss = inner(d)
            return Loss((loss.lo, Fraction(0)), (loss.hi, Fraction(0)), loss.witness, loss.replay, loss.pairs,
                        loss.notes)
        return approx
    if name == "PureDPToRhoZCDP":
        inner = _model(m.pure_dp_measurement, options)

        def zcdp(d):
            loss = inner(d)
            hi = INF if loss.hi == INF else _square(loss.hi) / 2
            return Loss(Fraction(0), hi, pairs=loss.pairs,
                        notes=loss.notes + ("PureDPToRhoZCDP: an epsilon-DP measurement is (epsilon**2/2)-zCDP "
                                            "(Bun-Steinke 2016, Prop. 1.4), an upper bound only",))
        return zcdp
    if name == "Composition":
        parts = [_model(c, options) for c in m.measurements]

        def composed(d):
            losses = [p(d) for p in parts]
            return Loss(_total([x.lo for x in losses]), _total([x.hi for x in losses]),
                        next((x.witness for x in losses if x.witness), None),
                        _all_replays([x.replay for x in losses if x.replay]),
                        sum(x.pairs for x in losses), tuple(n for x in losses for n in x.notes) +
                        ("Composition: the losses add up (tight for pure DP and zCDP of independent noise)",))
        if _metric_name(m.output_measure) == "ApproxDP":
            raise _Unsupported("exactdp cannot judge a Composition under ApproxDP: the sum of (epsilon, delta) "
                               "pairs is a bound, not the truth; compose pure or zCDP measurements")
        return composed
    if name == "ParallelComposition":
        parts = [_model(c, options) for c in m.measurements]
        metric = _metric_name(m.input_metric)
        measure = _metric_name(m.output_measure)
        if not ((metric == "SumOf" and measure in ("PureDP", "RhoZCDP")) or (metric == "RootSumOfSquared"
                                                                              and measure == "RhoZCDP")):
            raise _Unsupported(f"exactdp judges a ParallelComposition under SumOf with PureDP or zCDP, or "
                               f"RootSumOfSquared with zCDP, not {metric} with {measure}")

        def parallel(d):
            losses = [p(d) for p in parts]
            lo = hi = None
            for x in losses:
                lo, hi = _max(lo, x.lo), _max(hi, x.hi)
            return Loss(lo, hi, pairs=sum(x.pairs for x in losses),
                        notes=tuple(n for x in losses for n in x.notes) + (
                            "ParallelComposition: d_in split among the parts; every model is convex in the "
                            "distance and 0 at 0, so the worst split puts it all in one part",))
        return parallel
    if name == "ChainTM":
        inner = _model(m.measurement, options)
        t = m.transformation
        supported_metric(t.input_metric)
        supported_metric(t.output_metric)
        _space(t.input_domain, options)  # refused here when it cannot be enumerated

        memo: dict = {}

        def chain(d):
            run = _enumerate(t, options, [d], memo)
            worst, pair = run.worst(0)
            if worst is None:
                worst = Fraction(0)
            loss = inner(worst)
            witness = replay = None
            if pair is not None:
                i, j = pair
                witness = {"x": _json(run.inputs[i]), "x_prime": _json(run.inputs[j]),
                           "transformation": _name(t), "fx": _json(run.outputs[i]),
                           "fx_prime": _json(run.outputs[j]), "output_distance": _text(worst)}

                def replay(i=i, j=j):
                    a = canonical(call_library(f"{_name(t)}(x) (replay)", t, run.space.build(run.space.raws[i])))
                    b = canonical(call_library(f"{_name(t)}(x') (replay)", t, run.space.build(run.space.raws[j])))
                    return _exact_equal(distance(t.output_metric, a, b), worst)
            return Loss(loss.lo, loss.hi, witness, replay, len(run.pairs[0]),
                        loss.notes + (f"ChainTM: {_name(t)}'s largest output distance over {len(run.inputs)} "
                                      f"datasets ({run.space.text})",))
        return chain
    raise _Unsupported(f"exactdp has no model of Tumult Core's {name}: it judges the noise measurements "
                       f"{', '.join(_NOISE)} and the combinators built on them")


def privacy_loss(measurement: Any, d_in: Any, **options: Any) -> Loss:
    """The privacy loss of a Tumult Core measurement at input distance ``d_in``, as the
    reader models it (:class:`Loss`: an exact interval); one line of
    :class:`InvalidArgument` for a measurement it has no model of."""
    try:
        model = _model(measurement, _options(dict(options)))
    except _Unsupported as e:
        raise InvalidArgument(f"exactdp cannot judge this Tumult Core {_name(measurement)}: {e}") from None
    return model(_exact(d_in))


def _total(values: list) -> Any:
    if any(isinstance(v, tuple) for v in values):
        return tuple(_total(list(c)) for c in zip(*values))
    if any(v == INF for v in values):
        return INF
    return _exact(sum((sympy.sympify(_sym(v)) for v in values), sympy.Integer(0)))


def _all_replays(replays: list) -> Callable[[], bool] | None:
    if not replays:
        return None
    return lambda: all(r() for r in replays)


def _measurement_audit(m: Any, options: dict, d_ins: list, model: Callable[[Any], Loss]) -> Callable[[], Finding]:
    def check() -> Finding:
        rows, verdict_rows = [], []
        for d in d_ins:
            claim = _exact(call_library(f"{_name(m)}.privacy_function({_text(_exact(d))})", m.privacy_function, d))
            loss = model(_exact(d))
            rows.append((d, claim, loss))
        notes = tuple(dict.fromkeys(n for _, _, x in rows for n in x.notes))
        pairs = sum(x.pairs for _, _, x in rows)
        scope = "; ".join(notes)
        settings = Settings(len(d_ins), f"d_in {', '.join(_text(_exact(d)) for d in d_ins)}"
                                        + (f"; {pairs} neighbouring pairs" if pairs else ""))
        for d, claim, loss in rows:
            if not _le(loss.lo, claim):
                witness = dict(loss.witness or {})
                witness.update({"d_in": _text(_exact(d)), "claimed": _text(claim), "true_at_least": _text(loss.lo)})
                replay = None if loss.replay is None else Replay.of(loss.replay())
                if loss.replay is None:  # a noise parameter: the library asked again
                    again = model(_exact(d))
                    replay = Replay.of(_exact_equal(again.lo, loss.lo))
                return Finding(claim=_text(claim), truth=f"at least {_text(loss.lo)}", verdict=Verdict.VIOLATED,
                               witness=witness, replay=replay, evidence=Evidence.IDEAL_NOISE, scope=scope,
                               settings=settings)
        undecided = [(d, c, x) for d, c, x in rows if not _le(x.hi, c)]
        claim_text = "; ".join(f"{_text(c)} at d_in={_text(_exact(d))}" for d, c, _ in rows)
        truth_text = "; ".join(f"{_interval(x)} at d_in={_text(_exact(d))}" for d, _, x in rows)
        if undecided:
            return Finding(claim=claim_text, truth=truth_text, verdict=Verdict.UNDECIDED, scope=scope,
                           settings=settings, note="the claim lies inside the interval exactdp certifies for the "
                                                   "true loss")
        tight = all(_exact_equal(c, x.lo) and _exact_equal(c, x.hi) for _, c, x in rows)
        return Finding(claim=claim_text, truth=truth_text, verdict=Verdict.HOLDS_TIGHT if tight else Verdict.HOLDS,
                       evidence=Evidence.IDEAL_NOISE, scope=scope, settings=settings)
    return check


def _interval(loss: Loss) -> str:
    return _text(loss.lo) if _exact_equal(loss.lo, loss.hi) else f"[{_text(loss.lo)}, {_text(loss.hi)}]"


# --- the reader's entry point ----------------------------------------------------------------------------


def audit_of(obj: object, **options: Any) -> Audit:
    """The audit of one Tumult Core transformation or measurement (see the module's note);
    options: :data:`OPTIONS`."""
    options = _options(dict(options))
    name = _name(obj)
    kind = _kind(obj)
    try:
        supported_metric(obj.input_metric)
        if kind == "transformation":
            supported_metric(obj.output_metric)
            _space(obj.input_domain, options)
            model = None
        else:
            model = _model(obj, options)
    except _Unsupported as e:
        raise InvalidArgument(f"exactdp cannot audit this Tumult Core {name}: {e}") from None
    d_ins = options.get("d_in", _default_d_ins(obj.input_metric))
    if not isinstance(d_ins, list):
        d_ins = [d_ins]
    for d in d_ins:
        try:
            obj.input_metric.validate(d)
        except Exception as e:  # noqa: BLE001 - the library's own validation names what is wrong
            raise InvalidArgument(f"d_in={d!r} is not a distance of {obj.input_metric!r}: {e}") from None
    if kind == "transformation":
        check = _transformation_audit(obj, options, d_ins)
        claim = "the output distance of neighbours within d_in is at most stability_function(d_in)"
    else:
        check = _measurement_audit(obj, options, d_ins, model)
        claim = "the privacy loss of neighbours within d_in is at most privacy_function(d_in)"
    return Audit(id=f"tumult/object/{name}", library=DISTRIBUTION, component=f"{name} ({obj.input_metric!r})",
                 claim=claim, check=check, covers=(_qualified(obj),),
                 source=f"tmlt.core: {type(obj).__module__.replace('.', '/')}.py ({name})")
