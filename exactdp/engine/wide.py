"""Neighbour values from their sources' sums: add/remove without a value table (issue 19).

Under add/remove at ``d_in = 1`` the neighbours of a dataset ``x`` of size ``s`` are the
datasets ``x + {v}`` of size ``s + 1`` (one per universe value ``v`` the space allows) and,
in the release-centred scope, the datasets ``x - {v}`` of size ``s - 1`` (one per distinct
value of ``x``). The standard scope visits each unordered pair once from its smaller
dataset, so only the additions are kept there, exactly as the move lists do.

This strategy never builds the value table. The sources (the ``x`` side) are held in one
of two forms (:func:`sources_as`), a block of them at a time:

* wide, shallow spaces (many values, few records): sorted value indices ``(sources, s)``,
  enumerated level by level, one size per block;
* deep spaces (few values, many records): count vectors held values first ``(m,
  sources)``, each row with its own size, made from prefixes of the counts by the task that
  scans them (:func:`_count_rows`, :data:`CHUNK` at a time), so no task repeats another's
  work and the parent makes none (no halo: a neighbour's value needs no table).

For a block the query's value on *every* ``x + {v}`` is one vectorised integer expression
over a ``(sources, universe)`` array, with each source's size ``s``:

* ``count``: ``s + 1``; ``sum``: ``S1 + a_v``; ``mean``: ``(S1 + a_v) * L / (s + 1)``;
* ``variance`` (and the radicand of the standard deviation): ``((s + 1)(S2 + a_v**2) -
  (S1 + a_v)**2) * L / ((s + 1)(s + 1 - ddof))``;
* an order statistic ``y[j]`` of ``x + {v}`` is ``clip(a_v, x[j - 1], x[j])`` (``x[-1] =
  -inf``, ``x[s] = +inf``), so a quantile is two clips and a weighted sum.

Every value is an integer over one common denominator (``a_v = v * den``; ``L`` the least
common multiple over the sizes involved), so the arithmetic is exact in ``int64``; when
a bound computed from the inputs says an intermediate could reach ``2**61`` the strategy
does not apply and the move lists run instead. Per source its largest and smallest
neighbour values decide its best gap; the first best source in the order the other
strategies scan (count vectors in lexicographic order for a dense table, sorted index
tuples by size for a sparse one) and, for it, the first neighbour in move order with the
best value are the witness, so values, witnesses and pair counts equal theirs.

The cost is one vectorised element per candidate pair (no lookup, no table), against a
binary search per move for the move lists on 64-bit keys and a dictionary lookup once the
keys no longer fit (more than about 30 universe values). :func:`choose` compares the
counted costs and the pair budget; a space another strategy answers is never refused here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp.errors import TooLarge
from exactdp.numeric.exact import common_denominator
from exactdp._progress import Progress
from exactdp.engine.heap import roomy_heap
from exactdp.engine.incremental import numpy_or_none
from exactdp.engine.kinds import KINDS
from exactdp.engine.partitions import PARTS_PER_WORKER, _between, _suffix_ways, part_count
from exactdp.engine.scan import RawResult
from exactdp.engine.tables import DENSE_MAX_VALUES, public_value

__all__ = ["WidePlan", "WideTable", "choose", "applies", "estimate", "run", "BLOCK", "LOOKUP_COST"]

BLOCK = 1 << 16
"""Elements of one ``(sources, universe)`` block: a few ``int64`` arrays of it stay in a
core's cache (512 KiB each). Measured here on sum over {0..10000}, sizes 0..2: 0.26 s of
scan at ``2**16`` against 0.70 s at ``2**20``, where every array went to memory and two
processes then shared its bandwidth."""

LOOKUP_COST = 16
"""How many vectorised elements one dictionary lookup of the move lists costs (measured
roughly on this machine: about 60 ns per lookup in a Python loop against 3-4 ns per
element of a NumPy expression)."""

BOUND = 2**61
"""Every value stays below this in magnitude, so the difference of two fits in ``int64``."""

_KINDS = tuple(name for name, kind in KINDS.items() if kind.wide is not None)
"""The query kinds with a wide evaluator (:data:`exactdp.engine.kinds.KINDS`)."""

ENABLED = True
"""Consider the wide strategy at all (False: the move lists and scans only, as before issue
19; kept for the benchmark and the equivalence tests)."""

SOURCES_AS = None
"""How sources are held: ``None`` picks by cost (:func:`sources_as`); ``"counts"`` or
``"indices"`` force one where it applies (tests: both forms on the same spaces)."""

CHUNK = 1 << 15
"""Count vectors made at once by a task (:func:`_chunks`): their arrays (a few of ``m *
CHUNK`` integers) stay in a core's cache."""

TASK_SOURCES = 1_000_000
"""Count vectors per task at least, when the space has enough (:func:`task_count`): a Dask
task costs its scheduler about 3.5 ms here (13 empty tasks on two workers: 45 ms), and
tasks of equal size need no more than one per worker to finish together."""


