"""SmartNoise SQL (``snsql``): read the sensitivity it assigns to each noised column, run
its own rewritten SQL on small tables, and release answers through its reader with the
noise removed.

How SmartNoise SQL answers ``SELECT SUM(x) FROM T`` (snsql 1.0.10,
``sql/private_rewriter.py`` and ``sql/private_reader.py``): the rewriter turns the query
into an *exact-aggregates subquery* that clamps every numeric column to its metadata
bounds (``CASE WHEN x < lower THEN lower WHEN x > upper THEN upper ELSE x END``), keeps at
most ``max_ids`` rows of each private id (``ROW_NUMBER() OVER (PARTITION BY id ORDER BY
RANDOM())``, the reservoir sample) and computes ``SUM``/``COUNT`` there; ``AVG``, ``VAR``
and ``STDDEV`` become sums and counts (``SUM(x * x)`` for the squares) combined outside.
Each column of that subquery gets a mechanism whose ``sensitivity`` is the per-row bound
the AST assigns (``COUNT``: 1; ``SUM(x)``: ``max(|lower|, |upper|)`` or the metadata's
``sensitivity``; ``SUM(x * x)``: its square) and whose scale OpenDP calibrates for
``max_contrib = max_ids`` rows of a sum over ``[0, sensitivity]``. So snsql claims:
*adding or removing one private id moves each noised column by at most
``max_ids * sensitivity``*. :func:`noised_columns` reads those values exactly.

:func:`exact_aggregates` runs the library's own subquery through the library's own reader
(its SQLite database for a pandas table); ``RANDOM()`` in the reservoir sample can be
pinned to keep the largest or the smallest values of each id, so that a sum over ids
with more than ``max_ids`` rows is a function of the table (every choice the sample can
make lies between the two pinned ones for a sum). :func:`release` runs the whole query
through :class:`snsql.PrivateReader` with every mechanism's ``release`` replaced by the
identity (the scale is still computed by the library): how a witness is replayed.

:func:`aggregate_names` reads the aggregate functions of snsql's SQL grammar from its parser;
:func:`mechanism` builds its ``Laplace`` or ``Gaussian`` (scale, ``threshold``);
:func:`odometer_spent` and :func:`reader_spend` read what its odometers report;
:func:`approx_bounds_histogram` runs ``approx_bounds`` with its Laplace measurement recorded and
the noise removed.

snsql is imported only inside functions; without it they raise
:class:`~exactdp.errors.MissingDependency` naming the ``smartnoise-sql`` extra. snsql
1.0.10 needs ``opendp==0.14.2``, which exactdp's ``test`` extra (``opendp>=0.16``) excludes:
it lives in an environment of its own (``.ci/smartnoise``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import library_number

__all__ = [
    "DISTRIBUTION", "EXTRA", "NoisedColumn", "Plan", "Table", "aggregate_names", "approx_bounds_histogram",
    "exact", "exact_aggregates", "mechanism", "metadata", "noised_columns", "odometer_spent", "plan",
    "private_reader", "reader_spend", "release", "require", "version",
]

DISTRIBUTION = "smartnoise-sql"
EXTRA = "smartnoise-sql"
TABLE = "T"
ID = "pid"


def require():
    """The ``snsql`` module, or :class:`MissingDependency` naming the extra."""
    return _optional.require("snsql", library=DISTRIBUTION, extra=EXTRA)


def version() -> str:
    """The installed version of SmartNoise SQL."""
    return _optional.version(DISTRIBUTION, EXTRA)


def exact(value: Any) -> Fraction:
    """An answer or parameter snsql returned (int, float, bool, NumPy scalar) at its exact value."""
    return library_number(int(value) if isinstance(value, bool) else value, "snsql")


def metadata(lower: object = None, upper: object = None, *, kind: str = "float",
             max_ids: int = 1, sensitivity: object = None, sample_max_ids: bool = True,
             groups: bool = False) -> dict:
    """snsql metadata (its dictionary form) for one table ``T(pid, x[, g])``: ``pid`` the
    private id, ``x`` a numeric column with the given bounds, ``g`` an integer grouping
    column. Dimension censoring and count clamping are off, so that the noiseless release
    of a tiny table is the exact aggregate (both are post-processing of the noisy values)."""
    if kind not in ("float", "int"):
        raise InvalidArgument(f"kind={kind!r}: expected 'float' or 'int'")
    column: dict[str, Any] = {"type": kind}
    if lower is not None:
        column["lower"] = lower
    if upper is not None:
        column["upper"] = upper
    if sensitivity is not None:
        column["sensitivity"] = sensitivity
    table: dict[str, Any] = {"max_ids": max_ids, "sample_max_ids": sample_max_ids,
                             "censor_dims": False, "clamp_counts": False,
                             ID: {"type": "int", "private_id": True}, "x": column}
    if groups:
        table["g"] = {"type": "int"}
    return {"": {"": {TABLE: table}}}


@dataclass(frozen=True)
class Table:
    """Rows ``(pid, x)`` or ``(pid, x, g)`` of the table ``T``."""

    rows: tuple

    def frame(self, groups: bool):
        import pandas as pd

        columns = [ID, "x", "g"] if groups else [ID, "x"]
        return pd.DataFrame([list(r) for r in self.rows], columns=columns).astype(
            {ID: "int64", **({"g": "int64"} if groups else {})})


def _identity_mechanisms():
    """A :class:`snsql.sql.privacy.Mechanisms` whose every class computes its scale as
    snsql does but releases the value it is given (the noise removed)."""
    require()
    from snsql.sql._mechanisms.gaussian import Gaussian
    from snsql.sql._mechanisms.laplace import Laplace
    from snsql.sql.privacy import Mechanisms

    class NoiselessLaplace(Laplace):
        def release(self, vals):
            return list(vals)

    class NoiselessGaussian(Gaussian):
        def release(self, vals):
            return list(vals)

    mechs = Mechanisms()
    for key, cls in list(mechs.classes.items()):
        mechs.classes[key] = NoiselessGaussian if cls is Gaussian else NoiselessLaplace
    return mechs


def private_reader(rows: Iterable[Sequence[Any]], meta: dict, *, epsilon: float = 1.0,
                   delta: float = 1e-6, noise: bool = False):
    """A :class:`snsql.PrivateReader` over the table ``rows`` (pandas, SQLite underneath);
    ``noise=False`` (default): every mechanism releases its input (see module text).
    Warnings snsql raises while reading the metadata are returned as its ``warned`` list."""
    snsql = require()
    table = Table(tuple(tuple(r) for r in rows))
    groups = "g" in meta[""][""][TABLE]
    privacy = snsql.Privacy(epsilon=epsilon, delta=delta,
                            mechanisms=None if noise else _identity_mechanisms())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reader = snsql.from_df(table.frame(groups), privacy=privacy, metadata=meta)
    reader.warned = [str(w.message) for w in caught]
    return reader


@dataclass(frozen=True)
class NoisedColumn:
    """One noised column of snsql's exact-aggregates subquery, read from the library."""

    name: str
    expression: str
    mechanism: str
    sensitivity: Fraction  # per row, as the AST assigns it
    max_contrib: int
    scale: Fraction  # the noise scale snsql computed (OpenDP's binary search), exactly
    epsilon: Fraction

    @property
    def claimed(self) -> Fraction:
        """``max_contrib * sensitivity``: what one id may move the column by, as snsql
        calibrates its noise."""
        return self.max_contrib * self.sensitivity


