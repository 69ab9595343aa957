"""The claim type of the built-in sensitivity claims that ``exactdp verify`` re-checks.

A :class:`BuiltinClaim` is a published sensitivity on one finite space, the exact check
that tests it (:func:`~exactdp.checkers.sensitivity.verify_claim`) and what that check is
expected to find: a verdict word, or :data:`FLOAT_CLOSE` for a value printed by float
code. The claims themselves (seed 000's rules, seed 003's printed tables) are content of
the claim registry (:mod:`exactdp.registry.seed000`, :mod:`exactdp.registry.seed003`),
which lists them with every other kind of claim, as kind ``"sensitivity"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from exactdp.checkers.results import ClaimResult
from exactdp.checkers.sensitivity import verify_claim
from exactdp.numeric.decide import to_sympy
from exactdp.queries import Query
from exactdp.spaces import Metric
from exactdp.spaces.datasets import DatasetSpace

__all__ = ["BuiltinClaim", "FLOAT_CLOSE", "float_gap"]

FLOAT_CLOSE = "float-close"
"""Expectation of a claim printed by float code: equal to the exact value up to
float rounding (relative gap at most ``1e-12``), on either side."""


@dataclass(frozen=True)
class BuiltinClaim:
    """A published claim, the exact check that tests it, and what the check should find.

    The check is :func:`~exactdp.checkers.sensitivity.verify_claim` on the claim's own
    finite space, so its result's ``evidence`` is ``bit-exact``: every dataset of that space
    is enumerated with exact query arithmetic, and the space is the domain the claim is
    stated on here (its id and scope name it). ``expect`` is therefore a plain verdict word.
    """

    id: str
    source: str
    statement: str
    claim: str
    query: Query
    space: DatasetSpace
    metric: Metric
    d_in: int
    expect: str  # a Verdict value, or FLOAT_CLOSE
    options: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "sensitivity"

    def check(self, progress: bool | None = False) -> ClaimResult:
        return verify_claim(self.claim, self.query, self.space, self.metric, self.d_in,
                            progress=progress, **self.options)

    def meets_expectation(self, result: ClaimResult) -> bool:
        if self.expect == FLOAT_CLOSE:
            gap = float_gap(result)
            return gap is not None and abs(gap) <= 1e-12
        return result.verdict.value == self.expect


def float_gap(result: ClaimResult) -> float | None:
    """Relative gap ``(claim - exact) / max(1, |exact|)``, for display only."""
    try:
        claim = to_sympy(result.claim)
        exact = to_sympy(result.sensitivity.value)
        return float(((claim - exact) / max(1, abs(exact))).evalf(30))
    except (TypeError, ValueError):  # pragma: no cover
        return None
