"""Verdicts, witnesses and the results the checkers return."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp._display import card
from exactdp.errors import ExactDPError
from exactdp.numeric.exact import format_dataset, format_exact, to_exact
from exactdp.queries.base import Query
from exactdp.spaces.datasets import DatasetSpace
from exactdp.spaces.metrics import Metric

__all__ = ["Verdict", "Evidence", "qualify", "evidence_note", "verdict_counts", "VERDICT_ORDER",
           "Witness", "Scope", "SensitivityResult", "ClaimResult", "format_value"]


class Verdict(str, enum.Enum):
    """The checker's answer about a claim on a finite domain."""

    VIOLATED = "violated"
    HOLDS_TIGHT = "holds-tight"
    HOLDS = "holds"
    UNDECIDED = "undecided"
    VACUOUS = "vacuous"  # no neighbouring pair was examined: nothing was checked
    # the sensitivity grows without bound in a parameter, shown by a family of neighbouring
    # pairs (exactdp.symbolic.unbounded): neither holding nor proven, and no finite value
    UNBOUNDED = "unbounded"
    # "holds" on evidence weaker than a bit-exact model over the whole stated domain
    # (see Evidence); never written as plain "holds"
    HOLDS_ON_GRID = "holds-on-grid"
    HOLDS_IDEAL_NOISE = "holds-ideal-noise"
    HOLDS_STATISTICALLY = "holds-statistically"
    HOLDS_EMPIRICAL_MODEL = "holds-empirical-model"

    def __str__(self) -> str:
        return self.value

    @property
    def holding(self) -> bool:
        """No violation found: ``holds``, ``holds-tight`` or a ``holds-*`` on weaker evidence."""
        return self in _HOLDING

    @property
    def proven(self) -> bool:
        """``holds`` or ``holds-tight``: only on bit-exact evidence (:func:`qualify`)."""
        return self in (Verdict.HOLDS, Verdict.HOLDS_TIGHT)


_HOLDING = frozenset({Verdict.HOLDS, Verdict.HOLDS_TIGHT, Verdict.HOLDS_ON_GRID,
                      Verdict.HOLDS_IDEAL_NOISE, Verdict.HOLDS_STATISTICALLY,
                      Verdict.HOLDS_EMPIRICAL_MODEL})


class Evidence(str, enum.Enum):
    """What a verdict rests on. Only ``bit-exact`` may say ``holds`` / ``holds-tight``.

    * ``bit-exact``: the arithmetic (exact, or the library's floats modelled bit for bit)
      over the whole stated domain;
    * ``bit-exact-grid``: bit-exact, on a finite grid of parameters or values the scope names;
    * ``ideal-noise``: the parameter checked bit for bit, the sampler taken as its ideal
      distribution (the sampler's floats are not modelled);
    * ``statistical``: a step decided from random draws, with its stated error probability;
    * ``empirical-model``: a model matched to the library on samples, not proven equal to it.
    """

    BIT_EXACT = "bit-exact"
    BIT_EXACT_GRID = "bit-exact-grid"
    IDEAL_NOISE = "ideal-noise"
    STATISTICAL = "statistical"
    EMPIRICAL_MODEL = "empirical-model"

    def __str__(self) -> str:
        return self.value


_QUALIFIED = {
    Evidence.BIT_EXACT_GRID: Verdict.HOLDS_ON_GRID,
    Evidence.IDEAL_NOISE: Verdict.HOLDS_IDEAL_NOISE,
    Evidence.STATISTICAL: Verdict.HOLDS_STATISTICALLY,
    Evidence.EMPIRICAL_MODEL: Verdict.HOLDS_EMPIRICAL_MODEL,
}


def qualify(verdict: Verdict | str, evidence: Evidence | str) -> Verdict:
    """The verdict word ``evidence`` allows: ``holds`` / ``holds-tight`` on anything but
    ``bit-exact`` evidence becomes that evidence's ``holds-*`` word; every other verdict
    (violated, undecided, vacuous) is unchanged.

    >>> qualify("holds-tight", "ideal-noise").value
    'holds-ideal-noise'
    >>> qualify("holds", "bit-exact").value, qualify("violated", "statistical").value
    ('holds', 'violated')
    """
    verdict, evidence = Verdict(verdict), Evidence(evidence)
    if verdict.proven and evidence is not Evidence.BIT_EXACT:
        return _QUALIFIED[evidence]
    return verdict


