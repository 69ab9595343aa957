"""Safe parsing of claim formulas into SymPy expressions, and guarded substitution.

User text never reaches ``eval``, ``sympify`` or ``parse_expr``. The text is parsed by
Python's :mod:`ast` and only a small grammar is rebuilt into SymPy: numbers (decimal
literals are read *exactly* from their digits, so ``0.1`` is one tenth), the names
the caller allows, ``+ - * / ** ^``, parentheses, and the functions ``sqrt``, ``Abs``
(``abs``), ``Max`` (``max``), ``Min`` (``min``), ``floor``, ``ceiling``, ``log``,
``exp``. Anything else is refused with an error that names it.

Every node is built through the same guards, by :func:`parse_expression` and by
:func:`substitute` (which puts values for the parameters of an expression already
built), so that no claim and no binding of its parameters can build a huge number:

* a number written or built anywhere (a literal, a power, a product, a sum, after
  substitution) has a numerator and denominator of at most ``_MAX_BITS`` bits (about
  3,600 digits, below Python's 4,300-digit limit for printing an int); a rational
  power is estimated before it is built;
* an exponent that is a number is at most 64 in absolute value (``2**64``, not ``2**65``),
  and so is a constant irrational exponent (``2**(40*sqrt(2))`` is refused);
* a power (or ``exp``) whose exponent involves a parameter may not have, inside that
  exponent, another power or ``exp`` whose exponent involves a parameter: towers such
  as ``10**(10**U)``, ``U**U**U`` or ``exp(exp(d_in))`` are refused when parsed, since
  substituting ``U = 9`` would build ``10**(10**9)``. ``2**U`` and ``U**2`` are parsed,
  and refused only for the values that would make them too large;
* ``exp(x)`` of a number: ``|x| <= 1000``; ``floor``/``ceiling`` of an irrational
  number: below ``10**15`` in absolute value.

>>> parse_expression("U - L", {"U": 3, "L": -1})
4
>>> parse_expression("d_in/2*(U-L)", ["d_in", "U", "L"])
d_in*(-L + U)/2
>>> parse_expression("0.1")
1/10
>>> substitute(parse_expression("2**U", ["U"]), {"U": 10})
1024
>>> substitute(parse_expression("2**U", ["U"]), {"U": 100})  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
exactdp.errors.InvalidArgument: claim='2**U' at U=100 raises to the power 100, which is too large; ...
"""

from __future__ import annotations

import ast
from fractions import Fraction
from typing import Iterable, Mapping

import sympy

from exactdp.errors import InvalidArgument
from exactdp.numeric.exact import to_exact

__all__ = ["parse_expression", "substitute", "ALLOWED_FUNCTIONS"]

ALLOWED_FUNCTIONS = {
    "sqrt": sympy.sqrt, "Abs": sympy.Abs, "abs": sympy.Abs, "Max": sympy.Max,
    "max": sympy.Max, "Min": sympy.Min, "min": sympy.Min, "floor": sympy.floor,
    "ceiling": sympy.ceiling, "log": sympy.log, "exp": sympy.exp,
}
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E}
_MAX_LENGTH = 2000
_MAX_BITS = 12_000  # every number built: numerator and denominator below 2**_MAX_BITS
# (~3,600 digits, below Python's 4,300-digit limit for printing an int)
_MAX_EXPONENT = 64  # |exponent| of a power, when the exponent is a number
_MAX_EXP_ARGUMENT = 1000  # exp(x) of a number: |x| <= 1000 (e**1000 has 435 digits)
_MAX_FLOORED = 10**15  # floor/ceiling of an irrational constant: |x| below this
_SHOWN = 120  # characters of a SymPy claim shown in a message


def _fail(text: str, what: str, where: str = "") -> InvalidArgument:
    return InvalidArgument(
        f"claim={text!r}{where} {what}; a claim is arithmetic (+ - * / ** ^) on numbers, the "
        f"parameters and {', '.join(sorted(set(ALLOWED_FUNCTIONS) - {'abs', 'max', 'min'}))}"
    )


