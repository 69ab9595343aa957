"""Deciding the sign of an exact real number, or saying that it could not.

Rationals are decided at once. Anything else is first signed numerically, by SymPy's
``evalf`` in strict mode (which raises instead of returning digits it cannot guarantee),
asking for 15 correct significant digits with a working precision of 30, 60, 120, ...
digits up to ``max_digits``: every number that is not zero, nor
extraordinarily close to it, is decided there, whatever its algebraic degree
(``2**(1/4096) - 1``, twelve nested square roots). Only a value that no precision
separates from zero gets the exact zero test: for an algebraic number (sums, products
and quotients of radicals of rationals, as standard deviations and L2 distances produce),
its minimal polynomial is ``x``. That test is tried only when its cost, estimated
before it starts, is within budget (see :func:`zero_test_cost`); otherwise, and for
anything that is not algebraic, the answer is :class:`~exactdp.errors.Undecided`:
never a guessed one.

>>> from sympy import sqrt
>>> compare(sqrt(2) + sqrt(3), sqrt(5 + 2 * sqrt(6)))
0
>>> sign(2 ** sympy.Rational(1, 4096) - 1)
1
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp.errors import Undecided

__all__ = ["to_sympy", "sign", "compare", "to_fraction_if_rational", "zero_test_cost",
           "MAX_ZERO_TEST_DEGREE", "MAX_ZERO_TEST_BITS"]

MAX_ZERO_TEST_DEGREE = 64
"""Largest degree bound (:func:`zero_test_cost`) for which the exact zero test is tried."""

MAX_ZERO_TEST_BITS = 2_000
"""Largest ``degree bound x bits of the largest rational`` for which it is tried: SymPy's
minimal polynomial slows down with both (measured: degree 16 with 400-digit rationals, 15 s;
degree 32 with 100-digit ones, over a minute)."""

_SHOWN = 200  # characters of an expression shown in a message


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


def zero_test_cost(expr: sympy.Expr) -> tuple[int, int] | None:
    """``(degree bound, bits)`` of the exact zero test of ``expr``, or ``None`` if ``expr``
    is not built from rationals by ``+ - * /``, rational powers, ``Abs``, ``Max``, ``Min``.

    The degree bound is the product of the root indices ``q`` of every rational power
    ``a**(p/q)``, counted at each occurrence (SymPy's minimal polynomial combines the terms
    one by one, so a repeated radical costs again); ``bits`` is the size of the largest
    numerator or denominator. Computed in one walk of the expression, before any test.
    """
    degree, bits = 1, 1
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.is_Rational:
            bits = max(bits, abs(int(node.p)).bit_length(), int(node.q).bit_length())
        elif isinstance(node, sympy.Pow):
            if not node.exp.is_Rational:
                return None
            degree *= int(node.exp.q)
            if degree > 2**20:  # already far over any budget; stop multiplying
                return degree, bits
            stack.append(node.base)
        elif isinstance(node, (sympy.Add, sympy.Mul, sympy.Abs, sympy.Max, sympy.Min)):
            stack.extend(node.args)
        else:
            return None
    return degree, bits


def _numeric_sign(expr: sympy.Expr, digits: int) -> int | None:
    """The sign from 15 guaranteed significant digits (strict ``evalf``), computed with a
    working precision of at most ``digits`` digits; ``None`` if that is not enough."""
    try:
        approx = expr.evalf(15, strict=True, maxn=digits)
    except sympy.core.evalf.PrecisionExhausted:
        return None
    if approx.is_Number and approx != 0:
        return 1 if approx > 0 else -1
    return None


def _precisions(max_digits: int) -> list[int]:
    """30, 60, 120, ... below ``max_digits``, then ``max_digits`` itself."""
    out, digits = [], 30
    while digits < max_digits:
        out.append(digits)
        digits *= 2
    return out + [max_digits] if max_digits >= 30 else out


def _exactly_zero(expr: sympy.Expr) -> bool | str:
    """``True`` (zero) or ``False`` (not zero) by the minimal polynomial, or the reason the
    test was not tried."""
    cost = zero_test_cost(expr)
    if cost is None:
        return "it is not built from rationals and radicals, so no exact zero test applies"
    degree, bits = cost
    if degree > MAX_ZERO_TEST_DEGREE or degree * bits > MAX_ZERO_TEST_BITS:
        return (f"its exact zero test (a minimal polynomial of degree up to {degree:,}, numbers "
                f"of {bits:,} bits) is over budget (degree {MAX_ZERO_TEST_DEGREE}, degree x bits "
                f"{MAX_ZERO_TEST_BITS:,})")
    x = sympy.Dummy("x")
    try:
        return sympy.minimal_polynomial(expr, x) == x
    except (NotImplementedError, sympy.polys.polyerrors.PolynomialError):
        return "SymPy could not compute its minimal polynomial"


def sign(value, max_digits: int = 400) -> int:
    """-1, 0 or 1 for an exact real constant; raises :class:`Undecided` otherwise.

    Numerics first (strict ``evalf``, working precision 30, 60, ... digits up to
    ``max_digits``); the exact
    zero test only for a value they cannot separate from zero, within its budget.
    """
    expr = to_sympy(value)
    if expr.is_Rational:
        return int(bool(expr > 0)) - int(bool(expr < 0))
    if expr.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or expr.is_finite is False:
        raise Undecided(f"cannot sign {_short(expr)}: it is not a finite real number")
    if expr.free_symbols:
        raise Undecided(f"cannot sign {_short(expr)}: it still has free symbols "
                        f"{sorted(map(str, expr.free_symbols))}")
    if expr.has(sympy.I) or expr.is_extended_real is False:
        raise Undecided(f"cannot sign {_short(expr)}: it is not a real number")
    for digits in _precisions(max_digits):
        found = _numeric_sign(expr, digits)
        if found is not None:
            return found
    zero = _exactly_zero(expr)
    if zero is True:
        return 0
    if zero is False:
        raise Undecided(
            f"cannot decide the sign of {_short(expr)} at {max_digits} digits: it is not zero "
            f"(its minimal polynomial says so) but closer to zero than that; raise max_digits"
        )
    raise Undecided(
        f"cannot decide the sign of {_short(expr)} at {max_digits} digits; it may be zero, "
        f"and {zero}. Simplify the claim or raise max_digits"
    )


def compare(a, b, max_digits: int = 400) -> int:
    """Sign of ``a - b`` for exact reals."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return (a > b) - (a < b)
    return sign(to_sympy(a) - to_sympy(b), max_digits)


def _short(expr: sympy.Expr) -> str:
    shown = str(expr)
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 3] + "..."