def evidence_note(evidence: Evidence | str, where: str = "") -> str:
    """What text output adds after a verdict word: nothing for ``bit-exact`` evidence,
    else ``" (evidence: bit-exact-grid, <where>)"``.

    >>> evidence_note("bit-exact"), evidence_note("bit-exact-grid", "L in {-2, 0}")
    ('', ' (evidence: bit-exact-grid, L in {-2, 0})')
    """
    evidence = Evidence(evidence)
    if evidence is Evidence.BIT_EXACT:
        return ""
    return f" (evidence: {evidence.value}{', ' + where if where else ''})"


VERDICT_ORDER = ("holds", "holds-tight", "holds-on-grid", "holds-ideal-noise",
                 "holds-statistically", "holds-empirical-model", "unbounded", "violated",
                 "undecided", "vacuous")
"""The order in which summaries count verdict words (anything else, e.g. ``none``, last)."""


def verdict_counts(counts: dict[str, int]) -> str:
    """``{"violated": 2, "holds-tight": 5, "holds": 1}`` as ``'1 holds, 5 holds-tight, 2
    violated'``: each word counted apart, in :data:`VERDICT_ORDER`.

    >>> verdict_counts({"violated": 2, "holds-on-grid": 3, "holds": 1})
    '1 holds, 3 holds-on-grid, 2 violated'
    """
    def rank(word: str) -> tuple:
        return (VERDICT_ORDER.index(word) if word in VERDICT_ORDER else len(VERDICT_ORDER), word)

    return ", ".join(f"{counts[w]} {w}" for w in sorted(counts, key=rank))


def format_value(value: Any) -> str:
    """Exact text that SymPy parses: ``'7/2'``, ``'sqrt(3)/2'``, ``'(1, 0)'``."""
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        return format_exact(value)
    return str(value)


def _short(value: Any, keep: int = 8) -> str:
    """``format_value`` for display: a long vector shows its ends and its length."""
    if isinstance(value, tuple) and len(value) > keep:
        head = ", ".join(format_value(v) for v in value[:3])
        tail = ", ".join(format_value(v) for v in value[-2:])
        return f"({head}, ..., {tail}; {len(value)} values)"
    return format_value(value)


def _latex(value: Any) -> str:
    import sympy

    from exactdp.numeric.decide import to_sympy  # lazy: loads SymPy, which this module does not import at load

    if isinstance(value, tuple):
        return r"\left(" + ", ".join(_latex(v) for v in value) + r"\right)"
    return sympy.latex(to_sympy(value))


@dataclass(frozen=True)
class Witness:
    """A neighbouring pair and the query's exact value on each side."""

    x: tuple[Fraction, ...]
    x_prime: tuple[Fraction, ...]
    fx: Any
    fx_prime: Any
    distance: Any

    def to_dict(self) -> dict:
        return {
            "x": [format_exact(v) for v in self.x],
            "x_prime": [format_exact(v) for v in self.x_prime],
            "fx": format_value(self.fx),
            "fx_prime": format_value(self.fx_prime),
            "distance": format_value(self.distance),
        }

    def __str__(self) -> str:
        xs, ys = format_dataset(self.x), format_dataset(self.x_prime)
        return f"x={xs}, x'={ys}: f(x)={_short(self.fx)}, f(x')={_short(self.fx_prime)}"


