"""UNBOUNDED as a verdict: a sensitivity that grows without bound in a parameter, shown so.

A sensitivity computed on a finite universe is always a finite number, and on its own it
looks like an answer: the sum over ``{0..8}`` has sensitivity 8. When the statement is
about *all* reals (seed 000: "the global sensitivity of f(x) = x*x is unbounded",
"summation queries have unbounded sensitivity when no bounds exist"; seed 002's table
column "any numeric vector"; seed 004: "since the height is not bounded, the sensitivity
is infinite"), the honest answer is *unbounded*, with the reason.

:func:`check_unbounded` takes a query, a family of finite spaces ``space(B)`` (e.g. the
universe ``[-B, B]`` or ``[0, B]``) and a *witness family*: two datasets ``x_B`` and
``x'_B`` written with the symbol ``B`` (values and multiplicities may depend on ``B``). It

1. computes the exact sensitivity on ``space(B)`` for a few ``B`` (the engine, every pair
   enumerated), so the growth is seen;
2. proves, symbolically, that the family is a pair of neighbours at distance ``<= d_in``
   for *every* ``B`` (the symmetric difference of the two multisets, with ``B`` a
   symbol, is a constant; two value expressions that happen to coincide at some ``B``
   only make the pair closer) and that ``g(B) = |f(x_B) - f(x'_B)|``, derived in SymPy
   from the query's moment form (``n``, ``S1 = sum v``, ``S2 = sum v^2``), tends to
   infinity with ``B``;
3. re-checks the symbolic ``g(B)`` against the exact query on the concrete datasets at
   each ``B`` computed, and that the pair lies in ``space(B)`` there (so ``g(B)`` is at
   most the enumerated sensitivity, usually equal to it);
4. optionally checks a symbolic ``formula`` in ``B`` (e.g. the calculus' map with
   ``L = -B, U = B``) against the enumerated values, and takes its limit.

The verdict is :attr:`~exactdp.checkers.results.Verdict.UNBOUNDED` (with the family)
when ``g(B) -> oo`` and no finite claim was given; ``violated`` against a finite claim
``c``, with the first ``B`` found where ``g(B) > c``; ``undecided`` when the family's
``g`` has a finite limit (no growth was shown: a finite universe's value is then only a
value on that universe).

>>> from exactdp.queries import sum_
>>> from exactdp.spaces import IntegerRange, Multisets
>>> r = check_unbounded(sum_, lambda b: Multisets(IntegerRange(-b, b), sizes=(0, 2)),
...                     ([], ["B"]), at=(1, 2, 4))
>>> r.verdict.value, str(r.family.gap), [str(row.value) for row in r.rows]
('unbounded', 'B', ['1', '2', '4'])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import sympy

from exactdp._budget import DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, refuse_above, show_count
from exactdp.checkers.results import Evidence, Verdict, Witness, format_value
from exactdp.checkers.sensitivity import sensitivity
from exactdp.errors import InvalidArgument
from exactdp.numeric.decide import compare, to_sympy
from exactdp.numeric.exact import format_dataset, format_exact, to_exact
from exactdp.queries.base import Query
from exactdp.spaces.metrics import ChangeDistance, SymmetricDistance, as_metric

__all__ = ["B", "WitnessFamily", "GrowthRow", "UnboundedResult", "check_unbounded",
           "moment_form", "witness_family", "MOMENT_FORMS", "MAX_PARAMETER_VALUES"]

B = sympy.Symbol("B", positive=True)
"""The default parameter: the universe's reach (``[-B, B]``, ``[0, B]``), ``B > 0``."""

MAX_PARAMETER_VALUES = 20
"""Most parameter values ``B`` at which the sensitivity is enumerated."""

MomentForm = Callable[[sympy.Expr, sympy.Expr, sympy.Expr], sympy.Expr]

MOMENT_FORMS: dict[str, MomentForm] = {
    "count": lambda n, s1, s2: n,
    "sum": lambda n, s1, s2: s1,
    "mean": lambda n, s1, s2: s1 / n,
    "var": lambda n, s1, s2: (n * s2 - s1**2) / n**2,
    "var:1": lambda n, s1, s2: (n * s2 - s1**2) / (n * (n - 1)),
}
"""The built-in queries as functions of the size ``n`` and the moments ``S1 = sum v``,
``S2 = sum v^2`` (by query name)."""


