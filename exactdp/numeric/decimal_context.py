"""Python's ``decimal`` module as a program uses it: a context (precision, rounding), and
what a sum, a mean or a mechanism parameter computed in it is, next to the exact value.

``decimal`` is not arbitrary precision: every arithmetic result is rounded to the
context's ``prec`` significant digits (28 by default, ``ROUND_HALF_EVEN``). Only the
constructor is exact (``Decimal('0.1')`` is one tenth). So ``Decimal('0.1') +
Decimal('0.2') == Decimal('0.3')`` holds, but ``Decimal(1) / Decimal(3) * 3`` is
``0.9999999999999999999999999999``, the mean of ``(1, 0, 0)`` is ``1/3`` rounded, and a
sum of values in ``[0, 1/2]`` can move by ``1`` when one record is added (a sum of 28
nines plus ``0.5`` rounds, ties to even, to ``10**28``).

Every function here runs the real ``decimal`` arithmetic in a fresh context built from a
:class:`DecimalContext` (no global state is read or changed; nothing is trapped but
invalid operations, division by zero and overflow, as in Python's default context), and
returns a :class:`DecimalOutcome`: the ``Decimal`` the program holds, the exact
``Fraction`` the same expression has, and their difference, all exact.

Inputs must be exact decimals (ints, decimal strings, ``Decimal``, or a ``Fraction``
whose denominator divides a power of ten): the constructor would hold them exactly. A
float is refused (``Decimal(0.1)`` holds the float's binary value; pass ``'0.1'``).

>>> decimal_chain(1, [("/", 3), ("*", 3)]).decimal
Decimal('0.9999999999999999999999999999')
>>> decimal_chain(1, [("/", 3), ("*", 3)]).error
Fraction(-1, 10000000000000000000000000000)
>>> decimal_sum(["0.1", "0.2"]).exact_match
True
"""

from __future__ import annotations

import decimal
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Iterable, Sequence

from exactdp.errors import InexactInput, InvalidArgument, TooLarge
from exactdp.numeric.exact import format_exact

__all__ = [
    "DEFAULT_CONTEXT",
    "MAX_DECIMAL_PRECISION",
    "ROUNDINGS",
    "DecimalContext",
    "DecimalOutcome",
    "decimal_chain",
    "decimal_mean",
    "decimal_quotient",
    "decimal_sum",
    "decimal_value",
]

MAX_DECIMAL_PRECISION = 100_000
"""Largest ``precision`` a :class:`DecimalContext` accepts (digits of every intermediate
result; ``decimal`` itself allows ``999999999999999999``, which would build numbers of a
billion digits)."""

ROUNDINGS = ("ROUND_HALF_EVEN", "ROUND_HALF_UP", "ROUND_HALF_DOWN", "ROUND_UP", "ROUND_DOWN",
             "ROUND_CEILING", "ROUND_FLOOR", "ROUND_05UP")
"""The rounding modes of :mod:`decimal`, by their names."""


@dataclass(frozen=True)
class DecimalContext:
    """A ``decimal`` context: ``precision`` significant digits and a ``rounding`` mode
    (one of :data:`ROUNDINGS`, or the ``decimal`` constant of the same name).

    >>> DecimalContext()
    DecimalContext(precision=28, rounding='ROUND_HALF_EVEN')
    """

    precision: int = 28
    rounding: str = "ROUND_HALF_EVEN"

    def __post_init__(self):
        p = self.precision
        if isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 1:
            raise InvalidArgument(
                f"precision={p!r} is not a number of significant digits >= 1; Python's "
                f"default context has precision=28")
        if p > MAX_DECIMAL_PRECISION:
            raise TooLarge(
                f"precision={p!r} digits is over MAX_DECIMAL_PRECISION={MAX_DECIMAL_PRECISION:,}; "
                f"use fewer digits, or compute exactly with Fractions",
                estimate=int(p), budget=MAX_DECIMAL_PRECISION)
        object.__setattr__(self, "precision", int(p))
        if self.rounding not in ROUNDINGS:
            raise InvalidArgument(f"rounding={self.rounding!r} is not one of {', '.join(ROUNDINGS)}")

    def context(self) -> decimal.Context:
        """A fresh :class:`decimal.Context` with this precision and rounding and Python's
        default traps (invalid operation, division by zero, overflow)."""
        return decimal.Context(prec=self.precision, rounding=getattr(decimal, self.rounding),
                               Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                               traps=[decimal.InvalidOperation, decimal.DivisionByZero,
                                      decimal.Overflow])

    def __str__(self) -> str:
        return f"precision {self.precision}, {self.rounding}"


