"""Verify a symbolic claim against a transformation over a grid of parameter values.

:func:`verify` takes a claimed stability map (a SymPy expression, or a string parsed
safely by :func:`~exactdp.numeric.formula.parse_expression` with the canonical symbols),
a :class:`~exactdp.symbolic.maps.Transformation` built by a ``make_*`` constructor, and a
grid of parameter bindings. It enumerates every binding exactly with the engine and says
whether the claim is VIOLATED (with the first binding and neighbouring pair that break
it) or HOLDS_ON_GRID (never below the exact sensitivity on any binding; ``tight`` when equal
to it somewhere, else with slack on every binding), always with the scope. The evidence is
``bit-exact-grid``: each binding is enumerated exactly, but only the bindings of the grid
(which the scope names) are checked, so the word is never plain ``holds``. The comparison is the catalogue's
(:func:`~exactdp.symbolic.catalogue.check_entry`); the transformation's own derived map
is judged on the same grid, as a self-check.

Default grids (for the parameters left symbolic): bounds ``(L, U)`` in ``(-2, -1)``
(negative, ``U < 0``), ``(-1, 2)`` (``L < 0 < U``), ``(0, 2)``, ``(1, 3)`` (``L > 0``);
``N`` in ``1..5``; ``d_in`` in ``1..4``; ``k`` and ``C`` in ``1, 2``; ``alpha`` in
``0, 1/4, 1/3, 1/2, 2/3, 1``; ``min_size`` in ``1..3``.

>>> from exactdp.symbolic.constructors import make_sum
>>> r = verify("U - L", make_sum(), grid={"L": [-2, 0], "U": [-1, 2]}, d_in=1)
>>> r.verdict
<Verdict.VIOLATED: 'violated'>
>>> print(r.witness)
at L=-2, U=-1, d_in=1: formula 1 vs exact 2; pair x=[], x'=[-2]: f(x)=0, f(x')=-2
"""

from __future__ import annotations

import dataclasses
import itertools
from decimal import Decimal
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

import sympy

from exactdp.checkers.results import Evidence, Verdict, evidence_note, qualify
from exactdp.errors import ClaimViolated, InvalidArgument
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.symbolic.catalogue import Entry, EntryCheck, InstanceWitness, check_entry
from exactdp.symbolic.maps import Transformation, meanings, parameter_symbol
from exactdp.numeric.formula import parse_expression, substitute

__all__ = ["verify", "assert_verified", "GridResult", "default_grid", "DEFAULT_VALUES",
           "DEFAULT_BOUNDS", "MAX_BINDINGS"]

DEFAULT_BOUNDS = ((-2, -1), (-1, 2), (0, 2), (1, 3))
"""``(L, U)`` pairs of the default grid: negative (``U < 0``), ``L < 0 < U``, ``L = 0``,
``L > 0``."""

DEFAULT_VALUES: dict[str, tuple] = {
    "N": (1, 2, 3, 4, 5),
    "d_in": (1, 2, 3, 4),
    "k": (1, 2),
    "C": (1, 2),
    "alpha": (0, Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), 1),
    "min_size": (1, 2, 3),
}

MAX_BINDINGS = 2000
"""Largest grid :func:`verify` accepts (each binding is one enumeration)."""


def _claim_expression(claim: object, names: Iterable[str]) -> tuple[str, sympy.Expr]:
    """``(text, expression in canonical symbols)``, built through the parser's guards."""
    allowed = sorted(set(names))
    if isinstance(claim, str):
        env = {n: parameter_symbol(n) for n in allowed}
        return claim, parse_expression(claim, env)
    if isinstance(claim, sympy.Basic):
        if not isinstance(claim, sympy.Expr):
            raise InvalidArgument(
                f"claim={_shorten(claim)} is a {type(claim).__name__}, not a formula; pass a "
                f"SymPy expression such as d_in*(U - L), a string or a number"
            )
        stray = sorted(s.name for s in claim.free_symbols if s.name not in allowed)
        if stray:
            raise InvalidArgument(
                f"claim={claim} uses {stray}, which are not parameters here ({allowed})"
            )
        if claim.has(sympy.Float):
            raise InvalidArgument(f"claim={claim} contains a float; write exact numbers")
        # renamed to the canonical symbols, every node rebuilt through the parser's guards
        canon = substitute(claim, {s.name: parameter_symbol(s.name) for s in claim.free_symbols},
                           text=_shorten(claim))
        return str(claim), canon
    if not isinstance(claim, (int, Fraction, Decimal, float)):
        raise InvalidArgument(
            f"claim={_shorten(claim)} of type {type(claim).__name__} is not a claim; pass a "
            f"number (int, Fraction, '5/2'), a formula string such as 'd_in*(U - L)' or a "
            f"SymPy expression"
        )
    value = to_exact(claim, "claim")
    return format_exact(value), sympy.Rational(value.numerator, value.denominator)


