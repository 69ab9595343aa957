"""NumPy's float64 Laplace sampler, modelled on its real grid: which outputs one input can
produce and a neighbour cannot.

Seed 000 (*Sensitivity*, "Clipping") releases ``v + np.random.laplace(loc=0,
scale=sensitivity/epsilon)``. What NumPy computes (``numpy/random/src/distributions/
distributions.c``, ``random_laplace``; numpy main of 2026-08, unchanged since 1.17)::

    U = next_double(bitgen)
    if U >= 0.5:   U = loc - scale * log(2.0 - U - U)
    elif U > 0.0:  U = loc + scale * log(U + U)
    else:          draw again                       # U == 0 rejected

and ``next_double`` is ``k / 2**53`` with ``k`` uniform on ``0 .. 2**53 - 1`` for both
entry points: the legacy ``np.random.laplace`` (``RandomState``, MT19937:
``(a * 67108864.0 + b) / 9007199254740992.0`` with ``a`` 27 bits, ``b`` 26 bits) and
``Generator.laplace`` (PCG64: ``(next_uint64 >> 11) * (1.0 / 9007199254740992.0)``). So
``k`` is uniform on ``1 .. 2**53 - 1`` (:data:`GRID_POINTS` equally likely points).

The model, every operation in float64 rounded to nearest even (exact rationals,
:data:`~exactdp.numeric.floatformat.FLOAT64`):

* ``U + U = 2U`` is exact; ``2.0 - U - U`` is ``(2.0 - U) - U``: ``2.0 - U`` is exact for
  even ``k`` and a tie (rounded to even) for odd ``k``; the second subtraction is exact
  (a multiple of ``2**-53`` below 1). So ``t = 2 - 2U`` or ``2 - 2U +- 2**-53``;
* ``log`` is the **correctly rounded** natural logarithm (certified enclosures). This
  machine's ``math.log`` (the C library's ``log``, which NumPy's C code calls) is compared
  with it at every point a witness rests on (``libm_agrees``);
* ``scale * log(...)`` rounded; ``loc`` is 0, so ``loc +- r`` is ``+-r`` exactly (a fused
  multiply-add would give the same);
* the release ``v + noise`` rounded (``v`` a float64: an ``int64`` sum below ``2**53`` is).

The noise is then **non-decreasing in k** (``t`` strictly decreasing for ``U >= 1/2``,
``2U`` increasing below, a correctly rounded log and roundings monotone), and so is the
output. The set of outputs of an input ``x`` is the image of the ``2**53 - 1`` grid
points; it is never listed. What is decided, per output ``o``: the exact number of grid
points ``k`` with ``fl(x + Y_k) = o`` (two bisections over ``k``, 53 steps each), hence
``P(o | x) = count / (2**53 - 1)`` exactly, for ``x`` and its neighbour ``x'``. An output
with a positive count under ``x`` and none under ``x'`` is an **infinite privacy loss**
with that witness. What is not decided: the largest loss over all outputs, or the total
probability of such outputs (neither is enumerated); a check that finds no witness
answers undecided, never "holds".

Two kinds of witness: the **edge** (the smallest output ``fl(x + Y_1)``, ``Y_1 = scale *
ln(2**-52)``, below every output of ``x + Delta``: the noise is bounded by about ``36.7
scale``), and **porous** outputs strictly inside the neighbour's range that it skips
(Mironov 2012): in the tails consecutive noise values are ``scale/k`` apart, far more
than the spacing of floats near ``x``, so the outputs of ``x`` and of ``x + Delta`` are
two sparse sets that need not meet.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import format_exact, from_float, to_exact
from exactdp.numeric.floatformat import FLOAT64
from exactdp.numeric.intervals import exact_interval, refine_until

__all__ = [
    "GRID_BITS",
    "GRID_POINTS",
    "NumpyLaplaceOutput",
    "NumpyLaplaceWitness",
    "numpy_laplace_count",
    "numpy_laplace_noise",
    "numpy_laplace_output",
    "numpy_laplace_scale",
    "numpy_laplace_witness",
]

GRID_BITS = 53
GRID_POINTS = 2**53 - 1
"""Equally likely draws: ``k = 1 .. 2**53 - 1`` (``k = 0`` is rejected and redrawn)."""

_N = 2**53
_HALF = 2**52


@functools.lru_cache(maxsize=8192)
def _log(t: Fraction) -> Fraction:
    """``ln t`` correctly rounded to float64 (``t`` a positive float64, ``t <= 1``)."""
    if t == 1:
        return Fraction(0)

    def done(lo: Fraction, hi: Fraction):
        a, b = FLOAT64.round(lo), FLOAT64.round(hi)
        return a if a == b else None

    return refine_until(lambda iv: iv.log(exact_interval(t)), done, start_prec=80)


def _log_argument(k: int) -> tuple[Fraction, bool]:
    """``t`` passed to ``log`` for draw ``k`` and whether ``U >= 1/2``."""
    u = Fraction(k, _N)
    if k >= _HALF:
        a = FLOAT64.round(2 - u)
        t = a - u
        assert FLOAT64.is_representable(t)
        return t, True
    return 2 * u, False


def numpy_laplace_scale(sensitivity, epsilon) -> Fraction:
    """``sensitivity / epsilon`` as the program holds it: both taken as float64 (the
    nearest float to the exact number given; a Python float at its binary value) and
    divided in float64.

    >>> numpy_laplace_scale(80, "0.01")
    Fraction(8000, 1)
    """
    s = FLOAT64.round(_exactish(sensitivity, "sensitivity"))
    e = FLOAT64.round(_exactish(epsilon, "epsilon"))
    if s <= 0 or e <= 0:
        raise InvalidArgument(f"sensitivity={format_exact(s)} and epsilon={format_exact(e)} must "
                              f"both be positive")
    return FLOAT64.round(s / e)


def _exactish(value, name: str) -> Fraction:
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidArgument(f"{name}={value!r} is not finite")
        return from_float(value)
    return to_exact(value, name)


def _scale(scale) -> Fraction:
    b = FLOAT64.round(_exactish(scale, "scale"))
    if b <= 0:
        raise InvalidArgument(f"scale={format_exact(b)} is not positive; pass sensitivity/epsilon")
    return b


def _k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= GRID_POINTS:
        raise InvalidArgument(f"k={k!r} is not a draw from 1 to 2**53 - 1")
    return k


def numpy_laplace_noise(k: int, scale) -> Fraction:
    """The noise ``np.random.laplace(0, scale)`` returns when ``next_double`` gives
    ``k / 2**53``, exactly (module docstring).

    >>> numpy_laplace_noise(2**52, 1), numpy_laplace_noise(1, 1) == -Fraction(36.04365338911715)
    (Fraction(0, 1), True)
    """
    k, b = _k(k), _scale(scale)
    t, upper = _log_argument(k)
    r = FLOAT64.round(b * _log(t))
    return -r if upper else r


def numpy_laplace_output(x, k: int, scale) -> Fraction:
    """``fl(x + noise_k)``: the released float64 for input ``x`` (rounded to float64
    first, as the program holds it) and draw ``k``."""
    xv = FLOAT64.round(_exactish(x, "x"))
    return FLOAT64.round(xv + numpy_laplace_noise(k, scale))


def _first_k(x: Fraction, b: Fraction, target: Fraction, strict: bool) -> int:
    """The first ``k`` in ``1 .. 2**53`` whose output is ``>= target`` (``> target`` when
    ``strict``); ``2**53`` when none (monotone outputs: bisection)."""
    lo, hi = 1, _N
    while lo < hi:
        mid = (lo + hi) // 2
        o = numpy_laplace_output(x, mid, b)
        if (o > target) if strict else (o >= target):
            hi = mid
        else:
            lo = mid + 1
    return lo


@dataclass(frozen=True)
class NumpyLaplaceOutput:
    """An output ``o`` and its exact number of draws under ``x`` (``count``): the draws
    ``first .. first + count - 1``; ``P(o | x) = count / (2**53 - 1)``."""

    x: Fraction
    output: Fraction
    count: int
    first: int

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, GRID_POINTS)


def numpy_laplace_count(x, output, scale) -> NumpyLaplaceOutput:
    """How many of the ``2**53 - 1`` draws give exactly ``output`` from input ``x``
    (two bisections; decided exactly in the model).

    >>> numpy_laplace_count(0, 0, 1).count
    1
    """
    xv = FLOAT64.round(_exactish(x, "x"))
    o = _exactish(output, "output")
    b = _scale(scale)
    first = _first_k(xv, b, o, strict=False)
    after = _first_k(xv, b, o, strict=True)
    return NumpyLaplaceOutput(xv, o, after - first, first)


def _libm_agrees(k: int, b: Fraction) -> bool:
    """Whether this machine's ``math.log`` gives the correctly rounded value at draw ``k``."""
    if not 1 <= k <= GRID_POINTS:
        return True
    t, _ = _log_argument(k)
    return from_float(math.log(float(t))) == _log(t)


