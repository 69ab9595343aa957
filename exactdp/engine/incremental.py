"""Incremental evaluation of the built-in queries over a dense value table (issue 12).

The datasets of a dense table are count vectors ``(c_0, ..., c_{m-1})`` enumerated in
lexicographic order (``c_0`` slowest, as :meth:`DatasetSpace.__iter__`). That order is
a tree: a dataset of the level ``i`` is its parent (the counts of values ``0..i-1``)
plus ``c_i`` records of value ``i``. We grow the tree one level at a time with NumPy, so
every dataset costs a few vectorised integer operations instead of a ``Fraction``
computation:

* the key ``sum c_i w_i`` (``w_i = B**(m-1-i)``, :func:`.tables.key_weights`), the size
  ``n``, ``S1 = sum c_i a_i`` and ``S2 = sum c_i a_i**2`` (``a_i = v_i * den``, integers)
  are running sums down the tree;
* an order statistic ``x[j]`` is the first value whose cumulative count exceeds ``j``;
  the cumulative counts are the sizes of a leaf's ancestors (one gather per level).

Every value is an integer over a common denominator ``D`` known before enumerating
(``den * lcm(n)`` for the mean, ``den**2 * lcm(n (n - ddof))`` for the variance, ``den *
lcm(quantile weights)`` for a quantile), so the value ``int(f(x) * D)`` is exact. The
table then divides by ``g = gcd(D, every value)``: ``D / g`` is the least common
denominator, so the scale and the integers are *identical* to those of the per-dataset
path (:meth:`Table._fill`), and so are the sensitivities and witnesses.

Arrays are ``int64`` when bounds computed from the inputs say every intermediate fits
below ``2**62``; otherwise ``object`` arrays (Python integers, still vectorised).
:func:`build` returns ``None`` when NumPy is missing or the query has no incremental
form: the caller keeps the per-dataset path. NumPy is imported here only, lazily.
"""

from __future__ import annotations

import math
from fractions import Fraction

from exactdp.engine.kinds import KINDS, LIMIT, Grown
from exactdp.numeric.exact import common_denominator
from exactdp.queries.base import IncrementalForm

__all__ = ["numpy_or_none", "build", "Built", "LIMIT"]

_NO_NUMPY = False


def numpy_or_none():
    """The ``numpy`` module, or ``None`` when it is not installed (imported on first use)."""
    global _NO_NUMPY
    if _NO_NUMPY:
        return None
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is installed where the tests run
        _NO_NUMPY = True
        return None
    return numpy


class Built:
    """The table's arrays in enumeration order: ``keys``, sizes ``n``, the values (``ints``:
    1-d, or 2-d for a vector query) over ``scale``, and the ``defined`` mask."""

    def __init__(self, np, keys, n, ints, defined, scale):
        self.np = np
        self.keys = keys
        self.n = n
        self.ints = ints
        self.defined = defined
        self.scale = scale




