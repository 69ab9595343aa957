"""The enumeration engine behind every sensitivity computation.

Datasets are count vectors; each is coded as one integer ``key = sum(c_i * B**i)``
with a base ``B`` larger than any count plus ``d_in``. A move ``(R, A)`` (see
:mod:`exactdp.spaces.metrics`) is then one integer ``delta`` and the neighbour of
``x`` is ``key + delta``: a dictionary lookup, no tuple building.

Why a lookup is enough: adding at most ``d_in`` to a digit never carries (the base
is larger). Removing more records of a value than ``x`` holds borrows, and the
*lowest* borrowing digit then reads ``B - (r - c) >= B - d_in``, more than any valid
count, so the key belongs to no dataset and the lookup misses. Likewise a neighbour
outside the space (a size out of range, a pool value used too often) is not in the
table. The table holds exactly the datasets a pair may use: the space itself, or
for the release-centred scope the space widened by ``d_in`` in size.

For a scalar query the largest ``|f(x) - f(x')|`` over the neighbours of ``x`` is
reached at their largest or smallest value, so each dataset costs one ``max`` and
one ``min`` over its neighbours' values (scaled to integers by the common
denominator). For the standard scope every unordered pair is visited once: a move is
kept only if it is "larger" than its reverse move.

When the moves far outnumber the datasets (a pool with ``k = 4`` changes over nine
values has about 245,000 moves for 53 datasets), :class:`ScanNeighbours` instead tests
the relation against every dataset of a nearby size. Universes of more than
:data:`DENSE_MAX_VALUES` values use :class:`SparseTable` and :class:`SparseNeighbours`
instead: a dataset is its sorted tuple of value indices, and a neighbour removes some of
its own records and adds universe values, so a dataset costs its size, not the
universe's. :func:`plan_neighbours` picks the strategy and checks the pair budget from
counts alone, before the table is built (:func:`make_table`).

Memory holds one key per dataset of the table; pairs are streamed, never stored.

Speed (issue 12): the built-in queries fill a dense table incrementally, a level of the
enumeration tree at a time (:mod:`exactdp.checkers._incremental`), and the pair scan
looks the neighbours of a block of datasets up at once with NumPy ``searchsorted`` over
the sorted keys when keys and values fit in 64 bits (:func:`_np_scan`); otherwise the
pure-Python loops below run, with the same answers. ``workers=N`` splits the sources
into contiguous parts scanned by a process pool (:mod:`exactdp.checkers._pool`); the
parts' results are combined in source order, so the witness is the one the serial scan
picks: the first maximal pair in source order (for a source, its largest neighbour
before its smallest; for a vector query, its first maximal neighbour in move order).
NumPy is imported on these paths only, never at import time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from typing import Sequence

from exactdp._budget import comb_capped, refuse_above, show_count
from exactdp._progress import Progress
from exactdp.checkers import _incremental
from exactdp.errors import InvalidArgument, UndefinedQuery
from exactdp.numeric.exact import common_denominator, format_dataset
from exactdp.queries.base import UNDEFINED, Query
from exactdp.spaces.datasets import DatasetSpace

__all__ = [
    "Table", "SparseTable", "make_table", "RawResult", "run", "NeighbourPlan", "plan_neighbours",
    "build_neighbours", "source_keys", "validate_policy", "refuse_undefined_sizes", "RawPairs",
    "run_pairs", "STANDARD", "RELEASE_CENTRED", "check_workers", "cores",
]

INCREMENTAL = True
"""Fill dense tables of built-in queries incrementally (False: one ``prepare`` call per
dataset, as before issue 12; kept for the benchmark and the equivalence tests)."""

VECTORISED = True
"""Scan pairs with NumPy where keys and values fit in 64 bits (False: pure Python)."""

STANDARD = "standard"
RELEASE_CENTRED = "release-centred"


class Table:
    """Exact query values over the datasets a pair may use, keyed by integer code."""

    sparse = False
    sorted_keys = None  # the sorted key array, when the values are int64 arrays

    def __init__(
        self,
        query: Query,
        space: DatasetSpace,
        ambient: DatasetSpace,
        d_max: int,
        undefined: object,
        progress: Progress | None = None,
    ):
        self.query = query
        self.space = space
        self.ambient = ambient
        m = len(space.universe)
        top = max((ambient.max_count(i) for i in range(m)), default=0)
        self.base = top + d_max + 1
        self.weights = [self.base**i for i in range(m)]
        weights = self.weights
        if INCREMENTAL:
            built = _incremental.build(query.incremental(space.universe.values), ambient,
                                       weights, _stated(query, undefined), query.output,
                                       progress=progress)
            if built is not None:
                self._adopt(built)
                return
        prepared = query.prepare(space.universe.values)

        def entries():
            for counts in ambient:
                yield sum(c * w for c, w in zip(counts, weights) if c), prepared(counts)

        self._fill(entries(), undefined, progress)

    def _adopt(self, built) -> None:
        """Take the arrays of an incremental build (see :mod:`._incremental`)."""
        np = built.np
        keys, ints, defined = built.keys, built.ints, built.defined
        self.scale = built.scale
        self.size = len(keys)
        self.undefined = set()
        for k in keys[~defined].tolist():
            self.undefined.add(k)
        if bool(defined.all()):
            kd, vd = keys, ints  # no copies: the common case
        else:
            kd, vd = keys[defined], ints[defined]
        built.ints = None  # held as vd (and sorted_values) from here on
        self.arrays = built
        self._dict = None
        if kd.dtype == np.int64 and vd.dtype == np.int64:
            order = np.argsort(kd, kind="stable")
            self.sorted_keys = kd[order]
            self.sorted_values = vd[order]
            self._defined_keys, self._defined_values = kd, vd
            self.values = ArrayValues(self)
        else:
            self.sorted_keys = None
            rows = vd.tolist()
            if self.query.output == "vector":
                rows = [tuple(r) for r in rows]
            self.values = dict(zip(kd.tolist(), rows))

    def value_dict(self) -> dict:
        """The values as a ``dict`` (built once from the arrays when needed): the
        pure-Python loops look keys up in it."""
        if isinstance(self.values, dict):
            return self.values
        if self._dict is None:  # in enumeration order, as the per-dataset path fills it
            rows = self._defined_values.tolist()
            if self.query.output == "vector":
                rows = [tuple(r) for r in rows]
            self._dict = dict(zip(self._defined_keys.tolist(), rows))
        return self._dict

    def _fill(self, entries, undefined: object, progress: Progress | None) -> None:
        """Evaluate the query on every dataset (``entries`` yields ``(key, raw value)``)
        and scale the values to integers over one common denominator."""
        query = self.query
        raw: dict = {}
        self.undefined: set = set()
        stated = None
        if undefined not in ("error", "exclude"):
            stated = undefined  # an exact number (validated by the caller)
            if query.output == "sqrt":
                stated = stated * stated  # the radicand of the stated value
        for i, (key, value) in enumerate(entries):
            if value is UNDEFINED:
                if stated is None:
                    self.undefined.add(key)
                    continue
                value = stated
            raw[key] = value
            if progress is not None and not i & 4095:
                progress.show(f"query values on {i:,} of {progress.total:,} datasets")
        # One common denominator turns every comparison into integer arithmetic.
        if query.output == "vector":
            scale = common_denominator(x for v in raw.values() for x in v)
        else:
            scale = common_denominator(raw.values())
        self.scale = scale
        if query.output == "vector":
            self.values = {
                k: tuple(int(Fraction(x) * scale) for x in v) for k, v in raw.items()
            }
        else:
            self.values = {k: int(Fraction(v) * scale) for k, v in raw.items()}
        self.size = len(raw) + len(self.undefined)

    def key(self, counts: Sequence[int]) -> int:
        return sum(c * w for c, w in zip(counts, self.weights))

    def key_of_indices(self, indices: Sequence[int]) -> int:
        return sum(self.weights[i] for i in indices)

    def dataset(self, key: int) -> tuple[Fraction, ...]:
        """The sorted values of the dataset with this key."""
        return self.space.to_values(self.counts(key))

    def counts(self, key: int) -> tuple[int, ...]:
        out = []
        for _ in self.weights:
            key, c = divmod(key, self.base)
            out.append(c)
        return tuple(out)

    def deltas(self, moves, halve: bool) -> list[int]:
        w = self.weights
        out = []
        for removed, added in moves:
            if halve and (len(added), added) < (len(removed), removed):
                continue
            out.append(sum(w[i] for i in added) - sum(w[i] for i in removed))
        return out


def _stated(query: Query, undefined: object):
    """The exact value stated for undefined datasets (the radicand for a square root),
    or ``None`` under the "error" and "exclude" policies."""
    if undefined in ("error", "exclude"):
        return None
    return undefined * undefined if query.output == "sqrt" else undefined


class ArrayValues(Mapping):
    """A table's values as a read-only mapping over its sorted key array: a lookup is a
    binary search, iteration follows the enumeration order. The pure-Python loops use
    :meth:`Table.value_dict` instead."""

    def __init__(self, table: Table):
        self._table = table

    def _index(self, key):
        t = self._table
        keys = t.sorted_keys
        if not len(keys) or not isinstance(key, int) and not hasattr(key, "__index__"):
            return None
        key = int(key)
        if not int(keys[0]) <= key <= int(keys[-1]):
            return None
        i = int(keys.searchsorted(key))
        return i if int(keys[i]) == key else None

    def __getitem__(self, key):
        i = self._index(key)
        if i is None:
            raise KeyError(key)
        v = self._table.sorted_values[i]
        return tuple(int(x) for x in v) if v.ndim else int(v)

    def __contains__(self, key) -> bool:
        return self._index(key) is not None

    def __iter__(self):
        return iter(self._table._defined_keys.tolist())

    def __len__(self) -> int:
        return len(self._table.sorted_keys)


@dataclass
class RawResult:
    """What one enumeration found, in the table's integer units."""

    best: object  # scalar/vector: int distance (L2: squared); sqrt: (a, b) radicands
    x_key: int | None
    x_prime_key: int | None
    pairs: int
    excluded: int


