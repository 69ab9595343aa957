"""Wide, shallow spaces: neighbours by size, over the whole universe at once (issue 19, part 3).

Under add/remove at ``d_in = 1`` the neighbours of a dataset ``x`` of size ``s`` are the
datasets ``x + {v}`` of size ``s + 1`` (one per universe value ``v`` the space allows) and,
in the release-centred scope, the datasets ``x - {v}`` of size ``s - 1`` (one per distinct
value of ``x``). The standard scope visits each unordered pair once from its smaller
dataset, so only the additions are kept there, exactly as the move lists do.

This strategy never builds the value table. The sources (the ``x`` side) are enumerated
level by level as arrays of sorted value indices, a block of them at a time; for a block
of sources of one size the query's value on *every* ``x + {v}`` is one vectorised integer
expression over a ``(sources, universe)`` array:

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
dictionary lookup per move for the move lists once the table's keys no longer fit in
64 bits (more than about 30 universe values). :func:`choose` compares the counted costs
and the pair budget; a space another strategy answers is never refused here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp.errors import TooLarge
from exactdp.numeric.exact import common_denominator

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

_KINDS = ("count", "sum", "mean", "variance", "quantile")

ENABLED = True
"""Consider the wide strategy at all (False: the move lists and scans only, as before issue
19; kept for the benchmark and the equivalence tests)."""

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
        self.nums = np.asarray([int(v * den) for v in values], dtype=np.int64)
        self.top = max((abs(int(v * den)) for v in values), default=0)
        self.m = len(values)
        caps = space.caps
        self.caps = None if all(c is None for c in caps) else np.asarray(
            [ambient.max_count(i) for i in range(self.m)], dtype=np.int64)
        self.qmin = query.min_size
        lo = ambient.min_size
        hi = ambient.max_size
        sizes = [n for n in range(lo, hi + 1) if n >= self.qmin]
        kind = form.kind
        self.kind = kind
        self.mult = {}  # size -> multiplier(s) of the size's formula
        if kind == "count":
            scale = 1
        elif kind == "sum":
            scale = den
        elif kind == "mean":
            big = math.lcm(*[n for n in sizes if n >= 1]) if any(n >= 1 for n in sizes) else 1
            scale = den * big
            self.mult = {n: big // n for n in sizes if n >= 1}
        elif kind == "variance":
            ddof = form.ddof
            prods = [n * (n - ddof) for n in sizes if n > ddof]
            big = math.lcm(*prods) if prods else 1
            scale = den * den * big
            self.mult = {n: big // (n * (n - ddof)) for n in sizes if n > ddof}
        else:  # quantile
            from exactdp.engine.incremental import _quantile_weights

            rows = {n: _quantile_weights(form.q, form.method, n) for n in sizes if n >= 1}
            big = math.lcm(*(w.denominator for r in rows.values() for w in (r[1], r[3]))) \
                if rows else 1
            scale = den * big
            self.mult = {n: (a, int(wa * big), b, int(wb * big)) for n, (a, wa, b, wb) in rows.items()}
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

    def _bound(self, hi: int) -> int:
        """An upper bound on every value and intermediate, in integer units."""
        top, kind, g = self.top, self.kind, self._grow
        most = max((max(v) if isinstance(v, tuple) else v for v in self.mult.values()), default=1)
        if kind == "count":
            b = hi + 1
        elif kind == "sum":
            b = (hi + 1) * top * g
        elif kind == "mean":
            b = (hi + 1) * top * most * g
        elif kind == "variance":
            b = 2 * (hi + 1) ** 2 * top * top * max(most, 1) * 2
        else:
            b = 2 * top * max(most, 1) * 2
        if self.stated is not None:
            b = max(b, abs(self.stated))
        return b

    # -- the query on arrays -----------------------------------------------------------
    def _value(self, n: int, s1, s2, stat):
        """The integer values of datasets of size ``n`` with sums ``s1``, ``s2`` (arrays)
        and order statistics ``stat(j)`` (arrays), or ``None`` where undefined."""
        np = self.np
        if n < self.qmin:
            if self.stated is None:
                return None
            return np.full(np.shape(s1), self.stated, dtype=np.int64)
        kind = self.kind
        if kind == "count":
            return np.full(np.shape(s1), n * self._grow, dtype=np.int64)
        if kind == "sum":
            return s1 * self._grow
        if kind == "mean":
            return s1 * self.mult[n]
        if kind == "variance":
            return (n * s2 - s1 * s1) * self.mult[n]
        j1, w1, j2, w2 = self.mult[n]
        out = stat(j1) * w1
        if w2:
            out = out + stat(j2) * w2
        return out

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
    from exactdp.engine.incremental import numpy_or_none

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
    values at most: a deep space) they are kept, as before.
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
        if base ** (m - 1) * (ambient.max_size + 1) * 2 < 2**62 and not FORCE:
            return fallback()  # the NumPy move scan: unchanged
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
    from exactdp.engine.tables import DENSE_MAX_VALUES
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

def _sources(t: WideTable):
    """``(s, rows, base)`` for each size whose sources have neighbours, in the scan order:
    the sources of size ``s`` as a ``(rows, s)`` array of sorted value indices and the
    position of the first of them among all the space's sources."""
    np = t.np
    space, amb = t.space, t.ambient
    lo, hi = space.min_size, space.max_size
    last = hi if not t.halve else hi - 1  # sources of size hi have no neighbour when halved
    for s, rows in enumerate(_levels(np, t.m, t.caps, last)):
        if s < lo:
            continue
        if s < t.qmin and t.stated is None:
            continue  # undefined sources: the "exclude" policy (counted in :func:`finish`)
        add = s + 1 <= amb.max_size
        remove = not t.halve and s - 1 >= amb.min_size and s >= 1
        if not add and not remove:
            continue
        yield s, rows, sum(space.count_of_size(k) for k in range(lo, s))


