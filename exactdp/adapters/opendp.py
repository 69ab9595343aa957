"""Read OpenDP's claims at their exact binary values, run its own functions over every
neighbouring pair of a small space, and replay witnesses through it.

OpenDP is imported inside the functions (``pip install 'exactdp[opendp]'``); a missing
OpenDP raises :class:`~exactdp.errors.MissingDependency`. Every call into OpenDP goes
through :func:`exactdp.audits.runner.call_library`, so an OpenDP error becomes
:class:`~exactdp.errors.LibraryCallFailed` (keeping OpenDP's ``variant``) and never a
verdict.

OpenDP gates most constructors behind process-global switches
(``dp.enable_features("contrib")``). :func:`features` turns the ones an audit needs on for
the duration of a ``with`` block only, restores the previous set afterwards, and returns
the names it actually flipped so that the finding can say so (:func:`toggles_note`).

Metrics, as exactdp enumerates them:

* ``SymmetricDistance`` on unsized vectors: datasets are multisets; ``x'`` is ``x`` with
  ``r`` records removed and ``a`` added, ``r + a <= d_in`` (add/remove counting);
* ``SymmetricDistance`` on sized vectors (``size=n``): only changes keep the size, and one
  change is a symmetric distance of 2, so ``d_in`` allows ``d_in // 2`` changes;
* ``InsertDeleteDistance`` (ordered data): every order of ``x`` and every position of an
  inserted or deleted record (:func:`ordered_neighbours`); for larger ``d_in``, every pair
  of sequences at that distance (:func:`sequence_pairs`, which also lists pairs at
  ``HammingDistance``, exactdp's :mod:`~exactdp.spaces.sequences` metrics);
* ``L1Distance`` on integer vectors of one length: every pair of vectors over a value set
  whose coordinates differ by ``d_in`` in total (:func:`l1_neighbours`).

>>> sorted(multiset_neighbours((0, 1), (0, 1), 1))
[((), (0,)), ((), (1,)), ((0,), ()), ((1,), ())]
"""

from __future__ import annotations

import functools
import itertools
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Sequence

from exactdp import _optional
from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import library_number
from exactdp.adapters._calls import Replay, call_library
from exactdp.numeric.exact import from_float
from exactdp.numeric.fixedwidth import b_ary_tree
from exactdp.numeric.floatformat import FloatOverflow
from exactdp.numeric.floatsum import float_sum_float
from exactdp.numeric.rounding import float_at_least, float_at_most
from exactdp.spaces.sequences import HammingDistance, InsertDeleteDistance, lcs_length
from exactdp.mechanisms.models.opendp import FloatDiscreteLaplace

__all__ = [
    "DISTRIBUTION", "EXTRA", "load", "version", "features", "toggles_note", "exact",
    "claim_map", "claim_epsilon", "run", "multiset_neighbours", "sized_neighbours",
    "ordered_neighbours", "sequence_pairs", "l1_neighbours", "Stability", "enumerate_stability",
    "replay_pair", "sum_model_matches", "ssd_model", "variance_model", "mean_model", "b_ary_tree_model",
    "pairwise_one_change", "ssd_one_change", "variance_one_change", "popoviciu_upper",
    "absolute", "linf", "l1", "multiset_distance", "change_one_distance", "hamming",
    "insert_delete", "float_inputs", "float_worst_pairs",
]

DISTRIBUTION = "opendp"
EXTRA = "opendp"


def load():
    """``opendp.prelude`` (``dp``), or :class:`MissingDependency` naming the extra."""
    return _optional.require("opendp.prelude", library=DISTRIBUTION, extra=EXTRA)


def version() -> str:
    """The installed OpenDP version."""
    return _optional.version(DISTRIBUTION, EXTRA)


_KNOWN_FEATURES = ("contrib", "floating-point", "honest-but-curious")


@contextmanager
def features(*names: str) -> Iterator[list[str]]:
    """Enable OpenDP's global ``names`` inside the block; yields those that were off (the
    toggles this audit flipped), and turns exactly those off again on the way out."""
    for n in names:
        if n not in _KNOWN_FEATURES:
            raise InvalidArgument(f"feature={n!r} is not an OpenDP feature exactdp flips; "
                                  f"expected one of {', '.join(_KNOWN_FEATURES)}")
    load()
    from opendp.mod import GLOBAL_FEATURES, disable_features, enable_features
    flipped = [n for n in names if n not in GLOBAL_FEATURES]
    if flipped:
        enable_features(*flipped)
    try:
        yield flipped
    finally:
        if flipped:
            disable_features(*flipped)