def moment_form(query: Query) -> MomentForm:
    """The moment form of a built-in query (count, sum, mean, var, var:1).

    >>> from exactdp.queries import mean
    >>> n, s1, s2 = sympy.symbols("n S1 S2")
    >>> moment_form(mean)(n, s1, s2)
    S1/n
    """
    form = MOMENT_FORMS.get(getattr(query, "name", None))
    if form is None:
        raise InvalidArgument(
            f"query {getattr(query, 'name', query)!r} has no built-in moment form; pass "
            f"symbolic=lambda n, s1, s2: ... (its value from the size n, S1 = sum of the "
            f"values, S2 = sum of their squares), one of {', '.join(MOMENT_FORMS)}")
    return form


def _expr(value, parameter: sympy.Symbol, name: str) -> sympy.Expr:
    """An exact SymPy expression whose only symbol is ``parameter`` (written ``B`` in text)."""
    if isinstance(value, float):
        raise InvalidArgument(f"{name}={value!r} is a float; write it exactly, e.g. '1/10' or 'B/2'")
    if isinstance(value, sympy.Basic):
        expr = value
    elif isinstance(value, str):
        try:
            expr = sympy.sympify(value, locals={parameter.name: parameter}, rational=True)
        except (sympy.SympifyError, SyntaxError, TypeError) as e:
            raise InvalidArgument(f"{name}={value!r} is not an expression in {parameter}: {e}") from None
    else:
        expr = to_sympy(to_exact(value, name))
    if expr.has(sympy.Float):
        raise InvalidArgument(f"{name}={value!r} contains a float; write it exactly")
    extra = expr.free_symbols - {parameter}
    if extra:
        raise InvalidArgument(f"{name}={value!r} has the symbols {sorted(map(str, extra))}; "
                              f"only {parameter} may appear")
    return expr


def _items(dataset, parameter, name: str) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
    """``(value, count)`` with identical value expressions merged (order of first use)."""
    if isinstance(dataset, Mapping):
        pairs = [(_expr(v, parameter, f"{name} value"), _expr(c, parameter, f"{name} count"))
                 for v, c in dataset.items()]
    elif isinstance(dataset, (list, tuple)):
        pairs = [(_expr(v, parameter, f"{name} value"), sympy.Integer(1)) for v in dataset]
    else:
        raise InvalidArgument(f"{name}={dataset!r} is not a list of values or a mapping "
                              f"{{value: count}}; pass e.g. ['-B', 'B'] or {{1: 'B'}}")
    merged: dict = {}
    for v, c in pairs:
        key = sympy.simplify(v)
        merged[key] = merged.get(key, sympy.Integer(0)) + c
    return tuple(merged.items())


@dataclass(frozen=True)
class WitnessFamily:
    """Two datasets ``x_B``, ``x'_B`` as ``(value, count)`` expressions in ``parameter``,
    their distance (the same for every ``B``), the query's values on them and
    ``gap = |f(x_B) - f(x'_B)|`` with its limit as ``B -> oo``."""

    parameter: sympy.Symbol
    x: tuple
    x_prime: tuple
    distance: int
    fx: sympy.Expr
    fx_prime: sympy.Expr
    gap: sympy.Expr
    limit: sympy.Expr
    start: int = 1

    @property
    def unbounded(self) -> bool:
        return self.limit == sympy.oo

    def at(self, value: int) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        """The concrete datasets at ``parameter = value`` (sorted exact values)."""
        return _concrete(self.x, self.parameter, value), _concrete(self.x_prime, self.parameter, value)

    def gap_at(self, value) -> Any:
        return _exact(self.gap.subs(self.parameter, value))

    def describe(self) -> str:
        p = self.parameter
        return (f"x_{p}={_show(self.x)}, x'_{p}={_show(self.x_prime)} (distance {self.distance} for "
                f"every {p} >= {self.start}): |f(x_{p}) - f(x'_{p})| = {self.gap} -> {_limit_text(self.limit)}")

    def to_dict(self) -> dict:
        return {"parameter": str(self.parameter),
                "x": [[str(v), str(c)] for v, c in self.x],
                "x_prime": [[str(v), str(c)] for v, c in self.x_prime],
                "distance": self.distance, "fx": str(self.fx), "fx_prime": str(self.fx_prime),
                "gap": str(self.gap), "limit": _limit_text(self.limit), "start": self.start}


