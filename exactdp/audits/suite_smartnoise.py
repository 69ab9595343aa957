"""The audit suite of SmartNoise SQL (``exactdp audit smartnoise-sql``).

What is audited: the sensitivity snsql assigns to each column it adds noise to. A query
such as ``SELECT AVG(x) FROM T`` is rewritten into an exact-aggregates subquery (``SUM`` and
``COUNT`` of the clamped column, at most ``max_ids`` rows per private id kept by a
reservoir sample) and each of its columns gets a mechanism with a per-row ``sensitivity``
whose noise OpenDP calibrates for ``max_contrib = max_ids`` rows: snsql claims that adding
or removing one private id moves the column by at most ``max_ids * sensitivity``
(:mod:`exactdp.adapters.smartnoise` reads both values from the library).

The truth is exactdp's exact id-level sensitivity (:func:`~exactdp.checkers.graph.graph_sensitivity`
over a :class:`~exactdp.spaces.units.Units` space under :class:`~exactdp.spaces.units.AddRemoveID`:
every table of two ids with 1 to ``max_ids + 1`` rows each over a small value grid, both
sides in the space) of the function snsql really computes: its own subquery, run by its
own reader (SQLite) on every table, the answers taken at their exact binary values. The
reservoir sample's ``ORDER BY RANDOM()`` is pinned to keep the largest, then the smallest,
values of each id (for a sum, any choice of kept rows lies between the two); the truth is
the larger of the two sensitivities. A witness is replayed through
``PrivateReader.execute`` with every mechanism's ``release`` replaced by the identity (the
library's rewrite, clamping, sampling and aggregation; only the noise removed), on the
witness tables with each id cut to the rows the pinned sample kept (so the library's own
random sample keeps them all).

Checked on smartnoise-sql 1.0.10 (with opendp 0.14.2, the only OpenDP it installs with;
hence its own environment, ``.ci/smartnoise``). Corpus, from opendp/smartnoise-sdk's
tracker: #317 (a column without bounds summed with no noise, fixed by #318), #201 (clamping
before an expression inside an aggregate, fixed by #210 which refuses such aggregates),
#431/#435 (the metadata ``sensitivity`` override; its consistency check is audited here).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from exactdp.audits.base import Audit, Finding, Replay
from exactdp.checkers.results import Evidence, Verdict
from exactdp.numeric.exact import format_exact

__all__ = ["DISTRIBUTION", "EXTRA", "LIBRARY", "CHECKED_ON", "SUPPORTED", "audits"]

DISTRIBUTION = "smartnoise-sql"
EXTRA = "smartnoise-sql"
INSTALL_NOTE = "in an environment of its own: it pins opendp 0.14.2; .ci/smartnoise"
"""Said when SmartNoise SQL is missing: it cannot share the test extra's environment."""
LIBRARY = "smartnoise-sql"
CHECKED_ON = ("1.0.10",)
SUPPORTED = ">=1.0,<1.1"

_SRC = "smartnoise-sql 1.0.10: snsql/"
_AST_SRC = (_SRC + "_ast/ast.py (TableColumn.sensitivity, Query symbols: mechanism(sensitivity, "
            "max_contrib=max_ids)), _ast/expressions/sql.py (AggFunction.sensitivity)")
_REWRITE_SRC = _SRC + "sql/private_rewriter.py (clamp, per_key_random), sql/_mechanisms/laplace.py"
_META_SRC = _SRC + "metadata.py (Int/Float: sens_a = max(|lower|, |upper|), sens_b = |upper - lower|)"
_ISSUES = "https://github.com/opendp/smartnoise-sdk/issues/"

MAX_IDS = 2
"""``max_ids`` in every audited table: two rows per id kept, three allowed in the grid."""


def _adapter():
    from exactdp.adapters import smartnoise

    smartnoise.require()
    return smartnoise


def _q(value: Fraction) -> str:
    return format_exact(Fraction(value))


def _space(values: list):
    from exactdp.spaces.units import Units
    from exactdp.spaces.universe import ExactSet

    # the grid's floats are dyadic: their exact values, and back to the same floats
    return Units(ExactSet([Fraction(v) for v in values]), ids=2, rows_per_id=(1, MAX_IDS + 1))


def _kept(rows: tuple, keep: str) -> tuple:
    """Each id's rows cut to the ``MAX_IDS`` the pinned sample keeps."""
    by_id: dict[Any, list] = {}
    for pid, v in rows:
        by_id.setdefault(pid, []).append(v)
    out = []
    for pid, vs in by_id.items():
        vs = sorted(vs, reverse=keep == "largest")[:MAX_IDS]
        out.extend((pid, v) for v in vs)
    return tuple(out)


