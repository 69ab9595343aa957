"""OpenDP's samplers as their Rust code is written (read from OpenDP's source, not copied):
the exact output distribution of what the code draws, given uniform random bytes.

:class:`OpenDPBoundedGeometric` is ``make_geometric(..., bounds=(L, U))`` (OpenDP's
``ConstantTimeGeometric``, ``sample_discrete_laplace_linear``):

* ``p = 1 - exp(-recip(scale))``, with ``recip`` rounded to nearest, ``exp`` rounded up
  (``inf_exp``, dashu's ``FBig<Up>`` at 53 bits) and the subtraction rounded down
  (``neg_inf_sub``); :func:`geometric_p` bounds it above, exactly when dashu's ``exp`` is
  correctly rounded (its rounding direction is the only property of dashu relied on);
* the input is clamped to ``[L, U]``; a fair coin picks the direction; ``U - L`` Bernoulli
  trials at ``p``'s exact binary value (``sample_bernoulli_float``, exact) step the value
  one unit per failure until the first success, so the step count is
  ``min(Geometric(p), U - L)``; a zero step in the negative direction is rejected (drawn
  again); the result is clamped to ``[L, U]``.

Its exact distribution has ``P(x + k) = (1 - p)**|k| * p / (2 - p)`` inside the bounds,
the clamped tails collect the rest, and the pure epsilon between inputs at distance ``d``
is ``min(d, U - L) * ln(1 / (1 - p))`` (:meth:`OpenDPBoundedGeometric.max_ratio` finds the
largest likelihood ratio by enumeration, at exact values).

>>> g = OpenDPBoundedGeometric(p=Fraction(1, 2), lower=0, upper=2)
>>> g.distribution(0) == {0: Fraction(2, 3), 1: Fraction(1, 6), 2: Fraction(1, 6)}
True
>>> g.max_ratio(0, 1)
Fraction(2, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument

__all__ = ["OpenDPBoundedGeometric", "geometric_p"]


@dataclass(frozen=True)
class GeometricP:
    """OpenDP's termination probability ``p`` for a scale, bounded above.

    ``recip``: ``recip(scale)``, rounded to nearest as OpenDP computes it. ``upper``:
    ``1 - e`` for ``e`` the smallest float ``>= exp(-recip)``. OpenDP's ``inf_exp``
    returns some float ``e' >= exp(-recip)`` (dashu's ``FBig<Up>`` at 53 bits: only its
    rounding direction is relied on), so ``e' >= e`` and OpenDP's ``p = 1 - e'`` (rounded
    down) is at most ``upper``, with equality when its ``exp`` is correctly rounded up. A
    smaller ``p`` means more noise, so ``upper`` gives the largest epsilon OpenDP's
    sampler can have."""

    scale: Fraction
    recip: Fraction
    upper: Fraction


def geometric_p(scale: float) -> GeometricP:
    """Bound the ``p`` of OpenDP's bounded geometric sampler at ``scale`` (a positive
    float, as OpenDP takes it).

    >>> float(geometric_p(1.0).upper)
    0.6321205588285577
    """
    from exactdp.numeric.exact import from_float
    from exactdp.numeric.intervals import exact_interval, exp, float_at_least_of
    from exactdp.numeric.rounding import float_at_most

    if isinstance(scale, bool) or not isinstance(scale, float) or not math.isfinite(scale) or scale <= 0:
        raise InvalidArgument(f"scale={scale!r}: expected a positive finite float (OpenDP's "
                              f"f64 scale); pass it as a float, e.g. 1.0")
    r = 1.0 / scale                       # Rust's f64::recip: 1/x rounded to nearest
    if r > 700.0:
        raise InvalidArgument(f"scale={scale!r}: recip(scale)={r!r} underflows exp(-r); the "
                              f"model covers scales above 1/700")
    er = from_float(r)
    e_up = from_float(float_at_least_of(lambda iv: exp(-exact_interval(er))))
    return GeometricP(from_float(scale), er, from_float(float_at_most(1 - e_up)))


@dataclass(frozen=True)
class OpenDPBoundedGeometric:
    """The output distribution of OpenDP's bounded geometric sampler at termination
    probability ``p`` (exact, in ``(0, 1)``) and integer bounds ``lower <= upper``."""

    p: Fraction
    lower: int
    upper: int

    def __post_init__(self) -> None:
        if not isinstance(self.p, Fraction) or not 0 < self.p < 1:
            raise InvalidArgument(f"p={self.p!r}: expected a Fraction in (0, 1) (OpenDP's p at "
                                  f"its exact binary value, e.g. geometric_p(scale).upper)")
        for name in ("lower", "upper"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidArgument(f"{name}={v!r}: expected an integer bound")
        if self.lower > self.upper:
            raise InvalidArgument(f"Cannot have upper={self.upper!r} < lower={self.lower!r}")
        if self.upper - self.lower > 10_000:
            from exactdp.errors import TooLarge
            raise TooLarge(f"bounds ({self.lower}, {self.upper}) span {self.upper - self.lower} "
                           f"values; the enumeration covers at most 10,000: narrow the bounds",
                           estimate=self.upper - self.lower, budget=10_000)

    def distribution(self, x: int) -> dict[int, Fraction]:
        """``P(output = y)`` for input ``x`` (any integer: OpenDP clamps it first)."""
        lo, hi, p = self.lower, self.upper, self.p
        if lo == hi:
            return {lo: Fraction(1)}
        shift = min(max(x, lo), hi)
        trials = hi - lo                        # loop iterations: (U - L - 1) + 1
        q = 1 - p
        steps = {k: q ** k * p for k in range(trials)}
        steps[trials] = q ** trials             # no success in any trial
        accept = 1 - Fraction(1, 2) * steps[0]  # a zero step in the negative direction is redrawn
        out: dict[int, Fraction] = {}
        for k, mass in steps.items():
            for sign in (1, -1):
                if sign == -1 and k == 0:
                    continue
                y = min(max(shift + sign * k, lo), hi)
                out[y] = out.get(y, Fraction(0)) + mass / 2 / accept
        return out

    def max_ratio(self, x: int, x_prime: int) -> Fraction:
        """The largest likelihood ratio ``P_x(y) / P_x'(y)`` over outputs, both ways (the
        pure epsilon is its natural log)."""
        return _ratio(self.distribution(x), self.distribution(x_prime))

    def max_ratio_at(self, d: int) -> Fraction:
        """The largest :meth:`max_ratio` over every pair of integer inputs at distance
        ``d >= 1``. OpenDP clamps the input, so every ``x`` below ``lower`` samples as
        ``lower - 1`` does and every ``x`` above ``upper`` as ``upper + 1``: the pairs
        ``(x, min(x + d, upper + 1))`` for ``x`` from ``lower - 1`` to ``upper`` cover
        every case.

        >>> g = OpenDPBoundedGeometric(p=Fraction(1, 2), lower=0, upper=2)
        >>> g.max_ratio_at(1), g.max_ratio_at(7)
        (Fraction(2, 1), Fraction(4, 1))
        """
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise InvalidArgument(f"d={d!r}: expected an integer distance >= 1")
        top = self.upper + 1
        dists = {x: self.distribution(x) for x in range(self.lower - 1, top + 1)}
        return max(_ratio(dists[x], dists[min(x + d, top)]) for x in range(self.lower - 1, top))


def _ratio(a: dict[int, Fraction], b: dict[int, Fraction]) -> Fraction:
    best = Fraction(1)
    for y in set(a) | set(b):
        pa, pb = a.get(y, Fraction(0)), b.get(y, Fraction(0))
        if (pa == 0) != (pb == 0):
            raise InvalidArgument(f"output {y} has probability 0 on one side only: the pure "
                                  f"epsilon is infinite")
        if pa:
            best = max(best, pa / pb, pb / pa)
    return best
