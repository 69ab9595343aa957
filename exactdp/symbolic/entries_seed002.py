"""Catalogue entries of seed 002 ("Hands-on Differential Privacy", ch. 6, *A System for
Relating Distances*): the restricted-sensitivity table, histograms, vector aggregates, the
quantile score, bounded/unbounded conversions and the exercises with a definite answer.

Conventions, spelled out once:

* The table's ``d_in`` counts records added or removed (``SymmetricDistance``). In the
  column "with L, U, N" both datasets have the public size ``N``, so a pair at symmetric
  distance ``d_in`` differs by ``floor(d_in / 2)`` changed records: an odd ``d_in`` buys
  nothing over ``d_in - 1`` (the seed: "d_in must be even").
* "with L, U" means every record is clamped to ``[L, U]`` (the exact form clamps records
  drawn from a universe that reaches past both bounds). "any numeric vector" is checked on
  a finite universe, where it behaves like bounds equal to the universe's smallest and
  largest value: there ``L`` and ``U`` mean those two values.
* The mean needs at least one record and the sample variance two; in the columns without
  ``N`` the datasets have every size from that minimum up (a public lower bound on the
  size, which the seed lists as a descriptor).

Every truth is exact enumeration with :func:`exactdp.checkers.sensitivity.sensitivity`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import sympy

from exactdp.checkers.sensitivity import sensitivity
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import to_exact
from exactdp.queries import Query, clipped, count, histogram, mean, sum_, variance
from exactdp.spaces import ChangeDistance, ExactSet, IntegerRange, Multisets, SymmetricDistance
from exactdp.symbolic.entry import Entry, Truth
from exactdp.symbolic.constructors import (
    make_change_to_symmetric, make_clamp, make_count, make_histogram, make_laplace, make_mean,
    make_quantile_score, make_sum, make_symmetric_to_change, make_variance, make_vector_sum,
)
from exactdp.symbolic.symbols import MEANINGS as _MEANINGS, min_size, scale
from exactdp.symbolic.symbols import MEANINGS, C, L, N, U, alpha, d_in, k

__all__ = ["entries", "meanings", "engine_truth", "additive_vector", "count_vector",
           "scalar_times_count", "variance_unbounded", "duplicate", "row_map", "resize", "double"]

CONSTRUCTORS = "exactdp.symbolic.constructors"
SEED = "seed 002 (Hands-on Differential Privacy, ch. 6)"
TABLE = f"{SEED}, restricted-sensitivity table"
COLUMNS = {"any": "any numeric vector", "LU": "with L, U", "LUN": "with L, U, N"}

ADD_REMOVE = "add-remove"
SUBSTITUTE = "substitute"

# bounds of every kind: L = 0, L > 0, U < 0, L < 0 < U
BOUNDS = ((0, 3), (2, 5), (-4, -1), (-2, 3))
D_INS = (1, 2, 3, 4)
SIZES = (1, 2, 3, 4, 5)


# -- helpers shared with entries_seed000 ------------------------------------------------

def meanings(*names: str, **override: str) -> dict[str, str]:
    """Meanings of the canonical symbols ``names``, some reworded for one entry.

    >>> meanings("N")
    {'N': 'the dataset size, when it is public (bounded DP)'}
    """
    for n in (*names, *override):
        if n not in MEANINGS:
            raise InvalidArgument(f"name={n!r} is not a canonical symbol; expected one of "
                                  f"{sorted(MEANINGS)}")
    return {n: override.get(n, MEANINGS[n]) for n in names}


def engine_truth(build: Callable[[Mapping[str, Any]], tuple], **options) -> Callable:
    """A ``truth`` function: ``build(params)`` gives ``(query, space, metric)``."""

    def truth(params: Mapping[str, Any]) -> Truth:
        query, space, metric = build(params)
        result = sensitivity(query, space, metric, int(params["d_in"]), progress=False,
                             **options)
        return Truth.from_result(result)

    return truth


def additive_vector(name: str, row: Callable[[Fraction], Sequence[Any]], dim: int,
                    norm: str) -> Query:
    """The vector query ``x -> sum of row(v) over the records v of x`` under ``norm``."""

    def prep(values):
        rows = [tuple(Fraction(c) for c in row(v)) for v in values]

        def f(counts):
            out = [Fraction(0)] * dim
            for c, r in zip(counts, rows):
                if c:
                    for j, a in enumerate(r):
                        out[j] += c * a
            return tuple(out)

        return f

    return Query(name, prep, output="vector", norm=norm)


def count_vector(scale: Fraction | int = 1, name: str = "count vector") -> Query:
    """``scale`` times the count vector of a dataset, under L1: for ``scale = 1`` the L1
    distance between two outputs is exactly the symmetric distance of the datasets.

    >>> count_vector("1/2")([0, 0, 3])
    (Fraction(1, 1), Fraction(1, 2))
    """
    factor = to_exact(scale, "scale")

    def prep(values):
        def f(counts):
            return tuple(factor * c for c in counts)

        return f

    return Query(name, prep, output="vector", norm="L1")


def scalar_times_count(c: int, name: str) -> Query:
    """``f(x) = c * x`` for an integer ``x`` written as ``x`` copies of one record."""

    def prep(values):
        def f(counts):
            return Fraction(c * sum(counts))

        return f

    return Query(name, prep)


def _grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{}]
    for name, values in axes.items():
        out = [dict(p, **{name: v}) for p in out for v in values]
    return out


def _bounds_grid(bounds=BOUNDS, **axes) -> list[dict[str, Any]]:
    return [dict(L=lo, U=hi, **p) for lo, hi in bounds for p in _grid(**axes)]


def _around(p) -> ExactSet:
    """Records at both bounds, one between, and one step past each bound (so clamping
    does something)."""
    lo, hi = p["L"], p["U"]
    return ExactSet(sorted({lo - 1, lo, (lo + hi) // 2, hi, hi + 1}))


def _inside(p) -> ExactSet:
    """Every integer from L to U: a finite universe whose extremes are L and U."""
    return IntegerRange(p["L"], p["U"])


# -- the table -------------------------------------------------------------------------

def _table() -> list[Entry]:
    out = []
    sym = meanings("d_in", "L", "U")
    sym_any = meanings("d_in", "L", "U",
                       L="the smallest value a record can take (finite universe)",
                       U="the largest value a record can take (finite universe)")
    sym_n = meanings("d_in", "L", "U", "N")
    unknown_sizes = (0, 4)
    clamp, clamp_n = make_clamp(), make_clamp(size=N)

    def cell(stat, col, published, derived, grid, build, covers, note, tight=True):
        statistic = "sample variance" if stat == "variance" else stat
        return Entry(
            id=f"s002/table/{stat}/{col}", source=f"{TABLE}, row {stat.capitalize()}, column "
            f"'{COLUMNS[col]}'", statistic=statistic, neighbors=ADD_REMOVE, published=published,
            derived=derived, symbols=sym_any if col == "any" else sym_n if col == "LUN" else sym,
            grid=grid, truth=engine_truth(build), covers=covers, derived_tight=tight, note=note)

    # Count
    out.append(cell(
        "count", "any", d_in, make_count().map(), _bounds_grid(((0, 3), (-2, 3)), d_in=D_INS),
        lambda p: (count, Multisets(_inside(p), sizes=unknown_sizes), SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_count",),
        "d_in records added or removed move the count by d_in."))
    out.append(cell(
        "count", "LU", d_in, (clamp >> make_count()).map(),
        _bounds_grid(((2, 5), (-4, -1)), d_in=D_INS),
        lambda p: (clipped(count, p["L"], p["U"]), Multisets(_around(p), sizes=unknown_sizes),
                   SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_count"),
        "Clamping does not change the number of records."))
    out.append(cell(
        "count", "LUN", sympy.Integer(0), (clamp_n >> make_count(size=N)).map(),
        _bounds_grid(((2, 5),), N=SIZES, d_in=D_INS),
        lambda p: (clipped(count, p["L"], p["U"]), Multisets(_around(p), size=p["N"]),
                   SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_count"),
        "Every dataset has N records: the count is the public constant N."))
    # Sum
    out.append(cell(
        "sum", "any", None, make_sum().map(), _bounds_grid(d_in=D_INS),
        lambda p: (sum_, Multisets(_inside(p), sizes=unknown_sizes), SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_sum",),
        "Blank in the seed (unbounded on the reals). On a finite universe it is the 'with L, "
        "U' cell with L, U the smallest and largest value."))
    out.append(cell(
        "sum", "LU", d_in * sympy.Max(abs(L), U), (clamp >> make_sum()).map(),
        _bounds_grid(d_in=D_INS),
        lambda p: (clipped(sum_, p["L"], p["U"]), Multisets(_around(p), sizes=unknown_sizes),
                   SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_sum"),
        "The seed writes max(|L|, U), not max(|L|, |U|). With L <= U the two are equal "
        "(U < 0 forces |L| >= |U|), so no binding tells them apart; U < 0 is on the grid."))
    out.append(cell(
        "sum", "LUN", d_in / 2 * (U - L), (clamp_n >> make_sum(size=N)).map(),
        _bounds_grid(((2, 5), (-4, -1), (-2, 3)), N=SIZES, d_in=D_INS),
        lambda p: (clipped(sum_, p["L"], p["U"]), Multisets(_around(p), size=p["N"]),
                   SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_sum"),
        "Tight for even d_in <= 2N. Loose for odd d_in (floor(d_in/2) changes) and for "
        "d_in > 2N (at most N records can change)."))
    # Mean
    out.append(cell(
        "mean", "any", None, make_mean(min_size=1).map(), _bounds_grid(d_in=D_INS),
        lambda p: (mean, Multisets(_inside(p), sizes=(1, 4)), SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_mean",),
        "Blank in the seed. Sizes 1.. (the mean needs a record): one add/remove moves the "
        "mean by at most (U-L)/2 ([L] vs [L, U]); two move it across the range ([L] vs [U]). "
        "The calculus' formula is its general one at min_size = 1."))
    out.append(cell(
        "mean", "LU", None, (clamp >> make_mean(min_size=1)).map(), _bounds_grid(d_in=D_INS),
        lambda p: (clipped(mean, p["L"], p["U"]), Multisets(_around(p), sizes=(1, 4)),
                   SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_mean"),
        "Blank in the seed (unbounded: the size is unknown). Finite as soon as the mean needs "
        "a record: (U-L)/2 at d_in = 1, U-L from d_in = 2."))
    out.append(cell(
        "mean", "LUN", d_in / 2 * (U - L) / N, (clamp_n >> make_mean(size=N)).map(),
        _bounds_grid(((2, 5), (-2, 3)), N=SIZES, d_in=D_INS),
        lambda p: (clipped(mean, p["L"], p["U"]), Multisets(_around(p), size=p["N"]),
                   SymmetricDistance()),
        (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_mean"),
        "Tight for even d_in <= 2N; loose for odd d_in and for d_in > 2N."))
    # Variance (sample, ddof = 1: the reading under which the published cell is tight)
    var_any = variance_unbounded()
    out.append(cell(
        "variance", "any", None, var_any, _bounds_grid(((0, 3), (-4, -1), (-2, 3)), d_in=D_INS),
        lambda p: (variance(1), Multisets(_inside(p), sizes=(2, 4)), SymmetricDistance()),
        ("exactdp.symbolic.entries_seed002.variance_unbounded",),
        "Sample variance (ddof = 1), sizes 2.. . Blank in the seed. (U-L)^2/3 at d_in = 1 "
        "([L, L] vs [L, L, U]), (U-L)^2/2 from d_in = 2 ([L, L] vs [L, U])."))
    out.append(cell(
        "variance", "LU", None, var_any, _bounds_grid(((0, 3), (-4, -1), (-2, 3)), d_in=D_INS),
        lambda p: (clipped(variance(1), p["L"], p["U"]), Multisets(_around(p), sizes=(2, 4)),
                   SymmetricDistance()),
        ("exactdp.symbolic.entries_seed002.variance_unbounded",),
        "Sample variance (ddof = 1), sizes 2.. . Blank in the seed; finite once the size has "
        "a lower bound. Clamping first changes nothing: the bound is over records in [L, U]."))
    for ddof, stat, label in ((1, "variance", "Sample variance (ddof = 1), N >= 2"),
                              (0, "variance-population", "Population variance (ddof = 0)")):
        derived = (clamp_n >> make_variance(size=N, ddof=ddof, neighbors=ADD_REMOVE)).map()
        out.append(Entry(
            id=f"s002/table/{stat}/LUN",
            source=f"{TABLE}, row Variance, column 'with L, U, N'"
                   + ("" if ddof else ", read as the population variance"),
            statistic="sample variance" if ddof else "population variance", neighbors=ADD_REMOVE,
            published=d_in / 2 * (U - L) ** 2 / N, derived=derived, symbols=sym_n,
            grid=_bounds_grid(((2, 5), (-2, 1)), N=SIZES[ddof:], d_in=D_INS),
            truth=engine_truth(lambda p, ddof=ddof: (clipped(variance(ddof), p["L"], p["U"]),
                                                     Multisets(_around(p), size=p["N"]),
                                                     SymmetricDistance())),
            covers=(f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_variance"),
            note=label + (": tight at d_in = 2 for every N; loose for odd d_in and for two or "
                          "more changes (j changes reach j'(N-j')/(N(N-1)) (U-L)^2, "
                          "j' = min(j, floor(N/2)))." if ddof else
                          ": the published cell holds with slack everywhere (one change "
                          "reaches (N-1)/N^2 (U-L)^2, not (U-L)^2/N).")))
    return out


def variance_unbounded():
    """Sample variance of at least 2 records in ``[L, U]``, size not public, under
    add/remove: ``0`` at ``d_in = 0``, ``(U-L)^2 / 3`` at ``d_in = 1``, ``(U-L)^2 / 2`` from
    ``d_in = 2``."""
    return (U - L) ** 2 * sympy.Piecewise(
        (0, sympy.Eq(d_in, 0)), (sympy.Rational(1, 3), sympy.Eq(d_in, 1)),
        (sympy.Rational(1, 2), True))


# -- histograms -------------------------------------------------------------------------

EDGES = (0, 2, 4, 6)  # three bins: [0, 2), [2, 4), [4, 6]
CELLS = 4  # partitions an individual may touch, for the k-partition entries


def _subsets(cells: int, most: int) -> list[tuple[int, ...]]:
    """Every set of at most ``most`` of ``cells`` partitions (the empty one too)."""
    from itertools import combinations

    return [c for r in range(most + 1) for c in combinations(range(cells), r)]


def _individuals(most: int, norm: str) -> tuple[Query, ExactSet]:
    """Records are individuals coded 0, 1, ...; individual ``i`` adds one row to each
    partition of the ``i``-th set of at most ``most`` partitions."""
    sets = _subsets(CELLS, most)

    def row(code):
        chosen = sets[int(code)]
        return [1 if c in chosen else 0 for c in range(CELLS)]

    query = additive_vector(f"histogram of individuals (<= {most} partitions):{norm}", row,
                            CELLS, norm)
    return query, ExactSet(range(len(sets)))


def _histograms() -> list[Entry]:
    src = f"{SEED}, Sensitivity of Vector Aggregates"
    rows = lambda norm: lambda p: (histogram(EDGES, norm), Multisets(ExactSet([0, 3, 5, 6]), sizes=(0, 4)),
                                   SymmetricDistance())
    hist = f"{CONSTRUCTORS}.make_histogram"

    def individuals_l1(p):
        query, universe = _individuals(p["k"], "L1")
        return query, Multisets(universe, sizes=(0, 2)), SymmetricDistance()

    def one_individual_l2(p):
        # d_in here counts the rows of ONE individual, at most one per partition
        query, universe = _individuals(p["d_in"], "L2")
        result = sensitivity(query, Multisets(universe, sizes=(0, 2)), SymmetricDistance(), 1,
                             progress=False)
        return Truth.from_result(result)

    return [
        Entry("s002/histogram/L1", f"{src}, 'A Stable Transformation into l1 Sensitivity'",
              "histogram (L1)", ADD_REMOVE, d_in, make_histogram(k=1, norm="L1").map(), meanings("d_in"),
              _grid(d_in=D_INS), engine_truth(rows("L1")),
              (hist,),
              note="One bin per row; d_out <= d_in from the symmetric distance to L1."),
        Entry("s002/histogram/L1/k-partitions",
              f"{src}, 'A Stable Transformation into l1 Sensitivity' (k time ranges: "
              f"'ΔF = k')", "histogram (L1), k partitions per individual", ADD_REMOVE, k,
              make_histogram(k=None, norm="L1").map(), meanings("d_in", "k", d_in="individuals added or removed"),
              _grid(k=(1, 2, 3), d_in=(1,)), engine_truth(individuals_l1),
              (hist,),
              note="The seed states ΔF = k for one individual (d_in = 1), the grid's d_in. "
                   "Records are individuals, each adding a row to up to k of 4 partitions."),
        Entry("s002/histogram/L2/one-per-partition",
              f"{src}, 'A Stable Transformation into l2 Sensitivity' (sqrt of a sum of ones)",
              "histogram (L2), at most one row per partition", ADD_REMOVE, sympy.sqrt(d_in),
              make_histogram(k=None, norm="L2").map(1).xreplace({k: d_in}), meanings("d_in", d_in="rows one individual adds or removes, "
                                                       "at most one per partition"),
              _grid(d_in=D_INS), one_individual_l2,
              (hist,),
              note="One individual added or removed, holding up to d_in rows in distinct "
                   "partitions (of 4). Derived: the calculus' k-partition map d_in*sqrt(k) at "
                   "one individual with k = d_in rows."),
        Entry("s002/histogram/L2/rows",
              f"{src}, 'A Stable Transformation into l2 Sensitivity' ('degrades to d_out <= d_in')",
              "histogram (L2)", ADD_REMOVE, d_in, make_histogram(k=1, norm="L2").map(), meanings("d_in"),
              _grid(d_in=D_INS),
              engine_truth(rows("L2")),
              (hist,),
              note="Without the one-row-per-partition premise all d_in rows may land in one "
                   "bin: sqrt(d_in) would be violated from d_in = 2."),
        Entry("s002/laplace/histogram",
              f"{SEED}, A Private Mechanism over l1 Sensitivity ('epsilon <= d_in/b'; with the "
              f"histogram: '(d_in, d_out)-private, where d_out <= d_in/b')",
              "histogram, then Laplace noise of scale b per bin: exact epsilon", ADD_REMOVE,
              d_in / scale, (make_histogram(k=1) >> make_laplace(metric="L1Distance")).map(),
              {**meanings("d_in"), "scale": _MEANINGS["scale"]},
              _grid(scale=(1, 2, Fraction(1, 2)), d_in=D_INS), engine_truth(_laplace_histogram),
              (hist, f"{CONSTRUCTORS}.make_laplace"),
              note="The exact epsilon of independent Laplace noise is the L1 sensitivity of the "
                   "vector divided by b (see the proof); the truth enumerates H/b."),
    ]


def _laplace_histogram(p):
    b = Fraction(p["scale"])
    edges = [Fraction(e) for e in EDGES]

    def row(v):
        return [Fraction(1) / b if (edges[i] <= v < edges[i + 1] or (i == len(edges) - 2 and v == edges[-1]))
                else 0 for i in range(len(edges) - 1)]

    query = additive_vector(f"histogram / {b}", row, len(edges) - 1, "L1")
    return query, Multisets(ExactSet([0, 3, 5, 6]), sizes=(0, 4)), SymmetricDistance()


# -- vector aggregates ------------------------------------------------------------------

# raw rows of a 2-column dataset; clipping scales each to norm <= C (norms are rational)
RAW_ROWS = ((3, 4), (-6, 8), (5, -12), (0, Fraction(1, 2)))


def _norm(row, p: str) -> Fraction:
    if p == "L1":
        return sum(abs(Fraction(a)) for a in row)
    sq = sum(Fraction(a) ** 2 for a in row)
    root = sympy.sqrt(sympy.Rational(sq.numerator, sq.denominator))
    if not root.is_Rational:  # pragma: no cover - RAW_ROWS are chosen with rational norms
        raise ValueError(f"row {row} has an irrational L2 norm")
    return Fraction(int(root.p), int(root.q))


def _clip_row(row, bound: Fraction, p: str) -> tuple[Fraction, ...]:
    size = _norm(row, p)
    factor = Fraction(1) if size <= bound else bound / size
    return tuple(Fraction(a) * factor for a in row)


def _vectors() -> list[Entry]:
    src = f"{SEED}, Sensitivity of Vector Aggregates"
    out = []
    for p_norm, head in (("L1", "l1 Norm"), ("L2", "L2 Distance")):
        def build(p, p_norm=p_norm):
            bound = Fraction(p["C"])
            query = additive_vector(f"sum of rows clipped to {p_norm} norm <= {bound}",
                                    lambda code: _clip_row(RAW_ROWS[int(code)], bound, p_norm),
                                    2, p_norm)
            return query, Multisets(ExactSet(range(len(RAW_ROWS))), sizes=(0, 4)), SymmetricDistance()

        out.append(Entry(
            f"s002/vector-sum/{p_norm}", f"{src}, {head} ('the sensitivity of the sum scales "
            f"according to the norm bound')", f"sum of {p_norm}-clipped rows ({p_norm})",
            ADD_REMOVE, d_in * C, make_vector_sum(norm=p_norm).map(), meanings("d_in", "C"),
            _grid(C=(1, 3, Fraction(1, 2)), d_in=D_INS), engine_truth(build),
            (f"{CONSTRUCTORS}.make_vector_sum",),
            note="The seed states it in words; written as d_in * C. Rows of 2 columns, each "
                 f"scaled to {p_norm} norm <= C."))
    return out


# -- the quantile score -------------------------------------------------------------------

CANDIDATES = (Fraction(1), Fraction(2))
ALPHAS = (Fraction(1, 2), Fraction(1, 4), Fraction(9, 10), Fraction(0), Fraction(1))


def _score_query(a: Fraction, form: str) -> Query:
    """``F(x)_i`` for the candidates: ``"formula"`` is ``-|(1-a)#(x < c) - a#(x > c)|``,
    ``"code"`` is ``-|#(x <= c) - a*len(x)|`` (the seed's Python)."""

    def prep(values):
        def f(counts):
            n = sum(counts)
            out = []
            for c in CANDIDATES:
                below = sum(k for k, v in zip(counts, values) if v < c)
                above = sum(k for k, v in zip(counts, values) if v > c)
                if form == "formula":
                    out.append(-abs((1 - a) * below - a * above))
                else:
                    out.append(-abs((n - above) - a * n))
            return tuple(out)

        return f

    return Query(f"quantile score ({form}, alpha={a})", prep, output="vector", norm="Linf")