def _shorten(value: object, limit: int = 100) -> str:
    try:
        shown = repr(value) if not isinstance(value, sympy.Basic) else str(value)
    except ValueError:  # an int past Python's 4,300-digit limit for printing: never printed
        return "<a value with a number of more than 4,300 digits>"
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _grid_value(name: object, value: object) -> object:
    """A grid value as given (int, Fraction) or as a Fraction (str, Decimal, SymPy rational);
    anything else is refused, naming it."""
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, bool) or not isinstance(value, (int, Fraction, str, Decimal, float)):
        raise InvalidArgument(
            f"grid value {name}={_shorten(value)} is not a rational number; grid values are ints, "
            f"Fractions or strings such as '5/2'"
        )
    exact = to_exact(value, str(name))  # a float: InexactInput, with the exact door
    return value if isinstance(value, (int, Fraction)) else exact


def default_grid(transformation: Transformation, d_in=None) -> list[dict]:
    """The default bindings for the parameters ``transformation`` leaves symbolic."""
    names = transformation.free
    axes: list[list[dict]] = []
    if "L" in names or "U" in names:
        pairs = []
        for lo, hi in DEFAULT_BOUNDS:
            pair = {}
            if "L" in names:
                pair["L"] = lo
            if "U" in names:
                pair["U"] = hi
            pairs.append(pair)
        bound = transformation.bound
        pairs = [p for p in pairs
                 if p.get("L", bound.get("L", -10**9)) <= p.get("U", bound.get("U", 10**9))]
        axes.append(_unique(pairs))
    overrides = getattr(transformation, "grid_defaults", {}) or {}
    for name in names:
        if name in ("L", "U"):
            continue
        values = overrides.get(name, DEFAULT_VALUES.get(name))
        if values is None:
            raise InvalidArgument(
                f"no default values for the parameter {name!r} of {transformation.name!r}; "
                f"pass grid={{{name!r}: [...]}}"
            )
        axes.append([{name: v} for v in values])
    axes.append([{"d_in": v} for v in _d_values(d_in)])
    out = []
    for combo in itertools.product(*axes):
        binding: dict = {}
        for part in combo:
            binding.update(part)
        out.append(binding)
    return out


def _unique(pairs: list[dict]) -> list[dict]:
    seen, out = set(), []
    for p in pairs:
        key = tuple(sorted(p.items()))
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _d_values(d_in) -> tuple:
    if d_in is None:
        return DEFAULT_VALUES["d_in"]
    if isinstance(d_in, (int, Fraction, str, Decimal, float, sympy.Rational)):
        return (_grid_value("d_in", d_in),)
    if isinstance(d_in, (Mapping, bytes)):
        raise InvalidArgument(f"d_in={_shorten(d_in)} is not a distance or a list of distances")
    try:
        values = tuple(itertools.islice(d_in, MAX_BINDINGS + 1))
    except TypeError:
        raise InvalidArgument(f"d_in={_shorten(d_in)} is not a distance or a list of distances") from None
    if not values:
        raise InvalidArgument("d_in=[] is empty; pass a distance such as 1 or a list (1, 2)")
    return tuple(_grid_value("d_in", v) for v in values)