def _show(items) -> str:
    parts = []
    for v, c in items:
        parts.append(str(v) if c == 1 else f"{v} x {c}" if c.is_Atom else f"{v} x ({c})")
    return "[" + ", ".join(parts) + "]"


def _limit_text(limit) -> str:
    return "oo" if limit == sympy.oo else str(limit)


def _exact(expr):
    expr = sympy.nsimplify(expr) if expr.has(sympy.Float) else sympy.simplify(expr)
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    return expr


def _concrete(items, parameter, value) -> tuple[Fraction, ...]:
    out: list[Fraction] = []
    for v, c in items:
        val, cnt = _exact(v.subs(parameter, value)), _exact(c.subs(parameter, value))
        if not isinstance(val, Fraction):
            raise InvalidArgument(f"the family's value {v} is {val} at {parameter}={value}: not "
                                  f"rational; use rational values")
        if not isinstance(cnt, Fraction) or cnt.denominator != 1 or cnt < 0:
            raise InvalidArgument(f"the family's count {c} is {cnt} at {parameter}={value}: not "
                                  f"a whole number >= 0")
        out.extend([val] * int(cnt))
    return tuple(sorted(out))


def witness_family(query: Query, family, metric=None, d_in: int = 1, *,
                   symbolic: MomentForm | None = None, parameter: sympy.Symbol = B,
                   start: int = 1) -> WitnessFamily:
    """The symbolic witness family ``(x_B, x'_B)``, checked to be neighbours at distance
    ``<= d_in`` for every ``B`` (symbolically), with ``g(B)`` and its limit.

    >>> from exactdp.queries import variance
    >>> f = witness_family(variance(1), (["-B", "-B"], ["-B", "-B", "B"]))
    >>> f.distance, f.gap, f.limit
    (1, 4*B**2/3, oo)
    """
    if not isinstance(parameter, sympy.Symbol) or not parameter.is_positive:
        raise InvalidArgument(f"parameter={parameter!r} is not a positive SymPy Symbol; pass e.g. "
                              f"sympy.Symbol('B', positive=True)")
    if isinstance(start, bool) or not isinstance(start, int) or start < 1:
        raise InvalidArgument(f"start={start!r} is not a whole number >= 1")
    if not isinstance(family, (tuple, list)) or len(family) != 2:
        raise InvalidArgument(f"family={family!r} is not a pair (x_B, x'_B); pass e.g. ([], ['B'])")
    metric = as_metric("add-remove" if metric is None else metric)
    if not isinstance(metric, (SymmetricDistance, ChangeDistance)):
        raise InvalidArgument(f"metric={metric.cli_name!r}: a witness family is checked under "
                              f"add-remove or substitute")
    form = symbolic if symbolic is not None else moment_form(query)
    x = _items(family[0], parameter, "x")
    xp = _items(family[1], parameter, "x_prime")
    counts: dict = {}
    for v, c in x:
        counts[v] = counts.get(v, 0) + c
    for v, c in xp:
        counts[v] = counts.get(v, 0) - c
    # substitute parameter >= start as parameter = start + t, t >= 0, to simplify |.|
    t = sympy.Symbol("t", nonnegative=True)
    shift = {parameter: t + start}
    sym = sympy.simplify(sum((sympy.Abs(sympy.expand(d.subs(shift))) for d in counts.values()),
                             sympy.Integer(0)))
    if not sym.is_Integer:
        raise InvalidArgument(f"the family's symmetric difference is {sym.subs(t, parameter - start)}, "
                              f"not the same for every {parameter}: write x_B and x'_B so that "
                              f"they differ by a fixed number of records")
    n = sympy.simplify(sum((c for _, c in x), sympy.Integer(0)))
    n_prime = sympy.simplify(sum((c for _, c in xp), sympy.Integer(0)))
    if isinstance(metric, ChangeDistance):
        if sympy.simplify(n - n_prime) != 0:
            raise InvalidArgument(f"under substitute both datasets need the same size; the "
                                  f"family's sizes are {n} and {n_prime}")
        distance = int(sym) // 2
    else:
        distance = int(sym)
    if distance > d_in:
        raise InvalidArgument(f"the family's datasets are at distance {distance} > d_in={d_in}; "
                              f"pass a closer pair or a larger d_in")

    def value(items, size):
        s1 = sum((c * v for v, c in items), sympy.Integer(0))
        s2 = sum((c * v**2 for v, c in items), sympy.Integer(0))
        return sympy.simplify(form(size, s1, s2))

    fx, fxp = value(x, n), value(xp, n_prime)
    # |.| simplified for parameter >= start (through t = parameter - start >= 0)
    gap = sympy.simplify(sympy.Abs(sympy.expand((fx - fxp).subs(shift))))
    gap = sympy.simplify(sympy.expand(gap.subs(t, parameter - start)))
    limit = sympy.limit(gap, parameter, sympy.oo)
    return WitnessFamily(parameter, x, xp, distance, fx, fxp, gap, limit, start)