def build(form: IncrementalForm | None, ambient, weights, stated, output: str,
          max_values: int = 10**9, prefix: tuple | None = None, progress=None) -> Built | None:
    """The table of ``form`` over the dense ``ambient`` space, or ``None`` (no NumPy, no
    form, an empty universe). ``stated`` is the value used where the query is undefined
    (already squared for a square-root query), or ``None`` to mark those datasets.

    ``prefix``: only the datasets whose first ``len(prefix)`` counts are exactly these
    (the rows of the full build with that prefix, in the same order; none if no dataset
    of ``ambient`` has it). The values are then over the least common denominator of
    those rows alone (the partitions' slices, :mod:`.partitions`). ``progress``: a
    :class:`~exactdp._progress.Progress` told of each level built."""
    if form is None or form.kind not in KINDS:
        return None
    np = numpy_or_none()
    if np is None:
        return None
    m = ambient.universe.size
    if m == 0 or len(form.values) != m:
        return None
    lo, hi = ambient.min_size, ambient.max_size
    caps = [ambient.max_count(i) for i in range(m)]
    room = [0] * (m + 1)
    for i in range(m - 1, -1, -1):
        room[i] = room[i + 1] + caps[i]
    if room[0] < lo:
        return None
    fixed = tuple(int(c) for c in prefix) if prefix is not None else ()
    if len(fixed) > m:
        raise ValueError(f"a prefix of {len(fixed)} counts for a universe of {m} values")
    if fixed and not (all(0 <= c <= cap for c, cap in zip(fixed, caps))
                      and sum(fixed) <= hi and sum(fixed) + room[len(fixed)] >= lo):
        return _empty(np, output, form)

    den = common_denominator(form.values)
    nums = [int(v * den) for v in form.values]
    top = max((abs(a) for a in nums), default=0)
    kind = KINDS[form.kind]  # its sums, order statistics or bins, and its values (below)
    key_big = max(weights) * (hi + 1) * 2 >= LIMIT  # every key is below (hi + 1) * B**(m-1)
    need_s1 = kind.sums >= 1
    need_s2 = kind.sums == 2
    s_big = (hi * top * top if need_s2 else hi * top) >= LIMIT
    chain = kind.order_statistics
    bins = form.bins if kind.histogram else None
    nbins = form.nbins if bins else 0

    def col(xs, big):
        return np.array(xs, dtype=object) if big else np.asarray(xs, dtype=np.int64)

    used = np.zeros(1, dtype=np.int64)
    key = col([0], key_big)
    s1 = col([0], s_big) if need_s1 else None
    s2 = col([0], s_big) if need_s2 else None
    hist = [np.zeros(1, dtype=np.int64) for _ in range(nbins)] if kind.histogram else None
    levels = []  # (parent index, cumulative size) per level, for order statistics
    for i in range(m):
        if progress is not None:
            progress.show(f"building the value table: universe value {i + 1:,} of {m:,}, "
                          f"{len(used):,} partial datasets")
        if i < len(fixed):
            cmin = cmax = np.asarray([fixed[i]], dtype=np.int64)  # one node; feasible (above)
        else:
            cmin = np.maximum(0, lo - used - room[i + 1])
            cmax = np.minimum(caps[i], hi - used)
        nopt = cmax - cmin + 1
        if int(nopt.min()) == 1 and int(nopt.max()) == 1:
            c = cmin
            parent = None
        else:
            total = int(nopt.sum())
            parent = np.repeat(np.arange(len(used), dtype=np.int64), nopt)
            first = np.cumsum(nopt) - nopt  # where each parent's children start
            c = np.arange(total, dtype=np.int64) - np.repeat(first - cmin, nopt)

        def grow(a):
            return a if parent is None else a[parent]

        used = grow(used) + c
        if chain:
            levels.append((parent, used))
        nonzero = bool(c.any())
        if key_big:
            key = grow(key) + (c.astype(object) * weights[i] if nonzero else 0)
        else:
            key = grow(key) + (c * weights[i] if nonzero else 0)
        if need_s1:
            cc = c.astype(object) if s_big else c
            s1 = grow(s1) + (cc * nums[i] if nonzero else 0)
            if need_s2:
                s2 = grow(s2) + (cc * (nums[i] * nums[i]) if nonzero else 0)
        if hist is not None:
            hist = [grow(h) for h in hist]
            if bins[i] is not None and nonzero:
                hist[bins[i]] = hist[bins[i]] + c
    n = used
    count = len(n)
    if count > max_values:  # pragma: no cover - the dataset budget is far lower
        return None
    if progress is not None:
        progress.show(f"building the value table: the values of {count:,} datasets", phase=True)

    # -- values over the common denominator D: the kind's evaluator ---------------------
    defined, scale_d, ints = kind.table(Grown(np, form, n, s1, s2, hist, levels, count, lo, hi,
                                              m, den, nums, top, s_big))

    # -- a stated value where undefined, then the least common denominator ------------
    if stated is not None and not bool(defined.all()):
        stated = Fraction(stated)
        grow_by = stated.denominator // math.gcd(scale_d, stated.denominator)
        if grow_by > 1:
            ints = _times(np, ints, grow_by)
            scale_d *= grow_by
        fill = int(stated * scale_d)
        if ints.dtype != object and abs(fill) >= LIMIT:
            ints = ints.astype(object)
        ints = ints.copy()
        ints[~defined] = fill
        defined = np.ones(count, dtype=bool)
    if output == "vector":
        g = scale_d  # the values are integers: the least common denominator is 1
    else:
        g = _gcd_all(np, ints[defined], scale_d)
    if g > 1:
        ints = ints // g
        scale_d //= g
    if ints.dtype == object and output != "vector":
        peak = max((abs(int(v)) for v in ints[defined]), default=0) if count else 0
        if peak < LIMIT:
            ints = ints.astype(np.int64)
    return Built(np, key, n, ints, defined, scale_d)


def _empty(np, output: str, form) -> Built:
    """A build without rows (a prefix no dataset has)."""
    none = np.zeros(0, dtype=np.int64)
    ints = np.zeros((0, form.nbins), dtype=np.int64) if KINDS[form.kind].histogram else none
    return Built(np, none, none.copy(), ints, np.zeros(0, dtype=bool), 1)


def _times(np, ints, factor: int):
    if ints.dtype != object:
        peak = int(np.abs(ints).max()) if len(ints) else 0
        if peak * factor < LIMIT:
            return ints * factor
        ints = ints.astype(object)
    return ints * factor


def _gcd_all(np, values, start: int) -> int:
    """``gcd(start, *values)`` (``start > 0``), stopping as soon as it reaches 1."""
    g = start
    if values.dtype != object:
        if len(values):
            g = math.gcd(g, int(np.gcd.reduce(np.abs(values))))
        return g
    step = 1 << 16
    for i in range(0, len(values), step):
        g = math.gcd(g, *values[i:i + step].tolist())
        if g == 1:
            break
    return g