SCAN_COST = 8
"""How many delta lookups one relation test in :class:`ScanNeighbours` costs (measured
roughly: a Python loop over a count vector against a C-level dict lookup)."""

DENSE_MAX_VALUES = 1024
"""Universes of more values use the sparse form (:class:`SparseTable`): a count vector
and its integer key grow with the universe, a sorted tuple of indices with the dataset."""


class SparseTable(Table):
    """The value table for a large universe: each dataset keyed by its sorted tuple of
    value indices, so a dataset costs its own size, not the universe's."""

    sparse = True

    def __init__(self, query: Query, space: DatasetSpace, ambient: DatasetSpace,
                 d_max: int, undefined: object, progress: Progress | None = None):
        self.query = query
        self.space = space
        self.ambient = ambient
        value = space.universe.value

        def entries():
            for key in ambient.sorted_indices():
                support: list = []
                counts: list = []
                for i in key:
                    if counts and support[-1] == i:
                        counts[-1] += 1
                    else:
                        support.append(i)
                        counts.append(1)
                yield key, query.prepare(tuple(value(i) for i in support))(tuple(counts))

        self._fill(entries(), undefined, progress)

    def key(self, counts: Sequence[int]) -> tuple[int, ...]:
        return tuple(i for i, c in enumerate(counts) for _ in range(c))

    def key_of_indices(self, indices: Sequence[int]) -> tuple[int, ...]:
        return tuple(sorted(indices))

    def counts(self, key) -> tuple[int, ...]:  # pragma: no cover - dense callers only
        raise TypeError("a sparse table has no count vectors; use dataset(key)")

    def dataset(self, key: tuple[int, ...]) -> tuple[Fraction, ...]:
        value = self.space.universe.value
        return tuple(value(i) for i in key)


