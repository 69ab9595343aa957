"""Neighbour strategies: how the neighbours of a dataset are found in a table.

* :class:`DeltaNeighbours`: ``key + delta`` for every move (fast when most moves are
  feasible: multisets over a small universe);
* :class:`ScanNeighbours`: test the relation against every dataset of a nearby size
  (when the moves far outnumber the datasets: a pool with ``k = 4`` changes over nine
  values has about 245,000 moves for 53 datasets);
* :class:`SparseNeighbours`: for a sparse table, remove some of a dataset's own records
  and add universe values.

:func:`plan_neighbours` picks the strategy and checks the pair budget from counts alone,
before the table is built. For the standard scope every unordered pair is visited
once: a move is kept only if it is "larger" than its reverse move.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from typing import Sequence

from exactdp._budget import comb_capped, refuse_above, show_count
from exactdp.engine import tables
from exactdp.engine.tables import Table
from exactdp.spaces.datasets import DatasetSpace

__all__ = ["NeighbourPlan", "plan_neighbours", "build_neighbours", "DeltaNeighbours",
           "ScanNeighbours", "SparseNeighbours", "SCAN_COST"]

SCAN_COST = 8
"""How many delta lookups one relation test in :class:`ScanNeighbours` costs (measured
roughly: a Python loop over a count vector against a C-level dict lookup)."""

@dataclass(frozen=True)
class NeighbourPlan:
    """How the neighbours of one ``d_in`` will be found, decided before the table exists."""

    kind: str  # "delta", "scan" or "sparse"
    estimate: int  # candidate pairs: an upper bound on the pairs examined


def plan_neighbours(space: DatasetSpace, ambient: DatasetSpace, metric, d_in: int,
                    exact_k: bool, n_sources: int, n_table: int, max_pairs: int | None,
                    what: str, sources_by_size: dict[int, int] | None = None) -> NeighbourPlan:
    """Pick the cheaper neighbour strategy and check the pair budget, from counts alone.

    ``n_sources`` datasets play ``x`` and ``n_table`` datasets are in the table; for a
    universe of more than :data:`DENSE_MAX_VALUES` values, ``sources_by_size`` maps a size
    to the number of ``x`` datasets of that size.
    """
    cap = max_pairs if max_pairs is not None else None
    m = space.universe.size
    if m > tables.DENSE_MAX_VALUES:
        by_size = sources_by_size or {}
        per = {n: _sparse_moves(metric, m, n, d_in, exact_k, ambient, cap) for n in by_size}
        est = sum(c * per[n] for n, c in by_size.items())
        unit = "moves per dataset at most " + f"{max(per.values(), default=0):,}"
        kind = "sparse"
    else:
        n_moves = metric.count_moves(m, d_in, exact_k, cap=cap)
        delta_cost = n_sources * n_moves
        scan_cost = n_sources * n_table * SCAN_COST
        if scan_cost < delta_cost:
            est, unit, kind = n_sources * n_table, f"{n_table:,} candidate datasets", "scan"
        else:
            est, unit, kind = delta_cost, f"{show_count(n_moves)} moves", "delta"
    refuse_above(
        est, max_pairs,
        what=f"candidate neighbour pairs for {what} at d_in={d_in} ({n_sources:,} datasets "
             f"x {unit})",
        option="max_pairs", hint="shrink the universe, the sizes or d_in",
    )
    return NeighbourPlan(kind, est)


def _sparse_moves(metric, m: int, n: int, d_in: int, exact_k: bool, ambient: DatasetSpace,
                  cap: int | None) -> int:
    """An upper bound on the moves applicable to one dataset of ``n`` records: ``C(n, r)``
    removals times ``C(m + a - 1, a)`` additions, for each allowed ``(r, a)``."""
    lo, hi = ambient.min_size, ambient.max_size
    change = metric.size_shift(max(d_in, 1)) == 0
    if exact_k:
        shapes = [(d_in, d_in)] if change else [(d_in, 0), (0, d_in)]
    elif change:
        shapes = [(j, j) for j in range(1, min(d_in, n) + 1)]
    else:
        shapes = ((r, a) for r in range(min(d_in, n) + 1) for a in range(d_in - r + 1)
                  if r + a and lo <= n - r + a <= hi)
    total = 0
    for r, a in shapes:
        if r > n or not lo <= n - r + a <= hi:
            continue
        total += comb_capped(n, r, cap or 0) * comb_capped(m + a - 1, a, cap or 0)
        if cap is not None and total > cap:
            break
    return total


def build_neighbours(plan: NeighbourPlan, table: Table, metric, d_in: int, exact_k: bool,
                     halve: bool):
    """The neighbour finder the plan chose."""
    if plan.kind == "sparse":
        return SparseNeighbours(table, metric, d_in, exact_k, halve)
    if plan.kind == "scan":
        return ScanNeighbours(table, metric, d_in, exact_k, halve)
    moves = metric.moves(len(table.space.universe), d_in, exact_k)
    return DeltaNeighbours(table, table.deltas(moves, halve), halve)

class DeltaNeighbours:
    """Neighbours by key arithmetic: ``key + delta`` for every move (fast when most
    moves are feasible: multisets over a small universe)."""

    def __init__(self, table: Table, deltas: Sequence[int], halve: bool):
        self.table = table
        self.halve = halve
        self.deltas = list(deltas)
        self._get = None  # the value dict's get, on first use (the NumPy scan needs none)

    def keys(self, key: int) -> list[int]:
        """Neighbour keys in the table (defined or not)."""
        t = self.table
        values = t.value_dict()
        return [k for k in map(key.__add__, self.deltas) if k in values or k in t.undefined]

    def __call__(self, key: int) -> list:
        get = self._get
        if get is None:
            get = self._get = self.table.value_dict().get
        return [w for w in map(get, map(key.__add__, self.deltas)) if w is not None]

    def find(self, key: int, target) -> int:
        get = self.table.values.get
        for dl in self.deltas:
            if get(key + dl) == target:
                return key + dl
        raise AssertionError("witness lost")  # pragma: no cover


class ScanNeighbours:
    """Neighbours by scanning the table's datasets of nearby sizes and testing the
    relation (fast when the moves far outnumber the datasets: pools, large ``d_in``)."""

    def __init__(self, table: Table, metric, d_in: int, exact_k: bool, halve: bool):
        self.table = table
        self.metric = metric
        self.d_in = d_in
        self.exact_k = exact_k
        self.halve = halve
        self.shift = metric.size_shift(d_in)
        by_size: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        for key in list(table.values) + list(table.undefined):
            c = table.counts(key)
            by_size.setdefault(sum(c), []).append((c, key))
        self.by_size = by_size
        self.sizes = sorted(by_size)

    def keys(self, key: int) -> list[int]:
        xc = self.table.counts(key)
        n = sum(xc)
        related = self.metric.related
        out = []
        for size in self.sizes:
            if abs(size - n) > self.shift:
                continue
            for yc, yk in self.by_size[size]:
                if (not self.halve or yk > key) and related(xc, yc, self.d_in, self.exact_k):
                    out.append(yk)
        return out

    def __call__(self, key: int) -> list:
        values = self.table.value_dict()
        return [values[k] for k in self.keys(key) if k in values]

    def find(self, key: int, target) -> int:
        values = self.table.value_dict()
        for k in self.keys(key):
            if values.get(k) == target:
                return k
        raise AssertionError("witness lost")  # pragma: no cover


class SparseNeighbours:
    """Neighbours of a dataset in sparse form: remove a sub-multiset ``R`` of its own
    records, add a multiset ``A`` of universe values disjoint from ``R`` (each neighbour
    arises from exactly one such move). With ``halve``, a move is kept only if it is
    "larger" than its reverse, as :meth:`Table.deltas` does, so each unordered pair is
    visited once."""

    def __init__(self, table: Table, metric, d_in: int, exact_k: bool, halve: bool):
        self.table = table
        self.halve = halve
        self.m = table.space.universe.size
        amb = table.ambient
        self.lo, self.hi = amb.min_size, amb.max_size
        self.change = metric.size_shift(max(d_in, 1)) == 0
        self.d_in = d_in
        self.exact_k = exact_k

    def _pool(self) -> tuple[int, ...]:
        # built once, when a move adds records (the pair budget covers m per dataset then):
        # itertools copies any other iterable on every call
        if self.__dict__.get("pool") is None:
            self.pool = tuple(range(self.m))
        return self.pool

    def _shapes(self, n: int):
        d = self.d_in
        if self.exact_k:
            return [(d, d)] if self.change else [(d, 0), (0, d)]
        if self.change:
            return [(j, j) for j in range(1, d + 1)]
        return [(r, a) for r in range(d + 1) for a in range(d - r + 1) if r + a]

    def keys(self, key: tuple[int, ...]) -> list:
        """Neighbour keys in the table (defined or not)."""
        t = self.table
        n = len(key)
        out = []
        capped = t.ambient._caps is not None
        cap = t.ambient.max_count
        for r, a in self._shapes(n):
            if r > n or not self.lo <= n - r + a <= self.hi:
                continue
            removals = dict.fromkeys(combinations(range(n), r))
            seen = set()
            for positions in removals:
                removed = tuple(key[p] for p in positions)
                if removed in seen:
                    continue
                seen.add(removed)
                chosen = set(positions)
                rest = [key[p] for p in range(n) if p not in chosen]
                gone = set(removed)
                held = Counter(rest) if capped else None
                for added in combinations_with_replacement(self._pool(), a) if a else [()]:
                    if gone.intersection(added):
                        continue
                    if self.halve and (a, added) < (r, removed):
                        continue
                    if capped and any(held[i] + added.count(i) > cap(i) for i in set(added)):
                        continue  # a value used more often than the pool holds it
                    y = tuple(sorted(rest + list(added)))
                    if y in t.values or y in t.undefined:
                        out.append(y)
        return out

    def __call__(self, key) -> list:
        values = self.table.values
        return [values[k] for k in self.keys(key) if k in values]

    def find(self, key, target):
        values = self.table.values
        for k in self.keys(key):
            if values.get(k) == target:
                return k
        raise AssertionError("witness lost")  # pragma: no cover
