"""Directed rounding: from an exact value to the nearest float or Decimal on the safe side.

Public API (stable):

``float_at_least(x, dtype="float64") -> float``
    The smallest float of the format that is ``>= x``.
``float_at_most(x, dtype="float64") -> float``
    The largest float of the format that is ``<= x``.
``decimal_at_least(x, digits) -> Decimal`` / ``decimal_at_most(x, digits) -> Decimal``
    The smallest (largest) Decimal with at most ``digits`` significant digits ``>= x``
    (``<= x``): what to *display* for a parameter that must not be understated
    (overstated). ``digits`` is at most ``MAX_DECIMAL_DIGITS`` (100,000).
``exact_decimal_context(prec=...) -> decimal.Context``
    A context that traps ``Inexact``: any rounding raises instead of happening silently.
``ceiling_context(prec)`` / ``floor_context(prec)``
    Contexts rounding toward +inf / -inf (``ROUND_CEILING`` / ``ROUND_FLOOR``) with
    overflow, underflow-to-subnormal and invalid operations trapped.
``FLOAT_FORMATS``
    ``{"float64": ..., "float32": ...}``: precision and exponent range of each format.

``x`` may be anything :func:`~exactdp.numeric.exact.to_exact` takes (``int``,
``Fraction``, ``Decimal``, exact strings such as ``"1e-5"``), an ``mpmath`` real
(an ``mpf`` is an exact binary number), an ``mpmath.iv`` interval (the *upper* endpoint
is rounded up by ``float_at_least`` and the *lower* endpoint down by ``float_at_most``,
so the answer is safe for every point of the interval), or an exact SymPy real such as
``sqrt(2)`` or ``log(5/4)``, which is enclosed in ever narrower intervals until the float
on its safe side is certain. A ``float`` is refused like everywhere on the exact path:
pass ``from_float(f)`` for a float's exact value.

Results are exact: subnormals are produced exactly (``float_at_least(Fraction(1, 2**1080))``
is ``5e-324``, the smallest subnormal); a ``float32`` result is returned as a Python
float whose value is exactly a float32. Zero is returned as ``0.0`` (never ``-0.0``).

**Beyond the largest finite float** (``abs(x) > 1.7976931348623157e308`` for float64,
``3.4028234663852886e38`` for float32) both functions raise :class:`InvalidArgument`,
in both directions: the safe answer of ``float_at_least`` would be ``inf``, which is no
usable parameter, and a ``float_at_most`` that answers ``max_float`` for ``10**400``
would hide a value that should never have reached a float. The message says so.

>>> float_at_least("0.1"), float_at_most("0.1")
(0.1, 0.09999999999999999)
>>> float_at_least("0.1", "float32")
0.10000000149011612
>>> decimal_at_least("7.031826675582491442", 15)
Decimal('7.03182667558250')
>>> decimal_at_most("7.031826675582491442", 15)
Decimal('7.03182667558249')
"""

from __future__ import annotations

import decimal
import numbers
from decimal import Decimal
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.numeric._directed import FLOAT_FORMATS, _FloatFormat, _format, _round_exact
from exactdp.numeric.exact import to_exact
from exactdp.numeric.intervals import _to_fraction, interval_of_sympy, interval_to_fractions

__all__ = [
    "FLOAT_FORMATS",
    "float_at_least",
    "float_at_most",
    "decimal_at_least",
    "decimal_at_most",
    "MAX_DECIMAL_DIGITS",
    "exact_decimal_context",
    "ceiling_context",
    "floor_context",
]


def _exact_point(x: object, name: str, up: bool) -> Fraction | None:
    """``x`` as an exact rational, or ``None`` when it is an irrational SymPy real."""
    mp_value = _from_mpmath(x, name, up)
    if mp_value is not None:
        return mp_value
    if _is_sympy_expr(x) and not getattr(x, "is_Rational", False):
        return None
    return to_exact(x, name)


def _is_sympy_expr(x: object) -> bool:
    return type(x).__module__.startswith("sympy") and hasattr(x, "free_symbols")


def _mpf_to_fraction(value, name: str) -> Fraction:
    import mpmath


    if not mpmath.isfinite(value):
        raise InvalidArgument(f"{name}={value!r} is not finite; pass a finite number or a bounded interval")
    return _to_fraction(value)