def noised_columns(reader, query: str) -> list[NoisedColumn]:
    """Every noised column of ``query``'s exact-aggregates subquery, with the sensitivity
    and scale snsql assigns it (columns without a mechanism are left out)."""
    subquery, _ = reader._rewrite(query)
    out = []
    for symbol in subquery._select_symbols:
        mech = getattr(symbol, "mechanism", None)
        if mech is None:
            continue
        sens = mech.sensitivity
        if sens is None or (isinstance(sens, float) and sens == float("inf")):
            raise InvalidArgument(f"column {symbol.name!r} of {query!r} has sensitivity={sens!r}")
        out.append(NoisedColumn(symbol.name, str(symbol.expression), type(mech).__name__,
                                exact(sens), int(mech.max_contrib),
                                exact(float(mech.scale)) if mech.scale is not None else Fraction(0),
                                exact(float(mech.epsilon))))
    return out


@dataclass(frozen=True)
class Plan:
    """snsql's exact-aggregates subquery for one query, as the SQL text its reader runs
    (parsed and rewritten once; :func:`exact_aggregates` runs it on any table)."""

    query: str
    sql: str
    names: tuple[str, ...]
    keep: str


def plan(reader, query: str, keep: str = "random") -> Plan:
    """The library's own subquery for ``query``; ``keep`` pins the reservoir sample's
    ``ORDER BY RANDOM()`` to keep the ``"largest"`` or ``"smallest"`` values of each id
    (``"random"``: as snsql runs it)."""
    if keep not in ("random", "largest", "smallest"):
        raise InvalidArgument(f"keep={keep!r}: expected 'random', 'largest' or 'smallest'")
    subquery, _ = reader._rewrite(query)
    sql = str(subquery)
    random = "RANDOM ( )"
    if keep != "random":
        if random not in sql:
            raise InvalidArgument(f"no reservoir sample (ORDER BY {random}) in {sql!r}: "
                                  "keep='random' is the only choice")
        # the clamped subquery selects x only when the query reads it; a count does not
        # depend on which rows are kept
        if " AS x FROM" in sql or " AS x," in sql:
            sql = sql.replace(random, "x DESC" if keep == "largest" else "x ASC")
    return Plan(query, sql, tuple(s.name for s in subquery._select_symbols), keep)


