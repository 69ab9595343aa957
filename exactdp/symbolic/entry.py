"""A catalogue entry and its check: :class:`Entry`, :class:`Truth`, :func:`check_entry`.

The list of entries is :func:`exactdp.symbolic.catalogue.catalogue` (which re-exports every
name here): the modules that define entries import this module, and the catalogue imports
them, so the entries and the list of them do not import each other in a circle.

An :class:`Entry` is one formula: where it was published, the formula as published (or
``None`` where the source leaves the cell blank), the formula derived here, the meaning of
each symbol, a grid of parameter bindings, and a ``truth`` function that computes the exact
sensitivity on one binding by enumeration (with the pair that attains it).

:func:`check_entry` evaluates both formulas on every binding of the grid and compares them
with the truth exactly:

- the published formula is VIOLATED on the first binding where it is below the truth (the
  witness is that binding and its neighbouring pair); HOLDS_ON_GRID when it is never below,
  ``tight`` when it equals the truth somewhere (the witness is the first such binding), with
  slack on every binding otherwise (the witness is a binding with slack);
- the derived formula must never be below the truth, and, when ``derived_tight`` is set
  (the default), equal to it on every binding.

The evidence is ``bit-exact-grid`` (:class:`~exactdp.checkers.results.Evidence`): each
binding is enumerated in exact arithmetic, but a formula speaks for every value of its
parameters and only the bindings of the grid were checked. So a formula never below the
truth is ``holds-on-grid`` (:func:`~exactdp.checkers.results.qualify`), never ``holds`` /
``holds-tight``; its tightness is kept apart (``published_tight``, ``derived_tight``), as
:func:`exactdp.symbolic.verify` does. A violation is a real witness either way.

Entries come from the modules listed in ``exactdp.symbolic.catalogue.ENTRY_MODULES``; each
defines ``entries() -> list[Entry]``.
An entry is also a claim of the registry (:mod:`exactdp.registry`), of kind ``"formula"``:
what it expects is that the derived formula holds (tightly, when promised).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable, ClassVar, Mapping, Sequence

import sympy

from exactdp._display import card
from exactdp.checkers.results import Evidence, Verdict, format_value, qualify
from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import format_exact
from exactdp.numeric.formula import substitute

__all__ = ["Truth", "Entry", "EntryCheck", "InstanceWitness", "check_entry", "evaluate", "describe_grid"]

@dataclasses.dataclass(frozen=True)
class Truth:
    """The exact sensitivity on one parameter binding, found by enumeration.

    ``witness`` is any object with ``to_dict()`` and ``__str__`` (a
    :class:`~exactdp.checkers.results.Witness`, or a pair of tables for relational
    entries); ``None`` only when the value is 0 or no pair exists. ``scope`` says what was
    enumerated, in words.
    """

    value: Any
    witness: Any
    scope: str

    @classmethod
    def from_result(cls, result) -> "Truth":
        """From a :class:`~exactdp.checkers.results.SensitivityResult`."""
        return cls(result.value, result.witness, result.scope.describe())


@dataclasses.dataclass(frozen=True)
class Entry:
    """One catalogue formula. ``covers`` names the code objects its proof covers."""

    id: str
    source: str
    statistic: str
    neighbors: str
    published: sympy.Expr | None
    derived: sympy.Expr
    symbols: Mapping[str, str]
    grid: Sequence[Mapping[str, Any]]
    truth: Callable[[Mapping[str, Any]], Truth]
    covers: tuple[str, ...] = ()
    derived_tight: bool = True
    note: str = ""
    kind: ClassVar[str] = "formula"

    @property
    def statement(self) -> str:
        """What is checked, in one line."""
        return f"{self.statistic}, {self.neighbors}: derived {self.derived}"

    @property
    def expect(self) -> str:
        """The derived formula's expected verdict (a :class:`Verdict` value): ``holds-on-grid``
        (the evidence is ``bit-exact-grid``), and tight on every binding when ``derived_tight``
        is set (:attr:`EntryCheck.ok` asks both)."""
        return Verdict.HOLDS_ON_GRID.value

    def check(self, progress: Callable[[int, int], None] | None = None) -> "EntryCheck":
        """:func:`check_entry` of this entry."""
        return check_entry(self, progress)

    def meets_expectation(self, result: "EntryCheck") -> bool:
        return result.ok

    def __post_init__(self):
        if not self.grid:
            raise InvalidArgument(f"catalogue entry id={self.id!r} has an empty grid; give at least one binding")
        names = set(self.symbols)
        for label, expr in (("published", self.published), ("derived", self.derived)):
            if expr is None:
                continue
            unknown = {s.name for s in sympy.sympify(expr).free_symbols} - names
            if unknown:
                raise InvalidArgument(f"catalogue entry id={self.id!r}: the {label} formula uses "
                                      f"{sorted(unknown)} without a meaning in symbols; add them")

    def _repr_latex_(self) -> str:
        pub = "" if self.published is None else rf"\text{{published }} {sympy.latex(self.published)},\ "
        return rf"$\displaystyle {pub}\text{{derived }} {sympy.latex(self.derived)}$"


def evaluate(expr: sympy.Expr, params: Mapping[str, Any]):
    """The exact value of ``expr`` with every free symbol bound from ``params`` (by name)."""
    expr = sympy.sympify(expr)
    missing = sorted(s.name for s in expr.free_symbols if s.name not in params)
    if missing:
        raise InvalidArgument(f"cannot evaluate {expr} with parameters {dict(params)!r}: "
                              f"no value for {missing}")
    value = substitute(expr, {s.name: params[s.name] for s in expr.free_symbols}, _finish=False)
    value = sympy.simplify(value) if value.free_symbols else value.doit()
    return value


@dataclasses.dataclass(frozen=True)
class InstanceWitness:
    """A parameter binding, the formula's value there, and the truth with its pair."""

    params: Mapping[str, Any]
    formula_value: Any
    truth: Truth

    def to_dict(self) -> dict:
        w = self.truth.witness
        return {
            "parameters": {k: _plain(v) for k, v in self.params.items()},
            "formula_value": format_value(_as_fraction(self.formula_value)),
            "exact": format_value(_as_fraction(self.truth.value)),
            "pair": None if w is None else w.to_dict(),
            "scope": self.truth.scope,
        }

    def __str__(self) -> str:
        params = ", ".join(f"{k}={_plain(v)}" for k, v in self.params.items())
        pair = "" if self.truth.witness is None else f"; pair {self.truth.witness}"
        return (f"at {params}: formula {format_value(_as_fraction(self.formula_value))} vs exact "
                f"{format_value(_as_fraction(self.truth.value))}{pair}")


