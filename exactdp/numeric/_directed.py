"""Directed rounding of an exact rational to a binary float format: the core that
:mod:`exactdp.numeric.rounding` (every exact input, SymPy reals through enclosures) and
:mod:`exactdp.numeric.intervals` (the endpoints of an enclosure) share.

It sits below both, so ``rounding`` may enclose irrational values with ``intervals`` and
``intervals`` may round its exact endpoints here without an import circle. The public names
are :func:`exactdp.numeric.rounding.float_at_least` / ``float_at_most``.

>>> _round_exact(Fraction(1, 10), _format("float64"), True, Fraction(1, 10))
0.1
>>> _round_exact(Fraction(1, 10), _format("float64"), False, Fraction(1, 10))
0.09999999999999999
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import show_exact

__all__ = ["FLOAT_FORMATS"]


@dataclass(frozen=True)
class _FloatFormat:
    name: str
    precision: int  # significand bits, hidden bit included
    emin: int  # exponent of the smallest normal number
    emax: int  # exponent of the largest finite number

    @property
    def max_finite(self) -> Fraction:
        return Fraction((2**self.precision - 1) * 2 ** (self.emax - self.precision + 1))

    @property
    def min_subnormal(self) -> Fraction:
        return Fraction(1, 2 ** (self.precision - 1 - self.emin))


FLOAT_FORMATS = {
    "float64": _FloatFormat("float64", 53, -1022, 1023),
    "float32": _FloatFormat("float32", 24, -126, 127),
}


def _format(dtype: object) -> _FloatFormat:
    key = dtype if isinstance(dtype, str) else getattr(dtype, "__name__", getattr(dtype, "name", dtype))
    if not isinstance(key, str) or key not in FLOAT_FORMATS:
        raise InvalidArgument(
            f"dtype={dtype!r} is not a supported float format; use 'float64' or 'float32'"
        )
    return FLOAT_FORMATS[key]


def _floor_log2(x: Fraction) -> int:
    """``e`` with ``2**e <= x < 2**(e+1)``, for ``x > 0``."""
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()
    # now 2**(e-1) < x < 2**(e+1)
    if e >= 0:
        below = n < d << e
    else:
        below = n << -e < d
    return e - 1 if below else e


def _round_positive(x: Fraction, fmt: _FloatFormat, up: bool) -> Fraction:
    """The float of ``fmt`` nearest ``x > 0`` on the requested side, as a Fraction."""
    e = _floor_log2(x)
    quantum_exp = max(e, fmt.emin) - (fmt.precision - 1)
    scaled = x / Fraction(2) ** quantum_exp  # exact
    m = scaled.numerator // scaled.denominator
    if up and m * scaled.denominator != scaled.numerator:
        m += 1
    return m * Fraction(2) ** quantum_exp



def _round_exact(value: Fraction, fmt: _FloatFormat, up: bool, shown: object) -> float:
    if abs(value) > fmt.max_finite:
        side = "smallest float >= x" if up else "largest float <= x"
        raise InvalidArgument(
            f"x={show_exact(value)} is beyond the largest finite {fmt.name} "
            f"({float(fmt.max_finite)!r}); the {side} would be infinite or meaningless. "
            f"Rescale the quantity or keep it exact"
        )
    if value == 0:
        return 0.0
    if value > 0:
        result = _round_positive(value, fmt, up)
    else:
        result = -_round_positive(-value, fmt, not up)
    return float(result) + 0.0  # exact: result is a float64 value; + 0.0 turns -0.0 into 0.0