def exact_aggregates(reader, query: "str | Plan", rows: Iterable[Sequence[Any]] | None = None, *,
                     keep: str = "random") -> list[dict[str, Fraction | None]]:
    """The exact aggregates snsql computes for ``query`` before any noise: its own
    subquery (a :class:`Plan`, or made from the query text and ``keep``), run by its own
    reader (on ``rows`` in place of the reader's table when given), one mapping ``column
    name -> exact value`` per output row (``None`` for SQL NULL)."""
    p = query if isinstance(query, Plan) else plan(reader, query, keep)
    inner = reader.reader
    if rows is not None:
        _replace_rows(inner, rows)
    result = inner.execute(p.sql)
    return [{n: (None if v is None else exact(v)) for n, v in zip(p.names, row)}
            for row in result[1:]]


def _replace_rows(inner, rows: Iterable[Sequence[Any]]) -> None:
    from sqlalchemy import text

    rows = [tuple(r) for r in rows]
    with inner.db_engine.begin() as conn:
        conn.execute(text(f"DELETE FROM {TABLE}"))
        if rows:
            cols = [ID, "x", "g"][: len(rows[0])]
            names = ", ".join(cols)
            marks = ", ".join(f":{c}" for c in cols)
            conn.execute(text(f"INSERT INTO {TABLE} ({names}) VALUES ({marks})"),
                         [dict(zip(cols, r)) for r in rows])


def release(rows: Iterable[Sequence[Any]], meta: dict, query: str, *, epsilon: float = 1.0,
            delta: float = 1e-6) -> list[list[Any]]:
    """``PrivateReader.execute(query)`` on the table ``rows`` with the noise removed (the
    library's own rewrite, clamping, reservoir sample, aggregation and post-processing):
    the output rows, without the header."""
    reader = private_reader(rows, meta, epsilon=epsilon, delta=delta)
    out = reader.execute(query)
    return [list(r) for r in out[1:]]


# --- the grammar, the mechanisms, the odometers, approx_bounds ----------------------------


def aggregate_names() -> tuple[str, ...]:
    """The aggregate function names snsql's SQL grammar accepts (its ANTLR parser's
    ``aggregateFunctionName`` rule, tried on every keyword of the grammar): the list grows
    with the library."""
    require()
    from antlr4 import InputStream
    from snsql.sql.parse import QueryParser
    from snsql.sql.parser.SqlSmallParser import SqlSmallParser

    names = []
    for name in SqlSmallParser.symbolicNames:
        if not name.isidentifier():
            continue
        parser = QueryParser().start_parser(InputStream(name))
        try:
            ctx = parser.aggregateFunctionName()
        except Exception:  # noqa: BLE001, S112 - the parser's SyntaxErrorListener raises: not an aggregate
            continue
        if ctx.exception is None and ctx.getText().upper() == name and parser.getCurrentToken().type == -1:
            names.append(name)
    return tuple(sorted(names))


