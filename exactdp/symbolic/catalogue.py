"""The catalogue: every sensitivity formula from the seeds, published and derived, re-checked.

An :class:`Entry` is one formula: where it was published, the formula as published (or
``None`` where the source leaves the cell blank), the formula derived here, the meaning of
each symbol, a grid of parameter bindings, and a ``truth`` function that computes the exact
sensitivity on one binding by enumeration (with the pair that attains it).

:func:`check_entry` evaluates both formulas on every binding of the grid and compares them
with the truth exactly:

- the published formula is VIOLATED on the first binding where it is below the truth (the
  witness is that binding and its neighbouring pair); HOLDS_TIGHT when it is never below and
  equals the truth somewhere; HOLDS (with slack) when it is above the truth on every binding;
- the derived formula must never be below the truth, and, when ``derived_tight`` is set
  (the default), equal to it on every binding.

Entries come from modules listed in ``ENTRY_MODULES``; each defines ``entries() -> list[Entry]``.
An entry is also a claim of the registry (:mod:`exactdp.registry`), of kind ``"formula"``:
what it expects is that the derived formula holds (tightly, when promised).
"""

from __future__ import annotations

import dataclasses
import importlib
from fractions import Fraction
from typing import Any, Callable, ClassVar, Mapping, Sequence

import sympy

from exactdp.checkers.results import Verdict, format_value
from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.decide import compare
from exactdp.numeric.exact import format_exact
from exactdp.numeric.formula import substitute

__all__ = ["Truth", "Entry", "EntryCheck", "InstanceWitness", "check_entry", "catalogue",
           "evaluate", "ENTRY_MODULES"]

ENTRY_MODULES = (
    "exactdp.symbolic.entries_seed000",
    "exactdp.symbolic.entries_seed002",
    "exactdp.relational.entries",
)


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
        """The derived formula's expected verdict (a :class:`Verdict` value)."""
        return (Verdict.HOLDS_TIGHT if self.derived_tight else Verdict.HOLDS).value

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


@dataclasses.dataclass(frozen=True)
class EntryCheck:
    """The outcome of re-checking one entry over its grid."""

    entry: Entry
    published_verdict: Verdict | None
    published_witness: InstanceWitness | None
    derived_verdict: Verdict
    derived_witness: InstanceWitness | None
    instances: int

    @property
    def ok(self) -> bool:
        """The derived formula holds everywhere (and is tight everywhere when promised)."""
        if self.entry.derived_tight:
            return self.derived_verdict is Verdict.HOLDS_TIGHT
        return self.derived_verdict in (Verdict.HOLDS, Verdict.HOLDS_TIGHT)

    @property
    def verdict(self) -> Verdict | None:
        """The published formula's verdict (``None`` where the source published none)."""
        return self.published_verdict

    @property
    def witness(self) -> InstanceWitness | None:
        """The published formula's witness, or the derived one's where none was published."""
        return self.published_witness if self.entry.published is not None else self.derived_witness

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
            "witness": None if witness is None else witness.to_dict(),
            "derived_verdict": self.derived_verdict.value,
            "derived_tight_everywhere": self.derived_verdict is Verdict.HOLDS_TIGHT,
            "instances": self.instances,
            "note": e.note,
        }

    def __str__(self) -> str:
        e = self.entry
        lines = [f"{e.id}: {e.statistic}, {e.neighbors} ({e.source})"]
        if e.published is not None:
            lines.append(f"  published {e.published}: {self.published_verdict.value.upper()}"
                         + (f" {self.published_witness}" if self.published_witness else ""))
        lines.append(f"  derived   {e.derived}: {self.derived_verdict.value.upper()} on "
                     f"{self.instances} parameter bindings"
                     + ("" if self.ok else "  <-- DERIVED FORMULA FAILS"))
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        return self.entry._repr_latex_()


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

    The derived formula's verdict is HOLDS_TIGHT only when it equals the truth on every
    binding; equal on some and above on others is HOLDS, with the first slack binding.
    """
    truths = []
    for i, params in enumerate(entry.grid):
        truths.append((dict(params), entry.truth(params)))
        if progress is not None:
            progress(i + 1, len(entry.grid))
    pub_verdict = pub_witness = None
    if entry.published is not None:
        pub_verdict, pub_witness, _ = _judge(entry.published, truths)
    der_verdict, der_witness, der_slack = _judge(entry.derived, truths)
    if der_verdict is Verdict.HOLDS_TIGHT and der_slack is not None:
        der_verdict, der_witness = Verdict.HOLDS, der_slack
    return EntryCheck(entry, pub_verdict, pub_witness, der_verdict, der_witness, len(truths))


def catalogue() -> list[Entry]:
    """Every entry, in a stable order; ids are unique."""
    entries: list[Entry] = []
    for name in ENTRY_MODULES:
        entries.extend(importlib.import_module(name).entries())
    seen: set[str] = set()
    for e in entries:
        if e.id in seen:
            raise InvalidArgument(f"duplicate catalogue id={e.id!r}")
        seen.add(e.id)
    return entries