class _Guarded:
    """The operations that build a claim, each refusing what would be too large.

    ``text`` names the claim in messages. Sub-expressions already checked are
    remembered, so checking every node costs time proportional to the expression.
    """

    def __init__(self, text: str):
        self.text = text
        self.where = ""  # " at U=9, L=0" once parameters have values
        self._checked: set = set()

    def bind(self, env: Mapping[str, sympy.Basic]) -> None:
        shown = [f"{k}={_short(v)}" for k, v in env.items() if not v.free_symbols]
        self.where = " at " + ", ".join(shown) if shown else ""

    def fail(self, what: str) -> InvalidArgument:
        return _fail(self.text, what, self.where)

    def checked(self, expr: sympy.Basic) -> sympy.Basic:
        """``expr``, after checking every number in it (not a float; at most _MAX_BITS)."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if node in self._checked:
                continue
            if isinstance(node, sympy.Float):
                raise self.fail(f"contains the float {node}; write exact numbers (1/10, not 0.1 as a float)")
            # refused where it is built: 0*sqrt(-1) or 1/log(0) must not become a number
            if node in _NOT_FINITE:
                raise self.fail(_NOT_FINITE_TEXT)
            if not node.free_symbols and getattr(node, "is_real", None) is False:
                raise self.fail(_NOT_REAL_TEXT)
            if isinstance(node, sympy.Rational):
                bits = max(abs(int(node.p)).bit_length(), int(node.q).bit_length())
                if bits > _MAX_BITS:
                    raise self.fail(f"builds a number of about {int(bits * 0.30103):,} digits, "
                                    f"too large to work with (at most about 3,600)")
            else:
                stack.extend(node.args)
            self._checked.add(node)
        return expr

    def add(self, *args: sympy.Expr) -> sympy.Expr:
        return self.checked(sympy.Add(*args))

    def mul(self, *args: sympy.Expr) -> sympy.Expr:
        return self.checked(sympy.Mul(*args))

    def div(self, left: sympy.Expr, right: sympy.Expr) -> sympy.Expr:
        if right == 0:
            raise self.fail("divides by zero")
        return self.checked(left / right)

    def power(self, base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
        if exponent.is_Number:
            if abs(exponent) > _MAX_EXPONENT:
                raise self.fail(f"raises to the power {exponent}, which is too large")
        elif exponent.free_symbols:
            if _has_parameter_power(exponent):
                raise self.fail(
                    f"raises to the power {_short(exponent)}, itself a power of a parameter: a "
                    f"tower of powers is refused (a value of the parameter would build a huge number)"
                )
        elif not _moderate(exponent, _MAX_EXPONENT):
            raise self.fail(f"raises to the power {_short(exponent)}, which is too large "
                            f"(at most {_MAX_EXPONENT} in absolute value)")
        if exponent.is_Rational:
            bits = max((abs(int(r.p)).bit_length() for r in _rationals(base)), default=1)
            bits = max(bits, max((int(r.q).bit_length() for r in _rationals(base)), default=1))
            if bits * abs(int(exponent.p)) > _MAX_BITS:
                raise self.fail("builds a number too large to work with")
        return self.checked(base**exponent)

    def call(self, fn: str, args: list) -> sympy.Expr:
        low, high = _ARITY[fn]
        if len(args) < low or (high is not None and len(args) > high):
            takes = f"{low}" if low == high else f"{low} or {high}" if high else f"at least {low}"
            raise self.fail(f"calls {fn} with {len(args)} arguments; {fn} takes {takes}")
        if fn == "log" and len(args) == 2:  # log(x, b) = log(x)/log(b): both through the guards
            self.div(self.call("log", args[:1]), self.call("log", args[1:]))  # (SymPy's zoo/0)
        numeric = len(args) == 1 and not args[0].free_symbols
        if fn == "exp":
            if numeric and not _moderate(args[0], _MAX_EXP_ARGUMENT):
                raise self.fail(f"takes exp of {_short(args[0])}, which is too large "
                                f"(|x| <= {_MAX_EXP_ARGUMENT})")
            if len(args) == 1 and args[0].free_symbols and _has_parameter_power(args[0]):
                raise self.fail(
                    f"takes exp of {_short(args[0])}, a power of a parameter: a tower of powers "
                    f"is refused (a value of the parameter would build a huge number)"
                )
        if fn in ("floor", "ceiling") and numeric and not args[0].is_Rational:
            if not _moderate(args[0], _MAX_FLOORED):
                raise self.fail(f"takes {fn} of {_short(args[0])}, an irrational number too large to round")
        return self.checked(ALLOWED_FUNCTIONS[fn](*args))

    def finish(self, expr: sympy.Expr) -> sympy.Expr:
        if expr.has(*_NOT_FINITE):
            raise self.fail(_NOT_FINITE_TEXT)
        if expr.has(sympy.I) or any(a.is_real is False for a in sympy.preorder_traversal(expr)
                                    if isinstance(a, sympy.Expr) and not a.free_symbols):
            raise self.fail(_NOT_REAL_TEXT)
        return expr


_NOT_FINITE = (sympy.zoo, sympy.nan, sympy.oo, -sympy.oo)
_NOT_FINITE_TEXT = "is not finite (a division by zero, or log(0)?)"
_NOT_REAL_TEXT = "is not a real number (a square root or log of a negative number?)"
_ARITY = {"sqrt": (1, 1), "Abs": (1, 1), "abs": (1, 1), "floor": (1, 1), "ceiling": (1, 1),
          "exp": (1, 1), "log": (1, 2), "Max": (1, None), "max": (1, None), "Min": (1, None),
          "min": (1, None)}
"""Arguments each function takes (SymPy's ``sqrt(x, 2)`` would read 2 as a flag)."""


def _rationals(expr: sympy.Basic):
    return [expr] if expr.is_Rational else expr.atoms(sympy.Rational)


def _has_parameter_power(expr: sympy.Basic) -> bool:
    """Whether ``expr`` contains a power or ``exp`` whose exponent involves a parameter."""
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and node.exp.free_symbols:
            return True
        if isinstance(node, sympy.exp) and node.args[0].free_symbols:
            return True
    return False


def _moderate(value: sympy.Expr, limit) -> bool:
    """``|value| <= limit`` for a constant built by the guards (a size check, never a sign
    decision: 15 digits are plenty to tell a size from a limit)."""
    size = abs(value.evalf(15))
    return bool(size.is_finite) and bool(size <= limit)


def _short(expr: object) -> str:
    try:
        shown = str(expr)
    except ValueError:  # an int past Python's 4,300-digit limit for printing: never printed
        return "<an expression with a number of more than 4,300 digits>"
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 3] + "..."