def make_table(query: Query, space: DatasetSpace, ambient: DatasetSpace, d_max: int,
               undefined: object, progress: Progress | None = None) -> Table:
    """The dense table for universes of up to :data:`DENSE_MAX_VALUES` values, else sparse."""
    kind = SparseTable if space.universe.size > DENSE_MAX_VALUES else Table
    return kind(query, space, ambient, d_max, undefined, progress)


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
    if m > DENSE_MAX_VALUES:
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


def _cmp_sqrt_sums(p1: int, p2: int, q1: int, q2: int) -> int:
    """Sign of ``(sqrt(p1) + sqrt(p2)) - (sqrt(q1) + sqrt(q2))`` for integers >= 0, exactly."""
    t = p1 + p2 - q1 - q2
    big_p, big_q = 4 * p1 * p2, 4 * q1 * q2
    # sign(t + sqrt(P) - sqrt(Q)), squaring only non-negative sides
    if t >= 0:
        u = big_p + t * t - big_q
        if u >= 0:
            return 0 if (u == 0 and t * big_p == 0) else 1
        s = 4 * t * t * big_p - u * u
        return (s > 0) - (s < 0)
    u = big_p - big_q - t * t
    if u <= 0:
        return 0 if (u == 0 and big_q == 0) else -1
    s = u * u - 4 * t * t * big_q
    return (s > 0) - (s < 0)


