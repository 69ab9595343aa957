"""The audit suite of Tumult Analytics' defaults (``exactdp audit tumult-analytics``).

Seed 001 (Tumult Analytics' topic guide on sensitivity) states the library's defaults: "With
Laplace noise (the default under PureDP) ... With Gaussian noise (the default under
rhoZCDP) ...". These audits establish the defaults by running the library: a
:class:`tmlt.analytics.Session` on a three-row Spark DataFrame answers count, sum and
average queries left at their ``DEFAULT`` mechanism (``CountMechanism.DEFAULT``,
``SumMechanism.DEFAULT``, ``AverageMechanism.DEFAULT``), on an integer and on a
floating-point column, under the protected changes ``AddOneRow`` and ``AddRowsWithID`` (the
seed's setting: ``MaxGroupsPerID`` and ``MaxRowsPerGroupPerID``). While ``Session.evaluate``
runs, every measurement Tumult Core's ``SequentialQueryable`` is asked to answer is
recorded (Tumult Analytics builds its noise measurement inside the query, adaptively, so
the compiled measurement alone does not hold it); the noise measurements in them
(``AddLaplaceNoise``, ``AddGeometricNoise``, ``AddDiscreteGaussianNoise``,
``AddGaussianNoise``, matched by class) are what the library used. Their parameters are
read exactly. The library's own noise report (``Session._noise_info``, compiled before the
query runs) must name the same mechanism.

What was found (tmlt.analytics 0.21.0, source ``_query_expr_compiler/_rewrite_rules.py``,
``select_noise_mechanism``): the default depends on the budget type and on the measure
column's type. Under PureDP a count and a sum or average of an ``INTEGER`` column get the
discrete Laplace (``AddGeometricNoise``; Tumult's ``LAPLACE`` option selects it too) and a
``DECIMAL`` (floating-point) column gets the continuous ``AddLaplaceNoise``; under
rhoZCDP a count and an ``INTEGER`` column get ``AddDiscreteGaussianNoise`` and a
``DECIMAL`` column ``AddGaussianNoise``. So the seed's two sentences hold for every column
type, in the sense the library gives them: the Laplace family (continuous or discrete)
under PureDP, the Gaussian family under rhoZCDP. An audit that found another family would
be violated, with the query as its witness, re-run on a fresh session.

Tumult Analytics 0.21.0 pins ``tmlt-core<0.20,>=0.19.1``, ``numpy<2`` and pyspark, and needs
Java 17: it runs in the Tumult environment (``.ci/tumult``, ``docs/tumult-environment.md``).
Where it does not import, ``exactdp audit tumult-analytics`` says so and its audits are
reported as skipped.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from exactdp import _optional
from exactdp.adapters import tumult
from exactdp.adapters._calls import Replay, call_library
from exactdp.audits.base import Audit, Finding, Settings
from exactdp.checkers.results import Evidence, Verdict, format_value

__all__ = ["DISTRIBUTION", "EXTRA", "INSTALL_NOTE", "LIBRARY", "CHECKED_ON", "SUPPORTED", "FAMILIES", "audits"]

DISTRIBUTION = "tmlt.analytics"
EXTRA = None
"""No exactdp extra installs it: it cannot share the test extra's environment (numpy<2)."""
INSTALL_NOTE = ("in the Tumult environment: tmlt.core<0.20, numpy<2, pyspark and Java 17; .ci/tumult "
                "and docs/tumult-environment.md")
LIBRARY = "tmlt.analytics"
CHECKED_ON = ("0.21.0",)
"""The tmlt.analytics versions the suite was run and reviewed on."""
SUPPORTED = ">=0.21,<0.22"
"""The range the suite applies to: it records the measurements through Tumult Core's
``SequentialQueryable`` and reads ``Session._noise_info``, internals of this release line."""

