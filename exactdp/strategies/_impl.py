"""Hypothesis strategies for exactdp's datasets, neighbouring pairs and float records.

Hypothesis is imported here at the top (like ``hypothesis.extra.lark``): only this
module and :mod:`exactdp.strategies` need it, and it ships as the ``hypothesis`` extra.

Datasets are drawn in *sparse form*, sorted tuples of value indices into the space's
sorted universe, so a universe of ``10**6`` values or more is never built; the public
strategies hand out sorted tuples of exact values (``Fraction``).

A neighbouring pair is drawn as a base dataset ``x`` and then a short list of edits
(remove a record of ``x``, add a value; a change is one of each), built so that every
pair lies in the space and satisfies ``metric.related(...)``: the relation the
enumerator uses. Hypothesis shrinks toward fewer records, fewer edits and smaller value
indices (smaller values), so a failing pair ends small and readable.
"""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction
from typing import Sequence

from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.floatformat import FloatFormat, format_named
from exactdp.spaces.datasets import DatasetSpace, Multisets, as_space
from exactdp.spaces.metrics import (
    ChangeDistance, Metric, SymmetricDistance, as_metric, check_d_in, check_flag,
)
from exactdp.spaces.universe import ValueUniverse

__all__ = ["datasets", "neighbouring_pairs", "float_records", "index_pairs", "sparse_counts"]

IndexPair = tuple[tuple[int, ...], tuple[int, ...]]


# -- argument checks ------------------------------------------------------------------

class _Layout:
    """How records are drawn from a space: plain indices, or positions in a capped pool."""

    def __init__(self, space: DatasetSpace):
        self.space = space
        self.m = space.universe.size
        self.capped = space._caps is not None
        if self.capped:
            caps = [space.max_count(i) for i in range(self.m)]
            self.caps = caps
            starts = [0]
            for c in caps:
                starts.append(starts[-1] + c)
            self.starts = starts  # position p holds value index bisect_right(starts, p) - 1
            self.total = starts[-1]
        else:
            self.caps = None
            self.total = None
        # the largest size a dataset of the space can reach
        self.top = space.max_size if not self.capped else min(space.max_size, self.total)

    def cap(self, i: int) -> int:
        return self.space.max_size if self.caps is None else self.caps[i]

    def sized(self, lo: int, hi: int) -> st.SearchStrategy[tuple[int, ...]]:
        """Datasets with ``lo <= size <= hi`` as sorted index tuples (Hypothesis keeps
        sizes small and shrinks toward ``lo`` records and index 0). Over a universe, more
        than :data:`RUNS_FROM` required records are drawn as runs of equal records (a
        record, then how many copies), which shrink toward one run."""
        if not self.capped:
            if lo > RUNS_FROM:
                return self._runs(lo, hi)
            return st.lists(st.integers(0, self.m - 1), min_size=lo, max_size=hi).map(
                lambda xs: tuple(sorted(xs)))
        starts = self.starts
        return st.lists(st.integers(0, self.total - 1), min_size=lo, max_size=hi, unique=True).map(
            lambda ps: tuple(sorted(bisect_right(starts, p) - 1 for p in ps)))

    def _runs(self, lo: int, hi: int) -> st.SearchStrategy[tuple[int, ...]]:
        """``lo`` records as runs of one record each (a few choices a run, not one a
        record: 100 required records drawn one by one took most of a 15 s search), then
        up to ``hi - lo`` records one by one. Every dataset can still be drawn."""
        record = st.integers(0, self.m - 1)
        extra = st.lists(record, max_size=hi - lo)

        @st.composite
        def runs(draw) -> tuple[int, ...]:
            xs: list[int] = []
            while len(xs) < lo:
                left = lo - len(xs)
                value = draw(record)
                short = draw(st.integers(0, left - 1))  # shrinks to 0: the run fills the rest
                xs.extend([value] * (left - short))
            return tuple(sorted(xs + draw(extra)))

        return runs()


RUNS_FROM = 16
"""Datasets of more required records than this are drawn as runs (see ``_Layout.sized``)."""


# -- datasets ---------------------------------------------------------------------------