def _sqrt_gap_float(a: int, b: int) -> tuple[float, float]:
    """``(sqrt(a) - sqrt(b), sqrt(a) + sqrt(b))`` in floats: a pre-filter only.

    Each square root is within a few ulps, so the gap is off by at most about
    ``1e-15 * (sqrt(a) + sqrt(b))``; the caller's tolerance is far wider than that. Too
    large for floats: an infinite magnitude, which forces the exact comparison.
    """
    try:
        ra, rb = math.sqrt(a), math.sqrt(b)
    except OverflowError:
        return 0.0, math.inf
    return ra - rb, ra + rb


def _raise_undefined(table: Table, source: int, neighbour: int | None) -> None:
    bad = table.dataset(neighbour if neighbour is not None else source)
    where = f"x={format_dataset(bad)} (size {len(bad)})"
    if neighbour is not None:
        where = (f"x'={format_dataset(bad)} (size {len(bad)}), a neighbour of "
                 f"x={format_dataset(table.dataset(source))}")
    _undefined_error(table.query, where)


def refuse_undefined_sizes(query: Query, space: DatasetSpace, policy: object) -> None:
    """Under the "error" policy, refuse before any work a space holding datasets smaller
    than the query's ``min_size`` (each is some pair's ``x`` in the standard scope), naming
    the one the enumeration would have met first (the smallest key: records on the
    smallest values)."""
    if policy != "error" or space.min_size >= query.min_size:
        return
    size = left = space.min_size
    values: list = []
    for i in range(space.universe.size if size else 0):  # value(i): a huge range stays lazy
        take = min(left, space.max_count(i))
        values += [space.universe.value(i)] * take
        left -= take
        if not left:
            break
    _undefined_error(query, f"x={format_dataset(tuple(values))} (size {size})")


def _undefined_error(q: Query, where: str) -> None:
    raise UndefinedQuery(
        f"{q.name} is undefined on {where}; it needs at least {q.min_size} record(s). "
        f"Pass undefined='exclude' to leave such datasets out (minimum size "
        f"{q.min_size}), undefined=<value> to state a value, or use sizes of at least "
        f"{q.min_size} (CLI: --undefined exclude|VALUE)"
    )


def undefined_reached(table: Table, sources: Sequence[int], neighbours, halved: bool) -> tuple[int, tuple[int, int | None] | None]:
    """How many undefined datasets the pairs would touch, and one example
    ``(source, neighbour)`` (``neighbour`` is ``None`` when the source itself is undefined).

    An undefined dataset of the space is always touched (it is some pair's ``x``); one
    outside the space (release-centred scope) only if it neighbours a source.
    """
    undefined = table.undefined
    if not undefined:
        return 0, None
    sources = sources.tolist() if hasattr(sources, "tolist") else sources
    source_set = set(sources)
    touched = {u for u in undefined if u in source_set}
    example = (min(touched), None) if touched else None
    if not halved:  # otherwise the table is the space: every undefined one is a source
        for key in sources:
            if key in undefined:
                continue
            for k in neighbours.keys(key):
                if k in undefined and k not in touched:
                    touched.add(k)
                    example = example or (key, k)
    return len(touched), example


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


def _undefined_policy(table: Table, sources: Sequence[int], neighbours, policy: object) -> int:
    """How many undefined datasets the pairs touch; raise under the "error" policy."""
    halved = getattr(neighbours, "halve", False)
    excluded, example = undefined_reached(table, sources, neighbours, halved)
    if policy == "error" and example is not None:
        _raise_undefined(table, *example)
    return excluded