def _grid(transformation: Transformation, grid, d_in) -> list[dict]:
    if grid is None:
        bindings = default_grid(transformation, d_in)
    elif isinstance(grid, Mapping):
        names = list(grid)
        for n in names:
            if not isinstance(n, str):
                raise InvalidArgument(f"grid has the key {n!r}; keys are parameter names such as 'U'")
            if n != "d_in":
                parameter_symbol(n)
        axes = [_axis(n, grid[n]) for n in names]
        bindings = [dict(zip(names, combo)) for combo in itertools.product(*axes)]
        if "d_in" not in grid:
            bindings = [dict(b, d_in=v) for b in bindings for v in _d_values(d_in)]
        elif d_in is not None:
            raise InvalidArgument("d_in given both in grid and as d_in=...; give it once")
        # L > U combinations of a product grid are skipped, not errors
        bindings = [b for b in bindings if not _reversed(b, transformation.bound)]
    elif isinstance(grid, (str, bytes)) or not isinstance(grid, Iterable):
        raise InvalidArgument(
            f"grid={_shorten(grid)} is not a grid; pass a mapping name -> values such as "
            f"{{'L': [0], 'U': [1, 2]}}, a list of bindings such as [{{'L': 0, 'U': 1}}], or None"
        )
    else:
        bindings = []
        for b in grid:
            if not isinstance(b, Mapping):
                raise InvalidArgument(
                    f"grid binding {_shorten(b)} is not a mapping; a list grid holds bindings such "
                    f"as {{'L': 0, 'U': 1}}"
                )
            bindings.append({n: _grid_value(n, v) for n, v in b.items()})
            if len(bindings) > MAX_BINDINGS:
                break
        if d_in is not None:
            bindings = [dict(b, d_in=v) for b in bindings for v in _d_values(d_in)]
    if not bindings:
        raise InvalidArgument(f"grid={grid!r} has no binding; give at least one")
    if len(bindings) > MAX_BINDINGS:
        raise InvalidArgument(
            f"the grid has {len(bindings):,} bindings, over {MAX_BINDINGS:,}; give fewer values"
        )
    free = set(transformation.free)
    for b in bindings:
        missing = sorted(free - set(b))
        if missing or "d_in" not in b:
            raise InvalidArgument(
                f"binding {b!r} has no value for {missing or ['d_in']}; the grid must bind "
                f"{sorted(free | {'d_in'})}"
            )
        extra = sorted(set(b) - free - {"d_in"})
        if extra:
            raise InvalidArgument(
                f"binding {b!r} binds {extra}, which {transformation.name!r} does not leave "
                f"free (its free parameters: {sorted(free)})"
            )
    return bindings


def _axis(name: str, values: object) -> list:
    """The values of one grid axis: one value, or an iterable of them."""
    if isinstance(values, (int, Fraction, str, Decimal, float, sympy.Rational)):
        return [_grid_value(name, values)]
    if isinstance(values, Mapping) or not isinstance(values, Iterable):
        raise InvalidArgument(
            f"grid[{name!r}]={_shorten(values)} is not a value or a list of values; pass e.g. "
            f"{{{name!r}: [1, 2]}}"
        )
    out = [_grid_value(name, v) for v in itertools.islice(values, MAX_BINDINGS + 1)]
    if not out:
        raise InvalidArgument(f"grid[{name!r}] is empty; give at least one value")
    return out


def _reversed(b: Mapping, bound: Mapping) -> bool:
    lo, hi = b.get("L", bound.get("L")), b.get("U", bound.get("U"))
    if lo is None or hi is None:
        return False
    return to_exact(hi, "U") < to_exact(lo, "L")