def _sensitivity_check(query: str, meta_kw: dict, values: list, *, kind: str = "float",
                       note: str = "") -> Callable[[], Finding]:
    """Claim vs exact id-level sensitivity of every noised column of ``query``."""

    def check() -> Finding:
        sn = _adapter()
        from exactdp.audits.base import call_library
        from exactdp.checkers.graph import graph_sensitivity, make_query
        from exactdp.spaces.units import AddRemoveID

        meta = sn.metadata(kind=kind, max_ids=MAX_IDS, **meta_kw)
        cast = float if kind == "float" else int
        first = (0, cast(values[0]))
        reader = call_library("snsql.from_df(...)", sn.private_reader, [first], meta)
        columns = call_library(f"PrivateReader._rewrite({query!r})", sn.noised_columns, reader, query)
        if not columns:  # pragma: no cover - every audited query has a noised column
            raise AssertionError(f"{query!r}: no noised column")
        space = _space(values)
        worst = None  # (excess, column, keep, result)
        rows_seen = []
        for keep in ("largest", "smallest"):
            plan = call_library(f"the subquery of {query!r}", sn.plan, reader, query, keep)
            cache: dict[tuple, dict] = {}

            def answers(rows: tuple) -> dict:
                if rows not in cache:
                    table = [(pid, cast(v)) for pid, v in rows]
                    out = call_library(f"the subquery of {query!r} on {table}",
                                       sn.exact_aggregates, reader, plan, table)
                    # snsql releases a NULL aggregate (no row) as 0.0 plus noise
                    cache[rows] = {k: (v if v is not None else Fraction(0)) for k, v in out[0].items()}
                return cache[rows]

            for col in columns:
                q = make_query(col.name, lambda rows, c=col.name: answers(rows)[c])
                result = graph_sensitivity(q, space, AddRemoveID(), 1, max_pairs=10**6)
                rows_seen.append((col, keep, result))
                excess = result.value - col.claimed
                if worst is None or excess > worst[0]:
                    worst = (excess, col, keep, result)
        excess, col, keep, result = worst
        scope = (f"{result.scope.describe()}; {query!r} over the metadata {meta_kw} (max_ids="
                 f"{MAX_IDS}); every noised column of snsql's subquery ("
                 + ", ".join(sorted({f'{c.name} = {c.expression}' for c, _, _ in rows_seen}))
                 + "), run by snsql's own reader with the reservoir sample pinned to keep the "
                   "largest and the smallest values of each id; the truth is the larger")
        if excess > 0:
            return _violation(sn, query, meta, meta_kw, col, keep, result, scope, note)
        claims = "; ".join(sorted({f"{c.name}: {c.max_contrib} * {_q(c.sensitivity)} = {_q(c.claimed)}"
                                  for c, _, _ in rows_seen}))
        truths = "; ".join(sorted({f"{c.name}: {_q(max(r.value for d, _, r in rows_seen if d.name == c.name))}"
                                  for c, _, _ in rows_seen}))
        all_tight = all(max(r.value for d, _, r in rows_seen if d.name == c.name) == c.claimed
                        for c, _, _ in rows_seen)
        return Finding(claim=claims, truth=truths,
                       verdict=Verdict.HOLDS_TIGHT if all_tight else Verdict.HOLDS,
                       evidence=Evidence.BIT_EXACT_GRID, scope=scope, note=note)

    return check


def _violation(sn, query, meta, meta_kw, col, keep, result, scope, note) -> Finding:
    from exactdp.audits.base import call_library

    w = result.witness
    x, xp = _kept(w.x, keep), _kept(w.x_prime, keep)
    cast = float if meta[""][""]["T"]["x"]["type"] == "float" else int
    tx = [(pid, cast(v)) for pid, v in x]
    txp = [(pid, cast(v)) for pid, v in xp]
    # a SUM or COUNT query answers its one noised column itself; AVG and VAR combine several
    direct = len(sn.noised_columns(sn.private_reader([(0, cast(0))], meta), query)) == 1
    if direct:
        out = call_library(f"PrivateReader.execute({query!r}) (noise removed)", sn.release, tx, meta, query)
        outp = call_library(f"PrivateReader.execute({query!r}) (noise removed)", sn.release, txp, meta, query)
        fx, fxp = sn.exact(out[0][0]), sn.exact(outp[0][0])
        how = "PrivateReader.execute with the noise removed"
    else:
        reader = sn.private_reader(tx or [(0, cast(0))], meta)
        fx = sn.exact_aggregates(reader, query, tx)[0][col.name] or Fraction(0)
        fxp = sn.exact_aggregates(reader, query, txp)[0][col.name] or Fraction(0)
        how = "snsql's subquery with its own random sample"
    moved = abs(fx - fxp)
    replay = Replay.of(moved > col.claimed)
    epsilon = moved / col.scale if col.scale and col.mechanism.endswith("Laplace") else None  # Laplace: d/b
    witness = {"column": col.name, "x": [[p, _q(v)] for p, v in x], "x_prime": [[p, _q(v)] for p, v in xp],
               "fx": _q(fx), "fx_prime": _q(fxp), "distance": _q(moved), "d_in": 1,
               "replayed_by": how}
    extra = ""
    if epsilon is not None:
        extra = (f"the noise scale snsql computed, b = {float(col.scale):.10g}, gives this id a "
                 f"privacy loss of {_q(moved)}/b = {float(epsilon):.6g} against the epsilon "
                 f"{_q(col.epsilon)} it claims ({float(epsilon / col.epsilon):.4g} times)")
    return Finding(claim=f"{col.max_contrib} * {_q(col.sensitivity)} = {_q(col.claimed)} ({col.name})",
                   truth=_q(result.value), verdict=Verdict.VIOLATED, witness=witness, replay=replay,
                   evidence=Evidence.BIT_EXACT, scope=scope,
                   note="; ".join(t for t in (note, extra) if t))