def toggles_note(flipped: Sequence[str]) -> str:
    """The note a finding carries about the global switches its audit flipped."""
    if not flipped:
        return ""
    calls = ", ".join(repr(f) for f in flipped)
    return f"OpenDP global toggle flipped for this audit: dp.enable_features({calls}) (restored after)"


def exact(value: object, what: str = "value") -> Fraction:
    """An OpenDP number at its exact value: a float at its exact binary value, an int as is
    (``what`` is kept for the callers' messages; the reader is
    :func:`~exactdp.numeric.exact.library_number`)."""
    return library_number(value, f"OpenDP ({what})")


def run(what: str, fn: Callable, *args, **kwargs):
    """Call OpenDP (``call_library``): its errors become ``LibraryCallFailed``."""
    return call_library(what, fn, *args, **kwargs)


def claim_map(obj, d_in, what: str = "map") -> Fraction:
    """``obj.map(d_in)`` (a transformation's stability map or a measurement's privacy
    map), at its exact value."""
    return exact(run(f"{what}.map({d_in!r})", obj.map, d_in), f"{what}.map({d_in!r})")


def claim_epsilon(meas, d_in, delta: float, what: str = "measurement") -> Fraction:
    """``meas.map(d_in).epsilon(delta)`` of a privacy profile, at its exact value."""
    profile = run(f"{what}.map({d_in!r})", meas.map, d_in)
    return exact(run(f"profile.epsilon({delta!r})", profile.epsilon, delta),
                 f"{what}.map({d_in!r}).epsilon({delta!r})")


# -- neighbouring pairs ------------------------------------------------------------------------

def _multisets(values: Sequence, sizes: Iterable[int]) -> list[tuple]:
    out = []
    for n in sizes:
        out.extend(itertools.combinations_with_replacement(values, n))
    return out


def _sym_distance(x: tuple, y: tuple) -> int:
    from collections import Counter
    a, b = Counter(x), Counter(y)
    return sum(((a - b) + (b - a)).values())


def multiset_neighbours(values: Sequence, sizes: Sequence[int], d_in: int) -> Iterator[tuple[tuple, tuple]]:
    """Ordered pairs ``(x, x')`` of distinct multisets of ``values`` (sorted tuples), sizes
    in ``sizes``, at symmetric distance ``1..d_in`` (both directions listed)."""
    pool = _multisets(values, sizes)
    for x in pool:
        for y in pool:
            if x != y and abs(len(x) - len(y)) <= d_in and _sym_distance(x, y) <= d_in:
                yield x, y


def sized_neighbours(values: Sequence, size: int, d_in: int) -> Iterator[tuple[tuple, tuple]]:
    """Pairs of multisets of exactly ``size`` values at symmetric distance ``<= d_in``
    (one change is 2, so ``d_in // 2`` changes)."""
    return multiset_neighbours(values, (size,), d_in)


def ordered_neighbours(values: Sequence, sizes: Sequence[int]) -> Iterator[tuple[tuple, tuple]]:
    """Pairs of sequences at insert-delete distance 1: every sequence of ``values`` with a
    size in ``sizes`` and every way to delete one record (both directions)."""
    for n in sizes:
        if n == 0:
            continue
        for x in itertools.product(values, repeat=n):
            if n - 1 not in sizes:
                continue
            for i in range(n):
                y = x[:i] + x[i + 1:]
                yield x, y
                yield y, x


