"""Partitions of the source datasets, each with the halo its neighbours need.

The datasets are split by *prefix*: the counts ``(c_0, ..., c_{j-1})`` of the ``j``
smallest values. Datasets enumerate lexicographically with ``c_0`` slowest, so
consecutive prefixes are consecutive runs of the serial source order, and a run of
prefixes is one *partition*.

A neighbour ``key + delta`` of a dataset with prefix ``p`` has the prefix ``p + delta_p``,
where ``delta_p`` is the part of the move on the ``j`` smallest values. A partition's task
(:func:`scan_partition`) therefore builds, from a picklable spec (query, space, deltas),
only the datasets of its own prefixes and of the *halo* ``{p + delta_p}``, evaluates the
query on them (one incremental build per prefix, or ``query.prepare`` per dataset), scans
its own datasets with the serial :func:`.scan.scan` and returns ``(best, x_key, w,
pairs)`` with the scale of its slice (each slice has its own least common denominator).
:mod:`.backends` rescales the parts to one common denominator and combines them in
partition order with :func:`.scan.combine`, so the answer *and* the witness are those of
the serial engine. Everything here is counts on the driver, or one task on a worker.
"""

from __future__ import annotations

import math

from exactdp._progress import Progress
from exactdp.engine import incremental as _incremental
from exactdp.engine import scan as _scan
from exactdp.engine import tables as _tables
from exactdp.engine.heap import roomy_heap
from exactdp.engine.neighbours import DeltaNeighbours
from exactdp.engine.incremental import LIMIT, numpy_or_none
from exactdp.queries.base import UNDEFINED
from exactdp.spaces.datasets import DatasetSpace
from exactdp.spaces.universe import ValueUniverse

__all__ = ["plan_partitions", "scan_partition", "codec", "part_count", "PARTS_PER_WORKER",
           "MIN_PARTS", "MAX_PREFIXES"]

PARTS_PER_WORKER = 4
"""Partitions per worker at least: the last to finish is then short."""

MIN_PARTS = 16
"""Partitions at least, however few the workers. Prefixes come in uneven sizes: with 2
workers, 8 partitions left one worker idle for a tenth of the run here and 16 balanced
them. Each partition also builds a halo, so many workers get only ``PARTS_PER_WORKER``
each (16 workers: 8 per worker made the work 1.7 times the serial run's, 4 made it 1.1-1.3)."""


def part_count(workers: int) -> int:
    """How many partitions to aim for with ``workers`` workers."""
    return max(MIN_PARTS, workers * PARTS_PER_WORKER)

MAX_PREFIXES = 20_000
"""Most prefixes the driver lists (its memory: a few hundred bytes each)."""


def _suffix_ways(caps: list[int], top: int) -> list[list[int]]:
    """``ways[j][s]``: count vectors over the values ``j..m-1`` (within ``caps``) of size ``s``."""
    m = len(caps)
    ways = [None] * (m + 1)
    ways[m] = [1] + [0] * top
    for j in range(m - 1, -1, -1):
        prev, cap = ways[j + 1], caps[j]
        row, window = [0] * (top + 1), 0
        for s in range(top + 1):
            window += prev[s]
            if s - cap - 1 >= 0:
                window -= prev[s - cap - 1]
            row[s] = window
        ways[j] = row
    return ways


def _between(row: list[int], used: int, lo: int, hi: int) -> int:
    """Suffixes of a prefix holding ``used`` records that give sizes ``lo..hi``."""
    a, b = max(0, lo - used), hi - used
    return sum(row[a:b + 1]) if b >= a else 0


