"""Discrete Laplace and discrete Gaussian noise (Canonne, Kamath, Steinke, NeurIPS 2020):
exact privacy maps, and probabilities enclosed in intervals.

Both add integer noise to an integer-valued query, so the sensitivity ``Δ`` is an integer
(for a vector query, its L1 norm for Laplace, L2 for Gaussian); a non-integer ``Δ`` is
refused.

**Discrete Laplace** with scale ``t``: ``P[X = x] = (e^{1/t} - 1)/(e^{1/t} + 1) ·
e^{-|x|/t}`` over the integers; adding it is ``(Δ/t)``-DP, exactly.

**Discrete Gaussian** ``N_Z(0, σ²)``: ``P[X = x] ∝ e^{-x²/(2σ²)}``; adding it is
``Δ²/(2σ²)``-zCDP and ``(ε, δ(ε))``-DP for the exact (tight)

    δ(ε) = P[X > εσ²/Δ - Δ/2] - e^ε · P[X > εσ²/Δ + Δ/2]          (CKS20, Thm 7)

which :func:`discrete_gaussian_delta` encloses: the sums over the integers are truncated
at ``M`` and the dropped tail is bounded rigorously by :func:`discrete_gaussian_tail_bound`:

    Σ_{x > M} e^{-x²/(2σ²)} <= e^{-(M+1)²/(2σ²)} / (1 - e^{-(M+1)/σ²})     (M >= 0),

because ``x = M+1+j`` gives ``x² >= (M+1)² + 2(M+1)j`` (drop ``j² >= 0``), so the terms
are at most a geometric series of ratio ``e^{-(M+1)/σ²} < 1``. The normalising constant
``Σ_x e^{-x²/(2σ²)} = 1 + 2 Σ_{x >= 1} ...`` is enclosed the same way.

>>> discrete_laplace_epsilon(sensitivity=2, scale="1/2")
Fraction(4, 1)
>>> discrete_gaussian_rho(sensitivity=1, sigma_squared=1)
Fraction(1, 2)
>>> discrete_gaussian_delta(epsilon=1, sigma_squared=1).delta_float
0.14135133940562192
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import nonnegative, positive
from exactdp.numeric.exact import format_exact, show_exact, to_exact
from exactdp.numeric.intervals import (
    decide,
    enclose,
    exact_interval,
    interval_to_fractions,
)
from exactdp.numeric.rounding import float_at_least

__all__ = [
    "DEFAULT_MAX_TERMS",
    "DiscreteGaussianDelta",
    "discrete_gaussian_delta",
    "discrete_gaussian_rho",
    "discrete_gaussian_sigma_squared",
    "discrete_gaussian_tail_bound",
    "discrete_laplace_epsilon",
    "discrete_laplace_pmf",
    "discrete_laplace_scale",
    "discrete_laplace_tail",
]

DEFAULT_MAX_TERMS = 1_000_000
"""Most terms :func:`discrete_gaussian_delta` sums for one tail (the normalising constant
needs about ``σ·sqrt(2·(prec+16)·ln 2)``: 14,000 for ``σ² = 10^6`` at 128 bits);
above it, :class:`TooLarge`."""

_TARGET_REL_WIDTH = Fraction(1, 2**60)
"""The enclosure of δ is refined until (upper - lower) <= this times upper."""

_START_PREC = 64
_MAX_PREC = 1024


# --- argument checks --------------------------------------------------------------


def _integer_sensitivity(value, *, allow_zero: bool = True) -> int:
    d = to_exact(value, "sensitivity")
    if d.denominator != 1:
        raise InvalidArgument(
            f"sensitivity={value!r} is not an integer; discrete noise is added to an "
            f"integer-valued query, whose sensitivity is an integer. Scale the query so its "
            f"values are integers (the sensitivity scales too), or use the integer bound "
            f"ceil(sensitivity)={math.ceil(d)}"
        )
    if d < 0 or (d == 0 and not allow_zero):
        expected = "at least 0" if allow_zero else "at least 1"
        raise InvalidArgument(f"sensitivity={value!r} is not {expected}; pass the query's integer sensitivity")
    return int(d)


def _integer(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} is not an int; the noise takes integer values")
    return value


# --- discrete Laplace ------------------------------------------------------------


def discrete_laplace_epsilon(sensitivity, scale) -> Fraction:
    """``ε = Δ/t``, exactly: discrete Laplace noise of scale ``t`` on an integer query of
    (L1) sensitivity ``Δ`` is ε-DP.

    >>> discrete_laplace_epsilon(1, "0.5")
    Fraction(2, 1)
    """
    return _integer_sensitivity(sensitivity) / positive(scale, "scale")


def discrete_laplace_scale(sensitivity, epsilon) -> Fraction:
    """The scale ``t = Δ/ε`` that makes discrete Laplace noise exactly ε-DP.

    >>> discrete_laplace_scale(3, "1/2")
    Fraction(6, 1)
    """
    return _integer_sensitivity(sensitivity) / positive(epsilon, "epsilon")


def discrete_laplace_pmf(x: int, scale, *, prec: int = 64):
    """An ``mpmath.iv`` enclosure of ``P[X = x]`` for discrete Laplace noise of scale ``t``:
    ``(e^{1/t} - 1)/(e^{1/t} + 1) · e^{-|x|/t}``, computed with ``prec`` bits plus about
    ``log2(t)`` guard bits (lost to the cancellation in ``e^{1/t} - 1``).

    >>> from exactdp.numeric.rounding import float_at_least, float_at_most
    >>> p = discrete_laplace_pmf(0, 1)
    >>> float_at_most(p), float_at_least(p)
    (0.46211715726000974, 0.4621171572600098)
    """
    x = _integer(x, "x")
    t = positive(scale, "scale")

    def fn(iv):
        e = iv.exp(1 / exact_interval(t))
        return (e - 1) / (e + 1) * iv.exp(-abs(x) / exact_interval(t))

    # e^{1/t} - 1 cancels about log2(t) bits for a large t: work with that many more
    guard = max(0, t.numerator.bit_length() - t.denominator.bit_length()) + 8
    return enclose(fn, prec=prec + guard)


def discrete_laplace_tail(n: int, scale, *, prec: int = 64):
    """An ``mpmath.iv`` enclosure of ``P[X > n]`` for discrete Laplace noise of scale ``t``.

    With ``q = e^{-1/t}``: ``q^{n+1}/(1+q)`` for ``n >= 0`` (a geometric series), and
    ``1 - q^{-n}/(1+q)`` for ``n < 0`` (by symmetry).
    """
    n = _integer(n, "n")
    t = positive(scale, "scale")

    def fn(iv):
        q = iv.exp(-1 / exact_interval(t))
        if n >= 0:
            return q ** (n + 1) / (1 + q)
        return 1 - q ** (-n) / (1 + q)

    return enclose(fn, prec=prec)


# --- discrete Gaussian -------------------------------------------------------------


def discrete_gaussian_rho(sensitivity, sigma_squared) -> Fraction:
    """``ρ = Δ²/(2σ²)``, exactly: discrete Gaussian noise ``N_Z(0, σ²)`` on an integer
    query of L2 sensitivity ``Δ`` is ρ-zCDP (CKS20, Thm 4).

    >>> discrete_gaussian_rho(2, "1/2")
    Fraction(4, 1)
    """
    d = _integer_sensitivity(sensitivity)
    return Fraction(d * d) / (2 * positive(sigma_squared, "sigma_squared"))


def discrete_gaussian_sigma_squared(sensitivity, rho) -> Fraction:
    """The ``σ² = Δ²/(2ρ)`` that makes discrete Gaussian noise exactly ρ-zCDP.

    >>> discrete_gaussian_sigma_squared(1, "1/2")
    Fraction(1, 1)
    """
    d = _integer_sensitivity(sensitivity)
    return Fraction(d * d) / (2 * positive(rho, "rho"))


def discrete_gaussian_tail_bound(m: int, sigma_squared, *, prec: int = 64):
    """An ``mpmath.iv`` enclosure of ``B(m) = e^{-(m+1)²/(2σ²)} / (1 - e^{-(m+1)/σ²})``,
    an upper bound on the unnormalised tail ``Σ_{x > m} e^{-x²/(2σ²)}``, for ``m >= 0``.

    Proof: for ``x = m+1+j`` with ``j >= 0``, ``x² >= (m+1)² + 2(m+1)j``, so each term is
    at most ``e^{-(m+1)²/(2σ²)} · r^j`` with ``r = e^{-(m+1)/σ²} < 1``; sum over ``j``.
    """
    m = _integer(m, "m")
    if m < 0:
        raise InvalidArgument(f"m={m!r} is negative; the bound holds for m >= 0 (use symmetry below 0)")
    s2 = positive(sigma_squared, "sigma_squared")
    return enclose(lambda iv: _tail_bound(iv, m, s2), prec=prec)


def _tail_bound(iv, m: int, s2: Fraction):
    k = m + 1
    return iv.exp(-exact_interval(Fraction(k * k) / (2 * s2))) / (1 - iv.exp(-exact_interval(k / s2)))


@dataclass(frozen=True)
class DiscreteGaussianDelta:
    """The exact δ(ε) of the discrete Gaussian, enclosed: ``lower <= δ <= upper``
    (exact Fractions), ``delta_interval`` the same as an ``mpmath.iv`` interval and
    ``delta_float`` the smallest float ``>= upper`` (so never below δ).

    ``precision`` (bits) and ``terms`` (terms summed in all, the normalising constant
    included) say how it was computed.
    """

    epsilon: Fraction
    sigma_squared: Fraction
    sensitivity: int
    lower: Fraction
    upper: Fraction
    delta_float: float
    precision: int
    terms: int
    delta_interval: object

    def at_most(self, delta) -> bool:
        """Whether the exact δ(ε) is ``<= delta``, refining until decided (may raise
        :class:`~exactdp.errors.Undecided`)."""
        d = nonnegative(delta, "delta")
        if self.upper <= d:
            return True
        if self.lower > d:
            return False
        fn = _delta_enclosure(self.epsilon, self.sigma_squared, self.sensitivity, DEFAULT_MAX_TERMS * 8)
        return decide(fn, "<=", d, start_prec=self.precision * 2, max_prec=_MAX_PREC * 4)

    def to_dict(self) -> dict:
        return {
            "epsilon": format_exact(self.epsilon),
            "sigma_squared": format_exact(self.sigma_squared),
            "sensitivity": self.sensitivity,
            "delta": {"interval": [format_exact(self.lower), format_exact(self.upper)],
                      "float_at_least": self.delta_float},
            "precision": self.precision,
            "terms": self.terms,
        }


def _truncation_point(n: int, s2: Fraction, prec: int) -> int:
    """An ``M >= n`` with ``e^{-(M+1)²/(2σ²)} <= 2^-(prec+16) e^{-n²/(2σ²)}``: the tail
    dropped after ``M`` is far below the first term kept (``ln 2 < 0.6932``)."""
    need = n * n + math.ceil(2 * s2 * (prec + 16) * Fraction(6932, 10000))
    return max(n, math.isqrt(need) + 1)


def _gaussian_sum_from(iv, n: int, s2: Fraction, max_terms: int, eps: Fraction) -> tuple:
    """Enclose ``Σ_{x >= n} e^{-x²/(2σ²)}`` for ``n >= 1``: the terms ``n..M`` plus
    ``[0, B(M)]``. Returns ``(enclosure, number of terms)``."""
    m = _truncation_point(n, s2, iv.prec)
    terms = m - n + 1
    refuse_above(terms, max_terms, what=f"terms needed by the discrete Gaussian with "
                 f"sigma_squared={show_exact(s2)} at epsilon={show_exact(eps)} ({iv.prec} bits)",
                 option="max_terms", hint="use a smaller sigma_squared")
    c = exact_interval(1 / (2 * s2))
    # e^{-(x+1)²c} = e^{-x²c} · e^{-c} · (e^{-2c})^x: two products per term
    term = iv.exp(-(n * n) * c)
    step = iv.exp(-(2 * n + 1) * c)
    ratio = iv.exp(-2 * c)
    total = iv.mpf(0)
    for _ in range(terms):
        total += term
        term *= step
        step *= ratio
    return total + iv.mpf([0, _tail_bound(iv, m, s2).b]), terms


def _delta_enclosure(eps: Fraction, s2: Fraction, d: int, max_terms: int, record: dict | None = None):
    """``fn(iv)`` enclosing δ(ε); the truncation points follow ``iv.prec``."""
    a = eps * s2 / d - Fraction(d, 2)  # X > a  <=>  X >= floor(a) + 1
    na = math.floor(a) + 1
    nb = na + d  # b = a + d, and nb >= 1 since a >= -d/2
    # P[X >= n] for n <= 0 is 1 - P[X >= 1 - n] (symmetry), so every sum starts at >= 1.
    starts = sorted({1, nb, na if na >= 1 else 1 - na})

    def fn(iv):
        sums, terms = {}, 0
        for n in starts:
            sums[n], count = _gaussian_sum_from(iv, n, s2, max_terms, eps)
            terms += count
        if record is not None:
            record["terms"] = terms
        z = 1 + 2 * sums[1]
        pa = sums[na] / z if na >= 1 else 1 - sums[1 - na] / z
        pb = sums[nb] / z
        return pa - iv.exp(exact_interval(eps)) * pb

    return fn


def _below_smallest_float(interval) -> bool:
    """Whether the interval's upper end is below ``2**-1074`` (read from its raw form)."""
    sign, man, exp, bc = interval._mpi_[1]
    return man != 0 and bc >= 0 and (sign or exp + bc <= -1074)