def _from_mpmath(x: object, name: str, up: bool) -> Fraction | None:
    module = type(x).__module__
    if not module.startswith("mpmath"):
        return None
    import mpmath

    if isinstance(x, mpmath.mpf):
        return _mpf_to_fraction(x, name)
    if hasattr(x, "_mpi_"):  # an mpmath.iv interval: its exact endpoint, not mpf(x.b),
        # which would round the endpoint to mp.prec bits (to nearest)
        endpoint = mpmath.mp.make_mpf(x._mpi_[1] if up else x._mpi_[0])
        return _mpf_to_fraction(endpoint, name)
    raise InvalidArgument(
        f"{name}={x!r} (type {type(x).__name__}) is not a real mpmath number or interval; "
        f"pass an mpf, an iv.mpf interval or an exact number"
    )


def _round(x: object, dtype: object, up: bool) -> float:
    fmt = _format(dtype)
    name = "x"
    value = _exact_point(x, name, up)
    if value is None:
        return _round_sympy(x, fmt, up)
    return _round_exact(value, fmt, up, x)


def _round_sympy(expr, fmt: _FloatFormat, up: bool, max_prec: int = 4096) -> float:
    """Round an irrational SymPy real by enclosing it in ever narrower intervals."""
    if expr.free_symbols:
        raise InvalidArgument(
            f"x={expr!r} has free symbols {sorted(map(str, expr.free_symbols))}; substitute "
            f"numbers for them first"
        )
    prec = 64
    while True:
        lo, hi = interval_to_fractions(interval_of_sympy(expr, prec=prec))
        if up:
            candidate, other = _round_exact(hi, fmt, True, expr), _round_exact(lo, fmt, True, expr)
        else:
            candidate, other = _round_exact(lo, fmt, False, expr), _round_exact(hi, fmt, False, expr)
        if candidate == other:
            return candidate
        if prec >= max_prec:
            # The enclosure straddles a float: the exact value may be that float itself
            # (log(8)/log(2)). ``candidate`` is still on the safe side of every point of
            # the enclosure, so it is a valid answer, at most one float away from the
            # tightest one.
            return candidate
        prec *= 2


def float_at_least(x: object, dtype: str = "float64") -> float:
    """The smallest float of format ``dtype`` (``"float64"`` or ``"float32"``) that is ``>= x``.

    ``x`` is exact (see the module docstring); an ``mpmath.iv`` interval is rounded by
    its upper endpoint. For an irrational SymPy real the answer is the tightest float
    unless the value is within 2**-4096 of a float, in which case it may be one float
    above it (never below).

    >>> float_at_least("1e-5")
    1e-05
    >>> float_at_least(Fraction(1, 2**1080))
    5e-324
    """
    return _round(x, dtype, up=True)


def float_at_most(x: object, dtype: str = "float64") -> float:
    """The largest float of format ``dtype`` (``"float64"`` or ``"float32"``) that is ``<= x``.

    An ``mpmath.iv`` interval is rounded by its lower endpoint.

    >>> float_at_most("1e-5")
    9.999999999999999e-06
    >>> float_at_most(Fraction(-1, 3))
    -0.33333333333333337
    """
    return _round(x, dtype, up=False)


# --- Decimal -----------------------------------------------------------------


def _directed_context(prec: int, rounding: str) -> decimal.Context:
    if isinstance(prec, bool) or not isinstance(prec, numbers.Integral) or prec < 1:
        raise InvalidArgument(f"prec={prec!r} is not a positive integer; pass the number of significant digits")
    return decimal.Context(
        prec=int(prec),
        rounding=rounding,
        Emax=decimal.MAX_EMAX,
        Emin=decimal.MIN_EMIN,
        traps=[decimal.Overflow, decimal.InvalidOperation, decimal.DivisionByZero, decimal.Subnormal],
    )


def ceiling_context(prec: int) -> decimal.Context:
    """A Decimal context of ``prec`` digits rounding toward +infinity (``ROUND_CEILING``).

    Every operation's result is ``>=`` the exact one; overflow, subnormal results,
    invalid operations and division by zero raise.
    """
    return _directed_context(prec, decimal.ROUND_CEILING)


def floor_context(prec: int) -> decimal.Context:
    """A Decimal context of ``prec`` digits rounding toward -infinity (``ROUND_FLOOR``)."""
    return _directed_context(prec, decimal.ROUND_FLOOR)