@dataclass(frozen=True)
class NumpyLaplaceWitness:
    """An output one input produces and its neighbour cannot: ``kind`` ``edge`` or
    ``porous``; ``under_x`` (a positive count) and ``under_x_prime`` (count 0, with the
    draw ``bracket`` where the neighbour's outputs step over it: ``fl(x' + Y_{j-1}) < o <
    fl(x' + Y_j)``); ``neighbour_range``: the neighbour's smallest and largest outputs;
    ``libm_agrees``: this machine's ``math.log`` agrees with the correctly rounded log at
    the draws the witness rests on."""

    kind: str
    scale: Fraction
    under_x: NumpyLaplaceOutput
    under_x_prime: NumpyLaplaceOutput
    bracket: int
    neighbour_range: tuple[Fraction, Fraction]
    libm_agrees: bool

    @property
    def output(self) -> Fraction:
        return self.under_x.output

    def summary(self) -> str:
        o = self.output
        return (f"output {float(o)!r} (= {format_exact(o)}) has probability {self.under_x.count}/(2^53 - 1) "
                f"from x = {format_exact(self.under_x.x)} (draw k = {self.under_x.first}) and 0 from "
                f"x' = {format_exact(self.under_x_prime.x)}, whose outputs step over it between draws "
                f"{self.bracket - 1} and {self.bracket}: infinite privacy loss ({self.kind})")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "output": repr(float(self.output)), "output_exact": format_exact(self.output),
                "x": format_exact(self.under_x.x), "x_prime": format_exact(self.under_x_prime.x),
                "scale": format_exact(self.scale), "draw": self.under_x.first,
                "count_x": self.under_x.count, "count_x_prime": self.under_x_prime.count,
                "grid_points": GRID_POINTS, "bracket": [self.bracket - 1, self.bracket],
                "neighbour_range": [repr(float(v)) for v in self.neighbour_range],
                "libm_agrees": self.libm_agrees}