def _quantile() -> list[Entry]:
    src = f"{SEED}, The Exponential Mechanism, 'A Stable Transformation into l∞ Sensitivity'"
    published = sympy.Max(abs(alpha), abs(1 - alpha)) * d_in
    universe = IntegerRange(0, 3)
    out = []
    for form in ("formula", "code"):
        out.append(Entry(
            f"s002/quantile-score/{form}/add-remove", src,
            f"quantile score ({'formula' if form == 'formula' else 'the Python score_quantile_discrete'}), L-infinity",
            ADD_REMOVE, published,
            make_quantile_score(CANDIDATES, form="seed" if form == "formula" else "code").map(),
            meanings("d_in", "alpha"),
            _grid(alpha=ALPHAS, d_in=D_INS),
            engine_truth(lambda p, form=form: (_score_query(Fraction(p["alpha"]), form),
                                               Multisets(universe, sizes=(0, 4)), SymmetricDistance())),
            (f"{CONSTRUCTORS}.make_quantile_score",),
            note="Candidates 1 and 2 over records 0..3. Adding a record below a candidate moves "
                 "its score by 1 - alpha, above by alpha."))
    out.append(Entry(
        "s002/quantile-score/formula/substitute",
        src + ", applied with d_in = records changed: a misreading the seed does not make (it "
              "argues from 'adding or removing a single record'), kept as a regression case",
        "quantile score (formula), L-infinity", SUBSTITUTE, published,
        make_quantile_score(CANDIDATES, neighbors=SUBSTITUTE).map(),
        meanings("d_in", "alpha", "N", d_in="records changed (bounded DP)"),
        [dict(alpha=a, N=n, d_in=d) for a in ALPHAS for n in (4, 5) for d in (1, 2)],
        engine_truth(lambda p: (_score_query(Fraction(p["alpha"]), "formula"),
                                Multisets(universe, size=p["N"]), ChangeDistance())),
        (f"{CONSTRUCTORS}.make_quantile_score",),
        note="A changed record leaves one side of a candidate for the other: the score moves by "
             "(1 - alpha) + alpha = 1. The published bound counts d_in as adds/removes (one "
             "change is d_in = 2 there); read with d_in = changes it is violated for 0 < alpha < 1. "
             "The derived d_in is tight when N >= 2 d_in (as on this grid); for smaller N the "
             "exact value is lower (alpha = 1/2, N = 1, d_in = 1: 1/2)."))
    return out


