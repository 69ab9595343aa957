"""One evaluator table per query kind: how the engine computes a built-in query without
calling it on every dataset (issue 26).

A query's :class:`~exactdp.queries.base.IncrementalForm` names its ``kind``; the entry of
that kind in :data:`KINDS` says which running sums the kind reads and gives its two
evaluators:

* ``table`` (:mod:`.incremental`): the values of every dataset of a dense value table,
  from the running sums, order statistics or bin counts grown level by level, over one
  common denominator;
* ``wide`` (:mod:`.wide`, ``None`` where the kind has none): the values of a block of
  neighbours ``x + {v}`` or ``x - {v}`` from their sources' sums, with the multipliers
  per size and a bound on every intermediate.

Adding a query kind is one :class:`Kind` here (and its ``IncrementalForm`` in
:mod:`exactdp.queries.builtin`); the engine's modules read only this table. Every value
must equal the per-dataset path's exactly (``tests/checkers/test_engine_scale.py`` and
``tests/engine/test_wide.py`` compare them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

__all__ = ["Kind", "WideEvaluator", "Grown", "KINDS", "LIMIT", "quantile_weights"]

LIMIT = 2**62
"""Every intermediate of an ``int64`` computation stays below this in magnitude."""


def quantile_weights(q: Fraction, method: str, n: int):
    """``(j1, alpha, j2, beta)``: the quantile of ``n`` sorted values is
    ``alpha * x[j1] + beta * x[j2]``, exactly as :func:`exactdp.queries.builtin._quantile_prep`."""
    h = (n - 1) * q
    lo = h.numerator // h.denominator
    frac = h - lo
    one, zero = Fraction(1), Fraction(0)
    if method == "lower" or frac == 0:
        return lo, one, lo, zero
    if method == "higher":
        return lo + 1, one, lo, zero
    if method == "nearest":
        return round(h), one, lo, zero  # round: a Fraction rounds half to even
    if method == "midpoint":
        return lo, Fraction(1, 2), lo + 1, Fraction(1, 2)
    return lo, 1 - frac, lo + 1, frac


# -- the value table, level by level (:mod:`.incremental`) -----------------------------------

@dataclass
class Grown:
    """What the level-by-level build of :func:`.incremental.build` hands a kind's ``table``
    evaluator: per dataset (arrays in enumeration order) the size ``n``, the sums ``s1`` and
    ``s2`` (``None`` unless the kind reads them), the bin counts ``hist`` and the levels
    ``(parent index, cumulative size)`` for order statistics; and the build's constants."""

    np: Any
    form: Any
    n: Any
    s1: Any
    s2: Any
    hist: Any
    levels: list
    count: int
    lo: int
    hi: int
    m: int
    den: int
    nums: list
    top: int
    s_big: bool


def _col(np, xs, big: bool):
    return np.array(xs, dtype=object) if big else np.asarray(xs, dtype=np.int64)


def _count_table(g: Grown) -> tuple:
    return g.np.ones(g.count, dtype=bool), 1, g.n.copy()


def _sum_table(g: Grown) -> tuple:
    return g.np.ones(g.count, dtype=bool), g.den, g.s1