def sequence_pairs(values: Sequence, sizes: Sequence[int], metric: str, d_in: int) -> Iterator[tuple[tuple, tuple]]:
    """Ordered pairs ``(x, x')`` of distinct sequences of ``values`` with lengths in
    ``sizes`` at ``metric`` distance ``1..d_in``: ``metric`` is ``"insert-delete"``
    (``|x| + |x'| - 2 LCS``) or ``"hamming"`` (same length, positions that differ), as
    exactdp's :class:`~exactdp.spaces.sequences.InsertDeleteDistance` and
    :class:`~exactdp.spaces.sequences.HammingDistance` measure them.

    >>> sorted(sequence_pairs((0, 1), (2,), "insert-delete", 2))[:2]
    [((0, 0), (0, 1)), ((0, 0), (1, 0))]
    """
    relation = {"insert-delete": InsertDeleteDistance(), "hamming": HammingDistance()}.get(metric)
    if relation is None:
        raise InvalidArgument(f"metric={metric!r}: expected 'insert-delete' or 'hamming'")
    pool = [x for n in sizes for x in itertools.product(values, repeat=n)]
    for x in pool:
        for y in pool:
            if x != y and abs(len(x) - len(y)) <= d_in:
                d = relation.distance(x, y)
                if d is not None and d <= d_in:
                    yield x, y


def l1_neighbours(values: Sequence[int], length: int, d_in: int) -> Iterator[tuple[tuple, tuple]]:
    """Ordered pairs of distinct integer vectors of ``length`` over ``values`` at
    ``L1Distance`` ``1..d_in``.

    >>> list(l1_neighbours((0, 1, 5), 1, 1))
    [((0,), (1,)), ((1,), (0,))]
    """
    pool = list(itertools.product(values, repeat=length))
    for x in pool:
        for y in pool:
            if x != y and sum(abs(a - b) for a, b in zip(x, y)) <= d_in:
                yield x, y


# -- enumeration of the library's own function ---------------------------------------------

@dataclass(frozen=True)
class Stability:
    """The largest output distance found over the pairs, and the pair attaining it."""

    value: Fraction
    x: tuple | None
    x_prime: tuple | None
    fx: Any
    fx_prime: Any
    pairs: int

    def witness(self) -> dict[str, Any] | None:
        if self.x is None:
            return None
        return {"x": list(self.x), "x_prime": list(self.x_prime), "fx": _jsonable(self.fx),
                "fx_prime": _jsonable(self.fx_prime), "distance": str(self.value)}


def _jsonable(v):
    if isinstance(v, (list, tuple)):
        return [_jsonable(e) for e in v]
    if isinstance(v, float):
        return repr(v)
    return v


def absolute(a, b) -> Fraction:
    """``|a - b|`` at exact values (scalar outputs, ``AbsoluteDistance``)."""
    return abs(exact(a, "output") - exact(b, "output"))


def linf(a, b) -> Fraction:
    """``max_i |a_i - b_i|`` at exact values (``LInfDistance``)."""
    if len(a) != len(b):
        raise InvalidArgument(f"outputs of lengths {len(a)} and {len(b)}: LInfDistance needs equal lengths")
    return max((abs(exact(p, "output") - exact(q, "output")) for p, q in zip(a, b)), default=Fraction(0))


def l1(a, b) -> Fraction:
    """``sum_i |a_i - b_i|`` at exact values (``L1Distance``; equal lengths)."""
    if len(a) != len(b):
        raise InvalidArgument(f"outputs of lengths {len(a)} and {len(b)}: L1Distance needs equal lengths")
    return sum((abs(exact(p, "output") - exact(q, "output")) for p, q in zip(a, b)), Fraction(0))


def hamming(a, b) -> Fraction:
    """``HammingDistance`` of two output vectors of one length (positions that differ)."""
    if len(a) != len(b):
        raise InvalidArgument(f"outputs of lengths {len(a)} and {len(b)}: HammingDistance is "
                              f"infinite across lengths")
    return Fraction(sum(1 for p, q in zip(a, b) if p != q))


def insert_delete(a, b) -> Fraction:
    """``InsertDeleteDistance`` of two output vectors: ``|a| + |b| - 2 LCS(a, b)``."""
    return Fraction(len(a) + len(b) - 2 * lcs_length(list(a), list(b)))


def change_one_distance(a, b) -> Fraction:
    """``ChangeOneDistance`` of two output vectors of one length taken as multisets: half
    their symmetric distance (the number of records changed)."""
    if len(a) != len(b):
        raise InvalidArgument(f"outputs of lengths {len(a)} and {len(b)}: ChangeOneDistance is "
                              f"infinite across lengths")
    return multiset_distance(a, b) / 2