@dataclass(frozen=True)
class GrowthRow:
    """The enumerated sensitivity at one parameter value, its witness, and the family's
    gap there (``None`` when the family's pair is not in that space)."""

    parameter_value: int
    value: Any
    witness: Witness | None
    space: str
    datasets: int
    family_gap: Any = None

    def to_dict(self) -> dict:
        return {"B": self.parameter_value, "sensitivity": format_value(self.value),
                "witness": None if self.witness is None else self.witness.to_dict(),
                "space": self.space, "datasets": self.datasets,
                "family_gap": None if self.family_gap is None else format_value(self.family_gap)}


@dataclass(frozen=True)
class UnboundedResult:
    """The verdict on a sensitivity over an unbounded domain: the enumerated values on
    finite spaces (``rows``), the witness family that shows the growth, an optional formula
    in the parameter and its limit, and (against a finite claim) where it is exceeded.

    ``evidence`` is ``bit-exact``: each row is an exact enumeration of its space; the
    family's distance and ``g(B)`` are SymPy identities in ``B``, re-checked exactly at
    every enumerated ``B``; the limit is SymPy's."""

    query: str
    relation: str
    d_in: int
    verdict: Verdict
    claim: Any
    family: WitnessFamily
    rows: tuple[GrowthRow, ...]
    formula: sympy.Expr | None = None
    formula_limit: sympy.Expr | None = None
    exceeded_at: int | None = None
    evidence: Evidence = Evidence.BIT_EXACT

    @property
    def ok(self) -> bool:
        return self.verdict.holding

    @property
    def witness(self) -> WitnessFamily:
        """The witness family (a pair of neighbours for every ``B``)."""
        return self.family

    @property
    def scope_text(self) -> str:
        spaces = "; ".join(f"B={r.parameter_value}: {r.space} ({r.datasets:,} datasets)" for r in self.rows)
        return (f"{self.relation} neighbours, d_in={self.d_in}; enumerated on {spaces}; the family "
                f"for every B >= {self.family.start} (symbolic)")

    def values_text(self) -> str:
        return ", ".join(f"B={r.parameter_value}: {format_value(r.value)}" for r in self.rows)

    def summary(self) -> str:
        p = self.family.parameter
        growth = (f"exact sensitivity on the finite spaces {self.values_text()}; family "
                  f"{self.family.describe()}")
        if self.formula is not None:
            growth += f"; formula {self.formula} matches every row, -> {_limit_text(self.formula_limit)}"
        if self.verdict is Verdict.UNBOUNDED:
            return (f"UNBOUNDED: the sensitivity of {self.query} grows without bound in {p} "
                    f"(no finite value is an answer); {growth}")
        if self.verdict is Verdict.VIOLATED:
            b = self.exceeded_at
            return (f"VIOLATED: claim {format_value(self.claim)} is exceeded at {p}={b}: "
                    f"g({b}) = {format_value(self.family.gap_at(b))}; {growth}")
        return f"UNDECIDED: no growth shown (the family's gap tends to {_limit_text(self.family.limit)}); {growth}"

    def __str__(self) -> str:
        return f"{self.query}: {self.summary()}\n  scope: {self.scope_text}"

    def to_dict(self) -> dict:
        return {"query": self.query, "neighbors": self.relation, "d_in": self.d_in,
                "verdict": self.verdict.value, "evidence": self.evidence.value,
                "claim": None if self.claim is None else format_value(self.claim),
                "sensitivity": "unbounded" if self.verdict is Verdict.UNBOUNDED else None,
                "family": self.family.to_dict(), "rows": [r.to_dict() for r in self.rows],
                "formula": None if self.formula is None else str(self.formula),
                "formula_limit": None if self.formula_limit is None else _limit_text(self.formula_limit),
                "exceeded_at": self.exceeded_at, "scope": self.scope_text,
                "text": self.summary()}

    def _repr_latex_(self) -> str:
        p = sympy.latex(self.family.parameter)
        return (rf"$\displaystyle \Delta_{{\mathrm{{{self.query}}}}} \geq {sympy.latex(self.family.gap)}"
                rf" \xrightarrow[{p} \to \infty]{{}} {sympy.latex(self.family.limit)}"
                rf"\quad (\text{{{self.verdict.value}}})$")