def _plain(v):
    if isinstance(v, Fraction):
        return format_exact(v)
    return v if isinstance(v, (int, str, bool)) or v is None else str(v)


def _as_fraction(v):
    if isinstance(v, sympy.Rational):
        return Fraction(int(v.p), int(v.q))
    return v


def _sort_values(values: list) -> list:
    """Numbers in increasing order, then text; as given when they do not compare."""
    try:
        return sorted(values, key=lambda v: (isinstance(v, str), "" if not isinstance(v, str) else v,
                                             0 if isinstance(v, str) else v))
    except TypeError:
        return values


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def describe_grid(grid: Sequence[Mapping[str, Any]], keep: int = 12) -> str:
    """A grid of bindings in words: each parameter's values (``d_in`` last), and how many
    of their combinations the grid holds when not all of them.

    >>> describe_grid([dict(L=0, U=3, d_in=1), dict(L=0, U=3, d_in=2), dict(L=2, U=5, d_in=1)])
    '3 of the 8 combinations of L in {0, 2}; U in {3, 5}; d_in in {1, 2}'
    >>> describe_grid([dict(d_in=1, N=1), dict(d_in=2, N=1)]), describe_grid([dict(N=1, d_in=1)])
    ('N in {1}; d_in in {1, 2}', 'the one binding N=1, d_in=1')
    """
    names: list[str] = []
    for b in grid:
        names.extend(n for n in b if n not in names)
    if "d_in" in names:  # the distance last, as in every other scope
        names.remove("d_in")
        names.append("d_in")
    axes: dict[str, dict] = {n: {} for n in names}  # insertion-ordered sets
    combos: dict[tuple, None] = {}
    for b in grid:
        combos[tuple(_hashable(b.get(n)) for n in names)] = None
        for n in names:
            if n in b:
                axes[n].setdefault(_hashable(b[n]), b[n])
    axes = {n: list(values.values()) for n, values in axes.items()}
    combos = [tuple(c) for c in combos]
    product = 1
    for n in names:
        product *= len(axes[n])
    if len(combos) == 1:
        return "the one binding " + ", ".join(f"{n}={_plain(v)}" for n, v in grid[0].items())

    def axis(n: str) -> str:
        values = [_plain(v) for v in _sort_values(axes[n])]
        more = f", ... ({len(values)} values)" if len(values) > keep else ""
        return f"{n} in {{{', '.join(str(v) for v in values[:keep])}{more}}}"

    text = "; ".join(axis(n) for n in names)
    if len(combos) == product:  # every combination: the axes say it all
        return text
    return f"{len(combos):,} of the {product:,} combinations of {text}"