def multiset_distance(a, b) -> Fraction:
    """Symmetric distance between two output vectors taken as multisets."""
    return Fraction(_sym_distance(tuple(sorted(a)), tuple(sorted(b))))


def enumerate_stability(trans, pairs: Iterable[tuple[tuple, tuple]], distance: Callable = absolute,
                        what: str = "transformation") -> Stability:
    """Run ``trans`` on both sides of every pair; the largest ``distance(f(x), f(x'))``."""
    cache: dict[tuple, Any] = {}

    def f(x):
        if x not in cache:
            cache[x] = run(f"{what}({list(x)!r})", trans, list(x))
        return cache[x]

    best = Stability(Fraction(-1), None, None, None, None, 0)
    count = 0
    for x, y in pairs:
        count += 1
        fx, fy = f(x), f(y)
        d = distance(fx, fy)
        if d > best.value:
            best = Stability(d, x, y, fx, fy, 0)
    if best.x is None:
        return Stability(Fraction(0), None, None, None, None, count)
    return Stability(best.value, best.x, best.x_prime, best.fx, best.fx_prime, count)


def replay_pair(trans, x: Sequence, x_prime: Sequence, claim: Fraction,
                distance: Callable = absolute, what: str = "transformation"):
    """Feed a witness back through OpenDP: ``(Replay, f(x), f(x'), distance)``;
    ``CONFIRMED`` when the library's own outputs are further apart than ``claim``."""
    fx = run(f"{what}({list(x)!r})", trans, list(x))
    fy = run(f"{what}({list(x_prime)!r})", trans, list(x_prime))
    d = distance(fx, fy)
    return (Replay.CONFIRMED if d > claim else Replay.MODEL_MISMATCH), fx, fy, d


def sum_model_matches(trans, model: str, bounds: tuple[float, float], size: int | None,
                      trials: int, seed: int, max_size: int | None = None) -> tuple[int, list | None]:
    """Run OpenDP's float sum ``trans`` on ``trials`` seeded random vectors and compare
    with exactdp's bit-exact ``model``: ``(agreements, first disagreeing input or None)``.

    Inputs mix magnitudes (the whole range, ``[-1, 1]``, tiny values and the bounds
    themselves) so that roundings happen; sizes are ``size`` or random up to ``max_size``.
    """
    import random
    rng = random.Random(seed)
    lo, hi = bounds
    agree = 0
    for _ in range(trials):
        n = size if size is not None else rng.randint(0, max_size or 1)
        x = []
        for _ in range(n):
            kind = rng.randrange(4)
            if kind == 0:
                v = rng.uniform(lo, hi)
            elif kind == 1:
                v = rng.uniform(max(lo, -1.0), min(hi, 1.0))
            elif kind == 2:
                v = rng.uniform(max(lo, -1.0), min(hi, 1.0)) * 2.0 ** -rng.randint(10, 60)
            else:
                v = rng.choice((lo, hi))
            x.append(min(max(v, lo), hi))
        got = run("sum", trans, x)
        if got != float_sum_float(x, model):
            return agree, x
        agree += 1
    return agree, None


def ssd_model(x: Sequence[float], model: str = "opendp-pairwise") -> float:
    """OpenDP's ``make_sum_of_squared_deviations`` function, bit for bit in float64:
    ``mean = sum(x) / n`` (the ``S`` sum, one rounded division), each deviation
    ``(x_i - mean).powi(2)`` (a rounded subtraction, then one rounded product), summed by
    ``S`` again. ``model`` is the exactdp model of ``S`` (``opendp-pairwise`` for
    ``Pairwise<f64>``, ``sequential`` for ``Sequential<f64>``).

    >>> ssd_model([1.0, 2.0, 3.0])
    2.0
    """
    values = [float(v) for v in x]
    if not values:
        raise InvalidArgument("x=[] is empty; OpenDP's sum of squared deviations needs size > 0")
    mean = float_sum_float(values, model) / len(values)
    return float_sum_float([(v - mean) * (v - mean) for v in values], model)


