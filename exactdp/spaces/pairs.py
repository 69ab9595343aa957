"""Drawing neighbouring pairs of a dataset space with Hypothesis, in sparse form.

Shared by the Hypothesis strategies (:mod:`exactdp.strategies`) and the checkers'
randomized search (:func:`exactdp.checkers.search.search_claim`); it lives with the spaces
so that neither imports the other's layer. Hypothesis is imported at the top (the
``hypothesis`` extra): nothing imports this module until a pair is to be drawn.

Datasets are sorted tuples of value indices into the space's sorted universe, so a
universe of ``10**6`` values or more is never built. A neighbouring pair is drawn as a
base dataset ``x`` and then a short list of edits (remove a record of ``x``, add a value;
a change is one of each), built so that every pair lies in the space and satisfies
``metric.related(...)``: the relation the enumerator uses. Hypothesis shrinks toward fewer
records, fewer edits and smaller value indices (smaller values), so a failing pair ends
small and readable.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Sequence

from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.spaces.datasets import DatasetSpace, as_space
from exactdp.spaces.metrics import (
    ChangeDistance, Metric, SymmetricDistance, as_metric, check_d_in, check_flag,
)

__all__ = ["IndexPair", "RUNS_FROM", "index_pairs", "sparse_counts"]

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


def _metric_not_none(metric: object) -> Metric:
    """A metric: ``None`` is refused here (a pair needs a stated relation)."""
    if metric is None:
        raise InvalidArgument("metric=None; pass SymmetricDistance(), ChangeDistance(), "
                              "'add-remove' or 'substitute'")
    return as_metric(metric)
