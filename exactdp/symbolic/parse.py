"""Safe parsing of claim formulas into SymPy expressions.

User text never reaches ``eval``, ``sympify`` or ``parse_expr``. The text is parsed by
Python's :mod:`ast` and only a small grammar is rebuilt into SymPy: numbers (decimal
literals are read *exactly* from their digits, so ``0.1`` is one tenth), the names
the caller allows, ``+ - * / ** ^``, parentheses, and the functions ``sqrt``, ``Abs``
(``abs``), ``Max`` (``max``), ``Min`` (``min``), ``floor``, ``ceiling``, ``log``,
``exp``. Anything else is refused with an error that names it.

>>> parse_expression("U - L", {"U": 3, "L": -1})
4
>>> parse_expression("d_in/2*(U-L)", ["d_in", "U", "L"])
d_in*(-L + U)/2
>>> parse_expression("0.1")
1/10
"""

from __future__ import annotations

import ast
from fractions import Fraction
from typing import Iterable, Mapping

import sympy

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import to_exact

__all__ = ["parse_expression", "ALLOWED_FUNCTIONS"]

ALLOWED_FUNCTIONS = {
    "sqrt": sympy.sqrt, "Abs": sympy.Abs, "abs": sympy.Abs, "Max": sympy.Max,
    "max": sympy.Max, "Min": sympy.Min, "min": sympy.Min, "floor": sympy.floor,
    "ceiling": sympy.ceiling, "log": sympy.log, "exp": sympy.exp,
}
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E}
_MAX_LENGTH = 2000
_MAX_BITS = 12_000  # a numeric power may not exceed about 2**_MAX_BITS (~3,600 digits,
# below Python's 4,300-digit limit for printing an int)
_MAX_EXP_ARGUMENT = 1000  # exp(x) of a number: |x| <= 1000 (e**1000 has 435 digits)
_MAX_FLOORED = 10**15  # floor/ceiling of an irrational constant: |x| below this


def _fail(text: str, what: str) -> InvalidArgument:
    return InvalidArgument(
        f"claim={text!r} {what}; a claim is arithmetic (+ - * / ** ^) on numbers, the "
        f"parameters and {', '.join(sorted(set(ALLOWED_FUNCTIONS) - {'abs', 'max', 'min'}))}"
    )


def parse_expression(
    text: str,
    names: Mapping[str, object] | Iterable[str] = (),
) -> sympy.Expr:
    """Parse ``text`` into a SymPy expression.

    ``names`` are the parameters allowed: a mapping substitutes a value (int,
    ``Fraction`` or SymPy expression) for each name; an iterable of names keeps them
    as SymPy symbols.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"claim={text!r} is not a string")
    if len(text) > _MAX_LENGTH:
        raise InvalidArgument(f"claim of {len(text)} characters is too long (at most {_MAX_LENGTH})")
    if isinstance(names, Mapping):
        env = {k: _as_sympy(v) for k, v in names.items()}
    else:
        env = {k: sympy.Symbol(k, real=True) for k in names}
    source = text.replace("^", "**").strip()
    if not source:
        raise _fail(text, "is empty")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise _fail(text, "is not a formula") from None
    except (RecursionError, MemoryError):
        raise _fail(text, "is nested too deeply") from None

    def build(node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Expression):
            return build(node.body)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise _fail(text, f"contains the literal {node.value!r}")
            if isinstance(node.value, int):
                return sympy.Integer(node.value)
            literal = ast.get_source_segment(source, node) or repr(node.value)
            exact = to_exact(literal, "claim literal")  # the digits as written, not the float
            return sympy.Rational(exact.numerator, exact.denominator)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            known = ", ".join(sorted(env)) or "none"
            raise _fail(text, f"uses the unknown name {node.id!r} (parameters here: {known})")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            operand = build(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = build(node.left), build(node.right)
            op = node.op
            if isinstance(op, ast.Add):
                return left + right
            if isinstance(op, ast.Sub):
                return left - right
            if isinstance(op, ast.Mult):
                return left * right
            if isinstance(op, ast.Div):
                if right == 0:
                    raise _fail(text, "divides by zero")
                return left / right
            if isinstance(op, ast.Pow):
                if right.is_Number and abs(right) > 64:
                    raise _fail(text, f"raises to the power {right}, which is too large")
                if left.is_Rational and right.is_Rational:
                    size = max(abs(int(left.p)).bit_length(), int(left.q).bit_length(), 1)
                    if size * abs(int(right.p)) > _MAX_BITS:
                        raise _fail(text, "builds a number too large to work with")
                return left**right
            raise _fail(text, f"uses the operator {type(op).__name__}")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in ALLOWED_FUNCTIONS:
                name = getattr(node.func, "id", ast.dump(node.func)[:40])
                raise _fail(text, f"calls {name!r}, which is not allowed")
            if node.keywords:
                raise _fail(text, "passes keyword arguments")
            args = [build(a) for a in node.args]
            if not args:
                raise _fail(text, f"calls {node.func.id} without arguments")
            fn = node.func.id
            numeric = len(args) == 1 and not args[0].free_symbols
            if fn == "exp" and numeric and abs(args[0].evalf(15)) > _MAX_EXP_ARGUMENT:
                raise _fail(text, f"takes exp of {args[0]}, which is too large (|x| <= {_MAX_EXP_ARGUMENT})")
            if fn in ("floor", "ceiling") and numeric and not args[0].is_Rational:
                size = abs(args[0].evalf(15))
                if not size.is_finite or size > _MAX_FLOORED:
                    raise _fail(text, f"takes {fn} of {args[0]}, an irrational number too large to round")
            return ALLOWED_FUNCTIONS[fn](*args)
        raise _fail(text, f"contains {type(node).__name__}, which is not allowed")

    try:
        expr = build(tree)
    except RecursionError:
        raise _fail(text, "is nested too deeply") from None
    except InvalidArgument:
        raise
    except (ValueError, TypeError, ArithmeticError) as e:  # SymPy could not build it
        raise _fail(text, f"cannot be evaluated ({type(e).__name__}: {str(e)[:80]})") from None
    if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise _fail(text, "is not finite (a division by zero, or log(0)?)")
    if expr.has(sympy.I) or any(a.is_real is False for a in sympy.preorder_traversal(expr)
                                if isinstance(a, sympy.Expr) and not a.free_symbols):
        raise _fail(text, "is not a real number (a square root or log of a negative number?)")
    return expr


def _as_sympy(value: object) -> sympy.Expr:
    if isinstance(value, sympy.Basic):
        return value  # type: ignore[return-value]
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int) and not isinstance(value, bool):
        return sympy.Integer(value)
    raise InvalidArgument(f"parameter value {value!r} is not exact (int, Fraction or SymPy)")