def variance_model(x: Sequence[float], bounds: tuple[float, float], ddof: int = 1) -> float:
    """OpenDP's ``make_variance`` on ``n = len(x)`` floats in ``bounds``, bit for bit in
    float64: the sum of squared deviations with ``Pairwise<f64>`` (:func:`ssd_model`; OpenDP
    builds it with ``Pairwise`` whatever ``S`` says), clamped to ``[0, B]`` with ``B`` the
    Popoviciu bound ``(U - L)**2 / 4 * n`` (each of its four steps rounded up, as OpenDP's
    ``inf_sub``, ``inf_powi``, ``inf_div``, ``inf_mul``), times ``1 / (n - ddof)`` rounded to
    nearest (``recip``), one rounded product (``make_lipschitz_float_mul``, saturating).

    >>> variance_model([1.0, 2.0, 3.0], (0.0, 4.0))
    1.0
    """
    values = [float(v) for v in x]
    n = len(values)
    _check_ddof(ddof, n)
    return _scaled_variance(ssd_model(values, "opendp-pairwise"), bounds, n, ddof)


def _check_ddof(ddof, n: int) -> None:
    if isinstance(ddof, bool) or not isinstance(ddof, int) or not 0 <= ddof < n:
        raise InvalidArgument(f"ddof={ddof!r} with n={n}: expected an integer with 0 <= ddof < n "
                              f"(OpenDP refuses size - ddof <= 0)")


@functools.lru_cache(maxsize=256)
def popoviciu_upper(bounds: tuple[float, float], n: int) -> float:
    """OpenDP's bound on the sum of squared deviations of ``n`` values in ``bounds``:
    ``(U - L)**2 / 4 * n``, each of its four steps rounded up (``inf_sub``, ``inf_powi``,
    ``inf_div``, ``inf_mul``)."""
    lo, hi = from_float(bounds[0]), from_float(bounds[1])
    width = float_at_least(hi - lo)
    square = float_at_least(from_float(width) ** 2)
    quarter = float_at_least(from_float(square) / 4)
    return float_at_least(from_float(quarter) * n)


def _scaled_variance(ssd: float, bounds: tuple[float, float], n: int, ddof: int) -> float:
    import math
    ssd = min(max(ssd, 0.0), popoviciu_upper(bounds, n))
    out = ssd * (1.0 / (n - ddof))
    return math.copysign(1.7976931348623157e308, out) if math.isinf(out) else out