@dataclass(frozen=True)
class Scope:
    """Exactly what was enumerated: every verdict carries one."""

    space: DatasetSpace
    metric: Metric
    d_in: int
    exact_k: bool
    scope: str
    datasets: int
    pairs: int
    excluded: int = 0
    local_at: tuple[Fraction, ...] | None = None
    d_in_effective: int | None = None  # a smaller d_in relating the same pairs, if enumerated instead

    def describe(self) -> str:
        rel = self.metric.describe(self.d_in, self.exact_k)
        if self.local_at is not None:
            head = f"local at x={format_dataset(self.local_at)} in {self.space.describe()}"
        else:
            head = f"all {self.datasets:,} {self.space.describe()}"
        if self.scope == "standard":
            where = "both datasets in the space"
        else:
            where = "x in the space, x' any neighbour (release-centred)"
        kind = "unordered pairs" if self.scope == "standard" and self.local_at is None else "pairs (x, x')"
        text = f"{head}; {rel}; {where}; {self.pairs:,} {kind} examined"
        if self.d_in_effective is not None:
            text += (f" (d_in={self.d_in} relates the same pairs as d_in={self.d_in_effective}, "
                     f"the largest distance in this space; enumerated there)")
        if self.excluded:
            text += f"; {self.excluded:,} dataset(s) excluded where the query is undefined"
        return text

    def to_dict(self) -> dict:
        return {
            "space": self.space.describe(),
            "neighbors": self.metric.cli_name,
            "d_in": self.d_in,
            "exact_k": self.exact_k,
            "scope": self.scope,
            "datasets": self.datasets,
            "pairs": self.pairs,
            "excluded": self.excluded,
            "d_in_effective": self.d_in_effective,
        }

    def no_pairs_hint(self) -> str:
        """Why no pair was examined, and what to change (for a vacuous result)."""
        space = self.space
        if self.local_at is not None:
            return f"x={format_dataset(self.local_at)} has no neighbour in the space at this d_in"
        if (self.metric.size_shift(1) and space.fixed_size is not None
                and self.scope == "standard"):
            return (f"add/remove neighbours differ in size, and every dataset here has size "
                    f"{space.fixed_size}: use substitute neighbours (--neighbors substitute, "
                    f"ChangeDistance()), a size range, or the release-centred scope")
        if self.exact_k:
            return (f"no two datasets of the space are exactly {self.d_in} apart; use a smaller "
                    f"d_in or wider sizes")
        return "no two datasets of the space are neighbours; widen the universe or the sizes"


@dataclass(frozen=True)
class SensitivityResult:
    """Exact (global or local) sensitivity of a query, with the pair that attains it."""

    query: Query
    value: Any  # Fraction, or a SymPy expression when irrational
    witness: Witness | None
    scope: Scope

    @property
    def evidence(self) -> Evidence:
        """``bit-exact``: every dataset of the stated finite space is enumerated and the query
        computed in exact arithmetic, so the value is the sensitivity over the stated domain
        (the space *is* the domain; the scope names it)."""
        return Evidence.BIT_EXACT

    def __str__(self) -> str:
        kind = "local sensitivity" if self.scope.local_at is not None else "sensitivity"
        text = f"{self.query.name}: {kind} {format_value(self.value)}"
        if self.scope.pairs == 0:
            text += f" (VACUOUS: no neighbouring pair, nothing was checked: {self.scope.no_pairs_hint()})"
        elif self.witness is not None:
            text += f", attained by {self.witness}"
        return f"{text}\n  scope: {self.scope.describe()}"

    def to_dict(self) -> dict:
        return {
            "query": self.query.name,
            "neighbors": self.scope.metric.cli_name,
            "d_in": self.scope.d_in,
            "sensitivity": format_value(self.value),
            "witness": None if self.witness is None else self.witness.to_dict(),
            "pairs": self.scope.pairs,
            "vacuous": self.scope.pairs == 0,
            "scope": self.scope.to_dict(),
            "scope_text": self.scope.describe(),
            "evidence": self.evidence.value,
        }

    def _repr_latex_(self) -> str:
        return rf"$\displaystyle \Delta_{{\mathrm{{{self.query.name}}}}} = {_latex(self.value)}$"

    def _repr_html_(self) -> str:
        kind = "local sensitivity" if self.scope.local_at is not None else "sensitivity"
        return card(f"{self.query.name}: {kind} {format_value(self.value)}",
                    "vacuous" if self.scope.pairs == 0 else None,
                    [("witness", self.witness), ("scope", self.scope.describe()),
                     ("evidence", self.evidence.value)])