FAMILIES = {
    "PureDP": ("Laplace", ("AddLaplaceNoise", "AddGeometricNoise")),
    "RhoZCDP": ("Gaussian", ("AddGaussianNoise", "AddDiscreteGaussianNoise")),
}
"""Budget type -> (the family seed 001 states as its default, the Tumult Core noise classes
of that family: the continuous mechanism and its discrete counterpart, which Tumult's
``LAPLACE`` / ``GAUSSIAN`` options select on integer columns and counts)."""

_SEED = "seed 001 (Tumult Analytics, topic guide 'Understanding sensitivity'), section Queries using AddRowsWithID"
_SOURCE = ("tmlt.analytics 0.21.0: tmlt/analytics/_query_expr_compiler/_rewrite_rules.py "
           "(select_noise_mechanism), session.py (Session.evaluate); " + _SEED)
_NOISE_ATTR = {"AddLaplaceNoise": "scale", "AddGeometricNoise": "alpha",
               "AddDiscreteGaussianNoise": "sigma_squared", "AddGaussianNoise": "sigma_squared"}
_INFO_NAME = {"LAPLACE": "AddLaplaceNoise", "GEOMETRIC": "AddGeometricNoise",
              "DISCRETE_GAUSSIAN": "AddDiscreteGaussianNoise", "GAUSSIAN": "AddGaussianNoise"}

# the seed's setting: an ID column, a group column; MaxGroupsPerID and MaxRowsPerGroupPerID
_GROUPS, _ROWS = 2, 3
_ROWS_OF_DATA = [(1, "a", 1, 0.5), (1, "b", 2, 1.5), (2, "a", 3, 2.5)]  # id, g, i (bigint), f (double)


@dataclass(frozen=True)
class _Case:
    """One query left at its default mechanism."""

    name: str  # "sum of an INTEGER column"
    change: str  # "AddOneRow" or "AddRowsWithID"
    column: str | None  # the measure column (None: a count)
    build: Callable[[Any], Any]  # tmlt.analytics module -> the Query


def _cases() -> list[_Case]:
    def count(ta):
        return ta.QueryBuilder("t").count()

    def agg(kind: str, column: str):
        def build(ta):
            return getattr(ta.QueryBuilder("t"), kind)(column, 0, 3)
        return build

    def grouped_count(ta):
        return (ta.QueryBuilder("t").enforce(ta.MaxGroupsPerID("g", _GROUPS))
                .enforce(ta.MaxRowsPerGroupPerID("g", _ROWS))
                .groupby(ta.KeySet.from_dict({"g": ["a", "b"]})).count())

    def grouped_sum(column: str):
        def build(ta):
            return (ta.QueryBuilder("t").enforce(ta.MaxGroupsPerID("g", _GROUPS))
                    .enforce(ta.MaxRowsPerGroupPerID("g", _ROWS))
                    .groupby(ta.KeySet.from_dict({"g": ["a", "b"]})).sum(column, 0, 3))
        return build

    return [
        _Case("count()", "AddOneRow", None, count),
        _Case("sum('i', 0, 3)", "AddOneRow", "i", agg("sum", "i")),
        _Case("sum('f', 0, 3)", "AddOneRow", "f", agg("sum", "f")),
        _Case("average('i', 0, 3)", "AddOneRow", "i", agg("average", "i")),
        _Case("average('f', 0, 3)", "AddOneRow", "f", agg("average", "f")),
        _Case(f"enforce(MaxGroupsPerID('g', {_GROUPS})).enforce(MaxRowsPerGroupPerID('g', {_ROWS}))"
              f".groupby(g in a, b).count()", "AddRowsWithID('id')", None, grouped_count),
        _Case(f"enforce(MaxGroupsPerID('g', {_GROUPS})).enforce(MaxRowsPerGroupPerID('g', {_ROWS}))"
              f".groupby(g in a, b).sum('f', 0, 3)", "AddRowsWithID('id')", "f", grouped_sum("f")),
    ]


def _library():
    """tmlt.analytics (and Tumult Core, pyspark), or MissingDependency saying where it runs."""
    module = _optional.require("tmlt.analytics", library=DISTRIBUTION, extra=EXTRA, note=INSTALL_NOTE)
    tumult.require()
    return module


