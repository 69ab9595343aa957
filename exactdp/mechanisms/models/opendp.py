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

:class:`FloatDiscreteLaplace` and :class:`FloatDiscreteGaussian` are ``make_laplace`` /
``make_gaussian`` on ``atom_domain(T=float)`` (OpenDP's ``FloatExpFamily``, module
``measurements/noise/nature/float``):

* the input float (``+-inf`` clamped to ``+-MAX``) is rounded to the nearest multiple of
  ``2**k``, ties up (``find_nearest_multiple_of_2k``: ``c = floor(x / 2**k + 1/2)``); ``k``
  defaults to ``-1074`` (``get_min_k``: every float is a multiple, no rounding);
* exact CKS20 discrete Laplace or Gaussian noise of scale ``scale * 2**-k`` is added to
  ``c`` (``sample_discrete_laplace`` / ``sample_discrete_gaussian``, rational arithmetic;
  OpenDP before 0.14.2 drew it with a biased rational division, issue #2638). The classes
  here use the ideal discrete distributions; :mod:`~exactdp.mechanisms.models.opendp_samplers`
  follows OpenDP 0.16's sampler code step by step down to the random bytes and shows that
  it draws exactly those (``verify_discrete_laplace`` / ``verify_discrete_gaussian`` at the
  integer scale :attr:`FloatDiscreteLaplace.integer_scale`);
* the integer ``n`` is released as ``from_rational(n * 2**k)``: the nearest float, ties to
  even (dashu's correctly rounded ``RBig::to_f64``), saturating to ``+-inf``;
* the map charges ``d_in + 2**k - 2**-1074`` (``get_rounding_distance``) in place of
  ``d_in``, then ``inf_cast`` (rounded up) of ``(d_in + r) / scale`` (Laplace, pure) or
  ``((d_in + r) / scale)**2 / 2`` (Gaussian, zCDP).

The float output is a function of ``n``, so its loss is at most the integer one between
the rounded inputs. Below ``2**(53 + k)`` each float is exactly one ``n * 2**k``; above,
runs of integers share one float (:meth:`FloatDiscreteLaplace.preimage`), whose mass is
a geometric series summed exactly (Laplace, an :class:`~exactdp.mechanisms.models._exppoly.ExpPoly`
ratio) or enclosed (Gaussian, :meth:`FloatDiscreteGaussian.mass_enclosure`).

>>> lap = FloatDiscreteLaplace(k=-2, scale=Fraction(1))
>>> lap.round_input(0.375), lap.round_input(0.374), lap.output(5), lap.preimage(2.0**51)
(2, 1, 1.25, (9007199254740992, 9007199254740993))
>>> lap.epsilon(0.375, 0.374)      # |2 - 1| / (1 * 2**2), attained at the output 0.5
(Fraction(1, 4), 0.5)
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.errors import TooLarge
from exactdp.numeric.exact import from_float
from exactdp.numeric.intervals import enclose, erfc, exact_interval, exp, float_at_least_of, interval_to_fractions
from exactdp.numeric.rounding import float_at_most

__all__ = ["FloatDiscreteGaussian", "FloatDiscreteLaplace", "OpenDPBoundedGeometric", "geometric_p"]


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


# -- make_laplace / make_gaussian on floats (FloatExpFamily) ---------------------------------------

MIN_K = -1074
"""OpenDP's ``get_min_k::<f64>()``: ``2**-1074`` is the spacing of the subnormal floats."""

_OVERFLOW = Fraction(2**1024 - 2**970)
"""Half-way between the largest float and ``2**1024``: at or above it a rational rounds to
``inf`` (round to nearest, ties to even; the largest float's last bit is odd)."""


def _two_to(k: int) -> Fraction:
    return Fraction(2) ** k


def _ceil_div(a: Fraction, b: Fraction) -> int:
    return -((-a) // b)


def _is_odd_float(y: float) -> bool:
    """The last bit of ``y``'s significand (``0.0``: even)."""
    return (Fraction(y) / Fraction(math.ulp(y))).numerator % 2 == 1


@dataclass(frozen=True)
class _FloatLattice:
    """What ``make_laplace`` and ``make_gaussian`` share on a float domain: the rounding of
    the input to a multiple of ``2**k``, the scale on the integer lattice, and the float
    each integer is released as."""

    k: int
    scale: Fraction

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not MIN_K <= self.k <= 2**31 - 1:
            raise InvalidArgument(f"k={self.k!r}: expected an integer from {MIN_K} (OpenDP's "
                                  f"get_min_k for f64, its default) to 2**31 - 1")
        if isinstance(self.scale, bool) or not isinstance(self.scale, (int, Fraction)) or self.scale <= 0:
            raise InvalidArgument(f"scale={self.scale!r}: expected a positive exact number; pass "
                                  f"OpenDP's float scale at its exact value, e.g. Fraction(1.7)")
        object.__setattr__(self, "scale", Fraction(self.scale))

    @property
    def integer_scale(self) -> Fraction:
        """``scale * 2**-k``: the scale of the noise on the integers (``integerize_scale``)."""
        return self.scale / _two_to(self.k)

    @property
    def rounding_distance(self) -> Fraction:
        """``2**k - 2**-1074``: what OpenDP adds to ``d_in`` (``get_rounding_distance``, one
        element)."""
        return _two_to(self.k) - _two_to(MIN_K)

    def round_input(self, x: float) -> int:
        """The integer ``c`` OpenDP adds noise to: ``x`` (``+-inf`` clamped to the largest
        finite float) rounded to the nearest multiple of ``2**k``, ties up, divided by
        ``2**k``."""
        if isinstance(x, bool) or not isinstance(x, float) or x != x:
            raise InvalidArgument(f"x={x!r}: expected a float that is not NaN (OpenDP refuses a "
                                  f"domain with NaN); pass the float the library receives")
        x = min(max(x, -sys.float_info.max), sys.float_info.max)
        return math.floor(Fraction(x) / _two_to(self.k) + Fraction(1, 2))

    def output(self, n: int) -> float:
        """The float OpenDP releases for the noisy integer ``n``: ``n * 2**k`` rounded to
        nearest, ties to even, beyond the largest float ``+-inf``."""
        q = n * _two_to(self.k)
        if abs(q) >= _OVERFLOW:
            return math.inf if q > 0 else -math.inf
        return float(q)   # int / int in CPython: correctly rounded, ties to even

    def preimage(self, y: float) -> tuple[int | None, int | None] | None:
        """The integers ``n`` released as ``y``: ``(lo, hi)`` (``None`` for an open end),
        or ``None`` when no integer is (``-0.0``, or a float between two multiples of
        ``2**k``). One integer below ``2**(53 + k)``; runs of them above."""
        if isinstance(y, bool) or not isinstance(y, float) or y != y:
            raise InvalidArgument(f"y={y!r}: expected a float that is not NaN")
        K = _two_to(self.k)
        if math.isinf(y):
            return ((_ceil_div(_OVERFLOW, K), None) if y > 0 else (None, (-_OVERFLOW) // K))
        if y == 0 and math.copysign(1.0, y) < 0:
            return None
        yf = Fraction(y)
        below, above = math.nextafter(y, -math.inf), math.nextafter(y, math.inf)
        low = -_OVERFLOW if math.isinf(below) else (Fraction(below) + yf) / 2
        high = _OVERFLOW if math.isinf(above) else (Fraction(above) + yf) / 2
        closed = not _is_odd_float(y)        # a tie goes to the even neighbour
        lo, hi = _ceil_div(low, K), high // K
        if not closed and lo * K == low:
            lo += 1
        if not closed and hi * K == high:
            hi -= 1
        return (lo, hi) if lo <= hi else None

    def _offsets(self, x: float, y: float):
        span = self.preimage(y)
        if span is None:
            return None
        c = self.round_input(x)
        return (None if span[0] is None else span[0] - c, None if span[1] is None else span[1] - c)


@dataclass(frozen=True)
class FloatDiscreteLaplace(_FloatLattice):
    """OpenDP's ``make_laplace`` on a float (see the module docstring): the exact output
    distribution over floats, and the exact pure epsilon between two inputs."""

    def mass(self, x: float, y: float):
        """``P(output = y)`` for input ``x`` as ``(numerator, denominator)``, two
        :class:`~exactdp.mechanisms.models._exppoly.ExpPoly` (exact: ``q = exp(-1/s)``,
        ``s = scale * 2**-k``, ``P(n) = (1-q)/(1+q) q^|n-c|`` summed over the preimage of
        ``y`` as a geometric series); ``None`` when ``y`` is not an output."""
        from exactdp.mechanisms.models._exppoly import ExpPoly  # lazy: loads SymPy, which this module does not import at load

        ab = self._offsets(x, y)
        if ab is None:
            return None
        s = self.integer_scale
        one = ExpPoly.constant(1)

        def at_least(m):   # (1 + q) * P(Z >= m)
            if m is None:
                return ExpPoly()
            if m >= 1:
                return ExpPoly.monomial(Fraction(-m) / s)
            return one + ExpPoly.monomial(-1 / s) - ExpPoly.monomial(Fraction(m - 1) / s)

        a, b = ab
        top = at_least(None if b is None else b + 1)
        return (one + ExpPoly.monomial(-1 / s) if a is None else at_least(a)) - top, one + ExpPoly.monomial(-1 / s)

    def epsilon(self, x: float, x_prime: float) -> tuple[Fraction, float]:
        """The pure epsilon of the float outputs between inputs ``x`` and ``x_prime``, and
        an output attaining it: exactly ``|c - c'| / s``. Every integer's likelihood ratio
        is at most ``exp(|c - c'|/s)``, so every float's (a sum over integers) is too; on
        a float whose integers all lie at or beyond ``max(c, c')`` each ratio equals it."""
        c, c2 = self.round_input(x), self.round_input(x_prime)
        top = max(c, c2)
        y = self.output(top)
        while self.preimage(y)[0] < top:      # collapsed onto a float that reaches below
            y = math.nextafter(y, math.inf)
        return Fraction(abs(c - c2)) / self.integer_scale, y


@dataclass(frozen=True)
class FloatDiscreteGaussian(_FloatLattice):
    """OpenDP's ``make_gaussian`` on a float (see the module docstring): each float's
    probability enclosed, and the zCDP bound between two inputs."""

    def rho_bound(self, x: float, x_prime: float) -> Fraction:
        """``(c - c')**2 / (2 s**2)``: the discrete Gaussian's zCDP between the rounded
        inputs, an upper bound on the float outputs' (post-processing). Strictly above it
        when ``c != c'``: far integers share floats, which lowers every Renyi divergence."""
        c, c2 = self.round_input(x), self.round_input(x_prime)
        return Fraction((c - c2) ** 2) / (2 * self.integer_scale ** 2)

    def mass_enclosure(self, x: float, y: float, prec: int = 64) -> tuple[Fraction, Fraction] | None:
        """Exact ``(lo, hi)`` around ``P(output = y)`` for input ``x`` (``None`` when
        ``y`` is not an output). ``P(n) = exp(-(n-c)**2/(2 s**2)) / Z``; ``Z`` is enclosed
        by Poisson summation, ``Z = s sqrt(2 pi) (1 + 2 sum_j r**(j**2))`` with
        ``r = exp(-2 pi**2 s**2)`` and ``r <= sum_j r**(j**2) <= r/(1-r)``; a run of up to
        64 integers is summed term by term, a longer one between its integrals
        ``int_a^(b+1) <= sum <= f(a) + int_a^b``."""
        ab = self._offsets(x, y)
        if ab is None:
            return None
        s = self.integer_scale

        def fn(iv):
            S = exact_interval(s)
            pi = iv.pi
            r = iv.exp(-2 * pi ** 2 * S ** 2)
            root = S * iv.sqrt(2 * pi)
            Z = root * (1 + 2 * r + 2 * r * r / (1 - r) * iv.mpf([0, 1]))   # sum_j r^(j^2) in [r, r/(1-r)]

            def f(m):
                return iv.exp(-exact_interval(Fraction(m * m)) / (2 * S ** 2))

            def integral(a, b):   # int_a^b f, 0 <= a <= b (b None: infinity)
                tail = 0 if b is None else erfc(exact_interval(Fraction(b)) / (S * iv.sqrt(2)))
                value = S * iv.sqrt(pi / 2) * (erfc(exact_interval(Fraction(a)) / (S * iv.sqrt(2))) - tail)
                return value * iv.mpf([0, 1]) if value.a < 0 else value

            def run(a, b):        # sum of f(m) for a <= m <= b, 0 <= a
                if b is not None and b - a < 64:
                    total = iv.mpf(0)
                    for m in range(a, b + 1):
                        total += f(m)
                    return total
                lower = integral(a, None if b is None else b + 1)
                upper = f(a) + integral(a, b)
                return iv.mpf([lower.a, upper.b])

            a, b = ab
            if a is not None and a >= 0:
                total = run(a, b)
            elif b is not None and b <= 0:
                total = run(-b, None if a is None else -a)
            else:
                total = run(0, b) + run(1, None if a is None else -a)
            return total / Z

        lo, hi = interval_to_fractions(enclose(fn, prec=prec))
        return max(lo, Fraction(0)), min(hi, Fraction(1))