def parse_expression(
    text: str,
    names: Mapping[str, object] | Iterable[str] = (),
) -> sympy.Expr:
    """Parse ``text`` into a SymPy expression.

    ``names`` are the parameters allowed: a mapping substitutes a value (int,
    ``Fraction`` or SymPy expression) for each name; an iterable of names keeps them
    as SymPy symbols (real). Either way every number built is checked (see the module
    documentation): a refusal is an :class:`~exactdp.errors.InvalidArgument`.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"claim={text!r} is not a string")
    if len(text) > _MAX_LENGTH:
        raise InvalidArgument(f"claim of {len(text)} characters is too long (at most {_MAX_LENGTH})")
    guard = _Guarded(text)
    if isinstance(names, Mapping):
        keys = list(names)
    elif isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        keys = [names]
    else:
        keys = list(names)
    if not all(isinstance(k, str) for k in keys):
        raise InvalidArgument(f"names={names!r} are not parameter names; pass names such as "
                              f"['U', 'L'] or a mapping such as {{'U': 3}}")
    if isinstance(names, Mapping):
        env = {k: guard.checked(_as_sympy(v, k)) for k, v in names.items()}
    else:
        env = {k: sympy.Symbol(k, real=True) for k in keys}
    source = text.replace("^", "**").strip()
    if not source:
        raise _fail(text, "is empty")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise _fail(text, "is not a formula") from None
    except (RecursionError, MemoryError):
        raise _fail(text, "is nested too deeply") from None
    if isinstance(names, Mapping):  # messages say "at U=9" for the values the claim uses
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        guard.bind({k: v for k, v in env.items() if k in used})

    def build(node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Expression):
            return build(node.body)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise _fail(text, f"contains the literal {node.value!r}")
            if isinstance(node.value, int):
                return guard.checked(sympy.Integer(node.value))
            literal = ast.get_source_segment(source, node) or repr(node.value)
            exact = to_exact(literal, "claim literal")  # the digits as written, not the float
            return guard.checked(sympy.Rational(exact.numerator, exact.denominator))
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            known = ", ".join(sorted(env)) or "none"
            raise _fail(text, f"uses the unknown name {node.id!r} (parameters here: {known})")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            operand = build(node.operand)
            return guard.checked(-operand) if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = build(node.left), build(node.right)
            op = node.op
            if isinstance(op, ast.Add):
                return guard.add(left, right)
            if isinstance(op, ast.Sub):
                return guard.add(left, guard.checked(-right))
            if isinstance(op, ast.Mult):
                return guard.mul(left, right)
            if isinstance(op, ast.Div):
                return guard.div(left, right)
            if isinstance(op, ast.Pow):
                return guard.power(left, right)
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
            return guard.call(node.func.id, args)
        raise _fail(text, f"contains {type(node).__name__}, which is not allowed")

    try:
        expr = build(tree)
    except RecursionError:
        raise _fail(text, "is nested too deeply") from None
    except InvalidArgument:
        raise
    except (ValueError, TypeError, ArithmeticError) as e:  # SymPy could not build it
        raise _fail(text, f"cannot be evaluated ({type(e).__name__}: {str(e)[:80]})") from None
    return guard.finish(expr)


_FUNCTIONS_BY_CLASS = {sympy.exp: "exp", sympy.floor: "floor", sympy.ceiling: "ceiling"}


def substitute(
    expr: sympy.Expr,
    values: Mapping[str, Fraction | int | sympy.Expr],
    *,
    text: str | None = None,
    _finish: bool = True,
) -> sympy.Expr:
    """``expr`` with ``values[name]`` put for each free symbol of that name, rebuilt from
    the leaves up through the guards of :func:`parse_expression`.

    SymPy's ``subs``/``xreplace`` would evaluate ``10**(10**U)`` at ``U = 9`` by building
    ``10**(10**9)`` (and never return); here the power is refused before it is built, with
    the :class:`~exactdp.errors.InvalidArgument` the parser gives to ``10**(10**9)``.
    Symbols without a value stay symbols; ``values`` may also hold names ``expr`` does not
    use. ``text`` names the claim in messages (default: ``str(expr)``, shortened). A
    result that is not finite or not real is refused, as by the parser (``_finish=False``,
    for internal callers that report such a value themselves, checks the sizes only).
    """
    if not isinstance(expr, sympy.Basic):
        raise InvalidArgument(f"expr={expr!r} is not a SymPy expression; parse text with parse_expression")
    if not isinstance(values, Mapping):
        raise InvalidArgument(f"values={values!r} is not a mapping; pass a dict such as {{'U': 3}}")
    guard = _Guarded(text if text is not None else _short(expr))
    env = {}
    for key, value in values.items():
        name = key.name if isinstance(key, sympy.Symbol) else key
        if not isinstance(name, str):
            raise InvalidArgument(f"values has the key {key!r}; keys are parameter names such as 'U'")
        env[name] = guard.checked(_as_sympy(value, name))
    used = {s.name for s in expr.free_symbols}
    guard.bind({k: v for k, v in env.items() if k in used})
    done: dict = {}

    def rebuild(node: sympy.Basic) -> sympy.Basic:
        if node in done:
            return done[node]
        if isinstance(node, sympy.Symbol):
            out = env.get(node.name, node)
        elif not node.args:
            out = guard.checked(node)
        else:
            args = [rebuild(a) for a in node.args]
            if isinstance(node, sympy.Add):
                out = guard.add(*args)
            elif isinstance(node, sympy.Mul):
                out = guard.mul(*args)
            elif isinstance(node, sympy.Pow):
                out = guard.power(*args)
            elif type(node) in _FUNCTIONS_BY_CLASS:
                out = guard.call(_FUNCTIONS_BY_CLASS[type(node)], args)
            else:
                out = guard.checked(node.func(*args))
        done[node] = out
        return out

    try:
        result = rebuild(expr)
    except RecursionError:
        raise guard.fail("is nested too deeply") from None
    except InvalidArgument:
        raise
    except (ValueError, TypeError, ArithmeticError) as e:  # SymPy could not build it
        raise guard.fail(f"cannot be evaluated ({type(e).__name__}: {str(e)[:80]})") from None
    return guard.finish(result) if isinstance(result, sympy.Expr) and _finish else result


def _as_sympy(value: object, name: str = "value") -> sympy.Expr:
    if isinstance(value, sympy.Basic):
        return value  # type: ignore[return-value]
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int) and not isinstance(value, bool):
        return sympy.Integer(value)
    raise InvalidArgument(f"parameter {name}={value!r} is not exact; pass an int, Fraction or SymPy number")