# -- bounded / unbounded conversions ------------------------------------------------------

def _conversions() -> list[Entry]:
    src = f"{SEED}, Bounded vs. Unbounded Differential Privacy"
    sized = lambda metric, scale: lambda p: (count_vector(scale), Multisets(IntegerRange(0, 2), size=p["N"]),
                                            metric)
    grid = _grid(N=SIZES, d_in=D_INS)
    return [
        Entry("s002/conversion/change-to-symmetric",
              f"{src} ('each edit constitutes one addition and one removal')",
              "identity, ChangeDistance -> SymmetricDistance", SUBSTITUTE, 2 * d_in,
              make_change_to_symmetric(size=N).map(), meanings("d_in", "N", d_in="records changed"),
              grid,
              engine_truth(sized(ChangeDistance(), 1)),
              (f"{CONSTRUCTORS}.make_change_to_symmetric",),
              note="The seed's sentence is reversed ('the number of edits is equivalent to two "
                   "times the number of additions and removals'); its reason ('each edit "
                   "constitutes one addition and one removal') gives the published 2 d_in. "
                   "The output distance is the L1 distance of count vectors (= the symmetric "
                   "distance). Two datasets of size N differ by at most N changes: the published "
                   "2*d_in is loose when d_in > N."),
        Entry("s002/conversion/symmetric-to-change",
              f"{TABLE} ('Under bounded DP, d_in must be even')",
              "identity, SymmetricDistance -> ChangeDistance (size N)", ADD_REMOVE, d_in / 2,
              make_symmetric_to_change(size=N).map(), meanings("d_in", "N"), grid,
              engine_truth(sized(SymmetricDistance(), Fraction(1, 2))),
              (f"{CONSTRUCTORS}.make_symmetric_to_change",),
              note="Half the L1 distance of count vectors is the number of records changed. "
                   "An odd d_in counts as d_in - 1."),
    ]


