"""Privacy claims: a published statement about a mechanism (not a sensitivity), the exact
check that tests it, and what the check is expected to find (:class:`PrivacyClaim`); and
the result of a claim that is a statement about a guarantee rather than a loss over pairs
(:class:`StatementResult`).

The built-in privacy claims that ``exactdp verify`` re-checks are listed in the registry,
:mod:`exactdp.registry.privacy` (the registry imports the checkers and the suites, never
the reverse).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from exactdp._display import card
from exactdp.checkers.privacy import PrivacyResult
from exactdp.checkers.results import Evidence, Verdict, evidence_note, qualify

__all__ = ["PrivacyClaim", "StatementResult"]


@dataclass(frozen=True)
class StatementResult:
    """The result of a claim that is a statement about a guarantee rather than a loss over
    pairs (e.g. "the sensitivity sampler gives epsilon-DP"): its verdict, why, and what was
    examined.

    ``evidence`` is ``bit-exact`` for the built-in statements unless it says otherwise: each is decided in exact
    (or certified-interval) arithmetic over its whole stated domain, a theorem applied to
    exact numbers (the sensitivity sampler), a SymPy identity with every parameter symbolic
    (the closed form), or an exact comparison for every ``g`` (the noise choice). Weaker
    evidence would qualify the holds words (:func:`~exactdp.checkers.results.qualify`).
    """

    verdict: Verdict
    text: str
    scope_text: str
    data: dict
    evidence: Evidence = Evidence.BIT_EXACT

    def __post_init__(self):
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        object.__setattr__(self, "verdict", qualify(self.verdict, self.evidence))

    @property
    def ok(self) -> bool:
        """No violation: ``holds``, ``holds-tight`` or a ``holds-*`` word on weaker evidence."""
        return self.verdict.holding

    @property
    def witness(self) -> None:
        """A statement about a guarantee has no pair that attains it (the registry's
        results all carry a ``witness``)."""
        return None

    def summary(self) -> str:
        return f"{self.verdict.value.upper()}{evidence_note(self.evidence)}: {self.text}"

    def to_dict(self) -> dict:
        return {"verdict": self.verdict.value, "evidence": self.evidence.value, "text": self.text,
                "scope": self.scope_text, **self.data}

    def _repr_html_(self) -> str:
        return card("statement", self.verdict.value,
                    [("found", self.text), ("scope", self.scope_text), ("evidence", self.evidence.value)])


@dataclass(frozen=True)
class PrivacyClaim:
    """A published privacy statement, the exact check that tests it, and the expected verdict.

    Built-in privacy claims are checked on ``bit-exact`` evidence (exact output
    distributions of the stated (ideal) mechanism over the stated values or space: the
    Gaussian's loss depends on ``|a - b|`` only, so the pair (0, 1) is every pair at
    sensitivity 1; or an exact statement, :class:`StatementResult`), except where the
    result's ``evidence`` says otherwise (``s004/experiments/error-figure`` takes numpy's
    float sampler as ideal noise: ``holds-ideal-noise``). The result's ``evidence`` is in its
    JSON.
    """

    id: str
    source: str
    statement: str
    run: Callable[[], PrivacyResult | StatementResult]
    expect: str  # a Verdict value
    kind: ClassVar[str] = "privacy"

    def check(self) -> PrivacyResult:
        return self.run()

    def meets_expectation(self, result: PrivacyResult) -> bool:
        return result.verdict is not None and result.verdict.value == self.expect

    def to_dict(self, result) -> dict[str, Any]:
        out = result.to_dict()
        out.update(kind="privacy", id=self.id, source=self.source, statement=self.statement,
                   expected=self.expect, as_expected=self.meets_expectation(result))
        return out