def pairwise_one_change(first: float, rest: float, n: int) -> float:
    """OpenDP's ``Pairwise<f64>`` sum of ``[first] + [rest] * (n - 1)`` in ``O(log n)`` float
    additions: the same additions as ``float_sum_float(..., "opendp-pairwise")`` (the sum of
    ``m`` copies of ``rest`` depends only on ``m``, and ``first`` only meets the left spine of
    the split), so the same float.

    >>> from exactdp.numeric.floatsum import float_sum_float
    >>> pairwise_one_change(1.0, 2.0**-53, 3) == float_sum_float([1.0, 2.0**-53, 2.0**-53], "opendp-pairwise")
    True
    """
    import math
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgument(f"n={n!r}: expected a positive integer (the dataset's size)")
    first, rest = float(first), float(rest)
    copies = {1: rest}

    def repeated(m: int) -> float:          # the Pairwise sum of m copies of rest
        s = copies.get(m)
        if s is None:
            s = copies[m] = repeated(m // 2) + repeated(m - m // 2)
        return s

    def spine(m: int) -> float:             # the Pairwise sum of [first] + [rest] * (m - 1)
        return first if m == 1 else spine(m // 2) + repeated(m - m // 2)

    out = spine(n)
    if not math.isfinite(out):
        raise FloatOverflow(f"the Pairwise<f64> sum of {n} values overflowed float64 ({out!r})")
    return out


def ssd_one_change(first: float, rest: float, n: int) -> float:
    """:func:`ssd_model` of ``[first] + [rest] * (n - 1)`` (``Pairwise<f64>``) in ``O(log n)``.

    >>> ssd_one_change(3.0, 1.0, 3) == ssd_model([3.0, 1.0, 1.0])
    True
    """
    mean = pairwise_one_change(first, rest, n) / n
    return pairwise_one_change((first - mean) * (first - mean), (rest - mean) * (rest - mean), n)


def variance_one_change(first: float, rest: float, n: int, bounds: tuple[float, float], ddof: int = 1) -> float:
    """:func:`variance_model` of ``[first] + [rest] * (n - 1)`` in ``O(log n)`` (the datasets
    of a severity scan: one value repeated, one record changed, up to ``n = 2**20`` and beyond).

    >>> variance_one_change(3.0, 1.0, 3, (0.0, 4.0)) == variance_model([3.0, 1.0, 1.0], (0.0, 4.0))
    True
    """
    _check_ddof(ddof, n)
    return _scaled_variance(ssd_one_change(first, rest, n), bounds, n, ddof)


def b_ary_tree_model(values: Sequence[int], T: str, leaf_count: int, branching_factor: int) -> list[int]:
    """OpenDP's ``make_b_ary_tree`` over ``T`` (``"i32"``, ``"i64"``...): exactdp's
    :func:`~exactdp.numeric.fixedwidth.b_ary_tree` with OpenDP's wrap-around (Rust's
    ``Iterator::sum`` in a release build)."""
    return b_ary_tree(values, T, "wrap", arity=branching_factor, leaf_count=leaf_count)


def mean_model(x: Sequence[float], bounds: tuple[float, float], model: str = "opendp-pairwise") -> float:
    """OpenDP's ``make_mean`` on ``n = len(x)`` floats in ``bounds``, bit for bit in float64:
    the sized checked sum (``Pairwise<f64>``: exactdp's ``opendp-pairwise``), clamped to
    ``(n*L, n*U)`` (each rounded outward), times ``1/n`` rounded to nearest (``recip``),
    one rounded product (``make_lipschitz_float_mul``).

    >>> mean_model([0.0, 1.0, 1.0], (0.0, 1.0))
    0.6666666666666666
    """
    values = [float(v) for v in x]
    if not values:
        raise InvalidArgument("x=[] is empty; OpenDP's make_mean needs size > 0")
    n = len(values)
    lo = float_at_most(n * from_float(bounds[0]))
    hi = float_at_least(n * from_float(bounds[1]))
    total = min(max(float_sum_float(values, model), lo), hi)
    return total * (1.0 / n)


# -- float noise: the inputs where rounding to a multiple of 2**k matters most ------------------

def float_inputs(k: int) -> list[float]:
    """Inputs where rounding to a multiple of 2**k matters most: the ties (i + 1/2) 2**k
    near 0 and just below 2**(52 + k), 2**(53 + k) where floats collapse, the subnormals,
    the largest floats; each with its two float neighbours on either side."""
    import math
    import sys
    K = Fraction(2) ** k
    big = Fraction(sys.float_info.max)
    exact = [Fraction(i * 2 + 1, 2) * K for i in (-2, -1, 0, 1, 2 ** 52 - 1, -(2 ** 52))]
    exact += [K * 2 ** 52, K * 2 ** 53, -K * 2 ** 53, Fraction(2) ** -1074, Fraction(2) ** -1022]
    bases = [float(q) for q in exact if abs(q) <= big and Fraction(float(q)) == q]
    bases += [0.0, 0.3, 1.0, -1.0, 2.5, 1e308, sys.float_info.max, -sys.float_info.max]
    out = set()
    for b in bases:
        for direction in (math.inf, -math.inf):
            y = b
            for _ in range(3):
                if math.isfinite(y):
                    out.add(y)
                y = math.nextafter(y, direction)
    return sorted(out)


def float_worst_pairs(k: int, d_ins) -> dict:
    """For each d_in: the largest |c - c'| (rounded inputs, in units of 2**k) over the grid
    inputs x, each paired with the floats nearest x + d_in (below it) and x - d_in (above
    it). Rounding is monotone, so these two are x's worst partners among every float at
    most d_in away."""
    import sys

    big = Fraction(sys.float_info.max)
    model = FloatDiscreteLaplace(k, Fraction(1))
    xs = [(x, Fraction(x), model.round_input(x)) for x in float_inputs(k)]
    out = {}
    for d_in in d_ins:
        d = Fraction(d_in)
        best = (-1, None, None)
        for x, q, c in xs:
            for end, rnd in ((q + d, float_at_most), (q - d, float_at_least)):
                if abs(end) <= big:
                    y = rnd(end)
                    steps = abs(c - model.round_input(y))
                    if steps > best[0]:
                        best = (steps, x, y)
        out[d_in] = best
    return out