def sources_as(m: int, max_size: int, order: str) -> str:
    """``"counts"``: count vectors ``(rows, m)`` (a block costs ``m`` per source, and each
    task makes its own sources from prefixes), or ``"indices"``: sorted value indices
    ``(rows, s)`` (``s`` per source, made by the parent). Count vectors where the universe
    is no larger than twice the largest size, in the dense order only."""
    if order != "dense":
        return "indices"
    if SOURCES_AS is not None:
        return SOURCES_AS
    return "counts" if m <= 2 * max(max_size, 1) else "indices"


FORCE = False
"""Take the wide strategy wherever it applies and fits, whatever the costs (tests only:
small spaces then exercise it against the other strategies)."""


@dataclass(frozen=True, eq=False)
class WidePlan:
    """The wide strategy for one ``d_in``: ``kind`` is ``"wide"`` as for a
    :class:`NeighbourPlan`; ``estimate`` counts the pairs exactly."""

    kind: str
    estimate: int
    table: "WideTable" = field(repr=False)


class WideTable:
    """What the front doors read from a table, for the wide strategy: the ``scale`` of the
    integer values, and the value and the values of a dataset named by its sorted tuple of
    value indices (the witness only; nothing is stored beyond it)."""

    sparse = True
    sorted_keys = None

    def __init__(self, query, space, ambient, halve: bool, policy, form, order: str):
        self.query = query
        self.space = space
        self.ambient = ambient
        self.halve = halve
        self.policy = policy
        self.order = order  # "dense" (count vectors, lexicographic) or "sparse" (by size)
        self.undefined: set = set()
        self.values: dict = {}
        self._form = form
        np = _numpy()
        self.np = np
        values = form.values
        den = common_denominator(values)
        nums = [int(v * den) for v in values]
        self.top = max((abs(a) for a in nums), default=0)
        # past 64 bits the bound below sends the planner to the other strategies
        self.nums = np.asarray(nums, dtype=np.int64 if self.top < BOUND else object)
        self.m = len(values)
        caps = space.caps
        self.caps = None if all(c is None for c in caps) else np.asarray(
            [ambient.max_count(i) for i in range(self.m)], dtype=np.int64)
        self.count_caps = [ambient.max_count(i) for i in range(self.m)]
        self.sources_as = sources_as(self.m, ambient.max_size, order)
        self.qmin = query.min_size
        lo = ambient.min_size
        hi = ambient.max_size
        sizes = [n for n in range(lo, hi + 1) if n >= self.qmin]
        self.kind = form.kind
        scale, self.mult = self._wide.scale(form, den, sizes)  # size -> multiplier(s) of its formula
        stated = None
        if policy not in ("error", "exclude"):
            stated = Fraction(policy)
            if query.output == "sqrt":
                stated = stated * stated
            grow = stated.denominator // math.gcd(scale, stated.denominator)
            if grow > 1:
                scale *= grow
                self.mult = {n: (tuple(x * grow if i % 2 else x for i, x in enumerate(v))
                                 if isinstance(v, tuple) else v * grow)
                             for n, v in self.mult.items()}
                self._grow = grow
            else:
                self._grow = 1
            stated = int(stated * scale)
        else:
            self._grow = 1
        self.stated = stated
        self.scale = scale
        self.sizes = sizes
        self.bound = self._bound(hi)

    @property
    def _wide(self):
        """The kind's wide evaluator (looked up, not stored: the table is pickled for tasks)."""
        return KINDS[self.kind].wide

    def _bound(self, hi: int) -> int:
        """An upper bound on every value and intermediate, in integer units."""
        most = max((max(v) if isinstance(v, tuple) else v for v in self.mult.values()), default=1)
        b = self._wide.bound(hi, self.top, self._grow, most)
        if self.stated is not None:
            b = max(b, abs(self.stated))
        return b

    # -- the query on arrays -----------------------------------------------------------
    def _value(self, n, s1, s2, stat):
        """The integer values of datasets of size ``n`` with sums ``s1``, ``s2`` (arrays)
        and order statistics ``stat(j)`` (arrays), or ``None`` where undefined. ``n`` may be
        an array of sizes (one per dataset, broadcast with ``s1``): :meth:`_values_of_sizes`."""
        np = self.np
        if not isinstance(n, int):
            return self._values_of_sizes(n, s1, s2, stat)
        if n < self.qmin:
            if self.stated is None:
                return None
            return np.full(np.shape(s1), self.stated, dtype=np.int64)
        return self._wide.value(self, n, s1, s2, stat)

    def _values_of_sizes(self, n, s1, s2, stat):
        """:meth:`_value` for an array of sizes ``n``: the size's multipliers gathered per
        dataset, ``stat(j)`` with an array ``j``; the stated value where ``n`` is below the
        query's minimum (never reached without one: see :func:`applies`)."""
        np = self.np
        out = self._wide.of_sizes(self, n, s1, s2, stat)
        if self.stated is not None:
            under = n < self.qmin
            if bool(np.any(under)):
                out = np.where(under, self.stated, out)
        return out

    def _per_size(self) -> tuple:
        """The multipliers of :attr:`mult` as arrays indexed by size (0 where none)."""
        got = self.__dict__.get("_arrays")
        if got is None:
            np, top = self.np, self.ambient.max_size + 2
            if KINDS[self.kind].order_statistics:  # (j1, w1, j2, w2) per size
                cols = [[0] * top for _ in range(4)]
                for n, row in self.mult.items():
                    for c, x in zip(cols, row):
                        c[n] = x
            else:
                cols = [[0] * top]
                for n, x in self.mult.items():
                    cols[0][n] = x
            got = self.__dict__["_arrays"] = tuple(np.asarray(c, dtype=np.int64) for c in cols)
        return got

    def __getstate__(self):  # sent to a Dask worker: NumPy is imported there again
        state = dict(self.__dict__)
        del state["np"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.np = _numpy()

    def dataset(self, key: tuple) -> tuple:
        value = self.space.universe.value
        return tuple(value(i) for i in key)

    def value_of(self, key: tuple):
        """The integer value of one dataset (``None``: undefined), kept for the witness."""
        np = self.np
        x = self.nums[np.asarray(key, dtype=np.int64)].reshape(1, len(key))
        out = self._value(len(key), x.sum(axis=1), (x * x).sum(axis=1), lambda j: x[:, j])
        if out is not None:
            self.values[key] = int(out[0])
        return None if out is None else int(out[0])


def _numpy():
    return numpy_or_none()


def applies(query, space, ambient, metric, d_eff: int, exact_k: bool, scope_standard: bool,
            policy) -> object:
    """The query's incremental form when the wide strategy can answer this ``d_in``, else
    ``None``: add/remove at an effective ``d_in`` of 1, a scalar or square-root query with
    a count, sum, mean, variance or quantile form, and undefined datasets only where the
    standard scope excludes them or a value is stated."""
    if d_eff != 1 or getattr(metric, "cli_name", None) != "add-remove":
        return None
    if query.output != "scalar" or _numpy() is None:
        return None
    if space.universe.size == 0:
        return None
    form = query.incremental(space.universe.values)
    if form is None or form.kind not in _KINDS:
        return None
    if not scope_standard and policy in ("error", "exclude") and ambient.min_size < query.min_size:
        return None  # undefined neighbours (refused or excluded one by one): the move lists
    return form


def estimate(space, ambient, halve: bool, cap: int | None) -> int:
    """The number of candidate pairs: per source of size ``s``, ``m`` additions (when
    ``s + 1`` is a size of the table) and, unhalved, ``s`` removals (when ``s - 1`` is)."""
    m = space.universe.size
    total = 0
    for s in range(space.min_size, space.max_size + 1):
        per = m if s + 1 <= ambient.max_size else 0
        if not halve and s - 1 >= ambient.min_size:
            per += s
        if per:
            total += space.count_of_size(s) * per
            if cap is not None and total > cap:
                return total
    return total


def choose(query, space, ambient, metric, d_eff: int, exact_k: bool, scope: str, policy,
           max_pairs: int | None, what: str, fallback):
    """The cheapest strategy for this ``d_in`` that fits ``max_pairs``: this module's
    :class:`WidePlan` or ``fallback()`` (the move lists and scans of the planner). Refused
    only when every strategy that applies is over the budget (with the smaller count).

    Where the move lists run on 64-bit keys with NumPy (a dense table of a few dozen
    values at most: a deep space), this strategy is taken only with count-vector sources
    (:func:`sources_as`): it computes each neighbour's value from its source's sums, where
    the move lists build a table and look every neighbour up in it.
    """
    if not ENABLED:
        return fallback()
    halve = scope == "standard"
    form = applies(query, space, ambient, metric, d_eff, exact_k, halve, policy)
    if form is None:
        return fallback()
    m = space.universe.size
    order = "sparse" if m > _dense_max() else "dense"
    if order == "dense":
        base = max((ambient.max_count(i) for i in range(m)), default=0) + d_eff + 1
        if (base ** (m - 1) * (ambient.max_size + 1) * 2 < 2**62 and not FORCE
                and sources_as(m, ambient.max_size, order) != "counts"):
            return fallback()  # the NumPy move scan
    table = WideTable(query, space, ambient, halve, policy, form, order)
    if table.bound >= BOUND:
        return fallback()
    est = estimate(space, ambient, halve, max_pairs)
    other = refused = None
    try:
        other = fallback()
    except TooLarge as e:
        refused = e
    wide_fits = max_pairs is None or est <= max_pairs
    if other is not None:
        if not wide_fits:
            return other
        if est > other.estimate * LOOKUP_COST and not FORCE:  # the move lists are cheaper
            return other
    if not wide_fits:
        if refused is not None and refused.estimate <= est:
            raise refused
        refuse_above(est, max_pairs, what=f"candidate neighbour pairs for {what} at d_in=1 "
                     f"(each dataset x {space.universe.size:,} values added)",
                     option="max_pairs", hint="shrink the universe, the sizes or d_in")
    return WidePlan("wide", est, table)


def _dense_max() -> int:
    return DENSE_MAX_VALUES


# -- sources -------------------------------------------------------------------------

def _levels(np, m: int, caps, hi: int):
    """Every sorted tuple of value indices of size ``0..hi`` (multiplicities within
    ``caps``), one ``(rows, size)`` array per size, each in lexicographic order."""
    rows = np.zeros((1, 0), dtype=np.int64)
    run = np.zeros(1, dtype=np.int64)  # length of the last value's run
    yield rows
    for s in range(1, hi + 1):
        last = rows[:, -1] if s > 1 else np.zeros(len(rows), dtype=np.int64)
        width = m - last
        parent = np.repeat(np.arange(len(rows), dtype=np.int64), width)
        start = np.cumsum(width) - width
        col = np.arange(int(width.sum()), dtype=np.int64) - np.repeat(start - last, width)
        if s > 1:
            new_run = np.where(col == last[parent], run[parent] + 1, 1)
        else:
            new_run = np.ones(len(col), dtype=np.int64)
        if caps is not None:
            keep = new_run <= caps[col]
            parent, col, new_run = parent[keep], col[keep], new_run[keep]
        rows = np.concatenate([rows[parent], col[:, None]], axis=1)
        run = new_run
        yield rows


def _dense_rank(key: tuple) -> tuple:
    """The position of a sorted index tuple among count vectors in lexicographic order
    (the count of the smallest value slowest): at the first value where two differ, the
    one holding it more often is later; a smaller index held means later."""
    out = []
    for i in key:
        if out and out[-1][0] == -i:
            out[-1] = (-i, out[-1][1] + 1)
        else:
            out.append((-i, 1))
    return tuple(out)


# -- the scan ------------------------------------------------------------------------

def _sizes(t: WideTable) -> list:
    """``(s, base)`` for each size whose sources have neighbours, in the scan order, with
    the position of the first source of size ``s`` among all the space's sources."""
    got = t.__dict__.get("_sizes")
    if got is None:
        got = t.__dict__["_sizes"] = _count_sizes(t)
    return got


def _count_sizes(t: WideTable) -> list:
    space, amb = t.space, t.ambient
    lo, hi = space.min_size, space.max_size
    out = []
    for s in range(lo, (hi if not t.halve else hi - 1) + 1):  # size hi: no neighbour, halved
        if s < t.qmin and t.stated is None:
            continue  # undefined sources: the "exclude" policy (counted in :func:`finish`)
        add = s + 1 <= amb.max_size
        remove = not t.halve and s - 1 >= amb.min_size and s >= 1
        if add or remove:
            out.append((s, sum(space.count_of_size(k) for k in range(lo, s))))
    return out


def _sources(t: WideTable):
    """``(s, rows, base)`` for each size of :func:`_sizes`: its sources as a ``(rows, s)``
    array of sorted value indices, and the position of the first of them."""
    wanted = dict(_sizes(t))
    if not wanted:
        return
    for s, rows in enumerate(_levels(t.np, t.m, t.caps, max(wanted))):
        if s in wanted:
            yield s, rows, wanted[s]


def _count_rows(np, caps: list, lo: int, hi: int, prefix: tuple, first=None, last=None):
    """Every count vector within ``caps`` of a size in ``lo..hi`` whose first counts are
    ``prefix`` (and whose next count is ``first..last``, when given): ``(cols, n)``, the
    counts held values first ``(m, rows)`` with the rows in the enumeration order (the
    count of the smallest value slowest), and each row's size."""
    m, j = len(caps), len(prefix)
    used0 = sum(prefix)
    room = [0] * (m + 1)
    for i in range(m - 1, -1, -1):
        room[i] = room[i + 1] + caps[i]
    if (j > m or any(c > cap for c, cap in zip(prefix, caps)) or used0 > hi
            or used0 + room[j] < lo):
        return np.zeros((m, 0), dtype=np.int64), np.zeros(0, dtype=np.int64)
    levels = []  # (parent, counts) per free level: the tree, read back from the leaves
    used = np.full(1, used0, dtype=np.int64)
    for i in range(j, m):
        cmin = np.maximum(0, lo - used - room[i + 1])
        cmax = np.minimum(caps[i], hi - used)
        if i == j and first is not None:
            cmin, cmax = np.maximum(cmin, first), np.minimum(cmax, last)
        nopt = np.maximum(cmax - cmin + 1, 0)
        if int(nopt.min()) == 1 and int(nopt.max()) == 1:
            parent, c = None, cmin
        else:
            parent = np.repeat(np.arange(len(used), dtype=np.int64), nopt)
            start = np.cumsum(nopt) - nopt  # where each node's children begin
            c = np.arange(len(parent), dtype=np.int64) - np.repeat(start - cmin, nopt)
            used = used[parent]
        levels.append((parent, c))
        used = used + c
    out = np.empty((m, len(used)), dtype=np.int64)
    out[:j] = np.asarray(prefix, dtype=np.int64).reshape(j, 1)
    anc = None  # row -> its node at the level being read
    for k in range(len(levels) - 1, -1, -1):
        parent, c = levels[k]
        out[j + k] = c if anc is None else c[anc]
        if parent is not None:
            anc = parent if anc is None else parent[anc]
    return out, used


def _chunks(t: WideTable, lo: int, hi: int):
    """``(prefix, first, last, sources)`` runs covering every count vector of sizes
    ``lo..hi`` in the enumeration order: those whose first counts are ``prefix`` and whose
    next count is ``first..last`` (``None``: any), at most :data:`CHUNK` each wherever a
    prefix can be taken apart (consecutive small ones together), with their number."""
    caps, m = t.count_caps, t.m
    ways = _suffix_ways(caps, hi)

    def split(p, used):
        here = _between(ways[len(p)], used, lo, hi)
        if len(p) >= m - 1 or here <= CHUNK:
            if here:
                yield p, None, None, here
            return
        run, held = None, 0  # consecutive next counts, and their sources
        for c in range(min(caps[len(p)], hi - used) + 1):
            n = _between(ways[len(p) + 1], used + c, lo, hi)
            if run is not None and held + n > CHUNK:
                yield p, run[0], run[1], held
                run = None
            if n > CHUNK:
                yield from split(p + (c,), used + c)
            elif n and run is None:
                run, held = [c, c], n
            elif n:
                run[1], held = c, held + n
        if run is not None:
            yield p, run[0], run[1], held

    yield from split((), 0)


def partitions(t: WideTable, count: int) -> list:
    """The sources cut into about ``count`` tasks, each scanned by :func:`scan_task`:
    ``("rows", s, rows, base)``, a run of sorted index tuples of one size (made here), or
    ``("chunks", chunks, sources)``, consecutive runs of :func:`_chunks` holding nearly
    equal numbers of count vectors (made by the task, so the parent makes no source:
    :func:`sources_as`)."""
    if t.sources_as == "counts":
        sizes = [s for s, _ in _sizes(t)]
        if not sizes:
            return []
        chunks = list(_chunks(t, sizes[0], sizes[-1]))
        total = sum(c[3] for c in chunks)
        out, run, held, done = [], [], 0, 0
        for c in chunks:  # cut where the running count passes each k/count of the total
            run.append(c[:3])
            held += c[3]
            done += c[3]
            if done * count >= total * (len(out) + 1) or c is chunks[-1]:
                out.append(("chunks", tuple(run), held))
                run, held = [], 0
        return out
    levels = list(_sources(t))
    total = sum(len(rows) for _, rows, _ in levels)
    per = max(1, -(-total // max(count, 1)))
    out = []
    for s, rows, base in levels:
        for a in range(0, len(rows), per):
            out.append(("rows", s, rows[a:a + per], base + a))
    return out


def task_size(task) -> int:
    """A task's work, roughly (its sources), so the backends submit the largest first."""
    return len(task[2]) if task[0] == "rows" else task[2]


def task_count(t: WideTable, workers: int, cluster: bool = False) -> int:
    """How many tasks to cut for ``workers`` workers: :func:`.partitions.part_count` (many
    small tasks even out a noisy machine), except for count vectors on a Dask cluster
    (tasks of equal size): ``workers`` times 1 to :data:`.partitions.PARTS_PER_WORKER`, each
    of :data:`TASK_SOURCES` sources at least."""
    if t.sources_as != "counts" or not cluster:
        return part_count(workers)
    each = t.space.count() // (workers * TASK_SOURCES)
    return workers * max(1, min(PARTS_PER_WORKER, each))


def scan_task(t: WideTable, task, progress=None) -> tuple:
    """One task of :func:`partitions`: :func:`scan_part` or :func:`scan_chunks` (with
    :func:`.heap.roomy_heap`, for a Dask worker's heap settings)."""
    with roomy_heap():
        if task[0] == "rows":
            return scan_part(t, *task[1:], progress=progress)
        return scan_chunks(t, task[1], progress)


_WARM = [False]


def _warm(np) -> None:
    """Once per process: allocate and free one array larger than a block's. glibc's malloc
    then raises its mmap threshold past that size (its dynamic threshold), so the block's
    arrays come from the heap instead of a fresh ``mmap`` (and page faults) each: 6x less
    scan time measured here on sum over {0..10000}, sizes 0..2 (0.19 s against 1.1 s)."""
    if not _WARM[0]:
        _WARM[0] = True
        big = np.empty(8 * BLOCK, dtype=np.int64)
        del big


def scan_part(t: WideTable, s: int, rows, base: int, progress=None) -> tuple:
    """One partition of sorted index tuples: the sources ``rows`` of size ``s`` (the first
    at position ``base``) scanned block by block. ``(best, (rank, key, w) or None, pairs,
    sources)``: the best gap in integer units, its first source in the scan order with the
    neighbour value ``w`` that reaches it, and the counts. Partitions combine by
    :func:`merge` to exactly the serial result, whatever the cut."""
    np = t.np
    _warm(np)
    found = _Best()
    step = max(1, BLOCK // max(t.m, 1))
    for start in range(0, len(rows), step):
        idx = rows[start:start + step]
        block = _Indices(t, idx)
        at = found.offer(t, s, block, t.order == "dense")
        if at is not None:
            for r in at.tolist():
                key = tuple(idx[r].tolist())
                rank = _dense_rank(key) if t.order == "dense" else base + start + r
                found.keep(rank, key, found.w_of(r))
        if progress is not None:
            progress(len(idx), found.last)
    return found.result()


def scan_chunks(t: WideTable, chunks, progress=None) -> tuple:
    """One partition of count vectors (:func:`sources_as` ``"counts"``): the sources of
    ``chunks`` (``(prefix, first, last)`` runs of :func:`_chunks`), made here
    (:func:`_count_rows`, a chunk at a time, every size together) and scanned block by
    block, each row with its own size; the result as :func:`scan_part`'s, ranked by count
    vector."""
    np = t.np
    _warm(np)
    found = _Best()
    step = max(1, BLOCK // max(t.m, 1))
    sizes = [s for s, _ in _sizes(t)]
    if not sizes:
        return found.result()
    lo, hi = sizes[0], sizes[-1]  # contiguous (see _count_sizes)
    for prefix, first, last in chunks:
        cols, n = _count_rows(np, t.count_caps, lo, hi, prefix, first, last)  # (m, rows), sizes
        for start in range(0, len(n), step):
            counts = cols[:, start:start + step]
            at = found.offer(t, n[start:start + step], _Counts(t, counts), False)
            if at is not None:  # rows come in count-vector order: the first tied is least
                row = counts[:, int(at[0])].tolist()
                key = tuple(i for i, c in enumerate(row) for _ in range(c))
                found.keep(tuple(row), key, found.w_of(int(at[0])))
            if progress is not None:
                progress(counts.shape[1], found.last)
    return found.result()


class _Best:
    """The running best of a partition: the largest gap, and among the sources reaching it
    the one of least rank, with the neighbour value reaching it."""

    def __init__(self):
        self.best = -1
        self.cand = None  # (rank, key, w)
        self.pairs = self.done = self.last = 0

    def offer(self, t: WideTable, s, block, every_tie: bool):
        """Scan one block of sources of size ``s`` (or of sizes ``s``, an array: a block of
        count vectors); the rows that may hold a new candidate (all rows tied at the block's
        best when ``every_tie``, else the first), or ``None``."""
        np = t.np
        amb = t.ambient
        add = s + 1 <= amb.max_size  # a row mask for an array of sizes
        remove = (s - 1 >= amb.min_size) & (s >= 1) & (not t.halve)
        v = t._value(s, block.s1, block.s2, block.stat)
        hi_w, lo_w, cnt = _neighbour_extremes(t, s, block, add, remove)
        found = int(cnt.sum())
        self.pairs += found
        self.done += block.rows
        self.last = found
        if not found:
            return None
        up, down = hi_w - v, v - lo_w
        gap = np.where(cnt > 0, np.maximum(up, down), -1)
        top = int(gap.max())
        if top < self.best or (top == self.best and not every_tie and t.order == "sparse"):
            return None  # sparse order: sources come in their scan order, the earlier is kept
        if top > self.best:
            self.best, self.cand = top, None
        at = np.nonzero(gap == top)[0]
        self._up, self._hi, self._lo = up, hi_w, lo_w
        return at if every_tie else at[:1]

    def w_of(self, r: int) -> int:
        return int(self._hi[r]) if int(self._up[r]) == self.best else int(self._lo[r])

    def keep(self, rank, key: tuple, w: int) -> None:
        if self.cand is None or rank < self.cand[0]:
            self.cand = (rank, key, w)

    def result(self) -> tuple:
        return self.best, self.cand, self.pairs, self.done


def merge(parts) -> tuple:
    """Partitions' results as one: the largest best, and among the partitions reaching it
    the candidate first in the scan order (the smallest rank), as the serial scan keeps."""
    best, cand, pairs, done = -1, None, 0, 0
    for b, c, p, n in parts:
        pairs += p
        done += n
        if c is None:
            continue
        if b > best or (b == best and c[0] < cand[0]):
            best, cand = b, c
    return best, cand, pairs, done


def finish(t: WideTable, merged: tuple) -> tuple:
    """``(best, x_key, x_prime_key, pairs, excluded)`` from the merged partitions."""
    best, cand, pairs, _ = merged
    space = t.space
    lo, hi = space.min_size, space.max_size
    excluded = 0
    if t.stated is None:  # every undefined dataset of the space is some pair's x
        excluded = sum(space.count_of_size(k) for k in range(lo, min(hi, t.qmin - 1) + 1))
    if best < 0 or cand is None:
        return 0, None, None, pairs, excluded
    _, key, w = cand
    t.value_of(key)
    x_prime = _find(t, key, w, remove=not t.halve)
    return best, key, x_prime, pairs, excluded


def run(plan: WidePlan, progress) -> tuple:
    """``(best, x_key, x_prime_key, pairs, excluded)`` in the table's integer units
    (``x_key`` is ``None`` when no pair exists), in this process. Undefined datasets:
    excluded as sources (standard scope, ``"exclude"``), or the stated value."""
    t = plan.table
    seen = [0, 0]

    def shown(n, found):
        seen[0] += n
        seen[1] += found
        progress.update(seen[0], seen[1])

    if t.sources_as == "counts":  # one task: it holds one chunk at a time
        parts = [scan_task(t, task, shown) for task in partitions(t, 1)]
    else:
        parts = [scan_part(t, s, rows, base, shown) for s, rows, base in _sources(t)]
    return finish(t, merge(parts))


class _Indices:
    """A block of sources as sorted value indices ``(rows, s)``: wide universes, few
    records (each source costs its size)."""

    axis = 1  # the universe's values run along this axis of ``(rows, m)`` arrays

    def __init__(self, t: WideTable, idx):
        self.t, self.idx = t, idx
        self.rows = len(idx)
        self.x = x = t.nums[idx]  # (rows, s) sorted values
        self.s1 = x.sum(axis=1)
        self.s2 = (x * x).sum(axis=1) if KINDS[t.kind].sums == 2 else None  # variance only

    def stat(self, j: int):
        """The order statistic ``x[j]`` of each source."""
        return self.x[:, j]

    def full(self):
        """``(rows, m)``: where a value is held as often as its cap allows (``None``: no caps)."""
        t, idx = self.t, self.idx
        if t.caps is None:
            return None
        np = t.np
        out = np.broadcast_to(t.caps[None, :] < 1, (len(idx), t.m)).copy()
        if idx.shape[1]:
            held = (idx[:, :, None] == idx[:, None, :]).sum(axis=2)  # multiplicity of each record
            rows = np.nonzero(held + 1 > t.caps[idx])
            out[rows[0], idx[rows]] = True
        return out

    def removals(self):
        """Per removal move in move order (by value): ``(removed value, which rows have the
        move, the order statistics after it)``: the first record of each distinct value."""
        x, idx = self.x, self.idx
        np = self.t.np
        for p in range(x.shape[1]):
            ok = np.ones(len(x), dtype=bool) if p == 0 else idx[:, p] != idx[:, p - 1]
            rest = np.delete(x, p, axis=1)
            yield x[:, p], ok, (lambda j, r=rest: r[:, j])


class _Counts:
    """A block of sources as count vectors, held values first ``(m, rows)``, of mixed sizes:
    a small universe, many records (each source costs the universe's size, and every
    operation runs along whole rows of sources)."""

    axis = 0

    def __init__(self, t: WideTable, counts):
        self.t, self.counts = t, counts  # (m, rows)
        self.rows = counts.shape[1]
        nums = t.nums
        self.s1 = nums @ counts
        self.s2 = (nums * nums) @ counts if KINDS[t.kind].sums == 2 else None  # variance only
        self._cum = None

    def cum(self):
        if self._cum is None:
            self._cum = self.counts.cumsum(axis=0)
        return self._cum

    def stat(self, j):
        """``x[j]`` for each row's own ``j`` (an array; 0 <= j < size): the value whose
        cumulative count first exceeds ``j``."""
        j = self.t.np.asarray(j).reshape(-1)
        idx = (self.cum() <= j[None, :]).sum(axis=0)
        return self.t.nums[self.t.np.minimum(idx, self.t.m - 1)]

    def full(self):
        t = self.t
        if t.caps is None:
            return None
        return self.counts >= t.caps[:, None]

    def removals(self):
        t, counts = self.t, self.counts
        np = t.np
        quantile = KINDS[t.kind].order_statistics
        for i in range(t.m):
            ok = counts[i] > 0
            after = None
            if quantile:  # x without one record of value i: x[j] before it, else x[j + 1]
                below = self.cum()[i] - counts[i]

                def after(j, b=below):
                    j = np.asarray(j).reshape(-1)
                    return np.where(j < b, self.stat(j), self.stat(j + 1))
            yield t.nums[i], ok, after


def _some(flag) -> bool:
    """A move's flag: a ``bool``, or a row mask (true for some row)."""
    return flag if isinstance(flag, bool) else bool(flag.any())


def _neighbour_extremes(t: WideTable, s, block, add, remove):
    """Per source row: the largest and smallest neighbour value and how many neighbours.
    ``add`` and ``remove``: whether the moves exist (row masks for a block of mixed sizes)."""
    np = t.np
    n_rows = block.rows
    big = np.int64(BOUND)
    hi_w = np.full(n_rows, -big, dtype=np.int64)
    lo_w = np.full(n_rows, big, dtype=np.int64)
    cnt = np.zeros(n_rows, dtype=np.int64)
    if _some(add):
        vals, ok = _added(t, s, block, add)
        if vals is not None:
            axis = block.axis
            if ok is None:
                np.maximum(hi_w, vals.max(axis=axis), out=hi_w)
                np.minimum(lo_w, vals.min(axis=axis), out=lo_w)
                cnt += vals.shape[axis]
            else:
                np.maximum(hi_w, np.where(ok, vals, -big).max(axis=axis), out=hi_w)
                np.minimum(lo_w, np.where(ok, vals, big).min(axis=axis), out=lo_w)
                cnt += ok.sum(axis=axis)
    if _some(remove):
        for vals, ok in _removed(t, s, block):
            if vals is None:
                continue
            if not isinstance(remove, bool):
                ok = ok & remove
            np.maximum(hi_w, np.where(ok, vals, -big), out=hi_w)
            np.minimum(lo_w, np.where(ok, vals, big), out=lo_w)
            cnt += ok
    return hi_w, lo_w, cnt


def _added(t: WideTable, s, block, add=True):
    """The values of every ``x + {v}`` (``(rows, m)``, or ``(m, rows)`` for count vectors:
    ``block.axis``), and which are in the table (``None``: all of them)."""
    np = t.np
    inf = np.int64(BOUND)
    rows = block.rows
    if block.axis:  # sorted indices, one size s
        a, shape, grown = t.nums[None, :], (rows, t.m), s + 1

        def per_row(v):
            return v[:, None]

        def stat(j):  # y[j] of x + {a}: a clipped to [x[j - 1], x[j]]
            low = block.stat(j - 1)[:, None] if j >= 1 else np.full((rows, 1), -inf, dtype=np.int64)
            high = block.stat(j)[:, None] if j < s else np.full((rows, 1), inf, dtype=np.int64)
            return np.minimum(np.maximum(a, low), high)
    else:  # count vectors, each row its own size
        a, shape, grown = t.nums[:, None], (t.m, rows), (s + 1)[None, :]

        def per_row(v):
            return v[None, :]

        def stat(j):
            j = np.asarray(j).reshape(-1)
            low = np.where(j >= 1, block.stat(np.maximum(j - 1, 0)), -inf)
            high = np.where(j < s, block.stat(np.minimum(j, s - 1)), inf)
            return np.minimum(np.maximum(a, low[None, :]), high[None, :])

    s2 = None if block.s2 is None else per_row(block.s2) + a * a
    vals = t._value(grown, per_row(block.s1) + a, s2, stat)
    if vals is None:
        return None, None
    if vals.shape != shape:
        vals = np.broadcast_to(vals, shape)
    full = block.full()
    ok = None if full is None else ~full
    if not isinstance(add, bool) and not bool(add.all()):  # rows at the largest size
        ok = np.broadcast_to(add[None, :], shape) if ok is None else ok & add[None, :]
    return vals, ok


def _removed(t: WideTable, s, block):
    """For each removal move (:meth:`_Indices.removals`): the values of ``x`` without that
    record and which rows have the move."""
    np = t.np
    for xp, ok, after in block.removals():
        s2 = None if block.s2 is None else block.s2 - xp * xp
        vals = t._value(s - 1, block.s1 - xp, s2, after)
        if vals is None:
            yield None, None
            continue
        yield np.broadcast_to(vals, (block.rows,)), ok


def _find(t: WideTable, key: tuple, w: int, remove: bool) -> tuple:
    """The first neighbour of ``key`` in move order (additions by value index, then
    removals) whose value is ``w``."""
    np = t.np
    s = len(key)
    block = _Indices(t, np.asarray([key], dtype=np.int64).reshape(1, s))
    if s + 1 <= t.ambient.max_size:
        vals, ok = _added(t, s, block)
        if vals is not None:
            hit = vals[0] == w
            if ok is not None:
                hit &= ok[0]
            at = np.nonzero(hit)[0]
            if len(at):
                y = tuple(sorted(key + (int(at[0]),)))
                t.value_of(y)
                return y
    if remove and s - 1 >= t.ambient.min_size:
        for p, (vals, ok) in enumerate(_removed(t, s, block)):
            if vals is not None and bool(ok[0]) and int(vals[0]) == w:
                y = key[:p] + key[p + 1:]
                t.value_of(y)
                return y
    raise AssertionError("witness lost")  # pragma: no cover


def answer(plan, d_in: int, progress, found: tuple | None = None):
    """``(raw, witness, scale, None)`` for a plan whose strategy at ``d_in`` is this one, as
    the backends return it: from ``found`` (:func:`finish` of partitions a backend ran) or,
    without it, scanned in this process."""
    wide = plan.plans[d_in]
    t = wide.table
    if found is None:
        bar = Progress(f"{plan.query.name}, d_in={d_in}", plan.space.count(), progress)
        try:
            found = run(wide, bar)
        finally:
            bar.close()
    best, x, x_prime, pairs, excluded = found
    raw = RawResult(best if x is not None else 0, x, x_prime, pairs, excluded)
    witness = None
    if x is not None:
        q, v = plan.query, t.values
        witness = (t.dataset(x), t.dataset(x_prime), public_value(q, v[x], t.scale),
                   public_value(q, v[x_prime], t.scale))
    return raw, witness, t.scale, None