def _witness_at(xv, xp, b, k, kind, neighbour_range) -> NumpyLaplaceWitness | None:
    o = numpy_laplace_output(xv, k, b)
    mine = numpy_laplace_count(xv, o, b)
    theirs = numpy_laplace_count(xp, o, b)
    if mine.count == 0 or theirs.count != 0:
        return None
    j = theirs.first  # first draw of x' whose output is >= o, hence > o
    agrees = all(_libm_agrees(i, b) for i in (k, j - 1, j))
    return NumpyLaplaceWitness(kind, b, mine, theirs, j, neighbour_range, agrees)


def numpy_laplace_witness(x, x_prime, scale, *, kind: str = "porous",
                          draws: tuple[int, ...] = (2**20, 2**24, 2**30, 2**16, 2**10, 1000)
                          ) -> NumpyLaplaceWitness | None:
    """An output of ``x`` that ``x_prime`` cannot produce under NumPy's Laplace sampler
    with ``scale`` (a float64, e.g. :func:`numpy_laplace_scale`), or ``None`` if the
    outputs examined give none (undecided: not a proof of anything).

    ``kind="edge"``: the smallest output of ``x`` (``x < x_prime``) or the largest
    (``x > x_prime``). ``kind="porous"``: for each draw ``k`` in ``draws`` (tails of the
    distribution, on the side away from ``x_prime``, and mirrored), the output of ``x`` is
    examined; the first strictly inside the neighbour's range of outputs with no draw of
    the neighbour is returned.
    """
    xv = FLOAT64.round(_exactish(x, "x"))
    xp = FLOAT64.round(_exactish(x_prime, "x_prime"))
    b = _scale(scale)
    if xv == xp:
        raise InvalidArgument(f"x={format_exact(xv)} and x_prime={format_exact(xp)} are the same "
                              f"float64; a neighbour must differ")
    rng = (numpy_laplace_output(xp, 1, b), numpy_laplace_output(xp, GRID_POINTS, b))
    if kind == "edge":
        return _witness_at(xv, xp, b, 1 if xv < xp else GRID_POINTS, "edge", rng)
    if kind != "porous":
        raise InvalidArgument(f"kind={kind!r} is not 'edge' or 'porous'")
    for d in draws:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d < _HALF:
            raise InvalidArgument(f"draws contains {d!r}; each is a draw from 1 to 2**52 - 1 "
                                  f"(mirrored for the upper tail)")
        for k in (d, _N - d):
            o = numpy_laplace_output(xv, k, b)
            if not rng[0] < o < rng[1]:
                continue
            w = _witness_at(xv, xp, b, k, "porous", rng)
            if w is not None:
                return w
    return None
