"""Seed 002's softmax in IEEE float64, bit for bit, beside the exact distribution.

Seed 002 (*Hands-on Differential Privacy*, ch. 6, "A Private Mechanism on l-infinity
Sensitivity") computes the exponential mechanism's probabilities in NumPy::

    scores -= scores.max()          # "omitting this line gives same probabilities"
    likelihoods = np.exp(epsilon * scores / (2 * sensitivity))
    probabilities = likelihoods / likelihoods.sum()

Mathematically the shift changes nothing. In float64 it does: without it, ``np.exp`` of
very negative scores falls into the subnormal range (below ``2**-1022``, fewer than 53
significant bits) and then to ``0`` (below ``2**-1075``); once every likelihood is ``0``,
``0 / 0`` makes every probability NaN. With it, the best candidate's likelihood is
exactly ``1``. (Very positive scores overflow to ``inf`` and give ``inf / inf = NaN``;
modelled too.)

What is modelled, exactly:

* ``epsilon * scores / (2 * sensitivity)``: each ``*`` and ``/`` rounded to nearest in
  float64 (Python floats are IEEE binary64; the scores are those of
  :func:`quantile_scores`, exact halves);
* ``np.exp``: the **correctly rounded** exponential, computed from a certified
  enclosure (mpmath intervals), overflow to ``inf``. NumPy's ``exp`` (its SIMD kernels
  or the C library's) is not correctly rounded everywhere; each value used is compared
  with ``math.exp`` on this machine and any disagreement is reported
  (``exp_disagreements``). What decides the verdicts below, underflow to ``0`` and the
  loss of significant bits in the subnormal range, does not depend on the last bit;
* ``likelihoods.sum()``: NumPy's pairwise summation (``numpy/_core/src/umath/
  loops_utils.h.src``): fewer than 8 terms left to right from ``-0.0``; up to 128 in eight
  interleaved accumulators combined as ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`` and the
  rest added in order; more split at ``n/2`` rounded down to a multiple of 8;
* ``likelihoods / total``: each quotient rounded; ``0/0`` and ``inf/inf`` are NaN.

The exact distribution is ``exp(z_i) / sum_j exp(z_j)`` with ``z = epsilon * score / (2
sensitivity)`` in exact arithmetic, enclosed in certified intervals. A float distribution
**departs** from it when some probability is NaN or differs from the exact one by more
than ``tolerance`` (absolute; default ``2**-40``, far above the few units of ``2**-53``
a correctly ordered computation errs by). :func:`first_departure` scans record counts
``n = 1, 2, ...`` of a dataset family and reports the first departure and the first NaN.

>>> p = seed_softmax([-1, 0], 1, '1/2', shift=False)
>>> [round(x, 12) for x in p]
[0.26894142137, 0.73105857863]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import positive
from exactdp.numeric.exact import format_exact, from_float, to_exact
from exactdp.numeric.floatformat import FLOAT64, FloatOverflow
from exactdp.queries.scores import quantile_score_values
from exactdp.numeric.intervals import exact_interval, refine_until
from exactdp.errors import Undecided
from exactdp.numeric.intervals import enclose, interval_to_fractions

__all__ = [
    "DEFAULT_TOLERANCE",
    "MAX_SCAN_RECORDS",
    "SoftmaxDeparture",
    "SoftmaxScan",
    "exact_softmax_departs",
    "first_departure",
    "numpy_pairwise_sum",
    "quantile_scores",
    "round_exp",
    "seed_softmax",
]

DEFAULT_TOLERANCE = Fraction(1, 2**40)
"""Absolute difference from the exact probability above which a float softmax departs."""

MAX_SCAN_RECORDS = 100_000
"""Largest record count :func:`first_departure` scans up to."""

_NAN = float("nan")
_INF = float("inf")
_LN_TINY = -745.2  # below ln(2**-1075) = -745.13...: exp rounds to 0 (checked by enclosure)


@functools.lru_cache(maxsize=65536)
def round_exp(z: float) -> float:
    """``exp(z)`` correctly rounded to float64 (``inf`` above the largest float, ``0.0``
    below half the smallest subnormal), from a certified enclosure.

    >>> round_exp(-745.0), round_exp(-745.5), round_exp(0.0)
    (5e-324, 0.0, 1.0)
    """
    if z != z:
        return _NAN
    if z == 0:
        return 1.0
    if z > 710:
        return _INF
    if z < _LN_TINY - 1:
        return 0.0
    zq = from_float(z)

    def done(lo: Fraction, hi: Fraction):
        try:
            a, b = FLOAT64.round(lo), FLOAT64.round(hi)
        except FloatOverflow:
            return None if lo < FLOAT64.max_value else _INF
        return float(a) if a == b else None

    return refine_until(lambda iv: iv.exp(exact_interval(zq)), done, start_prec=80)


def numpy_pairwise_sum(values: Sequence[float]) -> float:
    """NumPy's ``add.reduce`` of a contiguous float64 array (module docstring).

    >>> numpy_pairwise_sum([1.0, 1e16, -1e16]), numpy_pairwise_sum([1e16] + [1.0] * 9 + [-1e16])
    (0.0, 8.0)
    """
    a = [float(v) for v in values]
    n = len(a)
    if n < 8:
        res = -0.0
        for v in a:
            res += v
        return res
    if n <= 128:
        r = a[:8]
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += a[i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return numpy_pairwise_sum(a[:n2]) + numpy_pairwise_sum(a[n2:])


def _div(a: float, b: float) -> float:
    """IEEE ``a / b`` (Python raises on ``/ 0``)."""
    if b == 0:
        if a == 0 or a != a:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)
    return a / b


def seed_softmax(scores: Sequence, epsilon, sensitivity, *, shift: bool = True,
                 exp: Callable[[float], float] = round_exp) -> tuple[float, ...]:
    """The probabilities seed 002's code computes, as float64 values (NaN included).

    ``scores`` are the float64 scores (exact numbers are rounded to the nearest float, as
    NumPy would hold them); ``epsilon``, ``sensitivity`` the floats the program passes;
    ``shift``: whether ``scores -= scores.max()`` runs; ``exp``: the exponential modelled
    (correctly rounded by default; ``math.exp`` to see this machine's C library).
    """
    s = [float(to_exact(v, "score")) for v in scores]
    if not s:
        raise InvalidArgument("scores is empty; pass one score per candidate")
    eps, sens = float(positive(epsilon, "epsilon")), float(positive(sensitivity, "sensitivity"))
    if shift:
        top = max(s)
        s = [v - top for v in s]
    two_sens = 2 * sens
    z = [(eps * v) / two_sens for v in s]
    w = [exp(v) for v in z]
    total = numpy_pairwise_sum(w)
    return tuple(_div(v, total) for v in w)


def quantile_scores(data: Sequence, candidates: Sequence, alpha="1/2") -> tuple[Fraction, ...]:
    """Seed 002's ``score_quantile_discrete``: ``-|#(x <= c) - alpha * len(x)|`` per
    candidate, exactly (NumPy computes these halves exactly for fewer than ``2**52``
    records).

    >>> quantile_scores([1, 2, 3], [1, 2, 3])
    (Fraction(-1, 2), Fraction(-1, 2), Fraction(-3, 2))
    """
    return quantile_score_values(data, candidates, alpha, form="code")


@dataclass(frozen=True)
class SoftmaxDeparture:
    """One comparison: the float probabilities with and without the shift, and whether
    each departs from the exact distribution (``departs_*``), with the largest absolute
    difference enclosed from below (``gap_*``, a Fraction; ``None`` for NaN)."""

    scores: tuple[Fraction, ...]
    shifted: tuple[float, ...]
    unshifted: tuple[float, ...]
    departs_shifted: bool
    departs_unshifted: bool
    nan_unshifted: bool
    tolerance: Fraction

    def to_dict(self) -> dict:
        return {"scores": [format_exact(s) for s in self.scores],
                "shifted": [repr(p) for p in self.shifted],
                "unshifted": [repr(p) for p in self.unshifted],
                "departs_shifted": self.departs_shifted, "departs_unshifted": self.departs_unshifted,
                "nan_unshifted": self.nan_unshifted, "tolerance": format_exact(self.tolerance)}


_ENCLOSURES: dict = {}


def _exact_probabilities(d: tuple[Fraction, ...], prec: int) -> list[tuple[Fraction, Fraction]]:
    """Enclosures ``[lo, hi]`` of ``exp(d_i) / sum_j exp(d_j)`` at ``prec`` bits (cached:
    a family of shifted scores has one pattern of differences)."""
    key = (d, prec)
    if key not in _ENCLOSURES:

        out = []
        for i in range(len(d)):
            def fn(iv, i=i):
                total = iv.mpf(0)
                for v in d:
                    total += iv.exp(exact_interval(v - d[i]))
                return 1 / total

            out.append(interval_to_fractions(enclose(fn, prec=prec)))
        if len(_ENCLOSURES) > 256:
            _ENCLOSURES.clear()
        _ENCLOSURES[key] = out
    return _ENCLOSURES[key]


def exact_softmax_departs(probabilities: Sequence[float], z: Sequence[Fraction],
                          tolerance: Fraction = DEFAULT_TOLERANCE) -> bool:
    """Whether some float probability is NaN or differs by more than ``tolerance`` from
    ``exp(z_i) / sum_j exp(z_j)`` (decided on certified enclosures refined from 64 to 3392
    bits; :class:`~exactdp.errors.Undecided` if a difference equals the tolerance to
    within that)."""
    if any(p != p for p in probabilities):
        return True
    top = max(z)
    d = tuple(v - top for v in z)
    prec = 64
    while True:
        undecided = False
        for p, (lo, hi) in zip(probabilities, _exact_probabilities(d, prec)):
            pq = from_float(p)
            if pq - hi > tolerance or lo - pq > tolerance:
                return True
            if not (pq - lo <= tolerance and hi - pq <= tolerance):
                undecided = True
        if not undecided:
            return False
        if prec >= 3392:
            raise Undecided(f"a probability differs from the exact one by the tolerance "
                            f"{format_exact(tolerance)} to within 3392 bits; change the tolerance")
        prec *= 2


def _compare(scores, epsilon, sensitivity, tolerance) -> SoftmaxDeparture:
    eps, sens = to_exact(epsilon, "epsilon"), to_exact(sensitivity, "sensitivity")
    z = [eps * s / (2 * sens) for s in scores]
    shifted = seed_softmax(scores, eps, sens, shift=True)
    unshifted = seed_softmax(scores, eps, sens, shift=False)
    return SoftmaxDeparture(tuple(scores), shifted, unshifted,
                            exact_softmax_departs(shifted, z, tolerance),
                            exact_softmax_departs(unshifted, z, tolerance),
                            any(p != p for p in unshifted), tolerance)


@dataclass(frozen=True)
class SoftmaxScan:
    """:func:`first_departure`'s answer: the first record count whose unshifted
    probabilities depart from the exact ones (``first_departure``) and the first whose
    probabilities are NaN (``first_nan``), each ``None`` if none up to ``scanned``, with
    the comparisons at those counts; ``shifted_departs_at``: the counts (if any) where the
    seed's shifted form departed too. ``exp_disagreements``: points where this machine's
    ``math.exp`` differs from the correctly rounded value."""

    family: str
    epsilon: Fraction
    sensitivity: Fraction
    scanned: int
    first_departure: int | None
    first_nan: int | None
    at_departure: SoftmaxDeparture | None
    at_nan: SoftmaxDeparture | None
    before_departure: SoftmaxDeparture | None
    shifted_departs_at: tuple[int, ...] = ()
    exp_disagreements: tuple[float, ...] = field(default=())

    def to_dict(self) -> dict:
        return {"family": self.family, "epsilon": format_exact(self.epsilon),
                "sensitivity": format_exact(self.sensitivity), "scanned": self.scanned,
                "first_departure": self.first_departure, "first_nan": self.first_nan,
                "at_departure": self.at_departure.to_dict() if self.at_departure else None,
                "at_nan": self.at_nan.to_dict() if self.at_nan else None,
                "shifted_departs_at": list(self.shifted_departs_at),
                "exp_disagreements": [repr(z) for z in self.exp_disagreements]}


def first_departure(family: Callable[[int], Sequence], epsilon, sensitivity, *, n_max: int = 4000,
                    tolerance=DEFAULT_TOLERANCE, name: str = "scores(n)") -> SoftmaxScan:
    """Scan ``n = 1..n_max``: ``family(n)`` gives the exact scores of a dataset of ``n``
    records; compare the seed's float64 probabilities with and without the shift against
    the exact distribution. Stops at the first NaN.

    The exact comparisons depend on the scores only through their differences, so they
    are made once per distinct difference pattern (a family of shifted scores costs one).
    """
    if isinstance(n_max, bool) or not isinstance(n_max, int) or n_max < 1:
        raise InvalidArgument(f"n_max={n_max!r} is not a record count >= 1")
    refuse_above(n_max, MAX_SCAN_RECORDS, what="record counts to scan", option="n_max",
                 hint="scan fewer record counts")
    tol = to_exact(tolerance, "tolerance")
    if tol <= 0:
        raise InvalidArgument(f"tolerance={format_exact(tol)} is not positive")
    eps, sens = positive(epsilon, "epsilon"), positive(sensitivity, "sensitivity")
    cache: dict = {}
    first_dep = first_nan = None
    at_dep = at_nan = before = None
    shifted_bad: list[int] = []
    disagree: list[float] = []
    previous = None
    n = 0
    for n in range(1, n_max + 1):
        scores = tuple(to_exact(v, "score") for v in family(n))
        z = [eps * s / (2 * sens) for s in scores]
        shifted = seed_softmax(scores, eps, sens, shift=True)
        unshifted = seed_softmax(scores, eps, sens, shift=False)
        top = max(z)
        key_d = tuple(v - top for v in z)
        key_s, key_u = (key_d, shifted), (key_d, unshifted)
        if key_s not in cache:
            cache[key_s] = exact_softmax_departs(shifted, z, tol)
        if key_u not in cache:
            cache[key_u] = exact_softmax_departs(unshifted, z, tol)
            fz = [(float(eps) * float(s)) / (2 * float(sens)) for s in scores]
            for v in fz:
                try:
                    m = math.exp(v)
                except OverflowError:
                    m = _INF
                if m != round_exp(v) and v not in disagree:
                    disagree.append(v)
        comparison = None
        if cache[key_s]:
            shifted_bad.append(n)
        nan = any(p != p for p in unshifted)
        if cache[key_u] and first_dep is None:
            first_dep = n
            comparison = SoftmaxDeparture(scores, shifted, unshifted, cache[key_s], True, nan, tol)
            at_dep, before = comparison, previous
        if nan:
            first_nan = n
            at_nan = comparison or SoftmaxDeparture(scores, shifted, unshifted, cache[key_s], True, True, tol)
            break
        previous = SoftmaxDeparture(scores, shifted, unshifted, cache[key_s], cache[key_u], nan, tol)
    return SoftmaxScan(name, eps, sens, n, first_dep, first_nan, at_dep, at_nan, before,
                       tuple(shifted_bad), tuple(disagree))
