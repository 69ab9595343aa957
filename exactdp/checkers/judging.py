"""Judging a claimed sensitivity: bind a claim's parameters, compare it with the exact value.

Shared by the multiset front doors (:mod:`.sensitivity`) and the edit-graph ones
(:mod:`.graph`), so neither imports the other to judge.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.checkers.results import ClaimResult, SensitivityResult, Verdict, format_value
from exactdp.errors import InvalidArgument, Undecided
from exactdp.numeric.exact import to_exact

__all__ = ["bind_claim", "judge", "CLAIM_PARAMETERS"]


CLAIM_PARAMETERS = {
    "L": "lower bound: the clip lower bound for a clipped query, else the universe's minimum",
    "U": "upper bound: the clip upper bound for a clipped query, else the universe's maximum",
    "N": "the dataset size, when every dataset of the space has the same size",
    "d_in": "the bound on the dataset distance",
    "k": "the same as d_in (seed 003 calls it the Hamming distance)",
}


def bind_claim(claim: object, params: dict[str, Fraction]) -> tuple[str, Any]:
    """``(text, exact value)`` of a claim once ``params`` (see :func:`claim_parameters`)
    are substituted. A claim is a number, a formula string (parsed safely) or a SymPy
    expression in the parameter names."""
    import sympy  # a claim is a formula: SymPy is imported when one is given

    from exactdp.numeric.decide import to_fraction_if_rational  # lazy: loads SymPy, which this module does not import at load
    from exactdp.numeric.formula import parse_expression, substitute  # lazy: loads SymPy, which this module does not import at load

    if isinstance(claim, str):
        try:
            return claim, to_exact(claim, "claim")
        except InvalidArgument:
            pass  # not a plain number: a formula
        expr = parse_expression(claim, sorted(set(params) | set(CLAIM_PARAMETERS)))
    elif isinstance(claim, sympy.Basic):
        expr = substitute(claim, {}, _finish=False)  # every number checked before it is printed
    else:
        value = to_exact(claim, "claim")
        return format_value(value), value
    text = claim if isinstance(claim, str) else str(claim)
    unbound = sorted(s.name for s in expr.free_symbols if s.name not in params)
    if "N" in unbound:
        raise InvalidArgument(
            f"claim={text!r} uses N, but the datasets of this space have different sizes; "
            f"N is defined only when every dataset has the same size"
        )
    if unbound:
        raise InvalidArgument(
            f"claim={text!r} has symbols {unbound} that are not parameters of this check "
            f"({', '.join(params)})"
        )
    if isinstance(claim, str):
        # the text read again with the values, not substituted into its simplified form
        # (where 0/L and L/L are 0 and 1 even at L = 0): every node built as written
        value = parse_expression(claim, params)
    else:
        # through the parser's size guards: 10**(10**U) at U = 9 is refused, never built
        value = substitute(expr, params, text=text, _finish=False)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or not value.is_real:
        raise InvalidArgument(f"claim={text!r} is not a real number here ({value})")
    return text, to_fraction_if_rational(value)


def judge(text: str, value: Any, result: SensitivityResult, params: dict | None = None) -> ClaimResult:
    """The verdict on a claimed value against a computed sensitivity (``VACUOUS`` when
    no neighbouring pair was examined: a maximum over nothing confirms nothing)."""
    if result.scope.pairs == 0:
        return ClaimResult(text, value, Verdict.VACUOUS, result, dict(params or {}))
    from exactdp.numeric.decide import compare  # lazy: loads SymPy, which this module does not import at load

    try:
        c = compare(value, result.value)
    except Undecided:
        verdict = Verdict.UNDECIDED
    else:
        verdict = Verdict.VIOLATED if c < 0 else Verdict.HOLDS_TIGHT if c == 0 else Verdict.HOLDS
    return ClaimResult(text, value, verdict, result, dict(params or {}))