def _mean_table(g: Grown) -> tuple:
    np, n, hi = g.np, g.n, g.hi
    defined = n > 0
    sizes = [s for s in range(max(g.lo, 1), hi + 1)]
    big_l = math.lcm(*sizes)
    mult = [0] + [big_l // s for s in range(1, hi + 1)]
    scale_d = g.den * big_l
    if g.s_big or hi * g.top * big_l >= LIMIT:
        ints = g.s1.astype(object) * np.array(mult, dtype=object)[n]
    else:
        ints = g.s1 * np.asarray(mult, dtype=np.int64)[n]
    return defined, scale_d, ints


def _variance_table(g: Grown) -> tuple:
    np, n, hi, s1, s2 = g.np, g.n, g.hi, g.s1, g.s2
    ddof = g.form.ddof
    defined = n > ddof
    prods = [s * (s - ddof) for s in range(max(g.lo, ddof + 1), hi + 1)]
    big_l = math.lcm(*prods)
    mult = [0] * (ddof + 1) + [big_l // (s * (s - ddof)) for s in range(ddof + 1, hi + 1)]
    scale_d = g.den * g.den * big_l
    if g.s_big or 2 * hi * hi * g.top * g.top * big_l >= LIMIT:
        no = n.astype(object)
        ints = (no * s2.astype(object) - s1.astype(object) ** 2) * np.array(mult, dtype=object)[n]
    else:
        ints = (n * s2 - s1 * s1) * np.asarray(mult, dtype=np.int64)[n]
    return defined, scale_d, ints


def _quantile_table(g: Grown) -> tuple:
    np, n, hi, m, count, top = g.np, g.n, g.hi, g.m, g.count, g.top
    defined = n > 0
    rows = {s: quantile_weights(g.form.q, g.form.method, s) for s in range(max(g.lo, 1), hi + 1)}
    big_l = math.lcm(*(w.denominator for r in rows.values() for w in (r[1], r[3])))
    j1 = [0] * (hi + 1)
    j2 = [0] * (hi + 1)
    al = [0] * (hi + 1)
    be = [0] * (hi + 1)
    for s, (a, wa, b, wb) in rows.items():
        j1[s], al[s], j2[s], be[s] = a, int(wa * big_l), b, int(wb * big_l)
    scale_d = g.den * big_l
    jj1 = np.asarray(j1, dtype=np.int64)[n]
    jj2 = np.asarray(j2, dtype=np.int64)[n]
    # the value index of x[j]: how many cumulative counts are <= j
    idx1 = np.zeros(count, dtype=np.int64)
    idx2 = np.zeros(count, dtype=np.int64)
    anc = None
    for parent, cum in reversed(g.levels):
        at = cum if anc is None else cum[anc]
        idx1 += at <= jj1
        idx2 += at <= jj2
        if parent is not None:
            anc = parent if anc is None else parent[anc]
    numv = _col(np, g.nums, top * big_l * 2 >= LIMIT)
    a1 = numv[np.minimum(idx1, m - 1)]
    a2 = numv[np.minimum(idx2, m - 1)]
    if top * big_l * 2 >= LIMIT:
        ints = (a1 * np.array(al, dtype=object)[n] + a2 * np.array(be, dtype=object)[n])
    else:
        ints = a1 * np.asarray(al, dtype=np.int64)[n] + a2 * np.asarray(be, dtype=np.int64)[n]
    ints = np.where(defined, ints, 0) if ints.dtype != object else ints
    return defined, scale_d, ints


def _histogram_table(g: Grown) -> tuple:
    np = g.np
    defined = np.ones(g.count, dtype=bool)
    ints = np.stack(g.hist, axis=1) if g.hist else np.zeros((g.count, 0), dtype=np.int64)
    return defined, 1, ints


# -- neighbours from their sources' sums (:mod:`.wide`) ----------------------------------------

@dataclass(frozen=True)
class WideEvaluator:
    """A kind's evaluator for the wide strategy, on a :class:`~.wide.WideTable` ``t``.

    ``scale(form, den, sizes)``: ``(scale, mult)``, the common denominator and the
    multiplier(s) per size; ``bound(hi, top, grow, most)``: a bound on every value and
    intermediate in integer units; ``value(t, n, s1, s2, stat)``: the integer values of
    datasets of one size ``n`` (at least the query's minimum); ``of_sizes(t, n, s1, s2,
    stat)``: the same with an array of sizes ``n``, one per dataset."""

    scale: Callable[..., tuple]
    bound: Callable[..., int]
    value: Callable[..., Any]
    of_sizes: Callable[..., Any]


def _no_mult(form, den, sizes) -> tuple:
    return 1, {}


def _mean_scale(form, den, sizes) -> tuple:
    big = math.lcm(*[n for n in sizes if n >= 1]) if any(n >= 1 for n in sizes) else 1
    return den * big, {n: big // n for n in sizes if n >= 1}


def _variance_scale(form, den, sizes) -> tuple:
    ddof = form.ddof
    prods = [n * (n - ddof) for n in sizes if n > ddof]
    big = math.lcm(*prods) if prods else 1
    return den * den * big, {n: big // (n * (n - ddof)) for n in sizes if n > ddof}


def _quantile_scale(form, den, sizes) -> tuple:
    rows = {n: quantile_weights(form.q, form.method, n) for n in sizes if n >= 1}
    big = math.lcm(*(w.denominator for r in rows.values() for w in (r[1], r[3]))) \
        if rows else 1
    return den * big, {n: (a, int(wa * big), b, int(wb * big)) for n, (a, wa, b, wb) in rows.items()}


def _quantile_value(t, n, s1, s2, stat):
    j1, w1, j2, w2 = t.mult[n]
    out = stat(j1) * w1
    if w2:
        out = out + stat(j2) * w2
    return out


def _quantile_of_sizes(t, n, s1, s2, stat):
    j1, w1, j2, w2 = t._per_size()
    out = stat(j1[n]) * w1[n]
    if bool(w2.any()):
        out = out + stat(j2[n]) * w2[n]
    return out


_WIDE_COUNT = WideEvaluator(
    scale=_no_mult,
    bound=lambda hi, top, grow, most: hi + 1,
    value=lambda t, n, s1, s2, stat: t.np.full(t.np.shape(s1), n * t._grow, dtype=t.np.int64),
    of_sizes=lambda t, n, s1, s2, stat: t.np.broadcast_to(n * t._grow, t.np.broadcast(n, s1).shape),
)
_WIDE_SUM = WideEvaluator(
    scale=lambda form, den, sizes: (den, {}),
    bound=lambda hi, top, grow, most: (hi + 1) * top * grow,
    value=lambda t, n, s1, s2, stat: s1 * t._grow,
    of_sizes=lambda t, n, s1, s2, stat: s1 * t._grow,
)
_WIDE_MEAN = WideEvaluator(
    scale=_mean_scale,
    bound=lambda hi, top, grow, most: (hi + 1) * top * most * grow,
    value=lambda t, n, s1, s2, stat: s1 * t.mult[n],
    of_sizes=lambda t, n, s1, s2, stat: s1 * t._per_size()[0][n],
)
_WIDE_VARIANCE = WideEvaluator(
    scale=_variance_scale,
    bound=lambda hi, top, grow, most: 2 * (hi + 1) ** 2 * top * top * max(most, 1) * 2,
    value=lambda t, n, s1, s2, stat: (n * s2 - s1 * s1) * t.mult[n],
    of_sizes=lambda t, n, s1, s2, stat: (n * s2 - s1 * s1) * t._per_size()[0][n],
)
_WIDE_QUANTILE = WideEvaluator(
    scale=_quantile_scale,
    bound=lambda hi, top, grow, most: 2 * top * max(most, 1) * 2,
    value=_quantile_value,
    of_sizes=_quantile_of_sizes,
)


# -- the table ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Kind:
    """One query kind: the running sums it reads (``sums``: 0, 1 for ``S1``, 2 for ``S1``
    and ``S2``), whether it reads order statistics or bin counts, and its evaluators."""

    name: str
    sums: int
    order_statistics: bool
    histogram: bool
    table: Callable[[Grown], tuple]
    wide: WideEvaluator | None


KINDS = {k.name: k for k in (
    Kind("count", 0, False, False, _count_table, _WIDE_COUNT),
    Kind("sum", 1, False, False, _sum_table, _WIDE_SUM),
    Kind("mean", 1, False, False, _mean_table, _WIDE_MEAN),
    Kind("variance", 2, False, False, _variance_table, _WIDE_VARIANCE),
    Kind("quantile", 0, True, False, _quantile_table, _WIDE_QUANTILE),
    Kind("histogram", 0, False, True, _histogram_table, None),
)}
"""The query kinds by name (an :class:`~exactdp.queries.base.IncrementalForm`'s ``kind``)."""