def discrete_gaussian_delta(epsilon, sigma_squared, sensitivity=1, *,
                            max_terms: int = DEFAULT_MAX_TERMS) -> DiscreteGaussianDelta:
    """The exact δ(ε) of discrete Gaussian noise ``N_Z(0, σ²)`` on an integer query of
    sensitivity ``Δ``, enclosed in an interval and rounded up to a float (CKS20, Thm 7).

    The enclosure is refined (64, 128, ... up to 1024 bits) until its width is at most
    ``2**-60`` of its upper end, so ``delta_float`` is the tightest float or one above;
    if that precision does not suffice the wider enclosure is returned, still valid. The
    lower end is clipped at 0 (δ is a hockey-stick divergence, never negative). A δ
    below ``2**-1074``, the smallest positive float, is reported as ``[0, 2**-1074]``.

    >>> r = discrete_gaussian_delta(epsilon=1, sigma_squared=1)
    >>> float(r.lower), r.delta_float, r.precision, r.terms
    (0.14135133940562192, 0.14135133940562192, 128, 29)
    >>> r.at_most("0.1413513394056220"), r.at_most("0.1413513394056219")
    (True, False)
    """
    eps = nonnegative(epsilon, "epsilon")
    s2 = positive(sigma_squared, "sigma_squared")
    d = _integer_sensitivity(sensitivity)
    if isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 1:
        raise InvalidArgument(f"max_terms={max_terms!r} is not a positive int")
    if d == 0:  # the output does not depend on the data
        zero = enclose(lambda iv: iv.mpf(0), prec=_START_PREC)
        return DiscreteGaussianDelta(eps, s2, 0, Fraction(0), Fraction(0), 0.0, 0, 0, zero)
    record: dict = {}
    fn = _delta_enclosure(eps, s2, d, max_terms, record)
    prec = _START_PREC
    while True:
        interval = enclose(fn, prec=prec)
        if _below_smallest_float(interval):
            # δ < 2**-1074: report the looser, still valid [0, 2**-1074] rather than
            # Fractions with denominators of millions of bits; the safe float is the same.
            tiny = Fraction(1, 2**1074)
            return DiscreteGaussianDelta(eps, s2, d, Fraction(0), tiny, float_at_least(tiny), prec,
                                         record["terms"], enclose(lambda iv: iv.mpf([0, iv.mpf(2) ** -1074]),
                                                                  prec=prec))
        lo, hi = interval_to_fractions(interval)
        if lo < 0:
            lo = Fraction(0)
            interval = enclose(lambda iv, upper_end=interval.b: iv.mpf([0, upper_end]), prec=prec)
        if hi - lo <= _TARGET_REL_WIDTH * hi or prec >= _MAX_PREC:
            break
        prec *= 2
    return DiscreteGaussianDelta(eps, s2, d, lo, hi, float_at_least(hi), prec, record["terms"], interval)