@dataclass(frozen=True)
class ClaimResult:
    """A claim compared with the exact sensitivity.

    ``evidence`` is ``bit-exact`` by default: the sensitivity comes from an exact
    enumeration of the stated finite space with exact query arithmetic, so the verdict
    holds over the stated domain (the space is the domain). A result built on weaker
    evidence has its ``holds`` / ``holds-tight`` replaced by that evidence's word
    (:func:`qualify`) when it is made, so ``holds`` never appears without ``bit-exact``.
    """

    claim_text: str
    claim: Any  # the claim's exact value once the parameters are bound
    verdict: Verdict
    sensitivity: SensitivityResult
    parameters: dict = field(default_factory=dict)
    evidence: Evidence = Evidence.BIT_EXACT

    def __post_init__(self):
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        object.__setattr__(self, "verdict", qualify(self.verdict, self.evidence))

    @property
    def witness(self) -> Witness | None:
        return self.sensitivity.witness

    @property
    def ok(self) -> bool:
        """No violation: ``holds``, ``holds-tight`` or a ``holds-*`` word (``verdict.proven``
        says whether it is backed by ``bit-exact`` evidence)."""
        return self.verdict.holding

    @property
    def claim_shown(self) -> str:
        """The claim as written, with its value when it is a formula: ``U - L = 8``."""
        claim = format_value(self.claim)
        try:
            literal = to_exact(self.claim_text) == self.claim  # a number, written exactly
        except ExactDPError:
            literal = False
        return self.claim_text if literal or self.claim_text == claim else f"{self.claim_text} = {claim}"

    def summary(self) -> str:
        s = self.sensitivity
        shown = self.claim_shown
        if self.verdict is Verdict.VIOLATED:
            return (f"VIOLATED: claim {shown} < sensitivity {format_value(s.value)}; "
                    f"witness {s.witness}")
        if self.verdict is Verdict.HOLDS_TIGHT:
            return f"HOLDS, tight: claim {shown} is attained by {s.witness}"
        if self.verdict is Verdict.HOLDS:
            return f"HOLDS with slack: claim {shown} > exact maximum {format_value(s.value)}"
        if self.verdict is Verdict.VACUOUS:
            return (f"VACUOUS: claim {shown} was not checked: 0 neighbouring pairs; "
                    f"{s.scope.no_pairs_hint()}")
        if self.verdict.holding:  # a holds-* word: never below the value computed
            word = self.verdict.value.upper().replace("-", " ")
            return (f"{word}{evidence_note(self.evidence)}: claim {shown} >= computed maximum "
                    f"{format_value(s.value)}")
        return f"UNDECIDED: could not compare claim {shown} with {format_value(s.value)}"

    def __str__(self) -> str:
        return f"{self.sensitivity.query.name}: {self.summary()}\n  scope: {self.sensitivity.scope.describe()}"

    def to_dict(self) -> dict:
        out = self.sensitivity.to_dict()
        out["claim"] = self.claim_text
        out["claim_value"] = format_value(self.claim)
        out["verdict"] = self.verdict.value
        out["evidence"] = self.evidence.value
        return out

    def _repr_latex_(self) -> str:
        rel = {Verdict.VIOLATED: "<", Verdict.HOLDS_TIGHT: "=", Verdict.HOLDS: ">"}.get(
            self.verdict, r"\geq" if self.verdict.holding else "?")
        return (rf"$\displaystyle \text{{claim }} {_latex(self.claim)} {rel} "
                rf"{_latex(self.sensitivity.value)} \quad (\text{{{self.verdict.value}}})$")

    def _repr_html_(self) -> str:
        s = self.sensitivity
        return card(f"{s.query.name}: claim {self.claim_shown}", self.verdict.value,
                    [("exact", format_value(s.value)), ("witness", s.witness),
                     ("scope", s.scope.describe()), ("evidence", self.evidence.value),
                     ("summary", self.summary())])