WORKERS_PER_CORE = 4
"""Most processes ``workers`` may start per core this process may use: each is a forked
interpreter (or a Dask worker), and beyond the cores they only share them."""


def cores() -> int:
    """The cores this process may use (the CLI's default ``--workers``)."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def check_workers(workers: object) -> int:
    """``workers`` as a whole number >= 1 and at most :data:`WORKERS_PER_CORE` per core, or
    one line saying what to pass (refused before any process starts)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidArgument(
            f"workers={workers!r} is not a number of processes; pass a whole number >= 1 "
            f"(1: no pool)"
        )
    n = cores()
    refuse_above(workers, WORKERS_PER_CORE * n, what="worker processes", option=None,
                 hint=f"pass workers (--workers) of at most {WORKERS_PER_CORE} per core "
                      f"({n} here); the answer does not depend on it")
    return workers


def run(
    table: Table,
    sources: Sequence[int],
    neighbours,
    policy: object,
    progress: Progress,
    workers: int = 1,
) -> RawResult:
    """Enumerate every pair (source, neighbour) present in the table, with ``workers``
    processes (each scans a contiguous part of ``sources``; see :mod:`._pool`)."""
    workers = check_workers(workers)
    excluded = _undefined_policy(table, sources, neighbours, policy)
    kind = table.query.output
    if workers > 1:
        from exactdp.checkers import _pool

        parts = _pool.scan_parts(table, sources, neighbours, workers, progress)
    else:
        parts = [scan(table, sources, neighbours, progress)]
    return finish(kind, combine(kind, parts), neighbours, excluded)


def scan(table: Table, sources, neighbours, progress: Progress):
    """The best pair over ``sources``, before the witness's ``x'`` is looked up:
    ``(best, x_key, w, pairs)`` where ``w`` is the value of the best neighbour of
    ``x_key`` (``x_key`` is ``None`` when no pair exists)."""
    kind = table.query.output
    np_scan = _np_scanner(table, neighbours)
    if np_scan is not None:
        return np_scan(table, sources, neighbours, progress)
    sources = sources.tolist() if hasattr(sources, "tolist") else sources
    if kind == "scalar":
        return _run_scalar(table, sources, neighbours, progress)
    if kind == "sqrt":
        return _run_sqrt(table, sources, neighbours, progress)
    return _run_vector(table, sources, neighbours, progress)


def combine(kind: str, parts: Sequence[tuple]) -> tuple:
    """The results of consecutive parts of the sources as one: the first best in order,
    as one scan over all of them would find it."""
    best, best_x, best_w, pairs = parts[0]
    for b, x, w, p in parts[1:]:
        pairs += p
        if x is None:
            continue
        if best_x is None:
            better = True
        elif kind == "sqrt":
            better = _cmp_sqrt_sums(b[0], best[1], b[1], best[0]) > 0
        else:
            better = b > best
        if better:
            best, best_x, best_w = b, x, w
    return best, best_x, best_w, pairs


def finish(kind: str, part: tuple, neighbours, excluded: int) -> RawResult:
    best, best_x, best_w, pairs = part
    if best_x is None:
        return RawResult((0, 0) if kind == "sqrt" else 0, None, None, pairs, excluded)
    x_prime = neighbours.find(best_x, best_w)
    return RawResult(best if kind == "sqrt" else max(best, 0), best_x, x_prime, pairs, excluded)


@dataclass
class RawPairs:
    """Every distinct pair of query values over the neighbouring pairs, with one pair of
    datasets realising each (in the table's integer units)."""

    pairs: dict  # (v, w) with v <= w -> (x_key, x_prime_key)
    examined: int
    excluded: int


