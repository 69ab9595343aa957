"""The front doors of the edit-graph engine: sequences and privacy units.

Ordered datasets (:class:`~exactdp.spaces.sequences.Sequences`) and privacy-unit datasets
(:class:`~exactdp.spaces.units.Units`) are enumerated by the edit-graph engine
(:mod:`exactdp.engine.edits`: breadth-first search over the relation's edits, the BFS
level being the distance). This module turns its answers into verdicts: the sensitivity
with its witness and scope (:func:`graph_sensitivity`), a claim's verdict
(:func:`verify_graph_claim`) and the conversions between relations
(:func:`verify_conversion`). :func:`exactdp.sensitivity` and :func:`exactdp.verify_claim`
reach the same engine through :mod:`exactdp.engine.door`.

The witness is deterministic: among the pairs that attain the maximum, the first in the
space's enumeration order (smallest index of ``x``, then of ``x'``). The answer is a
:class:`~exactdp.checkers.results.SensitivityResult` whose scope states the space, the
relation and the counts, so :func:`~exactdp.checkers.sensitivity.judge` and the rest of
the reporting work on it unchanged.

>>> from exactdp import IntegerRange
>>> from exactdp.spaces.sequences import Sequences, InsertDeleteDistance
>>> first = make_query("first", lambda xs: xs[0] if xs else 0)
>>> r = graph_sensitivity(first, Sequences(IntegerRange(0, 3), sizes=(0, 2)), InsertDeleteDistance())
>>> r.value, str(r.witness)
(Fraction(3, 1), "x=(), x'=(3): f(x)=0, f(x')=3 (InsertDeleteDistance 1)")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp._budget import DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS
from exactdp._display import card
from exactdp.checkers.judging import bind_claim, judge
from exactdp.checkers.results import (
    ClaimResult, Evidence, SensitivityResult, Verdict, evidence_note, format_value,
)
from exactdp.engine import edits
from exactdp.engine.edits import EditAnswer, as_relation, farthest_pair, neighbour_pairs
from exactdp.engine.edits import is_edit_space as is_graph_space
from exactdp.engine.options import Options
from exactdp.errors import ClaimViolated
from exactdp.queries.base import GraphQuery, make_query
from exactdp.spaces.metrics import check_d_in
from exactdp.spaces.sequences import HammingDistance, Sequences

__all__ = [
    "GraphQuery", "make_query", "graph_sensitivity", "verify_graph_claim", "assert_graph_claim",
    "verify_conversion", "graph_claim_parameters", "graph_result",
    "ConversionResult", "GraphScope", "GraphWitness", "neighbour_pairs", "as_relation",
    "is_graph_space",
]


# -- results ---------------------------------------------------------------------------

@dataclass(frozen=True)
class GraphWitness:
    """A neighbouring pair (public forms) and the query's exact value on each side."""

    x: tuple
    x_prime: tuple
    fx: Any
    fx_prime: Any
    distance: Any
    x_text: str = ""
    x_prime_text: str = ""
    d: int = 0  # the pair's distance under the relation
    relation: str = ""

    def __str__(self) -> str:
        return (f"x={self.x_text}, x'={self.x_prime_text}: f(x)={format_value(self.fx)}, "
                f"f(x')={format_value(self.fx_prime)} ({self.relation} {self.d})")

    def to_dict(self) -> dict:
        return {"x": self.x_text, "x_prime": self.x_prime_text, "fx": format_value(self.fx),
                "fx_prime": format_value(self.fx_prime), "distance": format_value(self.distance),
                "d": self.d}


@dataclass(frozen=True)
class GraphScope:
    """What was enumerated; the same reading interface as :class:`~exactdp.checkers.results.Scope`."""

    space: Any
    metric: Any
    d_in: int
    exact_k: bool
    datasets: int
    pairs: int
    excluded: int = 0
    scope: str = "standard"
    local_at: Any = None
    d_in_effective: int | None = None

    def describe(self) -> str:
        text = (f"all {self.datasets:,} {self.space.describe()}; "
                f"{self.metric.describe(self.d_in, self.exact_k)}; both datasets in the space; "
                f"{self.pairs:,} unordered pairs examined")
        if self.excluded:
            text += f"; {self.excluded:,} dataset(s) excluded where the query is undefined"
        return text

    def to_dict(self) -> dict:
        return {"space": self.space.describe(), "neighbors": self.metric.cli_name,
                "d_in": self.d_in, "exact_k": self.exact_k, "scope": self.scope,
                "datasets": self.datasets, "pairs": self.pairs, "excluded": self.excluded,
                "d_in_effective": None}

    def no_pairs_hint(self) -> str:
        if isinstance(self.metric, HammingDistance) and self.space.fixed_size == 0:
            return "the only sequence of length 0 has no neighbour; use longer sequences"
        if self.exact_k:
            return f"no two datasets of the space are exactly {self.d_in} apart; use a smaller d_in"
        return "no two datasets of the space are neighbours; widen the universe, sizes or ids"