@dataclasses.dataclass(frozen=True, repr=False)
class GridResult:
    """A claim judged on every binding of a grid, with the first witness.

    ``verdict`` is the claim's; ``witness`` is the first violating binding (VIOLATED), the
    first tight one (HOLDS_ON_GRID with ``tight``) or the first one with slack
    (HOLDS_ON_GRID, not ``tight``). ``map_verdict`` is the transformation's own derived map
    on the same grid (HOLDS_ON_GRID with ``map_tight`` expected).

    ``evidence`` is ``bit-exact-grid``: every binding is enumerated in exact arithmetic, but
    the claim is a formula for every value of its parameters and only the finite grid the
    scope names was checked. So a claim that is never below the truth is ``holds-on-grid``
    (:func:`~exactdp.checkers.results.qualify`), never ``holds`` / ``holds-tight``;
    whether it was attained is ``tight``. A violation is a real witness either way.
    """

    claim_text: str
    claim: sympy.Expr
    transformation: Transformation
    check: EntryCheck

    @property
    def evidence(self) -> Evidence:
        """``bit-exact-grid``: exact on each binding, checked on the grid only."""
        return Evidence.BIT_EXACT_GRID

    @property
    def verdict(self) -> Verdict:
        """The claim's verdict, qualified by the evidence: ``holds-on-grid``, ``violated``,
        ``undecided``."""
        return qualify(self.check.published_verdict, self.evidence)

    @property
    def tight(self) -> bool:
        """The claim equals the exact sensitivity on some binding (and is never below it)."""
        return self.check.published_tight

    @property
    def witness(self) -> InstanceWitness | None:
        return self.check.published_witness

    @property
    def map_verdict(self) -> Verdict:
        """The derived map's verdict on the same grid, qualified like :attr:`verdict`."""
        return qualify(self.check.derived_verdict, self.evidence)

    @property
    def map_tight(self) -> bool:
        """The derived map equals the exact sensitivity on every binding."""
        return self.check.derived_tight

    @property
    def bindings(self) -> int:
        return self.check.instances

    @property
    def ok(self) -> bool:
        """The claim is never below the exact sensitivity on the grid (``holds-on-grid``)."""
        return self.verdict.holding

    def scope(self) -> str:
        return (f"{self.bindings} parameter bindings ({self.grid_text()}) of "
                f"{self.transformation.name}, each enumerated exactly")

    def grid_text(self) -> str:
        """The grid, in words: ``'(L, U) in {(-2, -1), (0, 2)}; d_in in {1, 2}'``."""
        grid = self.check.entry.grid
        names = sorted({n for b in grid for n in b if n != "d_in"})
        parts = []
        if names:
            combos = {tuple(to_exact(b[n], n) for n in names) for b in grid}
            groups = [[n for n in names if n in ("L", "U")]] + [[n] for n in names
                                                              if n not in ("L", "U")]
            groups = [g for g in groups if g]
            sets = [sorted({tuple(c[names.index(n)] for n in g) for c in combos}) for g in groups]
            if len(combos) == _product(len(s) for s in sets):
                for g, s in zip(groups, sets):
                    parts.append(f"{_label(g)} in {{{', '.join(_tuple(c) for c in s)}}}")
            else:
                listed = sorted(combos)
                more = f", ... ({len(listed)} in all)" if len(listed) > 12 else ""
                parts.append(f"{_label(names)} in {{"
                             f"{', '.join(_tuple(c) for c in listed[:12])}{more}}}")
        ds = sorted({to_exact(b["d_in"], "d_in") for b in grid})
        parts.append(f"d_in in {{{', '.join(format_exact(v) for v in ds)}}}")
        return "; ".join(parts)

    def summary(self) -> str:
        w = self.witness
        if self.verdict is Verdict.VIOLATED:
            return f"VIOLATED: claim {self.claim_text} is below the exact sensitivity {w}"
        if self.verdict.holding:
            note = evidence_note(self.evidence, f"{self.bindings} bindings: {self.grid_text()}")
            if self.tight:
                return (f"HOLDS ON GRID, tight{note}: claim {self.claim_text} is never below, "
                        f"and attained {w}")
            return f"HOLDS ON GRID with slack on every binding{note}: claim {self.claim_text}, e.g. {w}"
        return f"UNDECIDED: claim {self.claim_text} could not be compared {w}"

    def __str__(self) -> str:
        """The scope, the enumeration behind the witness and the self-check of the derived
        map, then the verdict line (:meth:`summary`) last, where a reader looks for it."""
        lines = [f"scope: {self.scope()}"]
        if self.witness is not None:
            lines.append(f"witness enumeration: {self.witness.truth.scope}")
        mv = self.map_verdict
        check = ("equals the exact sensitivity on every binding" if self.map_tight
                 else f"is {mv.value.upper()} on this grid  <-- not tight everywhere")
        lines.append(f"self-check: the derived map {self.transformation.expression} {check}")
        lines.append(f"{self.transformation.name}: {self.summary()}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        w = self.witness
        at = "" if w is None else ", ".join(f"{k}={_shown(v)}" for k, v in w.params.items())
        first = {Verdict.VIOLATED: f"; first failing at {at}",
                 Verdict.UNDECIDED: f"; first undecided at {at}"}.get(self.verdict, "")
        tight = ", tight" if self.tight else ""
        return (f"<GridResult {self.verdict.value}{tight}: claim {_shorten(self.claim_text, 80)} for "
                f"{self.transformation.name} on {self.bindings} bindings{first}>")

    def to_dict(self) -> dict:
        return {
            "transformation": self.transformation.name,
            "claim": self.claim_text,
            "claim_expression": str(self.claim),
            "verdict": self.verdict.value,
            "evidence": self.evidence.value,
            "tight": self.tight,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "derived": str(self.transformation.expression),
            "derived_verdict": self.map_verdict.value,
            "derived_tight": self.map_tight,
            "bindings": self.bindings,
            "grid": self.grid_text(),
            "scope": self.scope(),
        }

    def _repr_latex_(self) -> str:
        rel = (r"\not\geq" if self.verdict is Verdict.VIOLATED else "?" if not self.verdict.holding
               else r"\geq" if self.tight else ">")
        return (rf"$\displaystyle {sympy.latex(self.claim)} {rel} "
                rf"\Delta_{{\mathrm{{{self.transformation.name}}}}}"
                rf"\ \text{{({self.verdict.value} on {self.bindings} bindings)}}$")


def verify(claim: object, transformation: Transformation, grid=None, d_in=None) -> GridResult:
    """Judge ``claim`` (an expression in ``d_in`` and the parameters of
    ``transformation``) against the exact sensitivity on every binding of ``grid``.

    ``grid`` is ``None`` (the defaults above, for the parameters left symbolic), a mapping
    ``name -> values`` (their product; combinations with ``L > U`` are skipped) or a list of
    bindings. ``d_in`` is one distance or a list (default ``1..4``), unless the grid binds
    it. A string claim is parsed safely; anything but arithmetic is refused with
    :class:`~exactdp.errors.InvalidArgument`. Never raises on a violation.
    """
    if not isinstance(transformation, Transformation):
        raise InvalidArgument(
            f"transformation={transformation!r} is not a Transformation; build one with a "
            f"make_* constructor"
        )
    if not transformation.has_exact_form:
        raise InvalidArgument(
            f"transformation {transformation.name!r} has no exact form to enumerate; verify "
            f"claims against make_* constructors"
        )
    names = set(transformation.params) | {"d_in"}
    text, expr = _claim_expression(claim, names)
    bound = {k: sympy.Rational(v.numerator, v.denominator) for k, v in transformation.bound.items()}
    expr_bound = substitute(expr, bound, text=text, _finish=False)
    derived = transformation.expression
    bindings = _grid(transformation, grid, d_in)
    for b in bindings:
        # the catalogue evaluates the claim on each binding with SymPy's xreplace, which would
        # build 10**(10**9) for ever: substitute first, through the parser's size guards (a
        # value not finite or not real where it is built, 1/L at L = 0, is refused there)
        values = {n: to_exact(v, n) for n, v in b.items()}
        if isinstance(claim, str):  # the text read with the values: 0/L at L = 0 is refused,
            # not simplified away as the parsed claim had it
            parse_expression(claim, {**{n: parameter_symbol(n) for n in names}, **bound, **values})
        else:
            substitute(expr_bound, values, text=text, _finish=False)
    used = {s.name for s in expr_bound.free_symbols | derived.free_symbols} | set(transformation.free)
    entry = Entry(
        id=f"verify:{transformation.name}",
        source="claim given to verify()",
        statistic=transformation.name,
        neighbors=transformation.input_metric,
        published=expr_bound,
        derived=derived,
        symbols=meanings(used | {"d_in"}),
        grid=bindings,
        truth=transformation.truth,
    )
    return GridResult(text, expr, transformation, check_entry(entry))


def assert_verified(claim: object, transformation: Transformation, grid=None,
                    d_in=None) -> GridResult:
    """:func:`verify`, raising :class:`~exactdp.errors.ClaimViolated` (carrying the
    result) unless the claim holds on every binding."""
    result = verify(claim, transformation, grid, d_in)
    if not result.ok:
        raise ClaimViolated(str(result), result)
    return result


def _product(sizes) -> int:
    out = 1
    for s in sizes:
        out *= s
    return out


def _shown(value: object) -> str:
    return format_exact(value) if isinstance(value, Fraction) else str(value)


def _label(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"({', '.join(names)})"


def _tuple(values: Sequence[Fraction]) -> str:
    if len(values) == 1:
        return format_exact(values[0])
    return "(" + ", ".join(format_exact(v) for v in values) + ")"
