"""Stable transformations and private measurements as maps between distances.

Seed 002's view: differential privacy is a system for relating distances. A
:class:`Transformation` knows its input domain and metric, its output domain and metric,
and a *stability map* ``d_in -> d_out`` written as a SymPy expression in the canonical
symbol ``d_in`` and its parameters (``L``, ``U``, ``N``, ...). A :class:`Measurement` is
the same with a *privacy map* into a privacy measure (``MaxDivergence``: epsilon;
``ZeroConcentratedDivergence``: rho).

* ``t.map(d_in)`` is the expression, or an exact number once every parameter is bound;
* ``t.check(d_in, d_out)`` means exactly ``d_out >= t.map(d_in)``, decided with
  :func:`exactdp.numeric.decide.compare` (an undecidable comparison raises
  :class:`~exactdp.errors.Undecided`; it is never guessed);
* ``t.bind(L=0, U=10)`` substitutes parameters, validated (``L <= U``, ``N`` a positive
  integer, ...);
* ``a >> b`` chains: the maps compose (``b.map(a.map(d_in))``), and steps whose spaces do
  not fit are refused with :class:`SpaceMismatch`.

>>> from exactdp.symbolic.symbols import L, U, d_in
>>> import sympy
>>> t = Transformation("sum", Domain("datasets", "[L, U]", bounds=(L, U)), "SymmetricDistance",
...                    Domain("real numbers"), "AbsoluteDistance",
...                    d_in * sympy.Max(abs(L), abs(U)), {"L": L, "U": U})
>>> t.map(2)
2*Max(Abs(L), Abs(U))
>>> t.bind(L=-3, U=2).map(2)
Fraction(6, 1)
>>> t.bind(L=-3, U=2).check(2, 6), t.bind(L=-3, U=2).check(2, 5)
(True, False)
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy

from exactdp.errors import InexactInput, InvalidArgument, SpaceMismatch
from exactdp.numeric.decide import compare, to_sympy
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.formula import parse_expression, substitute
from exactdp.symbolic.symbols import MEANINGS, SYMBOLS, d_in as D_IN
from exactdp.checkers.sensitivity import sensitivity
from exactdp.queries.base import Query
from exactdp.spaces.datasets import Multisets
from exactdp.symbolic.entry import Truth

__all__ = [
    "Domain", "Transformation", "Measurement", "DATASET_METRICS", "OUTPUT_METRICS", "MEASURES",
    "parameter_symbol", "meanings", "validate_params", "chain",
]


DATASET_METRICS = ("SymmetricDistance", "ChangeDistance")
"""Metrics between datasets; a distance under them is a whole number of records."""

OUTPUT_METRICS = ("AbsoluteDistance", "L1Distance", "L2Distance", "LInfDistance")
"""Metrics between aggregates (numbers, vectors)."""

MEASURES = ("MaxDivergence", "ZeroConcentratedDivergence")
"""Privacy measures: epsilon of pure DP, rho of zero-concentrated DP."""

_ALL_SYMBOLS = SYMBOLS
_ALL_MEANINGS = MEANINGS


def parameter_symbol(name: str) -> sympy.Symbol:
    """The canonical symbol of a parameter name (``"L"``, ``"N"``, ``"scale"``, ...)."""
    try:
        return _ALL_SYMBOLS[name]
    except KeyError:
        raise InvalidArgument(
            f"no parameter name={name!r}; expected one of {sorted(_ALL_SYMBOLS)}"
        ) from None


def meanings(expr_or_names) -> dict[str, str]:
    """The meaning of each canonical symbol used by an expression (or in a list of names)."""
    if isinstance(expr_or_names, sympy.Basic):
        names = sorted(s.name for s in expr_or_names.free_symbols)
    else:
        names = sorted(expr_or_names)
    return {n: _ALL_MEANINGS[n] for n in names if n in _ALL_MEANINGS}


# -- parameter values ------------------------------------------------------------------

def _exact_param(name: str, value: object):
    """An exact parameter value (``Fraction``) or a canonical symbol, validated alone."""
    if name in ("d_in", "d_out"):
        raise InvalidArgument(
            f"{name}={value!r} is a distance, not a parameter; pass it to map(...) or check(...)"
        )
    if isinstance(value, sympy.Symbol):
        if value.name != name:
            raise InvalidArgument(
                f"{name}={value!r}: a parameter is either a number or left as its own symbol "
                f"{name}; write the relation into the formula instead"
            )
        if _ALL_SYMBOLS.get(value.name) is not value:
            raise InvalidArgument(
                f"{name}={value!r} is not a canonical symbol (SymPy tells symbols apart by "
                f"their assumptions too); use exactdp.symbolic.symbols.symbol({value.name!r})"
            )
        return value
    if isinstance(value, sympy.Basic):
        if value.free_symbols or not value.is_Rational:
            raise InvalidArgument(
                f"{name}={value!r} is not an exact rational number; pass an int, a Fraction "
                f"or an exact string such as '5/2'"
            )
        value = Fraction(int(value.p), int(value.q))
    v = to_exact(value, name)
    if name in ("N", "k") and (v.denominator != 1 or v < 1):
        raise InvalidArgument(f"{name}={value!r} is not a positive integer; pass 1, 2, 3, ...")
    if name == "min_size" and (v.denominator != 1 or v < 0):
        raise InvalidArgument(f"{name}={value!r} is not a whole number >= 0")
    if name == "C" and v < 0:
        raise InvalidArgument(f"{name}={value!r} is negative; a norm bound is at least 0")
    if name == "alpha" and not 0 <= v <= 1:
        raise InvalidArgument(f"{name}={value!r} is outside [0, 1]; a quantile level is in [0, 1]")
    if name in ("scale", "sigma", "epsilon") and v <= 0:
        raise InvalidArgument(f"{name}={value!r} is not positive; pass a number > 0")
    if name in ("delta", "rho") and v < 0:
        raise InvalidArgument(f"{name}={value!r} is negative; pass a number >= 0")
    return v


def _check_together(params: Mapping[str, Any]) -> None:
    lo, hi = params.get("L"), params.get("U")
    if isinstance(lo, Fraction) and isinstance(hi, Fraction) and hi < lo:
        raise InvalidArgument(
            f"Cannot have U={format_exact(hi)!r} < L={format_exact(lo)!r}; swap the bounds"
        )


def validate_params(params: Mapping[str, object]) -> dict[str, Any]:
    """Validate a parameter mapping: each value alone, then ``L <= U``."""
    out = {}
    for name, value in params.items():
        parameter_symbol(name)
        out[name] = _exact_param(name, value)
    _check_together(out)
    return out


def _show(value) -> str:
    if isinstance(value, Fraction):
        return format_exact(value)
    return str(value)


def _to_result(expr: sympy.Expr):
    """An exact number: ``Fraction`` when rational, else the SymPy expression."""
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    return expr


# -- domains ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Domain:
    """A domain descriptor: what the values are, with the parameters it refers to.

    ``kind`` is ``"datasets"`` (multisets of records), ``"real numbers"`` or
    ``"real vectors"``. For datasets, ``element`` says what one record is (``"reals"``,
    ``"[L, U]"``, ``"rows of dimension 2 with L1 norm <= C"``, ...; ``"any"`` accepts
    every record), ``bounds`` the record bounds ``(L, U)`` when there are some, and
    ``size`` the known dataset size ``N`` (``None``: any size).

    >>> from exactdp.symbolic.symbols import L, U
    >>> Domain("datasets", "[L, U]", bounds=(0, 10)).describe()
    'datasets of values in [0, 10]'
    """

    kind: str
    element: str = "any"
    bounds: tuple | None = None
    size: Any = None
    note: str = ""

    def __post_init__(self):
        if self.kind not in ("datasets", "real numbers", "real vectors"):
            raise InvalidArgument(
                f"kind={self.kind!r} is not a domain kind; use 'datasets', 'real numbers' or "
                f"'real vectors'"
            )
        if self.bounds is not None:
            object.__setattr__(self, "bounds", tuple(_norm_value(b) for b in self.bounds))
        if self.size is not None:
            object.__setattr__(self, "size", _norm_value(self.size))

    def describe(self) -> str:
        if self.kind != "datasets":
            return self.kind + (f" ({self.note})" if self.note else "")
        if self.element == "[L, U]" and self.bounds is not None:
            what = f"values in [{_show(self.bounds[0])}, {_show(self.bounds[1])}]"
        elif self.element == "any":
            what = "any records"
        else:
            what = self.element
        text = f"datasets of {what}"
        if self.size is not None:
            text += f", size {_show(self.size)}"
        return text + (f" ({self.note})" if self.note else "")

    def __str__(self) -> str:
        return self.describe()

    def substitute(self, values: Mapping[sympy.Symbol, Any]) -> "Domain":
        """The same descriptor with parameter symbols replaced by values."""
        def sub(v):
            if isinstance(v, sympy.Basic):
                return _to_result(v.xreplace(values)) if v.free_symbols else v
            return v
        bounds = None if self.bounds is None else tuple(sub(b) for b in self.bounds)
        return dataclasses.replace(self, bounds=bounds, size=sub(self.size))

    def fits(self, required: "Domain") -> tuple[bool, str]:
        """Whether a value of this domain is a valid input where ``required`` is expected,
        and, if not, why (``"structure"`` or ``"parameters"``)."""
        if self.kind != required.kind:
            return False, "structure"
        numbers = required.element == "reals" and self.element == "[L, U]"
        if required.element != "any" and self.element != required.element and not numbers:
            return False, "structure"
        if required.bounds is not None:
            if self.bounds is None:
                return False, "structure"
            if not _inside(self.bounds, required.bounds):
                return False, "parameters"
        if required.size is not None and self.size != required.size:
            return False, "parameters" if self.size is not None else "structure"
        return True, ""


def _norm_value(v):
    if isinstance(v, sympy.Symbol):
        return v
    if isinstance(v, sympy.Basic) and v.free_symbols:
        return v
    if isinstance(v, sympy.Basic):
        return _to_result(v)
    return to_exact(v, "domain parameter")


def _inside(inner: tuple, outer: tuple) -> bool:
    """``[inner] ⊆ [outer]``: decided on numbers, by identity on symbols."""
    (a, b), (c, d) = inner, outer
    if all(isinstance(v, Fraction) for v in (a, b, c, d)):
        return c <= a and b <= d
    return (a, b) == (c, d)


# -- maps ------------------------------------------------------------------------------

class _Map:
    """What transformations and measurements share."""

    kind = "map"
    _out_label = "output_metric"

    def __init__(
        self,
        name: str,
        input_domain: Domain,
        input_metric: str,
        output_domain: Domain | None,
        output: str,
        expression: sympy.Expr,
        params: Mapping[str, object] | None = None,
        *,
        exact: Callable[[Mapping[str, Any]], Any] | None = None,
        record_map: Callable[[Mapping[str, Any]], Callable[[Fraction], Fraction]] | None = None,
        note: str = "",
        requires: Callable[[Mapping[str, Any]], None] | None = None,
    ):
        if not isinstance(input_domain, Domain):
            raise InvalidArgument(f"input_domain={input_domain!r} is not a Domain")
        if input_metric not in DATASET_METRICS + OUTPUT_METRICS:
            raise InvalidArgument(
                f"input_metric={input_metric!r} is not a metric; use one of "
                f"{', '.join(DATASET_METRICS + OUTPUT_METRICS)}"
            )
        self.name = name
        self.input_domain = input_domain
        self.input_metric = input_metric
        self.output_domain = output_domain
        self._output = output
        self.params = validate_params(params or {})
        if isinstance(expression, str):  # parsed safely: sympify would run arbitrary code
            names = {D_IN.name: D_IN, **{n: parameter_symbol(n) for n in self.params}}
            expr = parse_expression(expression, names)
        elif isinstance(expression, sympy.Basic):
            expr = expression
        else:
            expr = to_sympy(to_exact(expression, "expression"))
        if expr.has(sympy.Float):
            raise InexactInput(f"expression={expr} contains a float; write exact numbers")
        allowed = {D_IN.name} | set(self.params)
        stray = sorted(s.name for s in expr.free_symbols if s.name not in allowed)
        if stray:
            raise InvalidArgument(
                f"the map {expr} of {name!r} uses {stray}, which are not its parameters "
                f"({sorted(self.params)}) nor d_in"
            )
        for s in expr.free_symbols:
            if _ALL_SYMBOLS.get(s.name) != s:  # equal name and assumptions (SymPy may re-create a symbol after its cache evicts it)
                raise InvalidArgument(
                    f"the map {expr} of {name!r} uses a non-canonical symbol {s.name!r}; build "
                    f"formulas from exactdp.symbolic.symbols"
                )
        self._expression = expr
        subs = self._subs()
        if subs:
            self.input_domain = input_domain.substitute(subs)
            if output_domain is not None:
                self.output_domain = output_domain.substitute(subs)
        self._exact = exact
        self._record_map = record_map
        self.note = note
        self._requires = requires
        if requires is not None:
            requires(self.bound)

    # -- parameters --------------------------------------------------------------------
    @property
    def bound(self) -> dict[str, Fraction]:
        """The parameters that have a value."""
        return {k: v for k, v in self.params.items() if isinstance(v, Fraction)}

    @property
    def free(self) -> list[str]:
        """Names of the parameters still symbolic."""
        return sorted(k for k, v in self.params.items() if not isinstance(v, Fraction))

    def _subs(self) -> dict:
        return {parameter_symbol(k): to_sympy(v) for k, v in self.params.items()
                if isinstance(v, Fraction)}

    @property
    def expression(self) -> sympy.Expr:
        """The map as an expression in ``d_in``, bound parameters substituted (through the
        claim parser's size guards: a bound value can never build a huge number)."""
        bound = {k: v for k, v in self.params.items() if isinstance(v, Fraction)}
        return substitute(self._expression, bound, text=self.name, _finish=False)

    @property
    def formula(self) -> sympy.Expr:
        """The map as derived, in ``d_in`` and every parameter symbol (nothing bound)."""
        return self._expression

    def bind(self, **params: object):
        """A copy with parameters bound to exact values (validated together with the
        parameters already bound, and by the constructor's own requirements, e.g. ``N >= 2``
        for a sample variance). Unknown names are refused, and so is a new value for a
        parameter already bound: the domain was built for the old one."""
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise InvalidArgument(
                f"{self.name!r} has no parameter {unknown[0]}={params[unknown[0]]!r}; its "
                f"parameters are {sorted(self.params)}"
            )
        values = validate_params(params)
        for name, value in values.items():
            old = self.params[name]
            if isinstance(old, Fraction) and value != old:
                raise InvalidArgument(
                    f"{name} of {self.name!r} is already bound to {format_exact(old)}, so "
                    f"{name}={params[name]!r} cannot replace it (the step's domain was built "
                    f"for {format_exact(old)}); build a new step with {name}={params[name]!r}"
                )
        new = dict(self.params)
        new.update(values)
        _check_together(new)
        if self._requires is not None:
            self._requires({k: v for k, v in new.items() if isinstance(v, Fraction)})
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.params = new
        subs = {parameter_symbol(k): to_sympy(v) for k, v in new.items() if isinstance(v, Fraction)}
        clone.input_domain = self.input_domain.substitute(subs)
        if self.output_domain is not None:
            clone.output_domain = self.output_domain.substitute(subs)
        return clone

    # -- the map -----------------------------------------------------------------------
    def _d_in(self, d_in):
        if isinstance(d_in, sympy.Basic) and d_in.has(sympy.Float):
            raise InexactInput(f"d_in={d_in!r} contains a float; pass an exact distance")
        if isinstance(d_in, sympy.Basic) and d_in.free_symbols:
            return d_in
        if self.input_metric in DATASET_METRICS:
            if isinstance(d_in, bool) or not isinstance(d_in, int):
                if isinstance(d_in, (Fraction, sympy.Integer)) and Fraction(str(d_in)).denominator == 1:
                    d_in = int(Fraction(str(d_in)))
                else:
                    raise InvalidArgument(
                        f"d_in={d_in!r} is not a whole number; under {self.input_metric} a "
                        f"distance counts records"
                    )
            if d_in < 0:
                raise InvalidArgument(f"d_in={d_in!r} is negative; pass a distance >= 0")
            return sympy.Integer(d_in)
        v = to_exact(d_in, "d_in") if not isinstance(d_in, sympy.Basic) else d_in
        if isinstance(v, Fraction):
            if v < 0:
                raise InvalidArgument(f"d_in={d_in!r} is negative; pass a distance >= 0")
            return to_sympy(v)
        if v.is_negative:
            raise InvalidArgument(f"d_in={d_in!r} is negative; pass a distance >= 0")
        return v

    def map(self, d_in: object = D_IN) -> Fraction | sympy.Expr:
        """The output distance bound at ``d_in``: an exact number (``Fraction``, or an
        exact SymPy expression when irrational) once every parameter is bound, else an
        expression."""
        expr = substitute(self.expression, {D_IN.name: self._d_in(d_in)}, text=self.name,
                          _finish=False)
        if expr.free_symbols:
            return expr
        return _to_result(expr.doit())

    def check(self, d_in: object, d_out: object) -> bool:
        """``d_out >= map(d_in)``, decided exactly; raises :class:`Undecided` when two
        irrational numbers cannot be told apart, and :class:`InvalidArgument` while
        parameters are unbound."""
        value = self.map(d_in)
        if isinstance(value, sympy.Basic) and value.free_symbols:
            raise InvalidArgument(
                f"cannot check {self.name!r}: the map {value} still has free parameters "
                f"{sorted(s.name for s in value.free_symbols)}; bind them first with "
                f".bind(...)"
            )
        if isinstance(d_out, sympy.Basic):
            out = d_out
            if out.free_symbols:
                raise InvalidArgument(f"d_out={d_out!r} is not a number; pass an exact value")
        else:
            out = to_exact(d_out, "d_out")
        return compare(out, value) >= 0

    # -- display -----------------------------------------------------------------------
    def _latex_lhs(self) -> str:
        return "d_{out}"

    def _repr_latex_(self) -> str:
        return f"${self._latex_lhs()} = {sympy.latex(self.expression)}$"

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={_show(v)}" for k, v in sorted(self.params.items()))
        rows = [
            ("input_domain", self.input_domain.describe()),
            ("input_metric", self.input_metric),
        ]
        if self.output_domain is not None:
            rows.append(("output_domain", self.output_domain.describe()))
        rows.append((self._out_label, self._output))
        rows.append(("map", f"d_in -> {self.expression}"))
        if params:
            rows.append(("params", params))
        width = max(len(r[0]) for r in rows)
        body = ",\n".join(f"    {k:<{width}} = {v}" for k, v in rows)
        return f"{type(self).__name__}({self.name!r},\n{body})"

    def __str__(self) -> str:
        return f"{self.name}: {self.input_metric} -> {self._output}, d_in -> {self.expression}"

    # -- exact form ----------------------------------------------------------------------
    @property
    def has_exact_form(self) -> bool:
        return self._exact is not None

    def _binding(self, params: Mapping[str, object] | None) -> dict[str, Any]:
        given = dict(params or {})
        d = given.pop("d_in", None)
        t = self.bind(**{k: v for k, v in given.items() if k in self.params})
        stray = sorted(set(given) - set(self.params))
        if stray:
            raise InvalidArgument(
                f"{self.name!r} has no parameter {stray[0]}={given[stray[0]]!r}; its "
                f"parameters are {sorted(self.params)} and d_in"
            )
        if t.free:
            raise InvalidArgument(
                f"{self.name!r}: no value for {t.free}; pass every parameter (and d_in) to "
                f"enumerate"
            )
        if d is None:
            raise InvalidArgument(f"{self.name!r}: no value for d_in; pass d_in=1, 2, ...")
        out = dict(t.params)
        out["d_in"] = int(self._d_in(d)) if self.input_metric in DATASET_METRICS else d
        return out


class Transformation(_Map):
    """A stable transformation: ``d_in`` under ``input_metric`` becomes at most
    ``map(d_in)`` under ``output_metric``.

    ``exact`` (optional) builds the exact counterpart for the enumeration engine: a
    function of the bound parameters (a dict with ``d_in``) returning
    ``(query, space, metric)`` or ``(query, space, metric, options)``; see :meth:`truth`.
    """

    kind = "transformation"

    def __init__(self, name, input_domain, input_metric, output_domain, output_metric,
                 expression, params=None, **kwargs):
        if output_metric not in DATASET_METRICS + OUTPUT_METRICS:
            raise InvalidArgument(
                f"output_metric={output_metric!r} is not a metric; use one of "
                f"{', '.join(DATASET_METRICS + OUTPUT_METRICS)}"
            )
        if not isinstance(output_domain, Domain):
            raise InvalidArgument(f"output_domain={output_domain!r} is not a Domain")
        super().__init__(name, input_domain, input_metric, output_domain, output_metric,
                         expression, params, **kwargs)

    @property
    def output_metric(self) -> str:
        return self._output

    def _built(self, params: Mapping[str, object]):
        if self._exact is None:
            raise InvalidArgument(
                f"{self.name!r} has no exact form; only the make_* constructors (and a chain "
                f"of a record-wise step into one of them) can be enumerated"
            )
        binding = self._binding(params)
        built = self._exact(binding)
        options = dict(built[3]) if len(built) > 3 else {}
        decode = options.pop("witness", None)
        return binding, (built[0], built[1], built[2], options), decode

    def exact_form(self, params: Mapping[str, object]):
        """``(query, space, metric, options)`` for the engine at one binding (every free
        parameter and ``d_in``): ``sensitivity(query, space, metric, d_in, **options)`` is
        the exact sensitivity there."""
        return self._built(params)[1]

    def truth(self, params: Mapping[str, object]):
        """The exact sensitivity at one binding (every free parameter and ``d_in``), by
        enumeration, as a catalogue :class:`~exactdp.symbolic.catalogue.Truth` (value,
        attaining pair, scope). Records that the engine sees as labels (histogram bin
        sets, vector rows) are shown decoded in the witness."""
        binding, (query, space, metric, options), decode = self._built(params)
        truth = Truth.from_result(sensitivity(query, space, metric, binding["d_in"], **options))
        if decode is not None and truth.witness is not None:
            truth = dataclasses.replace(truth, witness=decode(truth.witness))
        return truth

    def __rshift__(self, other):
        if not isinstance(other, _Map):
            return NotImplemented
        return chain(self, other)


class Measurement(_Map):
    """A private mechanism: ``d_in`` under ``input_metric`` becomes a privacy loss of at
    most ``map(d_in)`` under ``output_measure``."""

    kind = "measurement"
    _out_label = "output_measure"

    def __init__(self, name, input_domain, input_metric, output_measure, expression,
                 params=None, **kwargs):
        if output_measure not in MEASURES:
            raise InvalidArgument(
                f"output_measure={output_measure!r} is not a privacy measure; use one of "
                f"{', '.join(MEASURES)}"
            )
        super().__init__(name, input_domain, input_metric, None, output_measure,
                         expression, params, **kwargs)

    @property
    def output_measure(self) -> str:
        return self._output

    def _latex_lhs(self) -> str:
        return r"\varepsilon" if self._output == "MaxDivergence" else r"\rho"

    def __rshift__(self, other):
        if not isinstance(other, _Map):
            return NotImplemented
        raise SpaceMismatch(
            f"cannot chain {self.name} >> {other.name}: {self.name} is a measurement (its "
            f"output is a privacy loss under {self._output}); put measurements last"
        )


def chain(first: Transformation, second: _Map) -> _Map:
    """``first >> second``: the maps compose, ``second.map(first.map(d_in))``.

    Refused with :class:`SpaceMismatch` when ``first``'s output domain or metric does not
    fit ``second``'s input, or when both bind a parameter to different values.
    """
    ok, why = first.output_domain.fits(second.input_domain)
    if not ok or first.output_metric != second.input_metric:
        if first.output_metric != second.input_metric:
            why = "structure"
        detail = ("the structures match; only the parameters differ" if why == "parameters"
                  else "the domains or metrics differ")
        raise SpaceMismatch(
            f"cannot chain {first.name} >> {second.name}: {first.name} outputs "
            f"{first.output_domain.describe()} under {first.output_metric}, but {second.name} "
            f"expects {second.input_domain.describe()} under {second.input_metric} ({detail})"
        )
    params = dict(first.params)
    for k, v in second.params.items():
        if k in params and params[k] != v:
            if isinstance(params[k], Fraction) and isinstance(v, Fraction):
                del params[k]  # both bound, differently: each side keeps its own value
                continue
            raise SpaceMismatch(
                f"cannot chain {first.name} >> {second.name}: {k}={_show(params[k])} in "
                f"{first.name} but {k}={_show(v)} in {second.name}; bind both alike"
            )
        params[k] = v
    expr = second.expression.xreplace({D_IN: first.expression})
    name = f"{first.name} >> {second.name}"
    exact = None
    if first._record_map is not None and isinstance(second, Transformation) and second._exact:
        exact = _chained_exact(first, second)
    if isinstance(second, Measurement):
        return Measurement(name, first.input_domain, first.input_metric, second.output_measure,
                           expr, params)
    return Transformation(name, first.input_domain, first.input_metric, second.output_domain,
                          second.output_metric, expr, params, exact=exact)


def _chained_exact(first: Transformation, second: Transformation):
    """Exact form of ``record-wise step >> constructor``: the second step's query on the
    first step's records, each passed through the record map, over the first step's
    input universe."""
    def build(binding):
        query, space, metric, *rest = second._exact({**binding, **second.bound})
        own = {**binding, **first.bound}
        _q, fspace, _m, *_ = first._exact(own)
        f = first._record_map(own)

        def prep(values, _q=query, _f=f):
            return _q.prepare(tuple(_f(v) for v in values))

        q = Query(f"{first.name} >> {query.name}", prep, output=query.output,
                  min_size=query.min_size, norm=query.norm)
        sp = Multisets(fspace.universe, sizes=(space.min_size, space.max_size))
        return (q, sp, metric, *rest)

    return build
