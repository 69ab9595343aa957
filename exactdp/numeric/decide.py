"""Deciding the sign of an exact real number, or saying that it could not.

Rationals are decided at once. Algebraic numbers (sums of square roots, as standard
deviations and L2 distances produce) are tested for zero with their minimal polynomial
and otherwise signed by SymPy's ``evalf`` in strict mode, which raises instead of
returning digits it cannot guarantee. Anything left is :class:`~exactdp.errors.Undecided`:
never a guessed answer.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp.errors import Undecided

__all__ = ["to_sympy", "sign", "compare", "to_fraction_if_rational"]


def to_sympy(value) -> sympy.Expr:
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int) and not isinstance(value, bool):
        return sympy.Integer(value)
    if isinstance(value, sympy.Expr):
        if value.has(sympy.Float):
            raise TypeError(f"value={value!r} contains a float; exact values only")
        return value
    raise TypeError(f"value={value!r} is not an exact number")


def to_fraction_if_rational(value):
    expr = to_sympy(value)
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    return expr


def sign(value, max_digits: int = 400) -> int:
    """-1, 0 or 1 for an exact real constant; raises :class:`Undecided` otherwise."""
    expr = to_sympy(value)
    if expr.is_Rational:
        return int(bool(expr > 0)) - int(bool(expr < 0))
    if expr.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or expr.is_finite is False:
        raise Undecided(f"cannot sign {expr}: it is not a finite real number")
    if expr.free_symbols:
        raise Undecided(f"cannot sign {expr}: it still has free symbols {sorted(map(str, expr.free_symbols))}")
    if expr.is_algebraic:
        x = sympy.Dummy("x")
        try:
            if sympy.minimal_polynomial(expr, x) == x:
                return 0
        except (NotImplementedError, sympy.polys.polyerrors.PolynomialError):
            pass
    digits = 30
    while digits <= max_digits:
        try:
            approx = expr.evalf(digits, strict=True)
        except sympy.core.evalf.PrecisionExhausted:
            digits *= 2
            continue
        if approx.is_Number and approx != 0:
            return 1 if approx > 0 else -1
        digits *= 2
    raise Undecided(
        f"cannot decide the sign of {expr} at {max_digits} digits; it may be zero. "
        f"Simplify the claim or raise max_digits"
    )


def compare(a, b, max_digits: int = 400) -> int:
    """Sign of ``a - b`` for exact reals."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return (a > b) - (a < b)
    return sign(to_sympy(a) - to_sympy(b), max_digits)