def partitions(t: WideTable, count: int) -> list:
    """The sources cut into about ``count`` runs ``(s, rows, base)`` of one size each, in
    the scan order: the tasks a backend submits (:func:`scan_part` each)."""
    levels = list(_sources(t))
    total = sum(len(rows) for _, rows, _ in levels)
    per = max(1, -(-total // max(count, 1)))
    out = []
    for s, rows, base in levels:
        for a in range(0, len(rows), per):
            out.append((s, rows[a:a + per], base + a))
    return out


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
    """One partition: the sources ``rows`` of size ``s`` (the first at position ``base``)
    scanned block by block. ``(best, (rank, key, w) or None, pairs, sources)``: the best
    gap in integer units, its first source in the scan order with the neighbour value
    ``w`` that reaches it, and the counts. Partitions combine by :func:`merge` to exactly
    the serial result, whatever the cut."""
    np = t.np
    _warm(np)
    m = t.m
    nums = t.nums
    amb = t.ambient
    add = s + 1 <= amb.max_size
    remove = not t.halve and s - 1 >= amb.min_size and s >= 1
    best = -1
    tied: list = []  # (rank, key, w) of the sources reaching ``best``
    pairs = done = 0
    step = max(1, BLOCK // max(m, 1))
    for start in range(0, len(rows), step):
        idx = rows[start:start + step]
        x = nums[idx]  # (B, s) sorted values
        s1 = x.sum(axis=1)
        s2 = (x * x).sum(axis=1)
        v = t._value(s, s1, s2, lambda j, x=x: x[:, j])
        hi_w, lo_w, cnt = _neighbour_extremes(t, s, idx, x, s1, s2, add, remove)
        found = int(cnt.sum())
        pairs += found
        if found:
            has = cnt > 0
            up, down = hi_w - v, v - lo_w
            gap = np.where(has, np.maximum(up, down), -1)
            top = int(gap.max())
            if top > best or (top == best and t.order == "dense"):
                at = np.nonzero(gap == top)[0]
                if t.order == "sparse":
                    at = at[:1]  # sources come in their scan order: the first is kept
                if top > best:
                    best, tied = top, []
                for r in at.tolist():
                    key = tuple(idx[r].tolist())
                    w = int(hi_w[r]) if int(up[r]) == top else int(lo_w[r])
                    rank = _dense_rank(key) if t.order == "dense" else base + start + r
                    tied.append((rank, key, w))
                tied = [min(tied, key=lambda c: c[0])]
        done += len(idx)
        if progress is not None:
            progress(len(idx), found)
    return best, (tied[0] if tied else None), pairs, done


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

    parts = [scan_part(t, s, rows, base, shown) for s, rows, base in _sources(t)]
    return finish(t, merge(parts))


def _neighbour_extremes(t: WideTable, s: int, idx, x, s1, s2, add: bool, remove: bool):
    """Per source row: the largest and smallest neighbour value and how many neighbours."""
    np = t.np
    n_rows = len(idx)
    big = np.int64(BOUND)
    hi_w = np.full(n_rows, -big, dtype=np.int64)
    lo_w = np.full(n_rows, big, dtype=np.int64)
    cnt = np.zeros(n_rows, dtype=np.int64)
    if add:
        vals, ok = _added(t, s, idx, x, s1, s2)
        if vals is not None:
            if ok is None:
                np.maximum(hi_w, vals.max(axis=1), out=hi_w)
                np.minimum(lo_w, vals.min(axis=1), out=lo_w)
                cnt += vals.shape[1]
            else:
                np.maximum(hi_w, np.where(ok, vals, -big).max(axis=1), out=hi_w)
                np.minimum(lo_w, np.where(ok, vals, big).min(axis=1), out=lo_w)
                cnt += ok.sum(axis=1)
    if remove:
        for p, (vals, ok) in enumerate(_removed(t, s, idx, x, s1, s2)):
            if vals is None:
                continue
            np.maximum(hi_w, np.where(ok, vals, -big), out=hi_w)
            np.minimum(lo_w, np.where(ok, vals, big), out=lo_w)
            cnt += ok
    return hi_w, lo_w, cnt


def _added(t: WideTable, s: int, idx, x, s1, s2):
    """The values of every ``x + {v}``, ``(rows, m)``, and which are in the table (``None``:
    all of them)."""
    np = t.np
    a = t.nums[None, :]
    inf = np.int64(BOUND)

    def stat(j):
        low = x[:, j - 1:j] if j >= 1 else np.full((len(x), 1), -inf, dtype=np.int64)
        high = x[:, j:j + 1] if j < s else np.full((len(x), 1), inf, dtype=np.int64)
        return np.minimum(np.maximum(a, low), high)

    vals = t._value(s + 1, s1[:, None] + a, s2[:, None] + a * a, stat)
    if vals is None:
        return None, None
    if vals.ndim == 1 or vals.shape != (len(x), t.m):
        vals = np.broadcast_to(vals, (len(x), t.m))
    ok = None
    if t.caps is not None:
        ok = np.broadcast_to(t.caps[None, :] >= 1, (len(x), t.m)).copy()
        if s:
            held = (idx[:, :, None] == idx[:, None, :]).sum(axis=2)  # multiplicity of each record
            full = held + 1 > t.caps[idx]
            rows = np.nonzero(full)
            ok[rows[0], idx[rows]] = False
    return vals, ok


def _removed(t: WideTable, s: int, idx, x, s1, s2):
    """For each position ``p`` of the sources' records: the values of ``x`` without its
    ``p``-th record and which rows count it (the first record of each distinct value)."""
    np = t.np
    for p in range(s):
        xp = x[:, p]
        ok = np.ones(len(x), dtype=bool) if p == 0 else idx[:, p] != idx[:, p - 1]
        rest = np.delete(x, p, axis=1)
        vals = t._value(s - 1, s1 - xp, s2 - xp * xp, lambda j, r=rest: r[:, j])
        if vals is None:
            yield None, None
            continue
        yield np.broadcast_to(vals, (len(x),)), ok


def _find(t: WideTable, key: tuple, w: int, remove: bool) -> tuple:
    """The first neighbour of ``key`` in move order (additions by value index, then
    removals) whose value is ``w``."""
    np = t.np
    s = len(key)
    idx = np.asarray([key], dtype=np.int64).reshape(1, s)
    x = t.nums[idx]
    s1, s2 = x.sum(axis=1), (x * x).sum(axis=1)
    if s + 1 <= t.ambient.max_size:
        vals, ok = _added(t, s, idx, x, s1, s2)
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
        for p, (vals, ok) in enumerate(_removed(t, s, idx, x, s1, s2)):
            if vals is not None and bool(ok[0]) and int(vals[0]) == w:
                y = key[:p] + key[p + 1:]
                t.value_of(y)
                return y
    raise AssertionError("witness lost")  # pragma: no cover


def answer(plan, d_in: int, progress, found: tuple | None = None):
    """``(raw, witness, scale, None)`` for a plan whose strategy at ``d_in`` is this one, as
    the backends return it: from ``found`` (:func:`finish` of partitions a backend ran) or,
    without it, scanned in this process."""
    from exactdp._progress import Progress
    from exactdp.engine.scan import RawResult
    from exactdp.engine.tables import public_value

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
