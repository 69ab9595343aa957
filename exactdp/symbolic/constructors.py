"""Constructors of stable transformations, each with a derived map and an exact form.

Every ``make_*`` returns a :class:`~exactdp.symbolic.maps.Transformation` (or a
:class:`~exactdp.symbolic.maps.Measurement`) whose map is *derived* and *tight* on the
finite domains below, and whose :meth:`~exactdp.symbolic.maps.Transformation.truth`
builds the engine's ``(query, space, metric)`` for one parameter binding and returns the
exact sensitivity with the pair that attains it. Parameters left out stay symbolic.

Finite-domain convention of the exact forms (written down once, used everywhere):

* **records** lie on :func:`record_grid` ``(L, U)``: the integers ``L..U`` when both bounds
  are integers; otherwise the grid of step ``1/D`` (``D`` the common denominator of ``L``
  and ``U``) when it has at most 13 points, else ``L``, ``U``, their midpoint and the
  integers between. ``L`` and ``U`` are always records, so extreme pairs exist;
* **sizes** are ``0..d_in`` when the size is not public (enough for ``d_in`` records added
  to the empty dataset, or ``d_in`` records changed), ``min_size..min_size + d_in`` when a
  smallest size is public, ``0..2*d_in + 1`` for quantile scores under substitution (a
  score moves by the full ``d_in`` only when enough records lie on one side), and exactly
  ``N`` when the size is public (bounded DP);
* **neighbours**: ``"add-remove"`` is :class:`~exactdp.spaces.metrics.SymmetricDistance`
  (records added plus removed), ``"substitute"`` is
  :class:`~exactdp.spaces.metrics.ChangeDistance` (records changed; one change is two
  add/removes). Both datasets of a pair lie in the space (the ``"standard"`` scope).

A map that is tight on these domains is tight on every larger domain with the same bounds
(the extreme pairs are already present); it is an upper bound everywhere by the proofs in
``proofs/``.

>>> t = make_sum(L=-3, U=2)
>>> t.map(2)
Fraction(6, 1)
>>> t.truth({"d_in": 2}).value
Fraction(6, 1)
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Iterable, Sequence

import sympy

from exactdp._budget import DEFAULT_MAX_DATASETS, refuse_above
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, show_exact, to_exact
from exactdp.queries.base import UNDEFINED, Query
from exactdp.queries.builtin import count as count_query
from exactdp.queries.builtin import mean as mean_query
from exactdp.queries.builtin import sum_ as sum_query
from exactdp.queries.builtin import variance as variance_query
from exactdp.queries.scores import quantile_score_values
from exactdp.spaces.datasets import Multisets
from exactdp.spaces.metrics import ChangeDistance, SymmetricDistance
from exactdp.spaces.universe import ExactSet, IntegerRange
from exactdp.symbolic.maps import Domain, Measurement, Transformation
from exactdp.symbolic.symbols import min_size as MIN_SIZE, scale as SCALE, sigma as SIGMA
from exactdp.symbolic import symbols as S
from exactdp.symbolic.symbols import N, d_in
from exactdp.checkers.results import format_value

__all__ = [
    "make_clamp", "make_clipped_sum", "make_count", "make_sum", "make_mean", "make_variance", "make_histogram",
    "make_change_to_symmetric", "make_symmetric_to_change", "make_quantile_score",
    "make_vector_sum", "make_laplace", "make_gaussian", "record_grid", "NEIGHBORS",
]

NEIGHBORS = {"add-remove": "SymmetricDistance", "substitute": "ChangeDistance"}


# -- helpers ---------------------------------------------------------------------------

def _neighbors(neighbors: str) -> str:
    aliases = {"SymmetricDistance": "add-remove", "ChangeDistance": "substitute",
               "add_remove": "add-remove", "symmetric": "add-remove", "change": "substitute"}
    neighbors = aliases.get(neighbors, neighbors)
    if neighbors not in NEIGHBORS:
        raise InvalidArgument(
            f"neighbors={neighbors!r} is not a neighbour relation; use 'add-remove' "
            f"(SymmetricDistance) or 'substitute' (ChangeDistance)"
        )
    return neighbors


def _param(value, sym: sympy.Symbol):
    """A constructor argument: ``None`` keeps the symbol."""
    return sym if value is None else value


def _metric(neighbors: str):
    return SymmetricDistance() if neighbors == "add-remove" else ChangeDistance()


def record_grid(lower, upper) -> tuple[Fraction, ...]:
    """The records of an exact form with bounds ``[lower, upper]`` (see the module doc).

    >>> [format_exact(v) for v in record_grid(-1, 2)]
    ['-1', '0', '1', '2']
    >>> [format_exact(v) for v in record_grid("1/2", 2)]
    ['1/2', '1', '3/2', '2']
    """
    lo, hi = to_exact(lower, "L"), to_exact(upper, "U")
    if hi < lo:
        raise InvalidArgument(f"Cannot have U={format_exact(hi)!r} < L={format_exact(lo)!r}")
    # counted before listed: each record is a dataset of one record, so more than the dataset
    # budget is refused anyway (U = 10**30 listed its integers for ever)
    refuse_above(math.floor(hi) - math.ceil(lo) + 1, DEFAULT_MAX_DATASETS,
                 what=f"records in [L, U] = [{show_exact(lo)}, {show_exact(hi)}] (each one a "
                      f"dataset)", option=None, hint="bind L and U closer together")
    if lo.denominator == 1 and hi.denominator == 1:
        return tuple(Fraction(v) for v in range(int(lo), int(hi) + 1))
    den = math.lcm(lo.denominator, hi.denominator)
    steps = (hi - lo) * den
    if steps <= 12:
        return tuple(lo + Fraction(i, den) for i in range(int(steps) + 1))
    inner = range(math.floor(lo) + 1, math.ceil(hi))
    return tuple(sorted({lo, hi, (lo + hi) / 2, *map(Fraction, inner)}))


def record_universe(lower, upper):
    """The universe of :func:`record_grid` ``(lower, upper)``: an :func:`IntegerRange` (never
    listed before the dataset budget is checked) when both bounds are integers."""
    lo, hi = to_exact(lower, "L"), to_exact(upper, "U")
    if lo.denominator == 1 and hi.denominator == 1 and lo <= hi:
        return IntegerRange(int(lo), int(hi))
    return ExactSet(record_grid(lo, hi))


def _sizes(b: dict, extra: int = 0) -> dict:
    """Exactly ``N`` when the size is public, else ``0..d_in + extra``."""
    if b.get("N") is not None:
        return {"size": int(b["N"])}
    return {"sizes": (0, b["d_in"] + extra)}


class _DecodedWitness:
    """A witness over labelled records (rows, bin sets), shown decoded: the engine sees
    record ``i`` as the number ``i``; ``to_dict`` keeps those labels in ``x`` and
    ``x_prime`` and adds ``x_decoded`` and ``x_prime_decoded``."""

    def __init__(self, witness, decode, label: str):
        self.witness = witness
        self.decode = decode
        self.label = label

    def _side(self, xs):
        return [self.decode(v) for v in xs]

    def to_dict(self) -> dict:
        d = self.witness.to_dict()
        d["records"] = self.label
        d["x_decoded"] = [str(v) for v in self._side(self.witness.x)]
        d["x_prime_decoded"] = [str(v) for v in self._side(self.witness.x_prime)]
        return d

    def __str__(self) -> str:
        def show(xs):
            return "[" + ", ".join(str(v) for v in self._side(xs)) + "]"
        return (f"x={show(self.witness.x)}, x'={show(self.witness.x_prime)} ({self.label}): "
                f"f(x)={_fmt(self.witness.fx)}, f(x')={_fmt(self.witness.fx_prime)}")

    def __getattr__(self, name):
        return getattr(self.witness, name)


def _fmt(v):
    return format_value(v)


def _vector_query(name: str, fn, norm: str, min_size: int = 0) -> Query:
    """A vector query from ``fn(values_tuple) -> tuple`` on each dataset (sorted values)."""

    def prep(values):
        def f(counts):
            if sum(counts) < min_size:
                return UNDEFINED
            xs = []
            for c, v in zip(counts, values):
                if c:
                    xs.extend([v] * c)
            return tuple(Fraction(x) for x in fn(tuple(xs)))
        return f

    return Query(name, prep, output="vector", norm=norm, min_size=min_size)


def _counts_query(name: str, values: Sequence[Fraction], record, weight=Fraction(1)) -> Query:
    """The count vector of ``record(v)`` over ``values`` (dataset-to-dataset steps), times
    ``weight``; its L1 distance is the symmetric distance of the outputs (times weight)."""
    index = {v: i for i, v in enumerate(values)}

    def prep(universe):
        targets = [index[record(v)] for v in universe]

        def f(counts):
            out = [0] * len(values)
            for c, t in zip(counts, targets):
                if c:
                    out[t] += c
            return tuple(weight * c for c in out)
        return f

    return Query(name, prep, output="vector", norm="L1")


def _bounds_domain(size=None, lo=S.L, hi=S.U):
    return Domain("datasets", "[L, U]", bounds=(lo, hi), size=size)


# -- clamp and conversions --------------------------------------------------------------

def make_clamp(L=None, U=None, neighbors: str = "add-remove", size=None) -> Transformation:
    """Clamp every record to ``[L, U]``: a dataset-to-dataset step, stable with map
    ``d_in`` under the same dataset metric (a record-wise step changes at most the records
    that differ). With a public size ``N`` the output distance is also at most what two
    datasets of size ``N`` can be apart: ``Min(d_in, N)`` changes, or
    ``2*Min(floor(d_in/2), N)`` add/removes (an even number).

    Exact form: records from ``L - 1 .. U + 1`` on the record grid, and the distance of the
    outputs measured as the L1 distance of their count vectors (the symmetric distance;
    halved under ``"substitute"``: the change distance).

    >>> make_clamp(0, 10).map(3)
    Fraction(3, 1)
    """
    neighbors = _neighbors(neighbors)
    metric = NEIGHBORS[neighbors]
    size_sym = None if size is None else _param(size, N)
    params = {"L": _param(L, S.L), "U": _param(U, S.U)}
    if size is not None:
        params["N"] = size_sym

    def exact(b):
        lo, hi = b["L"], b["U"]
        grid = record_grid(lo, hi)
        universe = (lo - 1,) + grid + (hi + 1,)

        def clamp(v):
            return min(max(v, lo), hi)

        weight = Fraction(1) if neighbors == "add-remove" else Fraction(1, 2)
        q = _counts_query(f"clamp[{format_exact(lo)}, {format_exact(hi)}]", grid, clamp, weight)
        return q, Multisets(ExactSet(universe), **_sizes(b)), _metric(neighbors)

    def record_map(b):
        lo, hi = b["L"], b["U"]
        return lambda v: min(max(v, lo), hi)

    if size is None:
        expr = d_in
    elif neighbors == "substitute":
        expr = sympy.Min(d_in, N)
    else:
        expr = 2 * sympy.Min(sympy.floor(d_in / 2), N)
    return Transformation(
        "clamp", Domain("datasets", "reals", size=size_sym), metric,
        _bounds_domain(size_sym), metric, expr, params, exact=exact, record_map=record_map,
    )


def make_change_to_symmetric(size=None) -> Transformation:
    """The identity from ``ChangeDistance`` to ``SymmetricDistance``: one change is one
    removal plus one addition, map ``2*d_in`` (``2*Min(d_in, N)`` with a public size ``N``).

    >>> make_change_to_symmetric().map(3)
    Fraction(6, 1)
    """
    size_sym = None if size is None else _param(size, N)
    params = {} if size is None else {"N": size_sym}

    def exact(b):
        grid = record_grid(0, 2)
        q = _counts_query("identity", grid, lambda v: v)
        return q, Multisets(IntegerRange(0, 2), **_sizes(b)), ChangeDistance()

    dom = Domain("datasets", "any", size=size_sym)
    expr = 2 * d_in if size is None else 2 * sympy.Min(d_in, N)
    return Transformation("change_to_symmetric", dom, "ChangeDistance", dom,
                          "SymmetricDistance", expr, params, exact=exact)


def make_symmetric_to_change(size=None) -> Transformation:
    """The identity from ``SymmetricDistance`` to ``ChangeDistance`` on datasets of known
    size ``N``: two datasets of size ``N`` at symmetric distance ``d_in`` differ by
    ``d_in/2`` changes (the distance is even), and never by more than ``N``:
    map ``Min(floor(d_in/2), N)``.

    >>> make_symmetric_to_change(4).map(3)
    Fraction(1, 1)
    """
    size_sym = _param(size, N)

    def exact(b):
        grid = record_grid(0, 2)
        q = _counts_query("identity", grid, lambda v: v, Fraction(1, 2))
        return q, Multisets(IntegerRange(0, 2), size=int(b["N"])), SymmetricDistance()

    dom = Domain("datasets", "any", size=size_sym)
    return Transformation("symmetric_to_change", dom, "SymmetricDistance", dom,
                          "ChangeDistance", sympy.Min(sympy.floor(d_in / 2), N),
                          {"N": size_sym}, exact=exact)


# -- count, sum, mean, variance -----------------------------------------------------------

def _changes(neighbors: str, size) -> sympy.Expr:
    """The number of records that can change: ``d_in`` changes under substitution,
    ``floor(d_in/2)`` add/remove pairs on datasets of known size, never more than ``N``."""
    j = d_in if neighbors == "substitute" else sympy.floor(d_in / 2)
    return j if size is None else sympy.Min(j, N)


def make_count(neighbors: str = "add-remove", size=None) -> Transformation:
    """The number of records. Map ``d_in`` under add/remove with an unknown size; ``0``
    when the size ``N`` is public or under substitution (a change keeps the size).

    >>> make_count().map(2), make_count("substitute").map(2)
    (Fraction(2, 1), Fraction(0, 1))
    """
    neighbors = _neighbors(neighbors)
    size_sym = None if size is None else _param(size, N)
    params = {} if size is None else {"N": size_sym}
    expr = d_in if (neighbors == "add-remove" and size is None) else sympy.Integer(0)

    def exact(b):
        return count_query, Multisets(IntegerRange(0, 1), **_sizes(b)), _metric(neighbors)

    return Transformation("count", Domain("datasets", "any", size=size_sym), NEIGHBORS[neighbors],
                          Domain("real numbers"), "AbsoluteDistance", expr, params, exact=exact)


def make_sum(L=None, U=None, neighbors: str = "add-remove", size=None) -> Transformation:
    """The sum of records in ``[L, U]``.

    * add/remove, size unknown: ``d_in*Max(|L|, |U|)`` (add ``d_in`` copies of the bound
      of larger magnitude);
    * substitute: ``d_in*(U - L)`` (``Min(d_in, N)*(U - L)`` with known ``N``);
    * add/remove on datasets of known size ``N``: only pairs of equal size are neighbours,
      so ``d_in`` add/removes are ``floor(d_in/2)`` changes:
      ``Min(floor(d_in/2), N)*(U - L)`` (seed 002 prints ``d_in/2*(U - L)``: equal at even
      ``d_in``, loose at odd ``d_in``).

    >>> make_sum(-3, 2).map(1), make_sum(-3, 2, "substitute").map(1)
    (Fraction(3, 1), Fraction(5, 1))
    >>> make_sum(-3, 2, size=4).map(3)
    Fraction(5, 1)
    """
    neighbors = _neighbors(neighbors)
    size_sym = None if size is None else _param(size, N)
    lo, hi = _param(L, S.L), _param(U, S.U)
    params = {"L": lo, "U": hi}
    if size is not None:
        params["N"] = size_sym
    if neighbors == "add-remove" and size is None:
        expr = d_in * sympy.Max(sympy.Abs(S.L), sympy.Abs(S.U))
    else:
        expr = _changes(neighbors, size) * (S.U - S.L)

    def exact(b):
        space = Multisets(record_universe(b["L"], b["U"]), **_sizes(b))
        return sum_query, space, _metric(neighbors)

    return Transformation("sum", _bounds_domain(size_sym), NEIGHBORS[neighbors],
                          Domain("real numbers"), "AbsoluteDistance", expr, params, exact=exact)


def make_clipped_sum(L=None, U=None, neighbors: str = "add-remove", size=None) -> Transformation:
    """Clamp every record to ``[L, U]``, then sum: the chain ``make_clamp >> make_sum``
    (seed 000's clipped sum), with the sum's map and an exact form whose records also lie
    outside ``[L, U]`` (from ``L - 1`` to ``U + 1``).

    >>> t = make_clipped_sum(2, 10)
    >>> t.map(1)
    Fraction(10, 1)
    >>> print(t.truth({"d_in": 1}).witness)
    x=[], x'=[10]: f(x)=0, f(x')=10
    """
    t = make_clamp(L, U, neighbors, size) >> make_sum(L, U, neighbors, size)
    t.name = "clipped_sum"
    return t


def _mean_unknown_size(neighbors: str) -> sympy.Expr:
    m = MIN_SIZE
    if neighbors == "substitute":
        return (S.U - S.L) * sympy.Min(d_in, m) / m
    half = sympy.ceiling(d_in / 2)
    return (S.U - S.L) * sympy.Min(1, sympy.Max(d_in / (m + d_in), half / (m + 2 * half - d_in)))


def make_mean(L=None, U=None, neighbors: str = "add-remove", size=None,
              min_size=None) -> Transformation:
    """The mean of records in ``[L, U]``.

    Known size ``N`` (the mean is the sum divided by the public ``N``): the sum's map over
    ``N``, ``Min(j, N)*(U - L)/N`` with ``j = d_in`` changes (substitute) or
    ``floor(d_in/2)`` (add/remove within size ``N``).

    Unknown size (sum/count), every dataset of at least ``min_size >= 1`` records:

    * add/remove, with ``m = min_size`` and ``h = ceiling(d_in/2)``:
      ``(U - L)*Min(1, Max(d_in/(m + d_in), h/(m + 2*h - d_in)))``. Two families of pairs
      attain it: ``m`` records ``U`` against the same plus ``d_in`` records ``L``
      (``d_in/(m + d_in)``), and ``m`` records ``U`` against ``m - d_in + h`` of them plus
      ``h`` records ``L`` (``h`` added, ``d_in - h`` removed: ``h/(m + 2*h - d_in)``, which
      is ``floor(d_in/2)/m`` at even ``d_in``); once ``d_in >= 2*m`` the whole range
      ``U - L`` is reachable (``[U]*m`` against ``[L]*m``);
    * substitute: ``(U - L)*Min(d_in, min_size)/min_size`` (the smallest size is the worst).

    >>> make_mean(0, 6, min_size=2).map(1), make_mean(0, 6, min_size=2).map(2)
    (Fraction(2, 1), Fraction(3, 1))
    >>> make_mean(0, 6, "substitute", size=3).map(1)
    Fraction(2, 1)
    """
    neighbors = _neighbors(neighbors)
    lo, hi = _param(L, S.L), _param(U, S.U)
    params: dict[str, Any] = {"L": lo, "U": hi}
    if size is not None:
        if min_size is not None:
            raise InvalidArgument(
                f"size={size!r} and min_size={min_size!r} both given; pass size=N for a "
                f"public size, or min_size for a public lower bound on the size"
            )
        params["N"] = _param(size, N)
        expr = _changes(neighbors, size) * (S.U - S.L) / N
        size_sym = params["N"]
    else:
        params["min_size"] = _param(min_size, MIN_SIZE)
        expr = _mean_unknown_size(neighbors)
        size_sym = None

    def exact(b):
        grid = record_universe(b["L"], b["U"])
        if "N" in b:
            space = Multisets(grid, size=int(b["N"]))
        else:
            m = int(b["min_size"])
            if m < 1:
                raise InvalidArgument(f"min_size={m!r}: the mean needs at least 1 record")
            space = Multisets(grid, sizes=(m, m + b["d_in"]))
        return mean_query, space, _metric(neighbors)

    dom = _bounds_domain(size_sym)
    note = "" if size is not None else "size >= min_size"
    dom = Domain(dom.kind, dom.element, bounds=dom.bounds, size=dom.size, note=note)
    return Transformation("mean", dom, NEIGHBORS[neighbors], Domain("real numbers"),
                          "AbsoluteDistance", expr, params, exact=exact,
                          requires=_mean_requires)


def _mean_requires(bound: dict) -> None:
    if "min_size" in bound and bound["min_size"] < 1:
        raise InvalidArgument(
            f"min_size={format_exact(bound['min_size'])}: the mean is undefined on the empty "
            f"dataset; pass min_size >= 1"
        )


def make_variance(L=None, U=None, size=None, ddof: int = 0,
                  neighbors: str = "substitute") -> Transformation:
    """Population (``ddof=0``) or sample (``ddof=1``) variance of ``N`` records in
    ``[L, U]``, the size public.

    With ``j`` records changed (``j = Min(d_in, floor(N/2))`` under substitution,
    ``Min(floor(d_in/2), floor(N/2))`` under add/remove within size ``N``), the largest
    move is from ``N`` equal records to ``j`` of them at the other bound:
    ``j*(N - j)*(U - L)**2/N**2`` (population), ``j*(N - j)*(U - L)**2/(N*(N - 1))``
    (sample). One change: ``(N - 1)*(U - L)**2/N**2``.

    >>> make_variance(0, 2, size=4).map(1)
    Fraction(3, 4)
    """
    neighbors = _neighbors(neighbors)
    if type(ddof) is not int or ddof not in (0, 1):
        raise InvalidArgument(f"ddof={ddof!r} is not the int 0 (population) or 1 (sample)")
    lo, hi = _param(L, S.L), _param(U, S.U)
    size_sym = _param(size, N)
    params = {"L": lo, "U": hi, "N": size_sym}
    j = sympy.Min(d_in if neighbors == "substitute" else sympy.floor(d_in / 2), sympy.floor(N / 2))
    expr = j * (N - j) * (S.U - S.L) ** 2 / (N * (N - ddof))

    def exact(b):
        space = Multisets(record_universe(b["L"], b["U"]), size=int(b["N"]))
        return variance_query(ddof), space, _metric(neighbors)

    t = Transformation("variance" if ddof == 0 else "sample variance",
                       _bounds_domain(size_sym), NEIGHBORS[neighbors], Domain("real numbers"),
                       "AbsoluteDistance", expr, params, exact=exact,
                       requires=_sample_variance_requires if ddof == 1 else None)
    if ddof == 1:
        t.grid_defaults = {"N": (2, 3, 4, 5)}
    return t


def _sample_variance_requires(bound: dict) -> None:
    if "N" in bound and bound["N"] < 2:
        raise InvalidArgument(f"size={format_exact(bound['N'])}: the sample variance needs N >= 2")


# -- histograms --------------------------------------------------------------------------

_NORM_METRIC = {"L1": "L1Distance", "L2": "L2Distance", "LInf": "LInfDistance"}


def _norm(norm: str) -> str:
    norm = {"Linf": "LInf", "linf": "LInf", "l1": "L1", "l2": "L2"}.get(norm, norm)
    if norm not in _NORM_METRIC:
        raise InvalidArgument(f"norm={norm!r} is not one of 'L1', 'L2', 'LInf'")
    return norm


def make_histogram(k=1, norm: str = "L1", neighbors: str = "add-remove", size=None,
                   bins: int | None = None) -> Transformation:
    """Counts per bin, each individual (record) contributing 1 to each of up to ``k``
    distinct bins. With ``j`` records added or removed (``j = d_in``), or ``j`` records
    changed (substitute: ``j = d_in``, ``Min(d_in, N)`` with known ``N``):

    * add/remove: L1 ``k*d_in``, L2 ``sqrt(k)*d_in``, LInf ``d_in`` (``d_in`` copies of one
      record touching ``k`` bins);
    * substitute (at least ``2*k`` bins): L1 ``2*k*j``, L2 ``sqrt(2*k)*j``, LInf ``j``
      (``j`` records moved from ``k`` bins to ``k`` other bins).

    Exact form: ``bins`` bins (default ``k + 1`` under add/remove, ``2*k`` under
    substitution); a record is a set of one bin or of ``k`` bins (sets of sizes strictly
    between move the histogram less, and leaving them out keeps ``k = 3`` enumerable).

    >>> make_histogram(k=2, norm="L2").map(3)
    3*sqrt(2)
    """
    neighbors = _neighbors(neighbors)
    norm = _norm(norm)
    kk = _param(k, S.k)
    params: dict[str, Any] = {"k": kk}
    size_sym = None
    if size is not None:
        if neighbors == "add-remove":
            raise InvalidArgument(
                f"size={size!r} with neighbors='add-remove': convert first with "
                f"make_symmetric_to_change(size) and use neighbors='substitute'"
            )
        size_sym = params["N"] = _param(size, N)
    kx = S.k
    if neighbors == "add-remove":
        j = d_in
        expr = {"L1": kx * j, "L2": sympy.sqrt(kx) * j, "LInf": j}[norm]
    else:
        j = d_in if size is None else sympy.Min(d_in, N)
        expr = {"L1": 2 * kx * j, "L2": sympy.sqrt(2 * kx) * j, "LInf": j}[norm]

    def exact(b):
        kk_ = int(b["k"])
        nb = bins if bins is not None else (kk_ + 1 if neighbors == "add-remove" else 2 * kk_)
        if neighbors == "substitute" and nb < 2 * kk_:
            raise InvalidArgument(
                f"bins={nb!r} < 2*k={2 * kk_}: with fewer bins a change cannot reach 2*k "
                f"bins and the map is not tight; use bins >= {2 * kk_}"
            )
        if nb < kk_:
            raise InvalidArgument(f"bins={nb!r} < k={kk_}; use at least k bins")
        sizes_used = sorted({1, kk_})
        records = [s for r in sizes_used for s in itertools.combinations(range(nb), r)]

        def hist(xs):
            out = [0] * nb
            for label in xs:
                for i in records[int(label)]:
                    out[i] += 1
            return out

        q = _vector_query(f"histogram[{nb} bins, k={kk_}]:{norm}", hist,
                          "Linf" if norm == "LInf" else norm)
        space = Multisets(IntegerRange(0, len(records) - 1), **_sizes(b))

        def decode(label):
            return "{" + ",".join(str(i) for i in records[int(label)]) + "}"

        return q, space, _metric(neighbors), {
            "witness": lambda w: _DecodedWitness(w, decode, "bin sets")}

    return Transformation("histogram", Domain("datasets", "any", size=size_sym),
                          NEIGHBORS[neighbors], Domain("real vectors", note=f"{norm} norm"),
                          _NORM_METRIC[norm], expr, params, exact=exact)


# -- quantile scores ----------------------------------------------------------------------

QUANTILE_SCORE_FORMS = ("seed", "code", "integer")


def make_quantile_score(candidates: Iterable[object], alpha=None, form: str = "seed",
                        neighbors: str = "add-remove") -> Transformation:
    """The score vector of the exponential mechanism for the ``alpha``-quantile, one score
    per candidate ``c``, under the L-infinity distance:

    * ``"seed"`` (seed 002's formula): ``-|(1 - alpha)*#(x < c) - alpha*#(x > c)|``;
    * ``"code"`` (seed 002's Python): ``-|#(x <= c) - alpha*n|``;
    * ``"integer"`` (OpenDP's ``make_quantile_score_candidates``, to be minimised):
      ``|(den - num)*#(x < c) - num*#(x > c)|`` for ``alpha = num/den`` in lowest terms.

    Map: add/remove ``d_in*Max(alpha, 1 - alpha)`` for the first two forms and
    ``d_in*Max(num, den - num)`` for the integer one; substitute ``d_in`` (``d_in*den``):
    a record moved from below a candidate to above it moves its score by
    ``(1 - alpha) + alpha = 1``.

    Exact form: data on the integers from ``min(candidates) - 1`` to
    ``max(candidates) + 1``.

    >>> make_quantile_score([1, 2], "1/3").map(2)
    Fraction(4, 3)
    >>> make_quantile_score([1, 2], "1/3", form="integer").map(1)
    Fraction(2, 1)
    """
    neighbors = _neighbors(neighbors)
    if form not in QUANTILE_SCORE_FORMS:
        raise InvalidArgument(f"form={form!r} is not one of {', '.join(QUANTILE_SCORE_FORMS)}")
    cands = tuple(sorted({to_exact(c, "candidate") for c in candidates}))
    if not cands:
        raise InvalidArgument("candidates=[] is empty; give at least one candidate")
    a = S.alpha
    if form == "integer":
        if alpha is None or isinstance(alpha, sympy.Basic):
            raise InvalidArgument(
                f"alpha={alpha!r}: the integer form needs a number, its denominator scales the "
                f"scores"
            )
        av = to_exact(alpha, "alpha")
        if not 0 <= av <= 1:
            raise InvalidArgument(f"alpha={alpha!r} is outside [0, 1]")
        num, den = av.numerator, av.denominator
        expr = d_in * (max(num, den - num) if neighbors == "add-remove" else den)
        params: dict[str, Any] = {}
    else:
        expr = d_in * (sympy.Max(a, 1 - a) if neighbors == "add-remove" else 1)
        params = {"alpha": _param(alpha, a)}

    def exact(b):
        al = b["alpha"] if form != "integer" else to_exact(alpha, "alpha")

        def scores(xs):  # the queries layer's formulas, one copy
            return quantile_score_values(xs, cands, al, form)

        lo, hi = math.floor(cands[0]) - 1, math.ceil(cands[-1]) + 1
        universe = sorted(set(range(lo, hi + 1)) | set(cands))
        q = _vector_query(f"quantile score ({form}, alpha={format_exact(al)})", scores, "Linf")
        extra = 0 if neighbors == "add-remove" else b["d_in"] + 1
        return q, Multisets(ExactSet(universe), **_sizes(b, extra)), _metric(neighbors)

    shown = ", ".join(format_exact(c) for c in cands)
    return Transformation(f"quantile_score[{form}]", Domain("datasets", "reals"),
                          NEIGHBORS[neighbors],
                          Domain("real vectors", note=f"one score per candidate {shown}"),
                          "LInfDistance", expr, params, exact=exact)


# -- vector sums -------------------------------------------------------------------------

def _rational_norm(x: Fraction, y: Fraction, p: str):
    if p == "L1":
        return abs(x) + abs(y)
    s = x * x + y * y
    rn, rd = math.isqrt(s.numerator), math.isqrt(s.denominator)
    if rn * rn == s.numerator and rd * rd == s.denominator:
        return Fraction(rn, rd)
    return None


def make_vector_sum(C=None, norm: str = "L1", neighbors: str = "add-remove",
                    size=None) -> Transformation:
    """The sum of rows of dimension 2, each row first scaled to norm at most ``C``
    (``norm`` is ``"L1"`` or ``"L2"``, both for the rows and for the output distance).

    Map: add/remove ``C*d_in``; substitute ``2*C*d_in`` (``2*C*Min(d_in, N)`` with known
    ``N``): a row ``r`` replaced by ``-r``.

    Exact form: the origin, the four rows ``(+-C, 0)``, ``(0, +-C)``, and rows outside the
    ball, clipped exactly: ``(2*C, 0)`` to ``(C, 0)``, ``(6*C/5, 8*C/5)`` to
    ``(3*C/5, 4*C/5)`` (L2) or ``(3*C/7, 4*C/7)`` (L1), and under L1 ``(C, C)`` to
    ``(C/2, C/2)``. The rows include norm-``C`` points on both sides of the origin, so the
    map is attained; a row of irrational L2 norm cannot be clipped exactly and is left out.

    >>> make_vector_sum(2, "L2").map(3)
    Fraction(6, 1)
    """
    neighbors = _neighbors(neighbors)
    p = {"l1": "L1", "l2": "L2"}.get(norm, norm)
    if p not in ("L1", "L2"):
        raise InvalidArgument(f"norm={norm!r} is not 'L1' or 'L2'")
    cc = _param(C, S.C)
    params: dict[str, Any] = {"C": cc}
    size_sym = None
    if size is not None:
        size_sym = params["N"] = _param(size, N)
    cx = S.C
    if neighbors == "add-remove":
        if size is not None:
            expr = 2 * cx * sympy.Min(sympy.floor(d_in / 2), N)
        else:
            expr = cx * d_in
    else:
        expr = 2 * cx * (d_in if size is None else sympy.Min(d_in, N))

    def exact(b):
        c = b["C"]
        z = Fraction(0)
        raw = {(z, z), (c, z), (-c, z), (z, c), (z, -c)}  # the origin and norm-C rows
        raw |= {(2 * c, z), (6 * c / 5, 8 * c / 5)}  # outside the ball: clipped
        if p == "L1":
            raw.add((c, c))  # L1 norm 2*C: clipped to (C/2, C/2)

        def clip(r):
            nr = _rational_norm(r[0], r[1], p)
            if nr <= c:
                return r
            return (r[0] * c / nr, r[1] * c / nr)

        rows = sorted(raw)
        clipped = [clip(r) for r in rows]

        def total(xs):
            sx = sy = Fraction(0)
            for label in xs:
                rx, ry = clipped[int(label)]
                sx += rx
                sy += ry
            return (sx, sy)

        q = _vector_query(f"vector sum ({p} rows, C={format_exact(c)})", total, p)
        space = Multisets(IntegerRange(0, len(rows) - 1), **_sizes(b))

        def decode(label):
            r = rows[int(label)]
            return f"({format_exact(r[0])}, {format_exact(r[1])})"

        return q, space, _metric(neighbors), {
            "witness": lambda w: _DecodedWitness(w, decode, "rows")}

    return Transformation(f"vector_sum[{p}]",
                          Domain("datasets", "rows of dimension 2", size=size_sym),
                          NEIGHBORS[neighbors], Domain("real vectors", note=f"{p} norm"),
                          _NORM_METRIC[p], expr, params, exact=exact)


# -- measurements ------------------------------------------------------------------------

_METRIC_DOMAIN = {"AbsoluteDistance": "real numbers", "L1Distance": "real vectors",
                  "L2Distance": "real vectors"}


def make_laplace(scale=None, metric: str = "AbsoluteDistance") -> Measurement:
    """Laplace noise of scale ``b`` (``scale``) on a number (``AbsoluteDistance``) or a
    vector (``L1Distance``): pure DP, privacy map ``d_in/scale``.

    >>> make_laplace(2).map(1)
    Fraction(1, 2)
    """
    if metric not in ("AbsoluteDistance", "L1Distance"):
        raise InvalidArgument(
            f"metric={metric!r}: Laplace noise takes 'AbsoluteDistance' or 'L1Distance'"
        )
    return Measurement("laplace", Domain(_METRIC_DOMAIN[metric]), metric, "MaxDivergence",
                       d_in / SCALE, {"scale": _param(scale, SCALE)})


def make_gaussian(sigma=None, metric: str = "AbsoluteDistance") -> Measurement:
    """Gaussian noise of standard deviation ``sigma`` on a number (``AbsoluteDistance``)
    or a vector (``L2Distance``): zero-concentrated DP, privacy map
    ``d_in**2/(2*sigma**2)``.

    >>> make_gaussian(2).map(2)
    Fraction(1, 2)
    """
    if metric not in ("AbsoluteDistance", "L2Distance"):
        raise InvalidArgument(
            f"metric={metric!r}: Gaussian noise takes 'AbsoluteDistance' or 'L2Distance'"
        )
    return Measurement("gaussian", Domain(_METRIC_DOMAIN[metric]), metric,
                       "ZeroConcentratedDivergence", d_in**2 / (2 * SIGMA**2),
                       {"sigma": _param(sigma, SIGMA)})