# -- exercises and the 'double' example -------------------------------------------------

def duplicate():
    """``x * 2`` (every record twice), SymmetricDistance to SymmetricDistance: ``2 * d_in``."""
    return 2 * d_in


def row_map():
    """A record-by-record map (tweet -> sentiment), SymmetricDistance to
    SymmetricDistance: ``d_in``."""
    return d_in


def resize():
    """Keep the ``N`` smallest records, pad with a fixed record up to ``N``:
    SymmetricDistance to SymmetricDistance, ``2 * min(d_in, N)``."""
    return 2 * sympy.Min(d_in, N)


def double():
    """``f(x) = 2 x`` under the absolute distance: ``2 * d_in``."""
    return 2 * d_in


SENTIMENT = (0, 0, 1, 2, 2)  # five 'tweets' (records 0..4) and their sentiment class
PAD = Fraction(1)


def _resize_query(n: int) -> Query:
    def prep(values):
        pad = values.index(PAD)

        def f(counts):
            out, room = [], n
            for c in counts:
                take = min(c, room)
                out.append(Fraction(take))
                room -= take
            out[pad] += room
            return tuple(out)

        return f

    return Query(f"resize to {n}", prep, output="vector", norm="L1")


def _exercises() -> list[Entry]:
    src = f"{SEED}, Exercises"
    return [
        Entry("s002/exercise/duplicate", f"{src}, 1 (def duplicate)", "duplicate each record",
              ADD_REMOVE, None, duplicate(), meanings("d_in"), _grid(d_in=D_INS),
              engine_truth(lambda p: (count_vector(2), Multisets(IntegerRange(0, 2), sizes=(0, 4)),
                                      SymmetricDistance())),
              ("exactdp.symbolic.entries_seed002.duplicate",),
              note="Answer: stable under the symmetric distance, with d_out = 2 d_in."),
        Entry("s002/exercise/resize", f"{src}, 3 (unknown to known number of records)",
              "resize to N records", ADD_REMOVE, None, resize(), meanings("d_in", "N"),
              _grid(N=(1, 2, 3), d_in=D_INS),
              engine_truth(lambda p: (_resize_query(p["N"]),
                                      Multisets(IntegerRange(0, 2), sizes=(0, p["N"] + 2)),
                                      SymmetricDistance())),
              ("exactdp.symbolic.entries_seed002.resize",),
              note="Answer: keep the N smallest, pad with the record 1: d_out = 2 d_in "
                   "(symmetric), i.e. d_in changed records; at most 2N."),
        Entry("s002/exercise/mean-size-lower-bound",
              f"{src}, 2 (descriptors that reduce the sensitivity of a mean without the size); "
              f"{TABLE} ('a lower bound on the dataset size')",
              "mean of records clamped to [L, U], at least min_size records", ADD_REMOVE, None,
              (make_clamp() >> make_mean(min_size=min_size)).map(),
              {**meanings("d_in", "L", "U"), "min_size": _MEANINGS["min_size"]},
              _bounds_grid(((2, 5), (-2, 3)), min_size=(1, 2, 3), d_in=D_INS),
              engine_truth(lambda p: (clipped(mean, p["L"], p["U"]),
                                      Multisets(ExactSet([p["L"] - 1, p["L"], p["U"], p["U"] + 1]),
                                                sizes=(p["min_size"], p["min_size"] + p["d_in"])),
                                      SymmetricDistance())),
              (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_mean"),
              note="Answer: yes, clamping plus a public lower bound m on the size: "
                   "(U-L)*min(1, max(d_in/(m+d_in), h/(m+2h-d_in))), h = ceiling(d_in/2)."),
        Entry("s002/exercise/row-map", f"{src}, 5 (tweets to sentiments)",
              "map each record to a category", ADD_REMOVE, None, row_map(), meanings("d_in"),
              _grid(d_in=D_INS),
              engine_truth(lambda p: (additive_vector(
                  "sentiment counts", lambda v: [1 if SENTIMENT[int(v)] == s else 0 for s in range(3)],
                  3, "L1"), Multisets(IntegerRange(0, 4), sizes=(0, 4)), SymmetricDistance())),
              ("exactdp.symbolic.entries_seed002.row_map",),
              note="Answer: yes, 1-stable: d_out = d_in. The output distance is the L1 distance "
                   "of category counts, the symmetric distance of the mapped datasets."),
        Entry("s002/function/double", f"{SEED}, Stable Functions (def double)",
              "f(x) = 2x, absolute distance", "absolute", 2 * d_in, double(),
              meanings("d_in", d_in="the absolute distance between the inputs"),
              _grid(d_in=D_INS),
              engine_truth(lambda p: (scalar_times_count(2, "2x"),
                                      Multisets(ExactSet([1]), sizes=(0, 6)), SymmetricDistance())),
              ("exactdp.symbolic.entries_seed002.double",),
              note="An integer x is written as x copies of one record: the absolute distance "
                   "of integers is then the symmetric distance."),
    ]


def entries() -> list[Entry]:
    """Every seed-002 entry, in a stable order."""
    return _table() + _histograms() + _vectors() + _quantile() + _conversions() + _exercises()