@dataclasses.dataclass(frozen=True)
class EntryCheck:
    """The outcome of re-checking one entry over its grid.

    ``evidence`` is ``bit-exact-grid`` (see the module doc): ``published_verdict`` and
    ``derived_verdict`` are ``holds-on-grid``, ``violated`` or ``undecided`` (the published
    one ``None`` where the source published no formula), never ``holds`` / ``holds-tight``.
    Tightness is apart: ``published_tight`` (never below the truth and equal to it on some
    binding) and ``derived_tight`` (equal to the truth on every binding).
    """

    entry: Entry
    published_verdict: Verdict | None
    published_witness: InstanceWitness | None
    derived_verdict: Verdict
    derived_witness: InstanceWitness | None
    instances: int
    published_tight: bool = False
    derived_tight: bool = False

    @property
    def evidence(self) -> Evidence:
        """``bit-exact-grid``: each binding enumerated exactly, only the grid's bindings."""
        return Evidence.BIT_EXACT_GRID

    @property
    def ok(self) -> bool:
        """The derived formula is never below the truth on the grid (``holds-on-grid``), and
        equal to it on every binding when the entry promises it (``derived_tight``)."""
        if not self.derived_verdict.holding:
            return False
        return self.derived_tight or not self.entry.derived_tight

    @property
    def verdict(self) -> Verdict | None:
        """The published formula's verdict (``None`` where the source published none)."""
        return self.published_verdict

    @property
    def tight(self) -> bool:
        """The published formula equals the truth on some binding (and is never below it)."""
        return self.published_tight

    @property
    def witness(self) -> InstanceWitness | None:
        """The published formula's witness, or the derived one's where none was published."""
        return self.published_witness if self.entry.published is not None else self.derived_witness

    def grid_text(self) -> str:
        """The entry's grid in words (:func:`describe_grid`)."""
        return describe_grid(self.entry.grid)

    def _repr_html_(self) -> str:
        e, witness = self.entry, self.witness
        verdict = self.verdict.value if self.verdict is not None else f"derived {self.derived_verdict.value}"
        return card(f"{e.id}: {e.statistic} under {e.neighbors}", verdict, [
            ("published", "none" if e.published is None else f"{e.published}" + (" (tight on some binding)"
                                                                                if self.published_tight else "")),
            ("derived", f"{e.derived}: {self.derived_verdict.value}"
                        + (", tight on every binding" if self.derived_tight else "")),
            ("witness", witness),
            ("evidence", f"{self.evidence.value}: {self.instances:,} bindings, {self.grid_text()}"),
            ("source", e.source),
        ])

    def to_dict(self) -> dict:
        e, witness = self.entry, self.witness
        return {
            "id": e.id,
            "source": e.source,
            "statistic": e.statistic,
            "neighbors": e.neighbors,
            "published": None if e.published is None else str(e.published),
            "derived": str(e.derived),
            "symbols": dict(e.symbols),
            "verdict": None if self.verdict is None else self.verdict.value,
            "evidence": self.evidence.value,
            "tight": None if self.verdict is None else self.published_tight,
            "witness": None if witness is None else witness.to_dict(),
            "derived_verdict": self.derived_verdict.value,
            "derived_tight_everywhere": self.derived_tight,
            "instances": self.instances,
            "grid": self.grid_text(),
            "grid_bindings": [{k: _plain(v) for k, v in b.items()} for b in e.grid],
            "note": e.note,
        }

    def _published_line(self) -> str:
        v, w = self.published_verdict, self.published_witness
        at = "" if w is None else f" {w}"
        if not v.holding:
            return f"{_word(v)}{at}"
        if self.published_tight:
            return f"{_word(v)}, tight{at}"
        return f"{_word(v)} with slack on every binding, e.g.{at}"

    def _derived_line(self) -> str:
        v, w = self.derived_verdict, self.derived_witness
        if v.holding and self.derived_tight:
            return f"{_word(v)}, tight on every binding"
        if v.holding:
            return f"{_word(v)}, above the exact value{'' if w is None else ' ' + str(w)}"
        return f"{_word(v)}{'' if w is None else ' ' + str(w)}"

    def __str__(self) -> str:
        e = self.entry
        lines = [f"{e.id}: {e.statistic}, {e.neighbors} ({e.source})"]
        if e.published is not None:
            lines.append(f"  published {e.published}: {self._published_line()}")
        elif e.note:
            # a blank cell: the derived formula below is for the finite universe the note
            # names, not the cell's domain (issue 28: "any numeric vector" beside unbounded)
            lines.append(f"  published blank: {e.note}")
        lines.append(f"  derived   {e.derived}: {self._derived_line()}"
                     + ("" if self.ok else "  <-- DERIVED FORMULA FAILS"))
        lines.append(f"  evidence: {self.evidence.value}, {self.instances} parameter binding"
                     f"{'' if self.instances == 1 else 's'} each enumerated exactly: "
                     f"{self.grid_text()}")
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        return self.entry._repr_latex_()