def run_pairs(table: Table, sources: Sequence[int], neighbours, policy: object,
              progress: Progress) -> RawPairs:
    """Collect the distinct (unordered) pairs of query values of neighbouring datasets:
    a mechanism's output depends on the query value only, so each is checked once."""
    sources = sources.tolist() if hasattr(sources, "tolist") else sources
    excluded = _undefined_policy(table, sources, neighbours, policy)
    get = table.value_dict().get
    keys = neighbours.keys
    found: dict = {}
    examined = 0
    for i, key in enumerate(sources):
        v = get(key)
        if v is None:
            continue
        for k in keys(key):
            w = get(k)
            if w is None:
                continue
            examined += 1
            pair = (v, w) if v <= w else (w, v)
            if pair not in found:
                found[pair] = (key, k) if v <= w else (k, key)
        if not i & 1023:
            progress.update(i, examined)
    return RawPairs(found, examined, excluded)


def _run_scalar(table, sources, neighbours, progress) -> tuple:
    get = table.value_dict().get
    best = -1
    best_x = best_w = None
    pairs = 0
    for i, key in enumerate(sources):
        v = get(key)
        if v is None:
            continue
        ws = neighbours(key)
        if not ws:
            continue
        pairs += len(ws)
        hi = max(ws)
        lo = min(ws)
        if hi - v > best:
            best, best_x, best_w = hi - v, key, hi
        if v - lo > best:
            best, best_x, best_w = v - lo, key, lo
        if not i & 1023:
            progress.update(i, pairs)
    return best, best_x, best_w, pairs


def _run_sqrt(table, sources, neighbours, progress) -> tuple:
    """Largest ``|sqrt(a) - sqrt(b)|``: compared exactly, with a float pre-filter."""
    get = table.value_dict().get
    pairs = 0
    state = _SqrtBest()
    for i, key in enumerate(sources):
        v = get(key)
        if v is None:
            continue
        ws = neighbours(key)
        if not ws:
            continue
        pairs += len(ws)
        hi = max(ws)
        lo = min(ws)
        state.offer(hi, v, key)
        state.offer(v, lo, key, lo)
        if not i & 1023:
            progress.update(i, pairs)
    return state.best, state.best_x, state.best_w, pairs


class _SqrtBest:
    """The running best ``sqrt(a) - sqrt(b)``: the first exact maximum in offer order."""

    def __init__(self):
        self.best = None  # (a, b) with sqrt(a) - sqrt(b) the best gap so far
        self.best_f = self.best_mag = 0.0
        self.best_x = self.best_w = None

    def offer(self, a: int, b: int, key, w=None) -> None:
        w = a if w is None else w
        gap_f, mag = _sqrt_gap_float(a, b)
        best = self.best
        if best is not None and gap_f < self.best_f - 1e-9 * (1.0 + mag + self.best_mag):
            return  # clearly smaller, whatever the float error
        if best is None or _cmp_sqrt_sums(a, best[1], b, best[0]) > 0:
            self.best, self.best_f, self.best_mag, self.best_x, self.best_w = (a, b), gap_f, mag, key, w


def _run_vector(table, sources, neighbours, progress) -> tuple:
    get = table.value_dict().get
    norm = table.query.norm
    best = -1
    best_x = best_w = None
    pairs = 0
    for i, key in enumerate(sources):
        v = get(key)
        if v is None:
            continue
        for w in neighbours(key):
            pairs += 1
            if norm == "L1":
                dist = sum(abs(a - b) for a, b in zip(v, w))
            elif norm == "L2":
                dist = sum((a - b) * (a - b) for a, b in zip(v, w))
            else:
                dist = max((abs(a - b) for a, b in zip(v, w)), default=0)
            if dist > best:
                best, best_x, best_w = dist, key, w
        if not i & 1023:
            progress.update(i, pairs)
    return best, best_x, best_w, pairs


# -- the NumPy scan ------------------------------------------------------------------

NP_BLOCK = 1 << 16
"""Sources looked up together (memory: a few arrays of this length per move)."""


def _np_scanner(table: Table, neighbours):
    """The NumPy scan for this table and neighbour finder, or ``None`` (pure Python)."""
    if not VECTORISED or table.sorted_keys is None or not isinstance(neighbours, DeltaNeighbours):
        return None
    keys = table.sorted_keys
    if not len(keys) or not neighbours.deltas:
        return None
    lim = _incremental.LIMIT
    if int(keys[-1]) + max(neighbours.deltas) >= lim or min(neighbours.deltas) <= -lim:
        return None
    values = table.sorted_values
    if len(values) and int(abs(values).max()) >= lim // 2:
        return None  # differences of two values must fit too
    kind = table.query.output
    if kind == "vector":
        if table.query.norm == "L2" and values.shape[1] * int(abs(values).max()) ** 2 * 4 >= lim:
            return None
        return _np_vector
    return _np_scalar