def exact_decimal_context(prec: int = 1000) -> decimal.Context:
    """A Decimal context of ``prec`` digits that raises ``decimal.Inexact`` on any rounding.

    Use it where exactness is promised: an operation either gives the exact result or
    raises.

    >>> ctx = exact_decimal_context()
    >>> ctx.add(Decimal("0.1"), Decimal("0.2"))
    Decimal('0.3')
    >>> ctx.divide(Decimal(1), Decimal(3))
    Traceback (most recent call last):
    ...
    decimal.Inexact: [<class 'decimal.Inexact'>]
    """
    ctx = _directed_context(prec, decimal.ROUND_HALF_EVEN)
    ctx.traps[decimal.Inexact] = True
    return ctx


MAX_DECIMAL_DIGITS = 100_000
"""Most significant digits :func:`decimal_at_least` / :func:`decimal_at_most` produce (checked
before any work: ``digits=10**9`` would build a billion-digit number)."""


def _check_digits(digits: object) -> int:
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or int(digits) < 1:
        raise InvalidArgument(
            f"digits={digits!r} is not a positive integer; pass the number of significant digits to show"
        )
    if int(digits) > MAX_DECIMAL_DIGITS:
        raise InvalidArgument(
            f"digits={digits!r} is more than {MAX_DECIMAL_DIGITS:,} significant digits (the most shown); "
            f"ask for fewer digits, or keep the exact value (a Fraction) instead of a Decimal"
        )
    return int(digits)


def _decimal_directed(x: object, digits: object, ctx_factory) -> Decimal:
    digits = _check_digits(digits)
    up = ctx_factory is ceiling_context
    value = _exact_point(x, "x", up)
    if value is None:

        prec = 64 + 4 * digits
        while True:
            lo, hi = interval_to_fractions(interval_of_sympy(x, prec=prec))
            a = _decimal_directed(hi if up else lo, digits, ctx_factory)
            b = _decimal_directed(lo if up else hi, digits, ctx_factory)
            if a == b or prec > 8192:
                return a  # a is safe for the whole enclosure
            prec *= 2
    ctx = ctx_factory(digits)
    if max(value.numerator.bit_length(), value.denominator.bit_length()) > _LARGE_BITS:
        return _decimal_directed_large(value, digits, ctx, up)
    # Decimal(int) is exact whatever the context; the division rounds once, in ctx's direction.
    return ctx.divide(Decimal(value.numerator), Decimal(value.denominator))


_LARGE_BITS = 20_000
"""Above this many bits, Decimal(int) (quadratic in the digits) is avoided."""


def _decimal_directed_large(value: Fraction, digits: int, ctx: decimal.Context, up: bool) -> Decimal:
    """``value`` rounded to ``digits`` in ``ctx``'s direction without converting its huge
    numerator or denominator to Decimal: the integer ``m = floor`` (or ``ceil``) of
    ``value * 10**s``, with ``s`` chosen so that ``m`` has more than ``digits`` digits, is
    rounded again in the same direction (floor of a floor is the floor), then scaled by
    ``10**-s`` exactly."""
    n, d = abs(value.numerator), value.denominator
    if n == 0:
        return Decimal(0)
    # 10**e <= n/d < 10**(e + 2) for this estimate of the decimal exponent
    e = (n.bit_length() - d.bit_length() - 1) * 30103 // 100000 - 1
    s = digits + 2 - e
    num, den = (n * 10**s, d) if s >= 0 else (n, d * 10**-s)
    q, r = divmod(num, den)
    away = up == (value > 0)  # the magnitude is rounded up (away from zero)
    m = q + 1 if (r and away) else q
    signed = m if value > 0 else -m
    rounded = ctx.create_decimal(signed)
    result = rounded.scaleb(-s, ctx)
    if not r and rounded == signed:  # exact: written as Decimal's division would write it
        result = result.normalize(ctx)
        exponent = result.as_tuple().exponent  # an int: the value is finite
        if isinstance(exponent, int) and exponent > 0:  # the exponent nearest 0 that fits in the digits
            result = result.quantize(Decimal(1).scaleb(max(0, result.adjusted() - digits + 1)), context=ctx)
    return result


def decimal_at_least(x: object, digits: int) -> Decimal:
    """The smallest Decimal with at most ``digits`` significant digits that is ``>= x``.

    For showing a parameter that must not be understated (a noise scale, a σ, an ε
    spent): the shown number is never below the exact one.

    >>> decimal_at_least("1/3", 4)
    Decimal('0.3334')
    """
    return _decimal_directed(x, digits, ceiling_context)


def decimal_at_most(x: object, digits: int) -> Decimal:
    """The largest Decimal with at most ``digits`` significant digits that is ``<= x``.

    >>> decimal_at_most("-1/3", 4)
    Decimal('-0.3334')
    """
    return _decimal_directed(x, digits, floor_context)