@contextlib.contextmanager
def _recording() -> Iterator[list]:
    """Every measurement Tumult Core's SequentialQueryable is asked to answer while the block
    runs (the session's accountant and the adaptive compositions inside a query both answer
    through it); the class is restored afterwards."""
    from tmlt.core.measurements import interactive_measurements as im  # lazy: the library is optional

    seen: list = []
    original = im.SequentialQueryable.__call__

    def call(self, query):
        if isinstance(query, im.MeasurementQuery):
            seen.append(query.measurement)
        return original(self, query)

    im.SequentialQueryable.__call__ = call
    try:
        yield seen
    finally:
        im.SequentialQueryable.__call__ = original


def _noise_in(objects: list) -> list:
    """The Tumult Core noise measurements inside ``objects`` (walked through the attributes
    of Tumult's objects, lists, tuples and dicts; each object once)."""
    from tmlt.core.measurements import noise_mechanisms as nm  # lazy: the library is optional

    classes = tuple(getattr(nm, name) for name in _NOISE_ATTR)
    found: list = []
    seen: set[int] = set()
    stack = list(objects)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, classes):
            found.append(obj)
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("tmlt."):
            stack.extend(vars(obj).values())
    return found


def _spark():
    """The local Spark session: the adapter's (one core, no UI), started here with a warehouse
    directory of its own in the temporary directory when none is running, because a Session
    saves its private table as a Spark table (dropped again by :func:`_drop_tables`)."""
    from pyspark.sql import SparkSession  # lazy: pyspark is optional

    if SparkSession.getActiveSession() is None:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        warehouse = tempfile.mkdtemp(prefix="exactdp-tmlt-analytics-")
        atexit.register(shutil.rmtree, warehouse, ignore_errors=True)
        (SparkSession.builder.master("local[1]").appName("exactdp-audit-tumult-analytics")
         .config("spark.sql.warehouse.dir", warehouse).config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "1")
         .config("spark.default.parallelism", "1").getOrCreate())
    return tumult.spark_session()


def _drop_tables() -> None:
    """Drop the temporary database Tumult keeps its sessions' tables in (tmlt.analytics'
    own ``utils.cleanup``)."""
    from tmlt.analytics import utils  # lazy: the library is optional

    utils.cleanup()


def _session(ta, measure: str, change: str):
    """A Session over the 3-row DataFrame with an exact budget of 10 (queries spend 1)."""
    from pyspark.sql import types  # lazy: pyspark is optional

    total = ta.PureDPBudget(10) if measure == "PureDP" else ta.RhoZCDPBudget(10)
    protected = ta.AddOneRow() if change == "AddOneRow" else ta.AddRowsWithID("id")
    schema = types.StructType([types.StructField("id", types.LongType(), False),
                               types.StructField("g", types.StringType(), False),
                               types.StructField("i", types.LongType(), False),
                               types.StructField("f", types.DoubleType(), False)])
    frame = _spark().createDataFrame(_ROWS_OF_DATA, schema)
    return call_library(f"Session.from_dataframe({total}, protected_change={change})",
                        ta.Session.from_dataframe, privacy_budget=total, source_id="t",
                        dataframe=frame, protected_change=protected)


def _seed_parameter(measure: str, case: _Case) -> Fraction | None:
    """Seed 001's sensitivity under AddRowsWithID turned into the noise parameter at budget 1:
    Laplace, sensitivity MaxRowsPerGroupPerID * MaxGroupsPerID * b, scale = sensitivity / 1;
    Gaussian, sensitivity MaxRowsPerGroupPerID * sqrt(MaxGroupsPerID) * b, sigma**2 =
    sensitivity**2 / (2 * 1); b is a row's largest contribution (1 to a count, 3 to a sum
    clamped to [0, 3]). None for the AddOneRow cases."""
    if case.change == "AddOneRow":
        return None
    b = 1 if case.column is None else 3
    if measure == "PureDP":
        return Fraction(_ROWS * _GROUPS * b)
    return Fraction((_ROWS * b) ** 2 * _GROUPS, 2)