# -- the metadata's sensitivity override: the consistency check --------------------------


def _range_override_check() -> Finding:
    """A column whose metadata sensitivity is ``upper - lower``: snsql's check accepts it
    as derived from the bounds (no warning), but one id adds up to max(|L|, |U|) per row."""
    sn = _adapter()
    from exactdp.audits.base import call_library

    meta_kw = {"lower": 2.0, "upper": 10.0, "sensitivity": 8.0}
    reader = call_library("snsql.from_df(...)", sn.private_reader, [(0, 2.0)],
                          sn.metadata(max_ids=MAX_IDS, **meta_kw))
    check = _sensitivity_check("SELECT SUM(x) FROM T", meta_kw, [1.0, 5.0, 10.0, 12.0],
                               note=("snsql's metadata check (Int/Float) warns 'Sensitivity for x "
                                     "will override sensitivity derived from bounds' unless the "
                                     "stated value is max(|lower|, |upper|) or |upper - lower|; "
                                     + ("it raised no warning here" if not reader.warned else
                                        f"it warned: {reader.warned[0]!r}")
                                     + "; |upper - lower| is the change when one row is replaced, "
                                       "not when an id is added or removed, the neighbours snsql's "
                                       "reservoir sample and max_ids protect"))
    return check()


# -- corpus: refusals that fixed public bugs ----------------------------------------------


def _refused(sn, meta, query) -> tuple[bool, str]:
    """Whether snsql refuses ``query`` (a ValueError from execute), and what it said."""
    try:
        sn.release([(0, 1.0), (1, 2.0)], meta, query)
    except ValueError as e:
        return True, str(e).strip().splitlines()[0][:160]
    except Exception as e:  # anything else is the library failing, not refusing
        from exactdp.errors import LibraryCallFailed

        raise LibraryCallFailed(f"PrivateReader.execute({query!r}) raised {type(e).__name__}: {e}") from e
    return False, ""


def _refusal_check(meta_kw: dict, queries: list[str], claim: str, *, kind: str = "float") -> Callable[[], Finding]:
    def check() -> Finding:
        sn = _adapter()
        meta = sn.metadata(kind=kind, max_ids=MAX_IDS, **meta_kw)
        said = {}
        for query in queries:
            refused, why = _refused(sn, meta, query)
            if not refused:
                table = [(0, 1.0), (1, 2.0)]
                a = sn.release(table, meta, query)
                reader1 = sn.private_reader(table, meta, noise=True)
                b = reader1.execute(query)[1:]
                c = reader1.execute(query)[1:]
                # answered twice with snsql's own noise: equal answers mean no noise was added
                replay = Replay.of(b == c)
                return Finding(claim=claim, truth=f"{query!r} answered: {a[0]}",
                               verdict=Verdict.VIOLATED, replay=replay,
                               witness={"query": query, "metadata": str(meta_kw),
                                        "noiseless": str(a[0]), "released": [str(b), str(c)]},
                               evidence=Evidence.BIT_EXACT,
                               scope=f"the queries {queries} on a two-row table")
            said[query] = why
        first = next(iter(said.items()))
        return Finding(claim=claim, truth=f"all {len(queries)} refused (e.g. {first[0]!r}: "
                                          f"ValueError {first[1]!r})",
                       verdict=Verdict.HOLDS, evidence=Evidence.BIT_EXACT_GRID,
                       scope=f"the queries {queries} over the metadata {meta_kw}, each through "
                             "PrivateReader.execute")
    return check