def plan_partitions(space, ambient, moves, n_sources: int, workers: int,
                    per_worker: int | None) -> tuple[int, list, list]:
    """``(depth, prefixes, parts)``.

    ``prefixes``: ``(counts, sources, datasets)`` per prefix, in source order; a prefix
    holding more sources than a partition's target is split by the count of the next
    value (so prefixes have different lengths, at most ``depth``), until at most
    :data:`MAX_PREFIXES` (and a quarter of the sources). ``parts``: ``(start, stop, halo, size)`` per partition: a run of
    prefixes, the prefixes of the neighbours its own datasets may have (not covered by a
    shorter one), and the datasets of its table slice (an upper bound).
    """
    m = ambient.universe.size
    caps = [ambient.max_count(i) for i in range(m)]
    lo_a, hi_a, lo_s, hi_s = ambient.min_size, ambient.max_size, space.min_size, space.max_size
    ways = _suffix_ways(caps, hi_a)
    target = max(1, -(-n_sources // part_count(workers)))
    if per_worker is not None:
        target = max(1, min(target, per_worker // 4))

    def sources(p, u):
        return _between(ways[len(p)], u, lo_s, hi_s)

    def datasets(p, u):
        return _between(ways[len(p)], u, lo_a, hi_a)

    shifts: dict = {}
    near_of: dict = {}  # each prefix's neighbour prefixes, computed once (wide universes
    # have deep prefixes, each asked for many times)

    def shifted(p):
        """The valid prefixes ``p + delta`` of the neighbours of ``p``'s datasets, with
        their dataset counts."""
        found = near_of.get(p)
        if found is None:
            j = len(p)
            if j not in shifts:
                shifts[j] = _prefix_shifts(j, moves)
            found = []
            for d in shifts[j]:
                q = tuple(x + y for x, y in zip(p, d))
                if all(0 <= c <= cap for c, cap in zip(q, caps)) and sum(q) <= hi_a:
                    n = datasets(q, sum(q))
                    if n:
                        found.append((q, n))
            near_of[p] = found
        return found

    def small(p, u):  # its sources and each block its neighbours lie in fit a partition
        return sources(p, u) <= target and all(n <= target for _, n in shifted(p))

    # more prefixes than a quarter of the sources buy no locality: on wide universes
    # neighbours spread over every prefix and splitting would go to the last value
    most = min(MAX_PREFIXES, max(4 * part_count(workers), n_sources // 4))
    leaves = [((), 0, False)]  # (prefix, records in it, final: not split further)
    while True:
        grown, split = [], False
        for p, u, final in leaves:
            j = len(p)
            if final or j == m or small(p, u):
                grown.append((p, u, True))
                continue
            split = True
            for c in range(min(caps[j], hi_a - u) + 1):
                if datasets(p + (c,), u + c):
                    grown.append((p + (c,), u + c, False))
        if not split or len(grown) > most:
            break
        leaves = grown
    prefixes = [(p, sources(p, u), datasets(p, u)) for p, u, _ in leaves]
    # consecutive prefixes up to the target of sources, and (with a budget) up to a slice
    # of at most per_worker datasets (counted with the halo, an upper bound)
    limit = per_worker if per_worker is not None else math.inf
    parts, start, held, size, near = [], 0, 0, 0, set()
    for i, (p, n_src, n_all) in enumerate(prefixes):
        extra = {q: n for q, n in shifted(p) if q not in near}
        grow = n_all + sum(extra.values())
        if i > start and size + grow > limit:
            parts.append((start, i))
            start, held, size, near = i, 0, 0, set()
            extra = dict(shifted(p))
            grow = n_all + sum(extra.values())
        held, size = held + n_src, size + grow
        near.update(extra)
        if held >= target or i == len(prefixes) - 1:
            parts.append((start, i + 1))
            start, held, size, near = i + 1, 0, 0, set()
    out = []
    for a, b in parts:
        own = {p for p, _, _ in prefixes[a:b]}
        near = set()
        for p in own:
            near.update(q for q, _ in shifted(p) if q not in own)
        every = own | near
        halo = sorted(q for q in near if not any(q[:k] in every for k in range(len(q))))
        size = sum(n for _, _, n in prefixes[a:b]) + sum(datasets(q, sum(q)) for q in halo)
        out.append((a, b, halo, size))
    return max(len(p) for p, _, _ in leaves), prefixes, out


def _prefix_shifts(j: int, moves) -> list[tuple[int, ...]]:
    """The change each move makes to the counts of the ``j`` smallest values."""
    out = set()
    for removed, added in moves:
        d = [0] * j
        for i in added:
            if i < j:
                d[i] += 1
        for i in removed:
            if i < j:
                d[i] -= 1
        out.add(tuple(d))
    return sorted(out)


# -- one partition (on a worker) -----------------------------------------------------------

def codec(query, space, ambient, base: int):
    """A :class:`.tables.Table` without values: keys to datasets and back."""
    t = _tables.Table.__new__(_tables.Table)
    t.query, t.space, t.ambient, t.base = query, space, ambient, base
    t.weights = _tables.key_weights(base, space.universe.size)
    return t


def _suffixes(ambient, prefix: tuple, used: int):
    """Every dataset of ``ambient`` with this prefix, as count vectors in source order."""
    j, m = len(prefix), ambient.universe.size
    if j == m:
        yield prefix
        return
    values = ambient.universe.values[j:]
    caps = list(ambient.caps[j:])
    rest = DatasetSpace(ValueUniverse(values), caps, max(0, ambient.min_size - used),
                        ambient.max_size - used)
    for counts in rest:
        yield prefix + counts


def scan_partition(spec: dict, own: list, halo: list) -> dict:
    """Build the slice (the datasets of the prefixes ``own`` and ``halo``), scan the
    datasets of ``own`` within the space's sizes, and return the part's result (with
    :func:`.heap.roomy_heap`, for a Dask worker's heap settings)."""
    with roomy_heap():
        return _scan_partition(spec, own, halo)


def _scan_partition(spec: dict, own: list, halo: list) -> dict:
    query, space, ambient = spec["query"], spec["space"], spec["ambient"]
    t = codec(query, space, ambient, spec["base"])
    sources = _fill_incremental(t, spec["policy"], own, halo)
    if sources is None:
        sources = _fill_per_dataset(t, spec["policy"], own, halo)
    neighbours = DeltaNeighbours(t, spec["deltas"], spec["halve"])
    listed = (sources.tolist() if hasattr(sources, "tolist") else sources) if t.undefined else []
    touched_src = [k for k in listed if k in t.undefined]
    touched, example = set(touched_src), None
    if t.undefined and not spec["halve"]:
        for key in listed:
            if key in t.undefined:
                continue
            for k in neighbours.keys(key):
                if k in t.undefined:
                    touched.add(k)
                    example = example or (key, k)
    first = [_tables.first_named(t, touched_src)] if touched_src else []
    out = {"scale": t.scale, "touched": touched, "src": first, "example": example,
           "part": None, "pair": None, "size": t.size}
    if spec["policy"] == "error" and (touched_src or example):
        return out  # the driver raises, naming the same dataset as the serial engine
    quiet = Progress("", max(len(sources), 1), enabled=False)
    best, x, w, pairs = _scan.scan(t, sources, neighbours, quiet)
    out["part"] = (best, x, w, pairs)
    if x is not None:
        xp = neighbours.find(x, w)
        out["pair"] = (xp, t.values[x], t.values[xp])
    return out


def _fill_incremental(t, policy, own: list, halo: list):
    """Fill the slice from one incremental build per prefix (:func:`.incremental.build`
    with ``prefix=``) and return its sources in source order (an array), or ``None`` when the query
    has no incremental form or NumPy is missing (the caller evaluates per dataset).

    Each build is over the least common denominator of its own rows; the slice's is the
    ``lcm`` of theirs, so the slice's scale and integers are those of
    :func:`_fill_per_dataset` (and of :meth:`.tables.Table._fill`)."""

    query, space, ambient = t.query, t.space, t.ambient
    if not _tables.INCREMENTAL or _incremental.numpy_or_none() is None:
        return None
    form = query.incremental(space.universe.values)
    if form is None:
        return None
    stated = _tables._stated(query, policy)
    builds = []
    for p in list(own) + list(halo):
        b = _incremental.build(form, ambient, t.weights, stated, query.output, prefix=tuple(p))
        if b is None:
            return None
        builds.append(b)
    np = builds[0].np
    scale = 1
    for b in builds:
        scale = scale * b.scale // math.gcd(scale, b.scale)
    ints = [b.ints if b.scale == scale else _incremental._times(np, b.ints, scale // b.scale)
            for b in builds]
    if len({a.dtype for a in ints}) > 1:
        ints = [a.astype(object) for a in ints]
    keys = np.concatenate([b.keys for b in builds])
    n = np.concatenate([b.n for b in builds])
    values = np.concatenate(ints)
    defined = np.concatenate([b.defined for b in builds])
    own_rows = sum(len(b.keys) for b in builds[:len(own)])
    sizes = n[:own_rows]
    inside = (sizes >= space.min_size) & (sizes <= space.max_size)
    sources = keys[:own_rows][inside]
    # each build's keys increase (the key order is the enumeration order), so a stable sort
    # of the runs is a merge; a halo prefix may cover datasets of an own prefix (or of
    # another): the copies are adjacent then, and the same dataset has the same value
    if len(keys) > 1 and not bool((keys[1:] > keys[:-1]).all()):
        order = np.argsort(keys, kind="stable")
        keys, n, values, defined = keys[order], n[order], values[order], defined[order]
        keep = np.ones(len(keys), dtype=bool)
        keep[1:] = keys[1:] != keys[:-1]
        if not keep.all():
            keys, n, values, defined = keys[keep], n[keep], values[keep], defined[keep]
    if values.dtype == object and query.output != "vector" and len(values):
        peak = max((abs(int(v)) for v in values[defined]), default=0)
        if peak < _incremental.LIMIT:
            values = values.astype(np.int64)
    t._adopt(_incremental.Built(np, keys, n, values, defined, scale))
    return sources


def _fill_per_dataset(t, policy, own: list, halo: list) -> list:
    """Fill the slice with ``query.prepare`` per dataset; return its sources in order."""
    query, space, ambient, weights = t.query, t.space, t.ambient, t.weights
    prepared = query.prepare(space.universe.values)
    undefined_type = type(UNDEFINED)  # a query sent by value may carry a copy of the sentinel
    lo_s, hi_s = space.min_size, space.max_size
    sources = []

    def entries():  # own prefixes first, in source order (a halo prefix may cover some again)
        for p, keep in [(p, True) for p in own] + [(q, False) for q in halo]:
            used = sum(p)
            for counts in _suffixes(ambient, p, used):
                key = sum(c * w for c, w in zip(counts, weights) if c)
                if keep and lo_s <= sum(counts) <= hi_s:
                    sources.append(key)
                value = prepared(counts)
                yield key, UNDEFINED if isinstance(value, undefined_type) else value

    t._fill(entries(), policy, None)
    _to_arrays(t)
    return sources


def _to_arrays(t) -> None:
    """Give a filled slice the sorted arrays the NumPy scan reads, when they fit in int64."""
    np = numpy_or_none()
    if np is None or not t.values:
        return
    keys = list(t.values)
    if max(keys) >= LIMIT:
        return
    try:
        ka = np.array(keys, dtype=np.int64)
        va = np.array(list(t.values.values()), dtype=np.int64)
    except (OverflowError, ValueError):
        return
    order = np.argsort(ka, kind="stable")

    class _Arrays:
        pass

    t.arrays = _Arrays()
    t.arrays.np = np
    t.sorted_keys, t.sorted_values = ka[order], va[order]