def _parameter_values(at) -> tuple[int, ...]:
    if isinstance(at, (str, bytes)) or not hasattr(at, "__iter__"):
        raise InvalidArgument(f"at={at!r} is not a list of whole numbers; pass e.g. (1, 2, 4, 8)")
    values = tuple(at)
    if not values:
        raise InvalidArgument("at=() is empty; pass at least one parameter value, e.g. (1, 2, 4)")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InvalidArgument(f"at contains {v!r}: pass whole numbers >= 1")
    refuse_above(len(values), MAX_PARAMETER_VALUES, what="parameter values", option=None,
                 hint="pass fewer values of B")
    return tuple(sorted(set(values)))


def _claim(claim):
    if claim is None or (isinstance(claim, str) and claim.strip().lower() in ("unbounded", "oo", "inf")):
        return None
    if claim == sympy.oo:
        return None
    return to_exact(claim, "claim")


def _first_exceeding(family: WitnessFamily, claim: Fraction) -> int:
    """An integer ``B >= start`` with ``g(B) > claim`` (doubling, then bisection on the
    exact comparison; ``g -> oo`` guarantees one exists)."""
    lo, hi = family.start, family.start
    for _ in range(4000):
        if compare(to_sympy(family.gap_at(hi)) if isinstance(family.gap_at(hi), Fraction)
                   else family.gap_at(hi), to_sympy(claim)) > 0:
            break
        lo, hi = hi, hi * 2
    else:  # pragma: no cover - g -> oo
        raise InvalidArgument(f"no B up to 2^4000 has g(B) > {claim}")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        g = family.gap_at(mid)
        if compare(to_sympy(g) if isinstance(g, Fraction) else g, to_sympy(claim)) > 0:
            hi = mid
        else:
            lo = mid
    g = family.gap_at(lo)
    if lo >= family.start and compare(to_sympy(g) if isinstance(g, Fraction) else g, to_sympy(claim)) > 0:
        return lo
    return hi


