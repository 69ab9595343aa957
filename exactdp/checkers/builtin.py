"""The built-in claims that ``exactdp verify`` re-checks.

Two families for now:

* **seed 000** (Near & Abuah, *Sensitivity*): count has sensitivity 1; a clipped sum
  has sensitivity ``U - L``. The clipped-sum rule is stated for add/remove
  neighbours, where it is wrong when ``L > 0`` (adding one record moves the sum by
  ``U``) and loose when ``L < 0 < U``; under substitution it is exact. A change
  counted as one add/remove instead of two is also wrong. The correct add/remove rule
  ``d_in * max(|L|, |U|)`` sits beside them.
* **seed 003** (the notebook *Global Sensitivity From Scratch*): every sensitivity the
  notebook printed (scenarios (a) and (b), and the small dataset "a_s"), as a claim, re-checked under the
  notebook's own conventions. Its bounded mode is ``ChangeDistance <= k`` with both
  datasets in the space; its unbounded mode is exactly ``k`` records added or removed,
  release-centred, neighbours drawn from the pool. The notebook computed in floats,
  so a printed value a hair below the exact one is a genuine (if tiny) violation.

Every claim records what the check is expected to find (``expect``); ``exactdp
verify`` fails when a result departs from it. The claim registry (:mod:`exactdp.registry`)
lists them with every other kind of claim, as kind ``"sensitivity"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar

from exactdp.checkers.results import ClaimResult, Verdict
from exactdp.checkers.sensitivity import verify_claim
from exactdp.numeric.decide import to_sympy
from exactdp.queries import Query, clipped, count, histogram, mean, median, percentile, std, sum_, variance
from exactdp.spaces import ChangeDistance, IntegerRange, Metric, Multisets, SubMultisets, SymmetricDistance
from exactdp.spaces.datasets import DatasetSpace

__all__ = ["BuiltinClaim", "builtin_claims", "seed000_claims", "seed003_claims", "FLOAT_CLOSE", "float_gap"]

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


# -- seed 000 ----------------------------------------------------------------------

def seed000_claims() -> list[BuiltinClaim]:
    """Seed 000's rules (count, histogram, clipped sum), each on one small space."""
    records = IntegerRange(-3, 13)  # record values reach past every clip bound used
    free = Multisets(records, sizes=(0, 3))
    fixed = Multisets(records, size=3)
    small = Multisets(IntegerRange(0, 3), sizes=(0, 4))
    src = "seed 000 (Near & Abuah, Sensitivity)"
    add, sub = SymmetricDistance(), ChangeDistance()
    out = [
        BuiltinClaim("s000/count/add-remove/sizes=0..4", f"{src}, Counting Queries",
                     "counting queries have sensitivity 1", "1", count, small, add, 1,
                     Verdict.HOLDS_TIGHT.value),
        BuiltinClaim("s000/count/substitute", f"{src}, Counting Queries",
                     "counting queries have sensitivity 1 (here: one record changed, size known)",
                     "1", count, Multisets(IntegerRange(0, 3), size=3), sub, 1,
                     Verdict.HOLDS.value),
        BuiltinClaim("s000/histogram/substitute", f"{src}; seed 003, Limitations",
                     "a histogram's counts move by 2 in L1 when one record changes",
                     "2", histogram([0, 2, 4], "L1"), Multisets(IntegerRange(0, 3), size=3), sub, 1,
                     Verdict.HOLDS_TIGHT.value),
    ]
    rule = "the sum of values clipped to [L, U] has sensitivity U - L"
    cases = [
        ("L=0", 0, 10, add, free, Verdict.HOLDS_TIGHT),
        ("L>0", 2, 10, add, free, Verdict.VIOLATED),
        ("L<0<U", -2, 10, add, free, Verdict.HOLDS),
        ("U<0", -3, -1, add, free, Verdict.VIOLATED),
    ]
    for tag, lo, hi, metric, space, verdict in cases:
        out.append(BuiltinClaim(
            f"s000/clipped-sum/add-remove/{tag}", f"{src}, Clipping", rule + " (add/remove)",
            "U - L", clipped(sum_, lo, hi), space, metric, 1, verdict.value))
    for tag, lo, hi in (("L>0", 2, 10), ("L<0<U", -2, 10)):
        out.append(BuiltinClaim(
            f"s000/clipped-sum/substitute/{tag}", f"{src}, Clipping", rule + " (one record changed)",
            "U - L", clipped(sum_, lo, hi), fixed, sub, 1, Verdict.HOLDS_TIGHT.value))
        out.append(BuiltinClaim(
            f"s000/clipped-sum/add-remove-correct/{tag}", f"{src}, Clipping; OpenDP's rule",
            "under add/remove the clipped sum moves by d_in * max(|L|, |U|)",
            "d_in * Max(Abs(L), Abs(U))", clipped(sum_, lo, hi), free, add, 2,
            Verdict.HOLDS_TIGHT.value))
    out.append(BuiltinClaim(
        "s000/clipped-sum/change-counted-once", f"{src}, Distance",
        "a changed record (symmetric distance 2) given the one-record add/remove bound max(|L|, |U|)",
        "Max(Abs(L), Abs(U))", clipped(sum_, 2, 10), free, add, 2, Verdict.VIOLATED.value))
    out.append(BuiltinClaim(
        "s000/clipped-sum/change-as-two-moves", f"{src}, Distance; seed 002's table",
        "one change is two add/removes: with N known, d_in/2 * (U - L) at d_in = 2",
        "d_in/2 * (U - L)", clipped(sum_, 2, 10), fixed, add, 2, Verdict.HOLDS_TIGHT.value))
    return out


# -- seed 003 ----------------------------------------------------------------------

_SEED003_QUERIES = {
    "mean": mean, "median": median, "count": count, "sum": sum_, "std": std(0),
    "var": variance(0), "percentile_25": percentile(25), "percentile_50": percentile(50),
    "percentile_75": percentile(75), "percentile_90": percentile(90),
}


def seed003_tables() -> dict:
    """The notebook's printed tables (see ``exactdp/data/seed003_tables.json``)."""
    text = resources.files("exactdp").joinpath("data/seed003_tables.json").read_text("utf-8")
    return json.loads(text)


def seed003_claims(ks: tuple[int, ...] | None = (1, 2)) -> list[BuiltinClaim]:
    """Every value seed 003's notebook printed, at ``k`` in ``ks`` (every ``k`` if None)."""
    data = seed003_tables()
    runs = data["runs"]
    out = []
    for row in data["tables"]:
        scenario, column, mode, k = row["scenario"], row["column"], row["mode"], row["k"]
        if ks is not None and k not in ks:
            continue
        run = runs[scenario]
        space = SubMultisets(run["universe"][column], size=run["release_size"])
        if mode == "unbounded":
            metric: Metric = SymmetricDistance()
            options = {"exact_k": True, "scope": "release-centred"}
        else:
            metric = ChangeDistance()
            options = {}
        query = _SEED003_QUERIES[row["query"]]
        out.append(BuiltinClaim(
            f"s003/{scenario}/{column}/{mode}/k={k}/{row['query']}",
            f"seed 003 notebook, scenario ({scenario}), column {column}, {mode}, k={k}",
            f"the notebook prints sensitivity {row['value']}", row["value"], query, space,
            metric, k, FLOAT_CLOSE, options))
    return out


def builtin_claims(all_k: bool = False) -> list[BuiltinClaim]:
    """Every built-in claim; seed 003 at ``k = 1, 2`` (every ``k`` it printed if ``all_k``)."""
    return seed000_claims() + seed003_claims(None if all_k else (1, 2))