def graph_result(space: Any, answer: EditAnswer) -> SensitivityResult:
    """A verdict-ready result from the edit-graph engine's answer."""
    q = answer.query
    scope = GraphScope(space, answer.relation, answer.d_in, answer.exact_k, len(answer.keys),
                       answer.pairs, answer.excluded)
    if answer.witness is None:
        return SensitivityResult(q, answer.value, None, scope)  # type: ignore[arg-type]
    i, j, level = answer.witness
    x, y = answer.keys[i], answer.keys[j]
    witness = GraphWitness(space.public(x), space.public(y), answer.values[i], answer.values[j],
                           answer.value, space.show(x), space.show(y), level, answer.relation.name)
    return SensitivityResult(q, answer.value, witness, scope)  # type: ignore[arg-type]


def graph_sensitivity(
    query: object,
    space: Any,
    relation: object = None,
    d_in: int = 1,
    *,
    exact_k: bool = False,
    scope: str = "standard",
    undefined: object = "error",
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    max_datasets: int | None = DEFAULT_MAX_DATASETS,
    progress: bool | None = None,
) -> SensitivityResult:
    """Exact global sensitivity ``max |f(x) - f(x')|`` over the pairs of ``space`` with
    ``relation`` distance at most ``d_in`` (exactly ``d_in`` with ``exact_k``).

    ``query``: :func:`make_query`, a plain function of the dataset's public form, a
    :class:`~exactdp.queries.base.Query` or a query name (multiset queries read the
    values and ignore order and ids). ``undefined``: ``"error"`` (default), ``"exclude"``
    or an exact value, where the query returns ``UNDEFINED``. Both budgets are checked
    from counts alone before any dataset is built. ``scope`` is ``"standard"`` (both
    datasets in the space; the only scope here); ``progress`` forces the stderr progress
    line on or off (default: on when stderr is a terminal). The signature is that of
    :func:`~exactdp.checkers.sensitivity.sensitivity` (without ``workers``: one process).
    """
    options = Options(exact_k, scope, undefined, max_pairs, max_datasets, progress)
    plan = edits.make_plan(query, space, relation, [d_in], options)
    return graph_result(space, edits.compute(plan, d_in, options))


def graph_claim_parameters(query: GraphQuery, space: Any, d_in: int) -> dict[str, Fraction]:
    """``L``, ``U`` (clip bounds of the query, else the universe's), ``N`` (fixed length),
    ``R``/``G`` (rows and groups per id of a units space), ``d_in`` and ``k``."""
    params = dict(space.claim_parameters())
    if query.clip is not None:
        params["L"], params["U"] = query.clip
    params["d_in"] = params["k"] = Fraction(d_in)
    return params


def verify_graph_claim(claim: object, query: object, space: Any, relation: object = None,
                       d_in: int = 1, **options: Any) -> ClaimResult:
    """Compare a claimed sensitivity (a number or a formula in ``L``, ``U``, ``N``,
    ``R``, ``G``, ``d_in``, ``k``) with the exact one; never raises on a violation."""
    q = edits.read_query(query)
    params = graph_claim_parameters(q, space, check_d_in(d_in))
    text, value = bind_claim(claim, params)  # a bad claim is refused before enumerating
    result = graph_sensitivity(query, space, relation, d_in, **options)
    return judge(text, value, result, params)


def assert_graph_claim(claim: object, query: object, space: Any, relation: object = None,
                       d_in: int = 1, **options: Any) -> ClaimResult:
    """Like :func:`verify_graph_claim`, but raise :class:`~exactdp.errors.ClaimViolated`
    (carrying the result and its witness) unless the claim holds."""
    result = verify_graph_claim(claim, query, space, relation, d_in, **options)
    if not result.ok:
        raise ClaimViolated(str(result), result)
    return result


# -- conversions between relations -------------------------------------------------------