def datasets(
    space: DatasetSpace | None = None,
    *,
    universe: ValueUniverse | None = None,
    min_size: int = 0,
    max_size: int | None = None,
) -> st.SearchStrategy[tuple[Fraction, ...]]:
    """Datasets of ``space`` as sorted tuples of exact values, or datasets over
    ``universe`` with ``min_size <= size <= max_size`` (the universe is never listed:
    ``IntegerRange(0, 10**6)`` costs nothing).

    Shrinks toward fewer records and smaller values.
    """
    space = _space_of(space, universe, min_size, max_size)
    layout = _Layout(space)
    values = space.universe.value
    return layout.sized(space.min_size, layout.top).map(lambda t: tuple(values(i) for i in t))


def _space_of(space, universe, min_size, max_size) -> DatasetSpace:
    if space is not None:
        if universe is not None or max_size is not None or min_size != 0:
            raise InvalidArgument(
                f"space={space!r} given with universe=/min_size=/max_size=; pass either a "
                f"space or a universe with sizes, not both"
            )
        return as_space(space)
    if universe is None:
        raise InvalidArgument(
            "neither space= nor universe= given; pass datasets(Multisets(...)) or "
            "datasets(universe=IntegerRange(0, 10**6), max_size=100)"
        )
    if not isinstance(universe, ValueUniverse):
        raise InvalidArgument(
            f"universe={universe!r} is not a ValueUniverse; build one with IntegerRange(A, B) "
            f"or ExactSet([...])"
        )
    if max_size is None:
        raise InvalidArgument(f"max_size=None with universe={universe!r}; pass max_size=N (a whole number)")
    return Multisets(universe, sizes=(min_size, max_size))


# -- neighbouring pairs -------------------------------------------------------------------