def check_unbounded(query: Query, spaces: Callable[[int], Any], family, *, metric=None,
                    d_in: int = 1, at: Sequence[int] = (1, 2, 4, 8),
                    symbolic: MomentForm | None = None, formula=None, claim=None,
                    parameter: sympy.Symbol = B, start: int = 1,
                    max_datasets: int | None = DEFAULT_MAX_DATASETS,
                    max_pairs: int | None = DEFAULT_MAX_PAIRS) -> UnboundedResult:
    """Whether ``query``'s sensitivity over ``spaces(B)`` grows without bound in ``B``,
    shown by the witness ``family`` (see the module docstring).

    ``spaces``: ``B -> DatasetSpace``; ``family``: ``(x_B, x'_B)``, each a list of values
    or a mapping ``{value: count}`` (expressions in ``B`` as text or SymPy); ``symbolic``:
    the query's moment form (default: the built-in one, :data:`MOMENT_FORMS`);
    ``formula``: an optional expression in ``B`` expected to equal every enumerated value;
    ``claim``: ``None`` / ``"unbounded"`` (the statement that it is unbounded) or a finite
    number (judged: ``violated`` where ``g(B)`` passes it). Every space's size is checked
    against ``max_datasets`` before any enumeration.
    """
    if not isinstance(query, Query):
        raise InvalidArgument(f"query={query!r} is not a Query; pass e.g. exactdp.queries.sum_")
    if query.output != "scalar":
        raise InvalidArgument(f"query {query.name} has {query.output} values; the family's gap is "
                              f"for scalar queries")
    if not callable(spaces):
        raise InvalidArgument(f"spaces={spaces!r} is not callable; pass a function B -> DatasetSpace, "
                              f"e.g. lambda b: Multisets(IntegerRange(-b, b), sizes=(0, 2))")
    metric_obj = as_metric("add-remove" if metric is None else metric)
    values = _parameter_values(at)
    claim_value = _claim(claim)
    fam = witness_family(query, family, metric_obj, d_in, symbolic=symbolic, parameter=parameter,
                         start=start)
    formula_expr = None if formula is None else _expr(formula, parameter, "formula")
    built = []
    for b in values:  # the budget, from counts alone, before any enumeration
        space = spaces(b)
        cap = max_datasets if max_datasets is not None else 10**30
        n = space.count_capped(cap)
        refuse_above(n, max_datasets, what=f"datasets in {space.describe()} (B={b})",
                     option="max_datasets", hint="pass smaller values of B")
        built.append((b, space, n))
    rows = []
    for b, space, n in built:
        result = sensitivity(query, space, metric_obj, d_in, max_datasets=max_datasets,
                             max_pairs=max_pairs, progress=False)
        gap = None
        if b >= fam.start:
            x, xp = fam.at(b)
            try:
                inside = space.contains(space.to_counts(x)) and space.contains(space.to_counts(xp))
            except InvalidArgument:
                inside = False
            if inside:
                gap = abs(query(x) - query(xp))
                if gap != fam.gap_at(b):
                    raise InvalidArgument(
                        f"the symbolic form gives |f(x_B) - f(x'_B)| = {fam.gap_at(b)} at B={b}, the "
                        f"query {gap} on x={format_dataset(x)}, x'={format_dataset(xp)}: the "
                        f"moment form is not this query's")
                dist = metric_obj.distance(x, xp)
                if dist is None or dist > d_in or compare(to_sympy(gap), to_sympy(result.value)) > 0:
                    raise AssertionError(  # pragma: no cover - proved symbolically above
                        f"family pair at B={b} is not a pair of neighbours below the sensitivity")
        if formula_expr is not None:
            at_b = _exact(formula_expr.subs(parameter, b))
            if compare(to_sympy(at_b) if isinstance(at_b, Fraction) else at_b,
                       to_sympy(result.value)) != 0:
                raise InvalidArgument(f"formula={formula_expr} gives {format_value(at_b)} at B={b}, "
                                      f"the enumeration {format_value(result.value)}")
        rows.append(GrowthRow(b, result.value, result.witness, space.describe(), n, gap))
    formula_limit = None if formula_expr is None else sympy.limit(formula_expr, parameter, sympy.oo)
    exceeded = None
    if not fam.unbounded:
        verdict = Verdict.UNDECIDED
    elif claim_value is None:
        verdict = Verdict.UNBOUNDED
    else:
        verdict, exceeded = Verdict.VIOLATED, _first_exceeding(fam, claim_value)
    return UnboundedResult(query.name, metric_obj.cli_name, d_in, verdict, claim_value, fam,
                           tuple(rows), formula_expr, formula_limit, exceeded)