DEFAULT_CONTEXT = DecimalContext()
"""Python's default context: 28 digits, ``ROUND_HALF_EVEN``."""


def _context(context: object) -> DecimalContext:
    if context is None:
        return DEFAULT_CONTEXT
    if isinstance(context, DecimalContext):
        return context
    if isinstance(context, decimal.Context):
        return DecimalContext(context.prec, context.rounding)
    raise InvalidArgument(f"context={context!r} is not a DecimalContext; pass "
                          f"DecimalContext(precision=28, rounding='ROUND_HALF_EVEN')")


def decimal_value(value: object, name: str = "value") -> Decimal:
    """``value`` as the exact ``Decimal`` a program constructs from it (refusing floats and
    numbers with no finite decimal expansion).

    >>> decimal_value("0.1"), decimal_value(Fraction(1, 8))
    (Decimal('0.1'), Decimal('0.125'))
    """
    if isinstance(value, bool):
        raise InvalidArgument(f"{name}={value!r} is a bool; pass a number")
    if isinstance(value, float):
        raise InexactInput(f"{name}={value!r} is a float; Decimal(float) holds its binary value, "
                           f"pass the decimal string instead ('{value!r}')")
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidArgument(f"{name}={value!r} is not finite; pass a finite number")
        return value
    if isinstance(value, numbers.Integral):
        return Decimal(int(value))
    if isinstance(value, str):
        try:
            d = Decimal(value.strip())
        except decimal.InvalidOperation:
            d = None
        if d is None or not d.is_finite():
            try:
                q = Fraction(value.strip())
            except (ValueError, ZeroDivisionError):
                raise InvalidArgument(f"{name}={value!r} is not a finite decimal number; "
                                      f"write it like '0.1' or '3/8'") from None
            return decimal_value(q, name)
        return d
    if isinstance(value, Fraction):
        den, twos, fives = value.denominator, 0, 0
        while den % 2 == 0:
            den //= 2
            twos += 1
        while den % 5 == 0:
            den //= 5
            fives += 1
        if den != 1:
            raise InvalidArgument(
                f"{name}={format_exact(value)} has no finite decimal expansion, so no Decimal "
                f"holds it; compute it in the context (decimal_chain) or pass a decimal string")
        k = max(twos, fives)
        scaled = value * 10**k  # an integer
        return Decimal(int(scaled)).scaleb(-k, decimal.Context(prec=len(str(abs(int(scaled)))) + 1))
    raise InvalidArgument(f"{name}={value!r} is not a number; pass an int, a decimal string, a "
                          f"Decimal or a Fraction")


@dataclass(frozen=True)
class DecimalOutcome:
    """What ``decimal`` computed (``decimal``), the exact value of the same expression
    (``exact``), and ``error = decimal - exact``, under ``context``."""

    what: str
    decimal: Decimal
    exact: Fraction
    context: DecimalContext

    @property
    def error(self) -> Fraction:
        return Fraction(self.decimal) - self.exact

    @property
    def exact_match(self) -> bool:
        return self.error == 0

    def summary(self) -> str:
        if self.exact_match:
            return f"{self.what} = {self.decimal} in decimal ({self.context}), exactly {format_exact(self.exact)}"
        return (f"{self.what} = {self.decimal} in decimal ({self.context}), exactly "
                f"{format_exact(self.exact)}: off by {format_exact(self.error)}")

    def to_dict(self) -> dict:
        return {"what": self.what, "decimal": str(self.decimal), "exact": format_exact(self.exact),
                "error": format_exact(self.error), "precision": self.context.precision,
                "rounding": self.context.rounding}