_EXPECTED = {
    "smartnoise-sql/count/sensitivity": "holds-on-grid",
    "smartnoise-sql/count-distinct/sensitivity": "holds-on-grid",
    "smartnoise-sql/sum/float": "holds-on-grid",
    "smartnoise-sql/sum/int": "holds-on-grid",
    "smartnoise-sql/avg/sensitivity": "holds-on-grid",
    "smartnoise-sql/var/sensitivity": "holds-on-grid",
    "smartnoise-sql/sum/metadata-sensitivity-range": "violated",
    "smartnoise-sql/corpus/317-unbounded-column": "holds-on-grid",
    "smartnoise-sql/corpus/201-expression-in-aggregate": "holds-on-grid",
}


def audits() -> list[Audit]:
    """The SmartNoise SQL suite (the library is imported only when an audit runs)."""
    from dataclasses import replace

    return [replace(a, versions=SUPPORTED, expect={SUPPORTED: _EXPECTED[a.id]}) for a in _audits()]


def _audits() -> list[Audit]:
    lib = LIBRARY
    claim = ("adding or removing one private id moves each noised column of the rewritten "
             "query by at most max_ids * sensitivity (the mechanism's sensitivity and "
             "max_contrib)")
    wide = {"lower": -2.0, "upper": 5.0}
    grid = [-3.0, -0.5, 4.0, 6.0]
    return [
        Audit("smartnoise-sql/count/sensitivity", lib, "COUNT(*), COUNT(x) (max_ids=2)", claim,
              _sensitivity_check("SELECT COUNT(*) AS n, COUNT(x) AS c FROM T", wide, [-3.0, 4.0]),
              source=_AST_SRC),
        Audit("smartnoise-sql/count-distinct/sensitivity", lib, "COUNT(DISTINCT x) (max_ids=2)", claim,
              _sensitivity_check("SELECT COUNT(DISTINCT x) AS d FROM T", wide, [-3.0, 1.0, 4.0]),
              source=_AST_SRC),
        Audit("smartnoise-sql/sum/float", lib, "SUM(x), float x in [-2, 5] (max_ids=2)", claim,
              _sensitivity_check("SELECT SUM(x) FROM T", wide, grid), source=_AST_SRC),
        Audit("smartnoise-sql/sum/int", lib, "SUM(x), int x in [-3, 2] (max_ids=2)", claim,
              _sensitivity_check("SELECT SUM(x) FROM T", {"lower": -3, "upper": 2}, [-4, 1, 3],
                                 kind="int"), source=_AST_SRC),
        Audit("smartnoise-sql/avg/sensitivity", lib, "AVG(x) = SUM/COUNT, float x in [-2, 5] (max_ids=2)",
              claim, _sensitivity_check("SELECT AVG(x) FROM T", wide, grid), source=_REWRITE_SRC),
        Audit("smartnoise-sql/var/sensitivity", lib,
              "VAR(x) and STDDEV(x) (one subquery: SUM(x * x), COUNT(x), SUM(x)), float x in [-2, 5] "
              "(max_ids=2)", claim, _sensitivity_check("SELECT VAR(x) FROM T", wide, grid),
              source=_REWRITE_SRC),
        Audit("smartnoise-sql/sum/metadata-sensitivity-range", lib,
              "SUM(x), float x in [2, 10], metadata sensitivity 8 = upper - lower (no warning)",
              claim, _range_override_check, source=_META_SRC + "; " + _ISSUES + "431"),
        Audit("smartnoise-sql/corpus/317-unbounded-column", lib,
              "SUM/AVG/VAR of a numeric column without bounds",
              "refused (ValueError), never answered without noise",
              _refusal_check({}, ["SELECT SUM(x) FROM T", "SELECT AVG(x) FROM T", "SELECT VAR(x) FROM T"],
                             "refused (ValueError), never answered without noise"),
              source=_ISSUES + "317", corpus=True),
        Audit("smartnoise-sql/corpus/201-expression-in-aggregate", lib,
              "aggregates over expressions of a clamped column",
              "refused (ValueError): the column would be clamped before the expression, so its "
              "bounds would not bound the aggregated values",
              _refusal_check(wide, ["SELECT SUM(x + 100) FROM T", "SELECT SUM(x * 3) FROM T",
                                    "SELECT SUM(CASE WHEN x > 0 THEN 1000 ELSE 0 END) FROM T",
                                    "SELECT AVG(x - 50) FROM T"],
                             "refused (ValueError): the column would be clamped before the "
                             "expression, so its bounds would not bound the aggregated values"),
              source=_ISSUES + "201", corpus=True),
    ]