@dataclass(frozen=True)
class ConversionResult:
    """The largest ``target`` distance over the pairs within ``d_in`` under ``source``
    (``None``: infinite, some pair is not comparable under ``target``), against a claim.

    ``evidence`` is ``bit-exact``: every pair of the stated space is enumerated and its
    distances computed exactly, so ``holds`` / ``holds-tight`` speak for the whole space
    (and only for it: ``space_text``)."""

    source: Any
    target: Any
    d_in: int
    claim: int | None
    value: int | None
    verdict: Verdict
    x: tuple | None
    x_prime: tuple | None
    pairs: int
    space_text: str = field(default="")
    evidence: Evidence = field(default=Evidence.BIT_EXACT)

    @property
    def ok(self) -> bool:
        """No pair goes further than the claim (``verdict.holding``)."""
        return self.verdict.holding

    def __str__(self) -> str:
        shown = "infinite" if self.value is None else str(self.value)
        pair = "" if self.x is None else f"; witness x={self.x}, x'={self.x_prime}"
        return (f"{self.source.name} <= {self.d_in} -> {self.target.name}: claim {self.claim}, "
                f"exact maximum {shown}: {self.verdict.value.upper()}{evidence_note(self.evidence)}"
                f"{pair}\n  scope: {self.pairs:,} pairs of {self.space_text}")

    def _repr_html_(self) -> str:
        shown = "infinite" if self.value is None else str(self.value)
        return card(f"{self.source.name} <= {self.d_in} -> {self.target.name}: claim {self.claim}",
                    self.verdict.value,
                    [("exact maximum", shown),
                     ("witness", None if self.x is None else f"x={self.x}, x'={self.x_prime}"),
                     ("scope", f"{self.pairs:,} pairs of {self.space_text}"),
                     ("evidence", self.evidence.value)])

    def to_dict(self) -> dict:
        """JSON-ready: the relations, the claim and the exact maximum (``None``: infinite),
        the verdict, its evidence, the witness pair and the scope."""
        def values(xs):
            return None if xs is None else [format_value(v) for v in xs]

        return {
            "source": self.source.name,
            "target": self.target.name,
            "d_in": self.d_in,
            "claim": self.claim,
            "value": self.value,
            "verdict": self.verdict.value,
            "evidence": self.evidence.value,
            "witness": None if self.x is None else {"x": values(self.x), "x_prime": values(self.x_prime)},
            "pairs": self.pairs,
            "space": self.space_text,
        }


def verify_conversion(space: Sequences, source: object, target: object, d_in: int,
                      claim: int | None, *, same_size: bool = False,
                      max_pairs: int | None = DEFAULT_MAX_PAIRS,
                      max_datasets: int | None = DEFAULT_MAX_DATASETS) -> ConversionResult:
    """Check the conversion claim "``source`` distance ``<= d_in`` implies ``target``
    distance ``<= claim``" on every pair of ``space`` (``same_size=True``: only pairs of
    equal length, the sized setting of a bounded-DP conversion).

    >>> from exactdp import IntegerRange
    >>> r = verify_conversion(Sequences(IntegerRange(0, 1), size=2), "insert-delete",
    ...                       "hamming", 2, 1)
    >>> r.verdict.value, r.value, r.x, r.x_prime
    ('violated', 2, (0, 1), (1, 0))
    """
    src = as_relation(source, space)
    dst = as_relation(target, space)
    d_in = check_d_in(d_in)
    if claim is not None:
        claim = check_d_in(claim, "claim")
    best_rank, pair, pairs = farthest_pair(space, src, dst, d_in, same_size, max_pairs,
                                           max_datasets)
    value = None if best_rank == (1, 0) else (0 if best_rank is None else best_rank[1])
    if pairs == 0:
        verdict = Verdict.VACUOUS
    elif claim is None:  # no finite bound claimed
        verdict = Verdict.HOLDS_TIGHT if value is None else Verdict.HOLDS
    elif value is None or value > claim:
        verdict = Verdict.VIOLATED
    else:
        verdict = Verdict.HOLDS_TIGHT if value == claim else Verdict.HOLDS
    x = x_prime = None
    if pair is not None:
        x, x_prime = tuple(pair[0]), tuple(pair[1])
        if isinstance(space, Sequences):
            x, x_prime = space.to_values(x), space.to_values(x_prime)
            x = tuple(int(v) if v.denominator == 1 else v for v in x)
            x_prime = tuple(int(v) if v.denominator == 1 else v for v in x_prime)
    return ConversionResult(src, dst, d_in, claim, value, verdict, x, x_prime, pairs,
                            space.describe())