def _word(verdict: Verdict) -> str:
    """``holds-on-grid`` as ``HOLDS ON GRID``, as :class:`~exactdp.symbolic.verify.GridResult`
    prints it."""
    return verdict.value.upper().replace("-", " ")


def _judge(expr, truths) -> tuple[Verdict, InstanceWitness | None, InstanceWitness | None]:
    """Compare ``expr`` with the truth on every binding.

    Returns the verdict (VIOLATED at the first binding below the truth; else HOLDS_TIGHT when
    equal somewhere; else HOLDS), its witness (the violation, the first tight binding, or the
    first binding with slack where the truth is not 0, else the first with slack), and that
    binding with slack (``None`` if equal everywhere).
    """
    tight = slack = undecided = None
    for params, truth in truths:
        value = evaluate(expr, params)
        try:
            c = compare(value, truth.value)
        except Undecided:
            undecided = undecided or InstanceWitness(params, value, truth)
            continue
        if c < 0:
            return Verdict.VIOLATED, InstanceWitness(params, value, truth), None
        if c == 0:
            tight = tight or InstanceWitness(params, value, truth)
        elif slack is None or (slack.truth.value == 0 and truth.value != 0):
            # the first binding with slack, preferring one where something moves at all
            slack = InstanceWitness(params, value, truth)
    if undecided is not None:
        return Verdict.UNDECIDED, undecided, slack
    if tight is not None:
        return Verdict.HOLDS_TIGHT, tight, slack
    return Verdict.HOLDS, slack, slack


def check_entry(entry: Entry, progress: Callable[[int, int], None] | None = None) -> EntryCheck:
    """Enumerate every binding of ``entry.grid`` and judge both formulas (see module doc).

    Both verdicts are qualified by the evidence, ``bit-exact-grid``: ``holds-on-grid``,
    ``violated`` or ``undecided``. The derived formula is ``derived_tight`` only when it
    equals the truth on every binding; equal on some and above on others is not tight, with
    the first slack binding as its witness.
    """
    truths = []
    for i, params in enumerate(entry.grid):
        truths.append((dict(params), entry.truth(params)))
        if progress is not None:
            progress(i + 1, len(entry.grid))
    evidence = Evidence.BIT_EXACT_GRID
    pub_verdict = pub_witness = None
    pub_tight = False
    if entry.published is not None:
        pub_verdict, pub_witness, _ = _judge(entry.published, truths)
        pub_tight = pub_verdict is Verdict.HOLDS_TIGHT
        pub_verdict = qualify(pub_verdict, evidence)
    der_verdict, der_witness, der_slack = _judge(entry.derived, truths)
    der_tight = der_verdict is Verdict.HOLDS_TIGHT and der_slack is None
    if der_verdict is Verdict.HOLDS_TIGHT and der_slack is not None:
        der_witness = der_slack
    return EntryCheck(entry, pub_verdict, pub_witness, qualify(der_verdict, evidence), der_witness,
                      len(truths), pub_tight, der_tight)
