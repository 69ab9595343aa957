"""Relation mismatches: a document states one neighbour relation and computes with another.

A sensitivity is a maximum over *pairs of neighbours*, so it is only defined once the
relation is: add/remove (symmetric distance, "unbounded DP") or substitute (one record
replaced, "bounded DP"). A document that defines ``Delta f`` over one and then computes
it over the other gives a number for a different quantity. exactdp used to take the
relation the computation used, silently. Here both are computed and set side by side:
:func:`compare_relations` gives the exact global sensitivity of one query under the
relation stated and under the relation used (the engine enumerates both spaces); a
:class:`RelationMismatchResult` may also hold two closed forms (seed 004's typical
sensitivity, ``E|h|`` stated against ``E|h - h'|`` used:
:func:`exactdp.registry.seed004.seed004_typical_relations`).

The verdict judges the value *used* as a claim about the quantity *stated*: ``holds-tight``
when they are equal (the mismatch is harmless there), ``holds`` when the value used is
larger (conservative), ``violated`` when it is smaller, with both values and the factor.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp._display import card
from exactdp.checkers.results import Evidence, SensitivityResult, Verdict, evidence_note, format_value
from exactdp.checkers.sensitivity import sensitivity
from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.decide import compare, to_sympy
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
from exactdp.spaces.metrics import as_metric

__all__ = ["RelationValue", "RelationMismatchResult", "compare_relations", "RELATION_WORDS"]

RELATION_WORDS = {
    "add-remove": "add/remove (one record added or removed)",
    "substitute": "substitute (one record replaced)",
}


def _shown(value) -> str:
    if isinstance(value, Fraction) or (isinstance(value, sympy.Basic) and value.is_Rational):
        return format_value(value if isinstance(value, Fraction) else Fraction(int(value.p), int(value.q)))
    lo, hi = decimal_at_most(value, 10), decimal_at_least(value, 10)
    return f"{value} in [{lo}, {hi}]" if len(str(value)) < 40 else f"in [{lo}, {hi}]"


@dataclass(frozen=True)
class RelationValue:
    """One relation's value: the relation, whether the document states or uses it, the
    exact value, how it was computed and its witness (text)."""

    relation: str
    role: str  # "stated" or "used"
    value: Any
    how: str
    witness: str = ""

    def describe(self) -> str:
        shown = _shown(self.value)
        text = (f"{self.role} relation {RELATION_WORDS.get(self.relation, self.relation)}: "
                f"{self.how}{' ' if shown.startswith('in [') else ' = '}{shown}")
        return f"{text} ({self.witness})" if self.witness else text

    def to_dict(self) -> dict:
        return {"relation": self.relation, "role": self.role, "value": str(self.value),
                "enclosure": [str(decimal_at_most(self.value, 17)), str(decimal_at_least(self.value, 17))],
                "how": self.how, "witness": self.witness}


@dataclass(frozen=True)
class RelationMismatchResult:
    """Both values of a quantity a document defines over one relation (``stated``) and
    computes over another (``used``); the verdict judges ``used`` as a claim about
    ``stated``.

    ``evidence`` is ``bit-exact``: each value is an exact enumeration of its stated finite
    space or an exact closed form, compared exactly (interval arithmetic on exact reals)."""

    what: str
    stated: RelationValue
    used: RelationValue
    verdict: Verdict
    scope_text: str
    evidence: Evidence = Evidence.BIT_EXACT

    @property
    def ok(self) -> bool:
        return self.verdict.holding

    @property
    def witness(self) -> None:
        """The two values carry their own witnesses (:attr:`stated`, :attr:`used`)."""
        return None

    @property
    def factor(self):
        """``stated / used`` (exact), or ``None`` when the value used is 0."""
        if self.used.value == 0:
            return None
        ratio = to_sympy(self.stated.value) / to_sympy(self.used.value)
        return Fraction(int(ratio.p), int(ratio.q)) if ratio.is_Rational else ratio

    def summary(self) -> str:
        word = {Verdict.VIOLATED: "VIOLATED", Verdict.HOLDS_TIGHT: "HOLDS, tight",
                Verdict.HOLDS: "HOLDS"}.get(self.verdict, self.verdict.value.upper())
        relation = {Verdict.VIOLATED: "smaller than", Verdict.HOLDS_TIGHT: "equal to",
                    Verdict.HOLDS: "larger than"}.get(self.verdict, "not comparable with")
        tail = ""
        if self.verdict is Verdict.VIOLATED and self.factor is not None:
            tail = (f"; the stated quantity is {decimal_at_most(self.factor, 4)} to "
                    f"{decimal_at_least(self.factor, 4)} times the value used")
        return (f"{word}{evidence_note(self.evidence)}: {self.what}: the value computed over "
                f"the relation used is {relation} the value over the relation stated; "
                f"{self.stated.describe()}; {self.used.describe()}{tail}")

    def __str__(self) -> str:
        return f"{self.summary()}\n  scope: {self.scope_text}"

    def to_dict(self) -> dict:
        return {"verdict": self.verdict.value, "evidence": self.evidence.value, "what": self.what,
                "stated": self.stated.to_dict(), "used": self.used.to_dict(),
                "factor": None if self.factor is None else str(self.factor),
                "scope": self.scope_text, "text": self.summary()}

    def _repr_html_(self) -> str:
        return card(self.what, self.verdict.value,
                    [("stated", self.stated.describe()), ("used", self.used.describe()),
                     ("found", self.summary()), ("scope", self.scope_text),
                     ("evidence", self.evidence.value)])

    def _repr_latex_(self) -> str:
        return (rf"$\text{{stated ({self.stated.relation})}} = {sympy.latex(to_sympy(self.stated.value))}"
                rf",\ \text{{used ({self.used.relation})}} = {sympy.latex(to_sympy(self.used.value))}"
                rf"\quad (\text{{{self.verdict.value}}})$")


def _judge(used, stated) -> Verdict:
    try:
        c = compare(used, stated)
    except Undecided:
        return Verdict.UNDECIDED
    return Verdict.VIOLATED if c < 0 else Verdict.HOLDS_TIGHT if c == 0 else Verdict.HOLDS


def _from_result(role: str, result: SensitivityResult) -> RelationValue:
    witness = "" if result.witness is None else f"witness {result.witness}"
    return RelationValue(result.scope.metric.cli_name, role, result.value,
                         f"exact sensitivity of {result.query.name} on {result.scope.space.describe()}",
                         witness)


def compare_relations(query, stated: tuple, used: tuple, *, d_in: int = 1,
                      what: str | None = None, **options) -> RelationMismatchResult:
    """The exact sensitivity of ``query`` under the relation a document states and under
    the one it uses: ``stated`` and ``used`` are ``(space, metric)`` pairs (each relation
    on its own space: add/remove needs sizes that differ, substitute a fixed size).
    ``options`` go to :func:`~exactdp.checkers.sensitivity.sensitivity` (budgets).

    >>> from exactdp.queries import clipped, sum_
    >>> from exactdp.spaces import IntegerRange, Multisets
    >>> r = compare_relations(clipped(sum_, 2, 10),
    ...                       (Multisets(IntegerRange(0, 12), sizes=(0, 2)), "add-remove"),
    ...                       (Multisets(IntegerRange(0, 12), size=2), "substitute"))
    >>> r.verdict.value, r.stated.value, r.used.value
    ('violated', Fraction(10, 1), Fraction(8, 1))
    """
    for name, pair in (("stated", stated), ("used", used)):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InvalidArgument(f"{name}={pair!r} is not a pair (space, metric); pass e.g. "
                                  f"(Multisets(IntegerRange(0, 3), sizes=(0, 2)), 'add-remove')")
    s_metric, u_metric = as_metric(stated[1]), as_metric(used[1])
    if s_metric.cli_name == u_metric.cli_name:
        raise InvalidArgument(f"stated and used are both {s_metric.cli_name}: there is no mismatch "
                              f"to show; pass the two relations the document mixes")
    options.setdefault("progress", False)
    s = sensitivity(query, stated[0], s_metric, d_in, **options)
    u = sensitivity(query, used[0], u_metric, d_in, **options)
    verdict = _judge(u.value, s.value)
    return RelationMismatchResult(
        what or f"global sensitivity of {s.query.name}", _from_result("stated", s),
        _from_result("used", u), verdict,
        f"stated: {s.scope.describe()} | used: {u.scope.describe()}")

