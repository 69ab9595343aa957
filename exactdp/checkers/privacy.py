"""The privacy of a mechanism on a query, checked exactly over every neighbouring pair.

A mechanism's output depends on the query value only, so :func:`check_mechanism`
enumerates the neighbouring pairs of the space with the engine, keeps each distinct pair
of query values once (with one pair of datasets realising it), and computes the exact
privacy loss of every such pair: the pure epsilon (both directions) or, with a ``delta``,
the tight ``delta(epsilon)``. The worst pair is the witness, with the output (or, for
``delta``, the pair) that attains it.

Verdicts, as for sensitivities: ``violated`` (the claim is below the truth: witness),
``holds-tight``, ``holds`` (with the exact truth), ``undecided`` (two irrational numbers
that could not be told apart, or an enclosure that straddles the claim), ``vacuous`` (no
neighbouring pair).

>>> from exactdp import IntegerRange, Multisets
>>> from exactdp.mechanisms.mechanism import make_mechanism
>>> rr = make_mechanism("randomized-response", p="3/4")
>>> r = check_mechanism(rr, values=(0, 1), epsilon="log(3)")
>>> r.verdict.value, str(r.epsilon)
('holds-tight', 'log(3)')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import sympy

from exactdp._display import card
from exactdp._budget import DEFAULT_MAX_DATASETS, DEFAULT_MAX_PAIRS, check_budget, refuse_above
from exactdp._progress import Progress
from exactdp.checkers.results import Evidence, Scope, Verdict, evidence_note, format_value, qualify
from exactdp.engine.neighbours import build_neighbours
from exactdp.engine.options import Options
from exactdp.engine.plan import STANDARD, plan_with
from exactdp.engine.scan import RawPairs, run_pairs
from exactdp.engine.tables import source_keys
from exactdp.errors import InvalidArgument, Undecided
from exactdp.mechanisms.distribution import INFINITY, shown
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.numeric.decide import compare, to_fraction_if_rational, to_sympy
from exactdp.numeric.exact import format_dataset, format_exact, refuse_non_finite, to_exact
from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
from exactdp.numeric.formula import parse_expression

__all__ = ["check_mechanism", "PrivacyResult", "PrivacyWitness", "MAX_VALUE_PAIRS"]

MAX_VALUE_PAIRS = 100_000
"""Most distinct pairs of query values whose exact loss is computed (each costs an exact,
possibly symbolic, computation)."""


@dataclass(frozen=True)
class PrivacyWitness:
    """The pair of datasets (``None`` for pairs of given values), their query values and
    the output that attains the loss (``None`` when the loss is a sum over outputs)."""

    x: tuple | None
    x_prime: tuple | None
    fx: Any
    fx_prime: Any
    output: Any

    def to_dict(self) -> dict:
        return {
            "x": None if self.x is None else [format_exact(v) for v in self.x],
            "x_prime": None if self.x_prime is None else [format_exact(v) for v in self.x_prime],
            "fx": format_value(self.fx),
            "fx_prime": format_value(self.fx_prime),
            "output": None if self.output is None else _output_text(self.output),
        }

    def __str__(self) -> str:
        head = ("" if self.x is None or self.x_prime is None
                else f"x={format_dataset(self.x)}, x'={format_dataset(self.x_prime)}: ")
        text = f"{head}f(x)={format_value(self.fx)}, f(x')={format_value(self.fx_prime)}"
        if self.output is not None:
            text += f", output {_output_text(self.output)}"
        return text


def _output_text(o) -> str:
    if isinstance(o, (Fraction, int)) and not isinstance(o, bool):
        return format_exact(o)
    if isinstance(o, tuple) and type(o) is tuple:  # an output vector: its entries as exact numbers
        return format_value(o)
    return str(o)


@dataclass(frozen=True)
class PrivacyResult:
    """The verdict on a privacy claim, the exact worst loss and its witness.

    ``evidence`` is ``bit-exact`` for :func:`check_mechanism`: the losses are computed from
    the exact output distributions of the stated mechanism (the ideal mechanism of the
    model, or a sampler modelled bit for bit where the model is one), on every pair of
    query values the stated space produces, so a verdict holds for that mechanism over the
    stated domain. A result built on weaker evidence has its holds words qualified
    (:func:`~exactdp.checkers.results.qualify`) when it is made.
    """

    mechanism: Mechanism
    claim_epsilon: Any
    claim_delta: Any
    verdict: Verdict | None
    epsilon: Any  # the worst pure epsilon (exact, or INFINITY); None when only delta was asked
    delta: Any  # the worst delta(claim_epsilon) (exact, or an enclosure (lo, hi)), or None
    witness: PrivacyWitness | None
    scope_text: str
    value_pairs: int
    scope: Scope | None = None
    notes: tuple = field(default=())
    claim_rho: Any = None
    rho: Any = None  # the worst zCDP rho (exact, or an enclosure), when a rho claim was checked
    evidence: Evidence = Evidence.BIT_EXACT

    def __post_init__(self):
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        if self.verdict is not None:
            object.__setattr__(self, "verdict", qualify(self.verdict, self.evidence))

    @property
    def ok(self) -> bool:
        """No violation: ``holds``, ``holds-tight`` or a ``holds-*`` word on weaker evidence."""
        return self.verdict is not None and self.verdict.holding

    def summary(self) -> str:
        m = self.mechanism.describe()
        if self.claim_rho is not None:
            truth, claim = f"rho = {_val(self.rho)}", f"rho {_val(self.claim_rho)} (zCDP)"
        elif self.claim_delta is None:
            truth, claim = f"epsilon = {_val(self.epsilon)}", f"epsilon {_val(self.claim_epsilon)}"
        else:
            truth = f"delta({_val(self.claim_epsilon)}) = {_val(self.delta)}"
            claim = f"({_val(self.claim_epsilon)}, {_val(self.claim_delta)})-DP"
        w = f"; witness {self.witness}" if self.witness is not None else ""
        if self.verdict is None:
            return f"{m}: {truth}{w}"
        if self.verdict is Verdict.VACUOUS:
            what = ("nothing was checked" if self.claim_epsilon is None and self.claim_rho is None
                    else f"claim {claim} was not checked")
            why = f"; {self.scope.no_pairs_hint()}" if self.scope is not None else ""
            return f"{m}: VACUOUS: {what}: no neighbouring pair{why}"
        word = {Verdict.VIOLATED: "VIOLATED", Verdict.HOLDS_TIGHT: "HOLDS, tight",
                Verdict.HOLDS: "HOLDS", Verdict.UNDECIDED: "UNDECIDED"}.get(
            self.verdict, self.verdict.value.upper().replace("-", " ")) + evidence_note(self.evidence)
        return f"{m}: {word}: claim {claim}, exact {truth}{w}"

    def __str__(self) -> str:
        return f"{self.summary()}\n  scope: {self.scope_text}"

    def _repr_html_(self) -> str:
        verdict = None if self.verdict is None else self.verdict.value
        return card(self.mechanism.describe(), verdict,
                    [("summary", self.summary()), ("witness", self.witness), ("scope", self.scope_text),
                     ("evidence", self.evidence.value), ("notes", "\n".join(map(str, self.notes)))])

    def to_dict(self) -> dict:
        return {
            "mechanism": self.mechanism.name,
            "params": self.mechanism.params_dict(),
            "epsilon": _json_value(self.epsilon),
            "epsilon_shown": None if self.epsilon is None else shown(self.epsilon),
            "delta": _json_value(self.delta),
            "rho": _json_value(self.rho),
            "claim": {"epsilon": _json_value(self.claim_epsilon), "delta": _json_value(self.claim_delta),
                      "rho": _json_value(self.claim_rho)},
            "verdict": None if self.verdict is None else self.verdict.value,
            "evidence": self.evidence.value,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "value_pairs": self.value_pairs,
            "scope": self.scope_text,
        }


def _val(v) -> str:
    if v is None:
        return "?"
    if isinstance(v, tuple):  # an enclosure: each end rounded outward
        return f"[{decimal_at_most(v[0], 12)}, {decimal_at_least(v[1], 12)}]"
    if v is INFINITY:
        return "inf"
    text = format_value(v) if isinstance(v, Fraction) else str(v)
    approx = shown(v)
    return text if approx == text or approx.startswith(text) else f"{text} ~ {approx}"


def _json_value(v):
    if v is None:
        return None
    if v is INFINITY:
        return "inf"
    if isinstance(v, tuple):  # an enclosure: decimal ends rounded outward
        return [str(decimal_at_most(v[0], 17)), str(decimal_at_least(v[1], 17))]
    return format_value(v) if isinstance(v, Fraction) else str(v)


def _claim_value(value, name: str):
    """An exact claim: a number, or an expression such as ``log(3)`` (no parameters)."""
    if value is None:
        return None
    refuse_non_finite(value, name)  # inf, nan, oo in any spelling: an infinite claim says nothing
    if isinstance(value, sympy.Basic):
        expr = value
    elif isinstance(value, str):
        try:
            expr = to_exact(value, name)
        except InvalidArgument:
            expr = parse_expression(value)
    else:
        expr = to_exact(value, name)
    if isinstance(expr, sympy.Basic) and (expr.free_symbols or expr.has(sympy.Float)):
        raise InvalidArgument(f"{name}={value!r} is not an exact number")
    refuse_non_finite(expr, name)
    val = to_fraction_if_rational(expr) if isinstance(expr, sympy.Basic) else expr
    if compare(val, 0) < 0:
        raise InvalidArgument(f"{name}={value!r} is negative; privacy parameters are >= 0: pass a number of at least 0")
    return val


def _bigger(a, b) -> bool:
    """``a > b`` for exact losses (INFINITY is largest; enclosures by their upper end)."""
    if b is None:
        return True
    if a is INFINITY:
        return b is not INFINITY
    if b is INFINITY:
        return False
    return _compare_loss(_upper(a), _upper(b)) > 0


def _upper(v):
    return v[1] if isinstance(v, tuple) else v


def _compare_loss(claim, truth) -> int:
    """Sign of ``claim - truth``; a tie of logarithms (``log(9)`` against ``2*log(3)``) is
    decided through ``exp``, which is increasing and turns sums of logs of rationals into
    rationals."""
    try:
        return compare(claim, truth)
    except Undecided:
        if not (isinstance(claim, sympy.Basic) or isinstance(truth, sympy.Basic)):
            raise
        return compare(sympy.simplify(sympy.exp(to_sympy(claim))), sympy.simplify(sympy.exp(to_sympy(truth))))


def _judge(claim, truth) -> Verdict:
    """The verdict of ``claim >= truth`` (truth exact, INFINITY, or an enclosure)."""
    if truth is INFINITY:
        return Verdict.HOLDS_TIGHT if claim is INFINITY else Verdict.VIOLATED
    if claim is INFINITY:
        return Verdict.HOLDS
    try:
        if isinstance(truth, tuple):
            lo, hi = truth
            if compare(claim, lo) < 0:
                return Verdict.VIOLATED
            if compare(claim, hi) >= 0:
                return Verdict.HOLDS if compare(claim, hi) > 0 or lo != hi else Verdict.HOLDS_TIGHT
            return Verdict.UNDECIDED
        c = _compare_loss(claim, truth)
    except Undecided:
        return Verdict.UNDECIDED
    return Verdict.VIOLATED if c < 0 else Verdict.HOLDS_TIGHT if c == 0 else Verdict.HOLDS


def check_mechanism(
    mechanism: Mechanism,
    query=None,
    space=None,
    metric=None,
    d_in: int = 1,
    *,
    values: tuple | None = None,
    epsilon=None,
    delta=None,
    rho=None,
    exact_k: bool = False,
    scope: str = "standard",
    undefined: object = "error",
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    max_datasets: int | None = DEFAULT_MAX_DATASETS,
    max_value_pairs: int | None = MAX_VALUE_PAIRS,
    progress: bool | None = None,
) -> PrivacyResult:
    """Check ``mechanism`` applied to ``query`` over every neighbouring pair of ``space``
    (or on the two query values ``values=(a, b)``) against a claim.

    ``epsilon`` alone: a pure-DP claim, judged against the worst pure epsilon. ``epsilon``
    and ``delta``: an approximate-DP claim, judged against the worst tight
    ``delta(epsilon)``. Neither: the worst pure epsilon is reported without a verdict.
    Claims are exact numbers or expressions such as ``'log(3)'``.
    """
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgument(f"mechanism={mechanism!r} is not a Mechanism; build one with make_mechanism(name, ...)")
    eps_claim = _claim_value(epsilon, "epsilon")
    delta_claim = _claim_value(delta, "delta")
    rho_claim = _claim_value(rho, "rho")
    # with a rho claim, the mechanism's certified rho of a pair (only some mechanisms have one)
    rho_of: Callable[[Any, Any], tuple[Fraction, Fraction]] | None = None
    if rho_claim is not None:
        if eps_claim is not None or delta_claim is not None:
            raise InvalidArgument("a zCDP claim (rho) stands alone; drop epsilon and delta")
        rho_of = getattr(mechanism, "rho_enclosure", None)
        if rho_of is None:
            raise InvalidArgument(
                f"{mechanism.name} has no zCDP rho here (only the Gaussian and the discrete "
                f"Gaussian); check epsilon or (epsilon, delta) instead"
            )
    if delta_claim is not None:
        if eps_claim is None:
            raise InvalidArgument("delta was given without epsilon; an (epsilon, delta) claim needs both")
        if eps_claim is INFINITY or delta_claim is INFINITY or compare(delta_claim, 1) > 0:
            raise InvalidArgument(f"delta={delta!r} with epsilon={epsilon!r}: delta must be in [0, 1] and epsilon finite")
    max_value_pairs = check_budget(max_value_pairs, "max_value_pairs")
    if values is not None:
        if query is not None or space is not None:
            raise InvalidArgument("give values=(a, b), or a query and a space, not both")
        if not isinstance(values, (tuple, list)) or len(values) != 2:
            raise InvalidArgument(f"values={values!r} is not a pair (a, b)")
        a, b = mechanism.check_pair(*values)
        pairs = [((a, b), None)]
        scope_text = f"the two query values {format_value(a)} and {format_value(b)}"
        examined, scope_obj = 1, None
    else:
        if query is None or space is None:
            raise InvalidArgument("give a query and a space (or values=(a, b))")
        options = Options(exact_k, scope, undefined, max_pairs, max_datasets, progress)
        setup = plan_with(query, space, metric, [d_in], options, build=True,
                          wide=False)  # the pairs of values: a value table
        if setup.query.output == "sqrt":
            raise InvalidArgument(
                f"query {setup.query.name} has irrational values (a square root); a mechanism "
                f"here takes rational query values (use the variance)"
            )
        table = setup.table
        assert table is not None  # plan_with(build=True) builds the value table
        sources = source_keys(table, setup.space)
        plan = setup.plans[d_in]
        raw = RawPairs({}, 0, 0)
        if plan is not None:
            nb = build_neighbours(plan, table, setup.metric, setup.effective[d_in],
                                  setup.exact_k, setup.scope == STANDARD)
            bar = Progress(f"{setup.query.name}, d_in={d_in}", len(sources), progress)
            try:
                raw = run_pairs(table, sources, nb, setup.policy, bar)
            finally:
                bar.close()
        refuse_above(len(raw.pairs), max_value_pairs, what="distinct pairs of query values",
                     option="max_value_pairs", hint="shrink the universe or the sizes")
        scale = table.scale

        def public(v):
            if isinstance(v, tuple):
                return tuple(Fraction(c, scale) for c in v)
            return Fraction(v, scale)

        def checked(v, key):
            try:
                return mechanism.check_value(public(v))
            except InvalidArgument as e:
                raise InvalidArgument(f"{e} (the query {setup.query.name} takes it on "
                                      f"x={format_dataset(table.dataset(key))})") from None

        pairs = [((checked(v, keys[0]), checked(w, keys[1])), keys)
                 for (v, w), keys in raw.pairs.items()]
        examined = raw.examined
        scope_obj = Scope(space=setup.space, metric=setup.metric, d_in=d_in, exact_k=setup.exact_k,
                          scope=setup.scope, datasets=setup.space.count(), pairs=examined,
                          excluded=raw.excluded,
                          d_in_effective=setup.effective[d_in] if setup.effective[d_in] != d_in else None)
        scope_text = (f"{scope_obj.describe()}; {len(pairs):,} distinct pairs of "
                      f"{setup.query.name} values")

    # the worst loss so far: exact, INFINITY or an enclosure (lo, hi); None before the first
    worst: object = None
    worst_pair = worst_output = None
    undecided = False
    for (a, b), keys in pairs:
        try:
            if rho_of is not None:  # set exactly when rho_claim is
                value, output = rho_of(a, b), None
            elif delta_claim is None:
                loss = mechanism.epsilon(a, b)
                value, output = loss.value, loss.output
            elif hasattr(mechanism, "delta_enclosure"):  # no closed form: certified ends
                value, output = mechanism.delta_enclosure(a, b, eps_claim), None
            else:
                value, output = mechanism.delta(a, b, eps_claim), None
            if _bigger(value, worst):
                worst, worst_pair, worst_output = value, ((a, b), keys), output
        except Undecided:
            undecided = True
        if worst is INFINITY:
            break
    witness = None
    if worst_pair is not None:
        (a, b), keys = worst_pair
        if keys is None:
            witness = PrivacyWitness(None, None, a, b, worst_output)
        else:
            table = setup.table
            witness = PrivacyWitness(table.dataset(keys[0]), table.dataset(keys[1]), a, b, worst_output)
    verdict: Verdict | None
    if not pairs:  # a maximum over nothing: VACUOUS with or without a claim (never a bound)
        verdict = Verdict.VACUOUS
    elif eps_claim is None and rho_claim is None:
        verdict = Verdict.UNDECIDED if undecided else None
    else:
        claim = rho_claim if rho_claim is not None else eps_claim if delta_claim is None else delta_claim
        verdict = _judge(claim, worst) if worst is not None else Verdict.UNDECIDED
        if undecided and verdict is not Verdict.VIOLATED:
            verdict = Verdict.UNDECIDED
    if rho_claim is not None and isinstance(worst, tuple) and worst[0] == worst[1]:
        worst = worst[0]  # exact
    return PrivacyResult(
        mechanism=mechanism, claim_epsilon=eps_claim, claim_delta=delta_claim, verdict=verdict,
        epsilon=worst if delta_claim is None and rho_claim is None else None,
        delta=worst if delta_claim is not None else None,
        claim_rho=rho_claim, rho=worst if rho_claim is not None else None,
        witness=witness, scope_text=scope_text, value_pairs=len(pairs), scope=scope_obj,
    )