def _run_case(ta, session, measure: str, case: _Case) -> dict[str, Any]:
    """The query evaluated at budget 1 and collected: the noise the library used, its exact
    parameter, the column type, the library's report."""
    spend = ta.PureDPBudget(1) if measure == "PureDP" else ta.RhoZCDPBudget(1)
    query = case.build(ta)
    report = call_library(f"Session._noise_info({case.name}, {spend})", session._noise_info, query, spend)
    with _recording() as asked:
        answer = call_library(f"Session.evaluate({case.name}, {spend})", session.evaluate, query, spend)
        rows = call_library("DataFrame.collect()", answer.collect)
    noise = _noise_in(asked)
    column_type = None
    if case.column is not None:
        column_type = getattr(session.get_column_types("t")[case.column], "name", None)
    return {
        "query": case.name, "protected_change": case.change, "budget": f"{type(spend).__name__}({spend.value})",
        "column": case.column, "column_type": column_type,
        "noise": [type(m).__name__ for m in noise],
        "parameters": [tumult.exact(getattr(m, _NOISE_ATTR[type(m).__name__])) for m in noise],
        "reported": [_INFO_NAME.get(getattr(i["noise_mechanism"], "name", ""), str(i["noise_mechanism"]))
                     for i in report],
        "seed_parameter": _seed_parameter(measure, case),
        "rows_returned": len(rows),
    }


def _run_all(ta, measure: str) -> list[dict[str, Any]]:
    """Every case, one Session per protected change; the temporary tables dropped after."""
    sessions: dict[str, Any] = {}
    runs = []
    try:
        for case in _cases():
            if case.change not in sessions:
                sessions[case.change] = _session(ta, measure, case.change)
            runs.append(_run_case(ta, sessions[case.change], measure, case))
    finally:
        _drop_tables()
    return runs


def _replay(ta, measure: str, run: dict[str, Any]) -> dict[str, Any]:
    """The witness's query again, on a fresh Session."""
    case = next(c for c in _cases() if c.name == run["query"] and c.change == run["protected_change"])
    try:
        return _run_case(ta, _session(ta, measure, case.change), measure, case)
    finally:
        _drop_tables()


def _check_default(measure: str) -> Callable[[], Finding]:
    def check() -> Finding:
        ta = _library()
        return _finding(ta, measure, _run_all(ta, measure), _optional.version(DISTRIBUTION, EXTRA, INSTALL_NOTE))
    return check