def _np_blocks(table: Table, sources, neighbours, progress, per_block):
    """Look up the neighbours of the sources, a block at a time, in key order (so the
    binary searches walk the key array forwards). ``per_block(pos, v, found, idx)`` gets
    the block's defined sources (positions in ``sources``), their values, and per move
    which neighbours exist and where, and returns the block's pair count. Returns the
    sources as an array."""
    np = table.arrays.np
    keys, values = table.sorted_keys, table.sorted_values
    last = len(keys) - 1
    src = np.asarray(sources, dtype=np.int64)
    order = np.argsort(src, kind="stable")
    deltas = neighbours.deltas
    pairs = 0
    for start in range(0, len(src), NP_BLOCK):
        pos = order[start:start + NP_BLOCK]
        block = src[pos]
        i = np.minimum(np.searchsorted(keys, block), last)
        defined = keys[i] == block
        pos, block, v = pos[defined], block[defined], values[i[defined]]
        found, idx = [], []
        for d in deltas:
            t = block + d
            j = np.minimum(np.searchsorted(keys, t), last)
            found.append(keys[j] == t)
            idx.append(j)
        pairs += per_block(pos, v, found, idx)
        progress.update(min(start + NP_BLOCK, len(src)), pairs)
    return src


def _np_scalar(table: Table, sources, neighbours, progress) -> tuple:
    """:func:`_run_scalar` (or :func:`_run_sqrt`) with NumPy: per source its largest and
    smallest neighbour value; per block the first best source in source order (blocks
    follow key order, so each keeps its best and the blocks are compared at the end)."""
    np = table.arrays.np
    values = table.sorted_values
    sqrt = table.query.output == "sqrt"
    kept = []  # per block: (best gap, first position, w) or, for sqrt, the near-best rows
    pairs = 0

    def per_block(pos, v, found, idx):
        nonlocal pairs
        hi, lo = v.copy(), v.copy()
        cnt = np.zeros(len(v), dtype=np.int64)
        for f, j in zip(found, idx):
            w = np.where(f, values[j], v)  # a missing neighbour counts as v: see below
            np.maximum(hi, w, out=hi)
            np.minimum(lo, w, out=lo)
            cnt += f
        found_here = int(cnt.sum())
        pairs += found_here
        keep = cnt > 0
        if not keep.any():
            return found_here
        pos, v, hi, lo = pos[keep], v[keep], hi[keep], lo[keep]
        # Counting a missing neighbour as v changes neither answer: a source has a
        # neighbour, so hi - v < 0 only if v - lo > 0, and the best gap is reached as
        # before; it is 0 only if every neighbour equals v, and then hi = lo = v.
        if sqrt:
            kept.append(_np_sqrt_near(np, pos, v, hi, lo))
            return found_here
        up, down = hi - v, v - lo
        gap = np.maximum(up, down)
        best = int(gap.max())
        at = np.nonzero(gap == best)[0]
        at = int(at[np.argmin(pos[at])])  # the first in source order
        w = int(hi[at]) if int(up[at]) == best else int(lo[at])
        kept.append((best, int(pos[at]), w))
        return found_here

    src = _np_blocks(table, sources, neighbours, progress, per_block)
    if not kept:
        return (None if sqrt else -1), None, None, pairs
    if sqrt:
        return _np_sqrt_best(np, src, kept) + (pairs,)
    best = max(k[0] for k in kept)
    _, at, w = min((k for k in kept if k[0] == best), key=lambda k: k[1])
    return best, int(src[at]), w, pairs


_SQRT_SLACK = 1e-9
"""Relative width of the float shortlist; each float gap is within about ``1e-15 *
(sqrt a + sqrt b)`` of the exact one."""