def mechanism(kind: str, epsilon: float, *, delta: float = 0.0, sensitivity: float = 1.0,
              max_contrib: int = 1):
    """snsql's own ``Laplace`` or ``Gaussian`` (``kind``) at these parameters: its
    constructor computes the noise scale (OpenDP's binary search) and its ``threshold``
    property the censoring threshold tau."""
    require()
    from snsql.sql._mechanisms import Gaussian, Laplace

    if kind not in ("laplace", "gaussian"):
        raise InvalidArgument(f"kind={kind!r}: expected 'laplace' or 'gaussian'")
    cls = Laplace if kind == "laplace" else Gaussian
    mech = cls(epsilon, delta=delta, sensitivity=sensitivity, max_contrib=max_contrib)
    mech.delta = delta  # as snsql's Query does for a key count (the Laplace constructor drops it)
    return mech


def odometer_spent(kind: str, steps: Sequence[tuple[float, float]], *, epsilon: float = 1.0,
                   delta: float = 1e-6) -> tuple[Any, Any]:
    """What snsql's odometer reports after spending ``steps``: ``kind="homogeneous"`` is
    ``Odometer(Privacy(epsilon, delta))`` spent ``len(steps)`` times (its steps must all be
    ``(epsilon, delta)``); ``"heterogeneous"`` is ``OdometerHeterogeneous(Privacy(epsilon,
    delta))`` spent with ``Privacy(e, d)`` for each step. Returns ``spent`` as the library
    gives it (floats, or NumPy floats)."""
    snsql = require()
    from snsql.sql.odometer import Odometer, OdometerHeterogeneous

    if kind == "homogeneous":
        if any(tuple(s) != (epsilon, delta) for s in steps):
            raise InvalidArgument(f"steps={list(steps)!r}: the homogeneous Odometer spends its own "
                                  f"(epsilon, delta)=({epsilon!r}, {delta!r}) each time")
        odo = Odometer(snsql.Privacy(epsilon=epsilon, delta=delta))
        odo.spend(len(steps))
    elif kind == "heterogeneous":
        odo = OdometerHeterogeneous(snsql.Privacy(epsilon=epsilon, delta=delta))
        for e, d in steps:
            odo.spend(snsql.Privacy(epsilon=e, delta=d))
    else:
        raise InvalidArgument(f"kind={kind!r}: expected 'homogeneous' or 'heterogeneous'")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's overflow warnings at the edges
        return odo.spent


def reader_spend(rows: Iterable[Sequence[Any]], meta: dict, queries: Sequence[str], *,
                 epsilon: float = 1.0, delta: float = 1e-6) -> dict[str, Any]:
    """Run ``queries`` through one :class:`snsql.PrivateReader` (noise removed) and read its
    accounting: ``steps`` (``(epsilon, delta)`` of every mechanism each query ran, from the
    library's mechanism objects), ``spent`` (``reader.odometer.spent`` after them) and
    ``cost`` (``reader.get_privacy_cost(queries)`` on a fresh reader)."""
    reader = private_reader(rows, meta, epsilon=epsilon, delta=delta)
    steps = []
    for q in queries:
        subquery, _ = reader._rewrite(q)
        steps += [(m.epsilon, m.delta) for m in reader._get_mechanisms(subquery) if m is not None]
        reader.execute(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spent = reader.odometer.spent
        cost = private_reader(rows, meta, epsilon=epsilon, delta=delta).get_privacy_cost(list(queries))
    return {"steps": steps, "spent": spent, "cost": cost}


def approx_bounds_histogram(values: Sequence[float], epsilon: float) -> tuple[Any, list, tuple]:
    """``snsql.sql._mechanisms.approx_bounds.approx_bounds(values, epsilon)`` with its Laplace
    measurement recorded and its noise removed: ``(scale, histogram, result)``, the scale the
    library passes to OpenDP's ``make_laplace``, the exact histogram it noises (one float per
    bin) and what it returns on that noiseless histogram."""
    require()
    from snsql.sql._mechanisms import approx_bounds as module

    seen: dict[str, Any] = {"scale": None, "hist": []}
    real = module.make_laplace

    def recording(domain, metric, scale):
        seen["scale"] = scale
        real(domain, metric, scale)  # the library's own constructor checks the scale

        def identity(v):
            seen["hist"].append(v)
            return v
        return identity

    module.make_laplace = recording
    try:
        result = module.approx_bounds(list(values), epsilon)
    finally:
        module.make_laplace = real
    return seen["scale"], list(seen["hist"]), result
