"""The pair scan: the largest ``|f(x) - f(x')|`` over the sources and their neighbours.

For a scalar query the largest ``|f(x) - f(x')|`` over the neighbours of ``x`` is
reached at their largest or smallest value, so each dataset costs one ``max`` and one
``min`` over its neighbours' values. The scan looks the neighbours of a block of
datasets up at once with NumPy ``searchsorted`` over the sorted keys when keys and values
fit in 64 bits (:func:`_np_scan`); otherwise the pure-Python loops below run, with the
same answers. A scan over consecutive parts of the sources, combined with
:func:`combine`, finds what one scan over all of them finds: the first maximal pair in
source order (for a source, its largest neighbour before its smallest; for a vector
query, its first maximal neighbour in move order). NumPy is imported on these paths
only, never at import time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from exactdp._progress import Progress
from exactdp.engine import incremental as _incremental
from exactdp.engine.neighbours import DeltaNeighbours
from exactdp.engine.tables import Table, first_named
from exactdp.errors import InvalidArgument, UndefinedQuery
from exactdp.numeric.exact import format_dataset
from exactdp.queries.base import Query
from exactdp.spaces.datasets import DatasetSpace
from exactdp.numeric.exact import to_exact

__all__ = ["RawResult", "RawPairs", "scan", "combine", "finish", "run_pairs", "validate_policy",
           "refuse_undefined_sizes", "undefined_reached", "VECTORISED"]

VECTORISED = True
"""Scan pairs with NumPy where keys and values fit in 64 bits (False: pure Python)."""

@dataclass
class RawResult:
    """What one enumeration found, in the table's integer units."""

    best: object  # scalar/vector: int distance (L2: squared); sqrt: (a, b) radicands
    x_key: int | None
    x_prime_key: int | None
    pairs: int
    excluded: int

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
    example = (first_named(table, touched), None) if touched else None
    if not halved:  # otherwise the table is the space: every undefined one is a source
        for key in sources:
            if key in undefined:
                continue
            for k in neighbours.keys(key):
                if k in undefined and k not in touched:
                    touched.add(k)
                    example = example or (key, k)
    return len(touched), example

def _undefined_policy(table: Table, sources: Sequence[int], neighbours, policy: object) -> int:
    """How many undefined datasets the pairs touch; raise under the "error" policy."""
    halved = getattr(neighbours, "halve", False)
    excluded, example = undefined_reached(table, sources, neighbours, halved)
    if policy == "error" and example is not None:
        _raise_undefined(table, *example)
    return excluded

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

NP_BLOCK = 1 << 13
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


def _window_search(keys, t):
    """``keys.searchsorted(t)`` for a sorted, non-empty ``t``: the search runs in the window
    of ``keys`` between ``t``'s ends (a block's worth of keys, cache-resident), not over
    the whole table. Positions past the window are its end, as the full search gives."""
    if not len(t):
        return keys.searchsorted(t)
    a = int(keys.searchsorted(t[0]))
    b = int(keys.searchsorted(t[-1], side="right"))
    return keys[a:b].searchsorted(t) + a


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
        i = np.minimum(_window_search(keys, block), last)
        defined = keys[i] == block
        pos, block, v = pos[defined], block[defined], values[i[defined]]
        found, idx = [], []
        for d in deltas:
            t = block + d
            j = np.minimum(_window_search(keys, t), last)
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

def validate_policy(undefined: object) -> object:
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