def _np_sqrt_near(np, pos, v, hi, lo):
    """The rows of a block whose float gap ``sqrt(hi) - sqrt(v)`` or ``sqrt(v) - sqrt(lo)``
    may reach the block's largest: ``(top, mag, pos, v, hi, lo)``."""
    rv, rh, rl = np.sqrt(v.astype(float)), np.sqrt(hi.astype(float)), np.sqrt(lo.astype(float))
    gap = np.maximum(rh - rv, rv - rl)
    top = float(gap.max())
    mag = float(np.maximum(rh + rv, rv + rl).max())
    near = gap >= top - _SQRT_SLACK * (1.0 + 2.0 * mag)
    return top, mag, pos[near], v[near], hi[near], lo[near]


def _np_sqrt_best(np, src, kept) -> tuple:
    """The first exact maximum of ``sqrt(a) - sqrt(b)`` over the candidates ``(hi, v)``
    and ``(v, lo)`` of each source, in source order: floats shortlist the candidates that
    may reach the maximum, then :class:`_SqrtBest` decides exactly among them in order."""
    top = max(k[0] for k in kept)
    mag = max(k[1] for k in kept)
    slack = _SQRT_SLACK * (1.0 + 2.0 * mag)
    rows = [k[2:] for k in kept if k[0] >= top - slack]
    pos, v, hi, lo = (np.concatenate([r[i] for r in rows]) for i in range(4))
    order = np.argsort(pos, kind="stable")  # source order
    state = _SqrtBest()
    for i in order.tolist():
        key = int(src[pos[i]])
        a, b, c = int(hi[i]), int(v[i]), int(lo[i])
        state.offer(a, b, key)
        state.offer(b, c, key, c)
    return state.best, state.best_x, state.best_w


def _np_vector(table: Table, sources, neighbours, progress) -> tuple:
    """:func:`_run_vector` with NumPy: per source its first farthest neighbour in move
    order; per block the first best source in source order."""
    np = table.arrays.np
    values = table.sorted_values
    norm = table.query.norm
    kept = []
    pairs = 0

    def per_block(pos, v, found, idx):
        nonlocal pairs
        best = np.full(len(v), -1, dtype=np.int64)
        where = np.zeros(len(v), dtype=np.int64)
        cnt = np.zeros(len(v), dtype=np.int64)
        for f, j in zip(found, idx):
            diff = values[j] - v
            if norm == "L1":
                dist = np.abs(diff).sum(axis=1)
            elif norm == "L2":
                dist = (diff * diff).sum(axis=1)
            else:
                dist = np.abs(diff).max(axis=1)
            dist = np.where(f, dist, -1)
            better = dist > best
            best = np.where(better, dist, best)
            where = np.where(better, j, where)
            cnt += f
        found_here = int(cnt.sum())
        pairs += found_here
        keep = np.nonzero(cnt > 0)[0]
        if not len(keep):
            return found_here
        top = int(best[keep].max())
        at = keep[best[keep] == top]
        at = int(at[np.argmin(pos[at])])
        kept.append((top, int(pos[at]), tuple(int(x) for x in values[where[at]])))
        return found_here

    src = _np_blocks(table, sources, neighbours, progress, per_block)
    if not kept:
        return -1, None, None, pairs
    best = max(k[0] for k in kept)
    _, at, w = min((k for k in kept if k[0] == best), key=lambda k: k[1])
    return best, int(src[at]), w, pairs


def source_keys(table: Table, space: DatasetSpace):
    """Keys of the datasets of ``space`` (the ``x`` side of every pair), in enumeration
    order: a list, or an ``int64`` array for a table held in arrays."""
    if table.sorted_keys is not None:
        arrays = table.arrays
        if space is table.ambient:
            return arrays.keys
        inside = (arrays.n >= space.min_size) & (arrays.n <= space.max_size)
        return arrays.keys[inside]
    if space is table.ambient:
        return list(table.values) + list(table.undefined)
    if table.sparse:
        return list(space.sorted_indices())
    return [table.key(c) for c in space]


def validate_policy(undefined: object) -> object:
    from exactdp.numeric.exact import to_exact

    if undefined in ("error", "exclude"):
        return undefined
    if undefined is None:
        return "error"
    try:
        return to_exact(undefined, "undefined")
    except InvalidArgument:
        raise InvalidArgument(
            f"undefined={undefined!r} is not a policy; use 'error', 'exclude' or an exact "
            f"number such as 0 or '1/2'"
        ) from None