def neighbouring_pairs(
    space: DatasetSpace,
    metric: Metric | str = "add-remove",
    d_in: int = 1,
    exact_k: bool = False,
) -> st.SearchStrategy[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """Pairs ``(x, x')`` of datasets of ``space`` (sorted tuples of exact values) that
    ``metric`` relates at ``d_in``: ``0 < d(x, x') <= d_in``, or with ``exact_k`` the
    exactly-``d_in`` rule of :meth:`~exactdp.spaces.metrics.Metric.related`.

    Raises :class:`~exactdp.errors.InvalidArgument` at the call when no pair can exist.
    """
    strategy = index_pairs(space, metric, d_in, exact_k)
    values = space.universe.value

    def to_values(pair: IndexPair):
        x, y = pair
        return tuple(values(i) for i in x), tuple(values(i) for i in y)

    return strategy.map(to_values)


def sparse_counts(x: Sequence[int], y: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Count vectors of two sparse datasets over the values either uses: enough for
    ``metric.related`` and ``metric.count_distance``, which only compare counts value by value."""
    support = sorted(set(x) | set(y))
    return tuple(x.count(i) for i in support), tuple(y.count(i) for i in support)


def index_pairs(space: DatasetSpace, metric: Metric | str, d_in: int, exact_k: bool = False) -> st.SearchStrategy[IndexPair]:
    """:func:`neighbouring_pairs` in sparse form (sorted value-index tuples)."""
    space = as_space(space)
    metric = _metric_not_none(metric)
    d_in = check_d_in(d_in)
    exact_k = check_flag(exact_k, "exact_k")
    if d_in == 0:
        raise InvalidArgument(
            "d_in=0 relates no two distinct datasets; pass d_in >= 1"
        )
    layout = _Layout(space)
    lo, top = space.min_size, layout.top
    where = f"in {space.describe()}"
    if isinstance(metric, SymmetricDistance):
        if exact_k:
            if top - lo < d_in:
                raise InvalidArgument(
                    f"d_in={d_in} with exact_k=True: no two datasets {where} differ in size "
                    f"by {d_in}; use d_in <= {top - lo} or widen the sizes"
                )
            return _exact_add_remove(layout, d_in)
        if top == lo and (d_in < 2 or not _can_change(layout, 1)):
            raise InvalidArgument(
                f"space={space!r} has one size ({lo}): no add/remove neighbours at "
                f"d_in={d_in} lie in it; widen the sizes, use d_in >= 2 (a record removed "
                f"and one added) or metric='substitute'"
            )
        steps = min(d_in, 2 * top)
        return _pairs(layout, layout.sized(lo, top), steps, "add-remove")
    if isinstance(metric, ChangeDistance):
        n_lo, n_hi = _change_sizes(layout, d_in if exact_k else 1)
        if not _can_change(layout, d_in if exact_k else 1):
            need = f"{d_in} records changed" if exact_k else "a record changed"
            raise InvalidArgument(
                f"no two datasets {where} differ by {need} (metric={metric!r}, d_in={d_in}, "
                f"exact_k={exact_k}); widen the universe, the pool or the sizes"
            )
        steps = min(d_in, n_hi)
        return _pairs(layout, layout.sized(n_lo, n_hi), steps, "substitute", exact=exact_k)
    raise InvalidArgument(
        f"metric={metric!r} has no strategy; use SymmetricDistance() or ChangeDistance()"
    )


def _change_sizes(layout: _Layout, d: int) -> tuple[int, int]:
    """Sizes at which ``d`` records can be changed (necessary conditions)."""
    n_lo, n_hi = max(layout.space.min_size, d), layout.top
    if layout.capped:
        n_hi = min(n_hi, layout.total - d)
    return n_lo, n_hi


def _can_change(layout: _Layout, d: int) -> bool:
    n_lo, n_hi = _change_sizes(layout, d)
    usable = layout.m if not layout.capped else sum(1 for c in layout.caps if c > 0)
    return usable >= 2 and n_lo <= n_hi


def _exact_add_remove(layout: _Layout, d: int) -> st.SearchStrategy[IndexPair]:
    lo, top = layout.space.min_size, layout.top
    sources = {"add": layout.sized(lo, top - d), "remove": layout.sized(lo + d, top)}
    ways = st.sampled_from(("add", "remove"))

    @st.composite
    def draw_pair(draw) -> IndexPair:
        way = draw(ways)
        return _draw_edits(draw, layout, draw(sources[way]), d, way, exact=True)

    return draw_pair()


def _pairs(layout: _Layout, sources: st.SearchStrategy[tuple[int, ...]], steps: int, kind: str,
           exact: bool = False) -> st.SearchStrategy[IndexPair]:
    """A dataset of ``sources`` and one of its edits, from one strategy built once (a
    ``flatmap`` built a strategy per example, which took most of a search's time)."""

    @st.composite
    def draw_pair(draw) -> IndexPair:
        return _draw_edits(draw, layout, draw(sources), steps, kind, exact)

    return draw_pair()


def _draw_edits(draw, layout: _Layout, x: tuple[int, ...], steps: int, kind: str,
                exact: bool = False) -> IndexPair:
    """``(x, x')`` for an edit of ``x``: up to ``steps`` changes (exactly ``steps`` when
    ``exact``)."""
    removed: list[int] = []  # positions in x
    added: list[int] = []  # value indices
    if kind == "add-remove":
        removed, added = _plan_add_remove(draw, layout, x, steps)
    else:
        n = steps if exact else draw(st.integers(1, steps))
        for _ in range(n):
            if kind in ("substitute", "remove"):
                pos = _draw_removal(draw, layout, x, removed, added,
                                    need_addable=kind == "substitute")
                if pos is None:
                    break
                removed.append(pos)
            if kind in ("substitute", "add"):
                added.append(_draw_addition(draw, layout, x, removed, added))
    done = len(removed) + len(added)
    if done == 0 or (exact and max(len(removed), len(added)) < steps):
        from hypothesis import reject

        reject()  # this x has no such neighbour in the space (rare: small pools)
    gone = set(removed)
    y = [v for p, v in enumerate(x) if p not in gone] + added
    return x, tuple(sorted(y))


def _plan_add_remove(draw, layout: _Layout, x, steps: int) -> tuple[list[int], list[int]]:
    """``r`` records removed and ``a`` values added, ``1 <= r + a <= steps``, so that the
    neighbour's size lies in the space (a fixed-size space needs ``r == a``)."""
    lo, top, n = layout.space.min_size, layout.top, len(x)

    def r_range(t: int) -> tuple[int, int]:  # n + t - 2r in [lo, top], 0 <= r <= min(t, n)
        return max(0, -((top - n - t) // 2)), min(t, n, (n + t - lo) // 2)

    totals = [t for t in range(1, steps + 1) if r_range(t)[0] <= r_range(t)[1]]
    if not totals:
        return [], []
    t = totals[draw(st.integers(0, len(totals) - 1))]
    r_lo, r_hi = r_range(t)
    r = draw(st.integers(r_lo, r_hi))
    removed: list[int] = []
    added: list[int] = []
    for _ in range(r):
        pos = _draw_removal(draw, layout, x, removed, added, need_addable=False)
        removed.append(pos)
    for _ in range(t - r):
        if not _addable_exists(layout, x, removed, added):
            return [], []
        added.append(_draw_addition(draw, layout, x, removed, added))
    return removed, added


def _removable(x, removed, added) -> list[int]:
    gone, new = set(removed), set(added)
    return [p for p, v in enumerate(x) if p not in gone and v not in new]


def _addable(layout: _Layout, x, removed, added, i: int) -> bool:
    if i in {x[p] for p in removed}:
        return False  # removing and adding one value cancels: the pair would be closer
    if layout.caps is None:
        return True
    count = x.count(i) - sum(1 for p in removed if x[p] == i) + added.count(i)
    return count < layout.caps[i]


def _addable_exists(layout: _Layout, x, removed, added) -> bool:
    if layout.caps is None:
        return layout.m > len({x[p] for p in removed})
    return any(_addable(layout, x, removed, added, i) for i in range(layout.m))


def _draw_removal(draw, layout, x, removed, added, need_addable: bool) -> int | None:
    options = _removable(x, removed, added)
    if need_addable:  # a change: the value added must differ from every value removed
        options = [p for p in options if _addable_exists(layout, x, removed + [p], added)]
    if not options:
        return None
    return options[draw(st.integers(0, len(options) - 1))]


def _draw_addition(draw, layout: _Layout, x, removed, added) -> int:
    i = draw(st.integers(0, layout.m - 1))
    for step in range(layout.m):  # the next addable index, cyclically (few are blocked)
        j = (i + step) % layout.m
        if _addable(layout, x, removed, added, j):
            return j
    raise AssertionError("no addable value; checked before drawing")  # pragma: no cover


# -- float records ---------------------------------------------------------------------

def float_records(fmt: FloatFormat | str = "float64", bounds: tuple[object, object] | None = None) -> st.SearchStrategy[Fraction]:
    """Values of the float format ``fmt`` in ``bounds = (lo, hi)`` (inclusive), as exact
    ``Fraction``s: the values float-witness constructions like (zero, binade edges
    ``2**e`` and their neighbours, the smallest subnormal and normal, half-ulps that make
    ties, the bounds' nearest values) and then any value of the format.

    Shrinks toward those special values, zero first. The bounds are exact numbers (ints,
    ``Fraction``s, strings such as ``'0.1'``); a Python float is refused with
    :class:`~exactdp.errors.InexactInput`, as everywhere in exactdp: pass
    ``exactdp.from_float(x)`` (or use ``with exactdp.float_reading("binary"):``) for the
    float's exact binary value.
    """
    if isinstance(fmt, str):
        fmt = format_named(fmt)
    if not isinstance(fmt, FloatFormat):
        raise InvalidArgument(
            f"fmt={fmt!r} is not a float format; pass 'float64', 'float32', FLOAT64 or "
            f"FloatFormat.toy(precision, emin, emax)"
        )
    if bounds is None:
        lo, hi = -fmt.max_value, fmt.max_value
    else:
        try:
            raw_lo, raw_hi = bounds
        except (TypeError, ValueError):
            raise InvalidArgument(f"bounds={bounds!r} is not a pair; pass bounds=(lo, hi)") from None
        # a Python float is refused like everywhere else (InexactInput, saying how to pass
        # the number meant); exactdp.from_float(x) or float_reading("binary") is the door
        lo, hi = to_exact(raw_lo, "lower bound"), to_exact(raw_hi, "upper bound")
        if hi < lo:
            raise InvalidArgument(
                f"Cannot have upper={format_exact(hi)!r} < lower={format_exact(lo)!r}; swap the bounds"
            )
    lo_f = _first_at_least(fmt, lo)
    hi_f = _last_at_most(fmt, hi)
    if lo_f is None or hi_f is None or lo_f > hi_f:
        raise InvalidArgument(
            f"bounds=({format_exact(lo)}, {format_exact(hi)}) hold no value of {fmt.name}; "
            f"widen the bounds"
        )
    specials = sorted(
        {v for v in _special_values(fmt, lo_f, hi_f) if lo_f <= v <= hi_f},
        key=lambda v: (abs(v), v < 0),
    )
    general = _any_value(fmt, lo_f, hi_f)
    return st.one_of(st.sampled_from(specials), general) if specials else general


def _first_at_least(fmt: FloatFormat, v: Fraction) -> Fraction | None:
    if v > fmt.max_value:
        return None
    v = max(v, -fmt.max_value)
    return v if fmt.is_representable(v) else fmt.next_up(v)


def _last_at_most(fmt: FloatFormat, v: Fraction) -> Fraction | None:
    if v < -fmt.max_value:
        return None
    v = min(v, fmt.max_value)
    return v if fmt.is_representable(v) else fmt.next_down(v)


def _special_values(fmt: FloatFormat, lo: Fraction, hi: Fraction) -> set[Fraction]:
    out = {Fraction(0), lo, hi, fmt.min_subnormal, fmt.min_normal, fmt.max_value,
           3 * fmt.min_subnormal, fmt.min_normal - fmt.min_subnormal}
    p = fmt.precision
    # binade edges 2**e, their neighbours, and the half-ulp 2**(e - p) that ties with 2**e
    exps = {0, 1, -1, p, p + 1, fmt.emin, fmt.emax}
    for bound in (lo, hi):
        if bound != 0:
            a = abs(bound)
            e = a.numerator.bit_length() - a.denominator.bit_length()
            exps.update({e - 1, e, e + 1})
    for e in exps:
        if not fmt.emin - p < e <= fmt.emax:
            continue
        edge = Fraction(2) ** e
        out.update({edge, edge * (1 + Fraction(1, 2 ** (p - 1))), Fraction(3, 2) * edge})
        if e > fmt.emin - p + 1:
            out.add(fmt.next_down(edge))
        if e - p >= fmt.emin - p + 1:
            out.add(Fraction(2) ** (e - p))
    out |= {-v for v in out}
    return {v for v in out if abs(v) <= fmt.max_value and fmt.is_representable(v)}


def _any_value(fmt: FloatFormat, lo: Fraction, hi: Fraction) -> st.SearchStrategy[Fraction]:
    p, emin = fmt.precision, fmt.emin
    top = max(abs(lo), abs(hi))
    e_top = top.numerator.bit_length() - top.denominator.bit_length() + 1
    e_hi = min(fmt.emax, max(emin, e_top))

    def build(parts) -> Fraction:
        negative, e, frac = parts
        if e < emin:  # subnormal (and zero): frac * 2**(emin - p + 1)
            v = Fraction(frac) * Fraction(2) ** (emin - p + 1)
        else:
            v = Fraction(2 ** (p - 1) + frac) * Fraction(2) ** (e - p + 1)
        v = -v if negative else v
        return min(max(v, lo), hi)  # both bounds are values of the format

    return st.tuples(
        st.just(False) if lo >= 0 else st.just(True) if hi <= 0 else st.booleans(),
        st.integers(emin - 1, e_hi),
        st.integers(0, 2 ** (p - 1) - 1),
    ).map(build)


def _metric_not_none(metric: object) -> Metric:
    """A metric: ``None`` is refused here (a pair needs a stated relation)."""
    if metric is None:
        raise InvalidArgument("metric=None; pass SymmetricDistance(), ChangeDistance(), "
                              "'add-remove' or 'substitute'")
    return as_metric(metric)
