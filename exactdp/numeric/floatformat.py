"""Binary floating-point formats as sets of exact rationals.

A :class:`FloatFormat` is an IEEE-754-style binary format with ``precision`` significand
bits (the hidden bit included), exponents ``emin..emax`` and gradual underflow
(subnormals). Its finite values are the rationals

* ``m * 2**(e - precision + 1)`` with ``2**(precision-1) <= m < 2**precision`` and
  ``emin <= e <= emax`` (normal), and
* ``m * 2**(emin - precision + 1)`` with ``0 <= m < 2**(precision-1)`` (zero and subnormal).

Everything here is exact (:class:`~fractions.Fraction`); no float is used. Signed zeros,
infinities and NaNs are not modelled: a rounding that would overflow raises
:class:`FloatOverflow` (an :class:`OverflowError`) instead of returning infinity.

>>> FLOAT64.round(Fraction(1, 10)) == Fraction(0.1)
True
>>> t = FloatFormat.toy(precision=3, emin=-2, emax=3)
>>> [str(v) for v in t.values_between(1, 2)]
['1', '5/4', '3/2', '7/4', '2']
>>> t.max_value, t.min_subnormal
(Fraction(14, 1), Fraction(1, 16))
>>> t.round(Fraction(9, 8)), t.round(Fraction(11, 8))  # ties to even
(Fraction(1, 1), Fraction(3, 2))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from fractions import Fraction

from exactdp.errors import ExactDPError, InvalidArgument, TooLarge
from exactdp.numeric.exact import to_exact

__all__ = [
    "FLOAT16",
    "FLOAT32",
    "FLOAT64",
    "FloatFormat",
    "FloatOverflow",
    "exact_value",
    "format_named",
]


class FloatOverflow(ExactDPError, OverflowError):
    """A rounded result would exceed the largest finite value of the format."""


def exact_value(value: object, name: str = "value") -> Fraction:
    """The exact rational value of a number that may be a float.

    Python floats (and NumPy ``float16``/``float32``/``float64`` scalars) are taken at
    their exact binary value; everything else goes through :func:`~exactdp.to_exact`.
    Infinities and NaNs are refused.

    >>> exact_value(0.5), exact_value("1/3")
    (Fraction(1, 2), Fraction(1, 3))
    """
    if isinstance(value, float) or _is_numpy_float(value):
        f = float(value)  # exact: float16/32/64 all embed in float64
        if f != f or f in (float("inf"), float("-inf")):
            raise InvalidArgument(f"{name}={value!r} is not finite; pass a finite number")
        return Fraction(f)
    return to_exact(value, name)


def _is_numpy_float(value: object) -> bool:
    dtype = getattr(value, "dtype", None)
    return (type(value).__module__ == "numpy" and dtype is not None and dtype.kind == "f"
            and dtype.itemsize <= 8 and getattr(value, "ndim", 1) == 0)


def _pow2(k: int) -> Fraction:
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def floor_log2(a: Fraction) -> int:
    """``floor(log2(a))`` for a rational ``a > 0``, exactly.

    >>> floor_log2(Fraction(1, 3)), floor_log2(Fraction(8)), floor_log2(Fraction(15, 2))
    (-2, 3, 2)
    """
    num, den = a.numerator, a.denominator
    e = num.bit_length() - den.bit_length()
    # a lies in (2**(e-1), 2**(e+1)): decide whether a >= 2**e.
    if e >= 0:
        return e if num >= den << e else e - 1
    return e if num << -e >= den else e - 1


@dataclasses.dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format with subnormals, as a set of exact rationals.

    ``precision`` counts significand bits including the hidden bit (53 for float64, 24
    for float32); ``emin`` and ``emax`` are the IEEE exponents of the smallest and
    largest normal binades (float64: -1022 and 1023).
    """

    name: str
    precision: int
    emin: int
    emax: int

    def __post_init__(self) -> None:
        for field in ("precision", "emin", "emax"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidArgument(f"{field}={v!r} is not an int; pass an integer")
        if self.precision < 2:
            raise InvalidArgument(
                f"precision={self.precision!r} is below 2; pass the number of significand "
                f"bits including the hidden bit (53 for float64, 24 for float32)")
        if self.emin > self.emax:
            raise InvalidArgument(
                f"Cannot have emin={self.emin!r} > emax={self.emax!r}; pass emin <= emax")

    # -- constructors -------------------------------------------------------------------

    @classmethod
    def toy(cls, precision: int, emin: int, emax: int, name: str | None = None) -> FloatFormat:
        """A small format for exhaustive checks, e.g. ``FloatFormat.toy(3, -2, 3)``."""
        return cls(name or f"toy(p={precision},emin={emin},emax={emax})", precision, emin, emax)

    # -- constants ----------------------------------------------------------------------

    @property
    def unit_roundoff(self) -> Fraction:
        """``u = 2**-precision``: the relative error bound of round-to-nearest."""
        return _pow2(-self.precision)

    @property
    def max_value(self) -> Fraction:
        """The largest finite value, ``(2 - 2**(1-p)) * 2**emax``."""
        return (2 - _pow2(1 - self.precision)) * _pow2(self.emax)

    @property
    def min_normal(self) -> Fraction:
        """The smallest positive normal value, ``2**emin``."""
        return _pow2(self.emin)

    @property
    def min_subnormal(self) -> Fraction:
        """The smallest positive value, ``2**(emin - p + 1)``."""
        return _pow2(self.emin - self.precision + 1)

    # -- rounding -----------------------------------------------------------------------

    def _quantum(self, a: Fraction) -> int:
        """log2 of the spacing of the format in the binade of ``a > 0`` (``ulp``)."""
        return max(floor_log2(a), self.emin) - self.precision + 1

    def round(self, x: object) -> Fraction:
        """``x`` rounded to the nearest value of the format, ties to even.

        Raises :class:`FloatOverflow` when the result would exceed :attr:`max_value`
        (where IEEE arithmetic would return infinity).
        """
        x = exact_value(x, "x")
        if x == 0:
            return Fraction(0)
        a = abs(x)
        k = self._quantum(a)
        if k >= 0:
            m = round(Fraction(a.numerator, a.denominator << k))
        else:
            m = round(Fraction(a.numerator << -k, a.denominator))
        r = m * _pow2(k)
        if r > self.max_value:
            raise FloatOverflow(
                f"x={x!r} rounds beyond the largest finite value of {self.name} "
                f"({self.max_value}); IEEE arithmetic would return infinity")
        return r if x > 0 else -r

    def is_representable(self, x: object) -> bool:
        """Whether ``x`` (exact, or a float at its binary value) is a finite value here."""
        x = exact_value(x, "x")
        if abs(x) > self.max_value:
            return False
        return self.round(x) == x

    def ulp(self, x: object) -> Fraction:
        """The spacing of the format in the binade of ``x``: ``2**(max(e, emin) - p + 1)``
        with ``2**e <= |x| < 2**(e+1)``; ``min_subnormal`` for ``x = 0``.

        For a representable ``x >= 0`` below ``max_value`` it is ``next_up(x) - x``.
        """
        x = exact_value(x, "x")
        if x == 0:
            return self.min_subnormal
        return _pow2(self._quantum(abs(x)))

    def next_up(self, x: object) -> Fraction:
        """The smallest value of the format strictly above ``x`` (``x`` any exact number).

        Raises :class:`FloatOverflow` when ``x >= max_value``.
        """
        x = exact_value(x, "x")
        if x < 0:
            return -self._next_down_pos(-x)
        if x == 0:
            return self.min_subnormal
        k = self._quantum(x)
        q = _pow2(k)
        r = (x / q).__floor__() * q + q
        if r > self.max_value:
            raise FloatOverflow(
                f"x={x!r} has no larger finite value in {self.name} (largest {self.max_value})")
        return r

    def next_down(self, x: object) -> Fraction:
        """The largest value of the format strictly below ``x``.

        Raises :class:`FloatOverflow` when ``x <= -max_value``.
        """
        x = exact_value(x, "x")
        if x > 0:
            return self._next_down_pos(x)
        return -self.next_up(-x)

    def _next_down_pos(self, x: Fraction) -> Fraction:
        if x > self.max_value:
            return self.max_value
        e = floor_log2(x)
        if e > self.emin and x == _pow2(e):
            q = _pow2(e - self.precision)  # the spacing in the binade below
        else:
            q = _pow2(self._quantum(x))
        return (x / q).__ceil__() * q - q

    def values_between(self, lo: object, hi: object, *, limit: int = 1_000_000) -> list[Fraction]:
        """All values of the format in ``[lo, hi]``, ascending (for small formats).

        Raises :class:`~exactdp.errors.TooLarge` when there are more than ``limit``.
        """
        return list(self._iter_between(exact_value(lo, "lo"), exact_value(hi, "hi"), limit))

    def _iter_between(self, lo: Fraction, hi: Fraction, limit: int) -> Iterator[Fraction]:
        if lo > hi:
            raise InvalidArgument(f"Cannot have lo={lo!r} > hi={hi!r}; pass lo <= hi")
        lo = max(lo, -self.max_value)
        v = lo if self.is_representable(lo) else self.next_up(lo)
        count = 0
        while v <= hi:
            count += 1
            if count > limit:
                raise TooLarge(
                    f"more than limit={limit} values of {self.name} lie in [{lo}, {hi}]; "
                    f"use a smaller format or a narrower range", estimate=count, budget=limit)
            yield v
            if v >= self.max_value:
                return
            v = self.next_up(v)

    def __str__(self) -> str:
        return self.name


FLOAT64 = FloatFormat("float64", 53, -1022, 1023)
"""IEEE 754 binary64 (Python ``float``)."""
FLOAT32 = FloatFormat("float32", 24, -126, 127)
"""IEEE 754 binary32 (``numpy.float32``)."""
FLOAT16 = FloatFormat("float16", 11, -14, 15)
"""IEEE 754 binary16 (``numpy.float16``)."""

_NAMED = {f.name: f for f in (FLOAT64, FLOAT32, FLOAT16)}


def format_named(name: object) -> FloatFormat:
    """The format called ``name`` ("float64", "float32", "float16"); a
    :class:`FloatFormat` is returned unchanged.

    >>> format_named("float32").precision
    24
    """
    if isinstance(name, FloatFormat):
        return name
    if isinstance(name, str) and name.lower() in _NAMED:
        return _NAMED[name.lower()]
    raise InvalidArgument(
        f"fmt={name!r} is not a known float format; pass one of {sorted(_NAMED)} "
        f"or a FloatFormat (e.g. FloatFormat.toy(precision=3, emin=-2, emax=3))")