_OPS = {"+": ("__add__", lambda a, b: a + b), "-": ("__sub__", lambda a, b: a - b),
        "*": ("__mul__", lambda a, b: a * b), "/": ("__truediv__", lambda a, b: a / b)}


def decimal_chain(start: object, ops: Iterable[tuple[str, object]], context: object = None) -> DecimalOutcome:
    """``((start op1 x1) op2 x2) ...`` in ``decimal`` under ``context``, each operation
    rounded as Python rounds it, beside the exact value. ``ops`` is a list of ``(op,
    operand)`` with ``op`` one of ``+ - * /``.

    >>> decimal_chain(2, [("/", 3)], DecimalContext(5)).decimal
    Decimal('0.66667')
    """
    ctx = _context(context)
    c = ctx.context()
    d = decimal_value(start, "start")
    exact = Fraction(d)
    shown = str(d)
    for i, step in enumerate(ops):
        if not isinstance(step, tuple) or len(step) != 2 or step[0] not in _OPS:
            raise InvalidArgument(f"ops[{i}]={step!r} is not a pair (op, operand) with op one of "
                                  f"{' '.join(_OPS)}")
        op, operand = step
        x = decimal_value(operand, f"ops[{i}] operand")
        if op == "/" and x == 0:
            raise InvalidArgument(f"ops[{i}]={step!r} divides by zero")
        d = getattr(c, {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}[op])(d, x)
        exact = _OPS[op][1](exact, Fraction(x))
        shown = f"{shown} {op} {x}" if i == 0 else f"({shown}) {op} {x}"
    return DecimalOutcome(shown, d, exact, ctx)


def decimal_sum(values: Sequence[object], context: object = None) -> DecimalOutcome:
    """``sum(values, Decimal(0))`` (left to right, each ``+`` rounded) under ``context``.

    >>> decimal_sum(["9999999999999999999999999999", "0.5"]).decimal
    Decimal('1.000000000000000000000000000E+28')
    """
    ctx = _context(context)
    c = ctx.context()
    xs = [decimal_value(v, f"values[{i}]") for i, v in enumerate(values)]
    acc = Decimal(0)
    for x in xs:
        acc = c.add(acc, x)
    return DecimalOutcome(f"sum of {len(xs)} values", acc, sum((Fraction(x) for x in xs), Fraction(0)), ctx)


def decimal_mean(values: Sequence[object], context: object = None) -> DecimalOutcome:
    """``sum(values, Decimal(0)) / len(values)`` under ``context`` (the chapter's average:
    a sum divided by a count).

    >>> str(decimal_mean([1, 0, 0]).error)
    '-1/30000000000000000000000000000'
    """
    ctx = _context(context)
    xs = list(values)
    if not xs:
        raise InvalidArgument("values is empty; a mean needs at least one value")
    s = decimal_sum(xs, ctx)
    d = ctx.context().divide(s.decimal, Decimal(len(xs)))
    return DecimalOutcome(f"mean of {len(xs)} values", d, s.exact / len(xs), ctx)


def decimal_quotient(numerator: object, denominator: object, context: object = None,
                     what: str = "quotient") -> DecimalOutcome:
    """A mechanism parameter computed in ``decimal``: ``numerator / denominator`` (the
    Laplace scale ``sensitivity / epsilon``, for instance), rounded once.

    >>> decimal_quotient(1, 3, what="scale").decimal
    Decimal('0.3333333333333333333333333333')
    """
    out = decimal_chain(numerator, [("/", denominator)], context)
    return DecimalOutcome(what, out.decimal, out.exact, out.context)