def _finding(ta, measure: str, runs: list[dict[str, Any]], version: str) -> Finding:
    """The verdict on ``runs`` (of :func:`_run_all`): violated when a query's noise is of
    another family (replayed on a fresh Session); no verdict when no noise was recorded or the
    library's own report names other mechanisms than the recording (the reading is then in
    doubt, not the library)."""
    family, classes = FAMILIES[measure]
    doubtful = [r for r in runs if not r["noise"] or sorted(r["reported"]) != sorted(r["noise"])]
    bad = next((r for r in runs if any(n not in classes for n in r["noise"])), None)
    used = "; ".join(f"{r['query']} [{r['protected_change']}"
                     + (f", column {r['column']}: {r['column_type']}" if r["column"] else "")
                     + f"]: {', '.join(f'{n}({format_value(p)})' for n, p in zip(r['noise'], r['parameters']))}"
                     for r in runs)
    scope = (f"tmlt.analytics {version}: {len(runs)} queries left at their DEFAULT mechanism, each "
             f"evaluated at {runs[0]['budget']} on a Session of budget 10 (one per protected change) over a "
             f"3-row Spark DataFrame "
             f"(columns id, g, i: INTEGER, f: DECIMAL); the noise measurements Tumult Core's "
             f"SequentialQueryable was asked to answer while Session.evaluate ran, matched by class, "
             f"parameters read exactly; the library's own report (Session._noise_info) compared")
    settings = Settings(len(runs), "count, sum, average; INTEGER and DECIMAL columns; AddOneRow and "
                                   "AddRowsWithID with MaxGroupsPerID and MaxRowsPerGroupPerID")
    claim = f"the default noise under {measure} is {family} noise ({' or '.join(classes)})"
    if doubtful:
        r = doubtful[0]
        return Finding(claim=claim, truth=f"{r['query']}: recorded {r['noise']}, the library reports {r['reported']}",
                       verdict=Verdict.UNDECIDED, evidence=None, scope=scope, settings=settings,
                       note=f"the noise recorded while Session.evaluate ran and the library's own report "
                            f"disagree on {len(doubtful)} of {len(runs)} queries: the reading is in doubt")
    if bad is not None:
        again = _replay(ta, measure, bad)
        witness = {k: bad[k] for k in ("query", "protected_change", "budget", "column", "column_type",
                                       "noise", "reported")}
        witness["parameters"] = [format_value(p) for p in bad["parameters"]]
        return Finding(claim=claim, truth=f"{bad['query']}: {', '.join(bad['noise']) or 'no noise found'}",
                       verdict=Verdict.VIOLATED, witness=witness,
                       replay=Replay.of(again["noise"] == bad["noise"]), evidence=Evidence.BIT_EXACT,
                       scope=scope, settings=settings)
    continuous = [r for r in runs if r["noise"] == [classes[0]]]
    discrete = [r for r in runs if r["noise"] == [classes[1]]]
    note = (f"the {family} family in both forms: {classes[0]} on "
            f"{', '.join(sorted({str(r['column_type']) for r in continuous})) or 'no'} columns, "
            f"{classes[1]} (its discrete counterpart, which the library's {family.upper()} option "
            f"selects too) on counts and "
            f"{', '.join(sorted({str(r['column_type']) for r in discrete if r['column_type']})) or 'no'} "
            f"columns; the library's report names the same mechanism in every case")
    seeded = [r for r in runs if r["seed_parameter"] is not None]
    if seeded:
        agree = all(r["parameters"] == [r["seed_parameter"]] for r in seeded)
        formula = ("scale = MaxRowsPerGroupPerID * MaxGroupsPerID * b / epsilon" if measure == "PureDP" else
                   "sigma**2 = (MaxRowsPerGroupPerID * sqrt(MaxGroupsPerID) * b)**2 / (2 rho)")
        note += (f"; under AddRowsWithID (MaxGroupsPerID {_GROUPS}, MaxRowsPerGroupPerID {_ROWS}) the "
                 f"library's parameters {'are' if agree else 'are NOT'} seed 001's sensitivity formula "
                 f"turned into the noise parameter, {formula} (b: a row's largest contribution, 1 to a "
                 f"count, 3 to a sum on [0, 3]): "
                 + ", ".join(f"{format_value(r['seed_parameter'])} expected, "
                             f"{', '.join(format_value(p) for p in r['parameters'])} used" for r in seeded))
    return Finding(claim=claim, truth=used, verdict=Verdict.HOLDS, evidence=Evidence.BIT_EXACT_GRID,
                   scope=scope, settings=settings, note=note)


_EXPECTED = {"s001/defaults/pure-dp-laplace": "holds-on-grid",
             "s001/defaults/rhozcdp-gaussian": "holds-on-grid"}


def audits() -> list[Audit]:
    """The suite (the library is imported only when an audit runs)."""
    found = [
        Audit("s001/defaults/pure-dp-laplace", LIBRARY, "Session.evaluate, mechanism DEFAULT, PureDPBudget",
              "Laplace noise is the default under PureDP (seed 001: 'With Laplace noise (the default "
              "under PureDP)')", _check_default("PureDP"), source=_SOURCE),
        Audit("s001/defaults/rhozcdp-gaussian", LIBRARY, "Session.evaluate, mechanism DEFAULT, RhoZCDPBudget",
              "Gaussian noise is the default under rhoZCDP (seed 001: 'With Gaussian noise (the default "
              "under rhoZCDP)')", _check_default("RhoZCDP"), source=_SOURCE),
    ]
    return [replace(a, expect={SUPPORTED: _EXPECTED[a.id]}) for a in found]

