"""Seed statements about what a sensitivity *is* (kind ``"sensitivity"``): unbounded
sensitivities given the verdict ``unbounded`` with a witness family, and the neighbour
relation a seed states set beside the one it computes with (issue 20).

* **Unbounded** (:func:`~exactdp.symbolic.unbounded.check_unbounded`): seed 000's
  ``f(x) = x*x`` and sums without bounds, seed 002's table column "any numeric vector"
  (sum, mean, variance: blank cells), seed 004's unbounded heights. Each claim enumerates
  the exact sensitivity on finite spaces ``space(B)`` for a few ``B`` and proves, with
  ``B`` a symbol, a family of neighbouring pairs whose distance tends to infinity;
  seed 000's "we could claim the sensitivity is 125" is judged as the finite claim it is
  (violated at ``B = 126``). Proof: ``proofs/unbounded-witness-family.md``.
* **Relation mismatch** (:mod:`exactdp.checkers.relation_mismatch`,
  :func:`exactdp.registry.seed004.seed004_typical_relations`): seed 004 defines
  ``Delta f`` over add/remove (``||x - y||_1 = 1``) but computes its typical sensitivity
  over replacement. Proof: ``proofs/s004-relation-mismatch.md``.

The privacy claim of seed 000 on data-dependent clipping bounds is in
:mod:`exactdp.registry.seed_semantics_privacy`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar
from exactdp.queries import mean, sum_, user_query, variance
from exactdp.spaces import ExactSet, IntegerRange, Multisets
from exactdp.checkers.relation_mismatch import compare_relations
from exactdp.registry.seed004 import seed004_typical_relations
from exactdp.symbolic.constructors import make_mean, make_sum
from exactdp.symbolic.entries_seed002 import variance_unbounded
from exactdp.symbolic.symbols import L, U, d_in
from exactdp.symbolic.unbounded import B, check_unbounded

__all__ = ["StatementClaim", "claims"]

S000 = "seed 000 (Near & Abuah, Sensitivity)"
S002 = "seed 002 (Hands-on Differential Privacy, ch. 6), restricted-sensitivity table"
S004 = "seed 004 (Sherpa.ai, The Laplace mechanism)"


@dataclass(frozen=True)
class StatementClaim:
    """A seed statement about a sensitivity checked by a function that returns a result
    with ``verdict``, ``evidence``, ``summary()``, ``scope_text`` and ``to_dict()`` (an
    :class:`~exactdp.symbolic.unbounded.UnboundedResult` or a
    :class:`~exactdp.checkers.relation_mismatch.RelationMismatchResult`)."""

    id: str
    source: str
    statement: str
    run: Callable[[], Any]
    expect: str  # a Verdict value
    kind: ClassVar[str] = "sensitivity"

    def check(self, progress: bool | None = False) -> Any:
        return self.run()

    def meets_expectation(self, result: Any) -> bool:
        return result.verdict is not None and result.verdict.value == self.expect


# -- unbounded ---------------------------------------------------------------------------

def _square():
    return user_query(lambda xs: len(xs) ** 2, name="x*x")


def _x_squared():
    # x is written as x copies of one record (as for seed 000's f(x) = 5x in the
    # catalogue): the absolute distance is the symmetric distance; x in 0..B
    return check_unbounded(_square(), lambda b: Multisets(ExactSet([1]), sizes=(0, b)),
                           ({1: "B - 1"}, {1: "B"}), symbolic=lambda n, s1, s2: n**2,
                           formula="2*B - 1", at=(1, 2, 4, 8, 16))


def _table_formula(stat: str):
    derived = {"sum": lambda: make_sum().map(), "mean": lambda: make_mean(min_size=1).map(),
               "variance": variance_unbounded}[stat]()
    return derived.subs({L: -B, U: B, d_in: 1}).simplify()


def _symmetric(stat: str, claim=None):
    def run():
        query, sizes, family, at = {
            "sum": (sum_, (0, 2), ([], ["B"]), (1, 2, 4, 8)),
            "mean": (mean, (1, 2), (["-B"], ["-B", "B"]), (1, 2, 4, 8)),
            "variance": (variance(1), (2, 3), (["-B", "-B"], ["-B", "-B", "B"]), (1, 2, 4)),
        }[stat]
        return check_unbounded(query, lambda b: Multisets(IntegerRange(-b, b), sizes=sizes), family,
                               at=at, formula=_table_formula(stat), claim=claim)

    return run


def _heights():
    # one record, f its height (its sum); add/remove, the relation the seed states
    return check_unbounded(sum_, lambda b: Multisets(IntegerRange(0, b), sizes=(0, 1)),
                           ([], ["B"]), at=(1, 10, 100, 300), formula="B")


# -- relation mismatch -----------------------------------------------------------------

def _typical_relations():
    return seed004_typical_relations()


def _global_relations():
    heights = IntegerRange(0, 300)
    return compare_relations(sum_, (Multisets(heights, sizes=(0, 1)), "add-remove"),
                             (Multisets(heights, size=1), "substitute"),
                             what="global sensitivity of the height query (one record, f = its "
                                  "sum) on heights 0..300 cm")


def claims(all_k: bool = False) -> list[StatementClaim]:
    """Every claim of this module, in a stable order."""
    table = "blank in the table: the sensitivity is unbounded"
    return [
        StatementClaim(
            "s000/unbounded/x-squared", f"{S000}, Calculating Sensitivity",
            "the global sensitivity of f(x) = x*x is unbounded (the change in f(x) depends on x)",
            _x_squared, "unbounded"),
        StatementClaim(
            "s000/unbounded/sum", f"{S000}, Summation Queries",
            "summation queries have unbounded sensitivity when no lower and upper bounds exist",
            _symmetric("sum"), "unbounded"),
        StatementClaim(
            "s000/unbounded/sum/claim=125", f"{S000}, Summation Queries ('we could claim ... "
            "that the sensitivity is 125')",
            "a sum of values without bounds has sensitivity 125 (the seed's example of a claim "
            "any number fails)", _symmetric("sum", claim=125), "violated"),
        StatementClaim(
            "s002/table/sum/any/unbounded", f"{S002}, row Sum, column 'any numeric vector'",
            f"the sum of any numeric vector under add/remove: {table}", _symmetric("sum"),
            "unbounded"),
        StatementClaim(
            "s002/table/mean/any/unbounded", f"{S002}, row Mean, column 'any numeric vector'",
            f"the mean of any numeric vector under add/remove: {table}", _symmetric("mean"),
            "unbounded"),
        StatementClaim(
            "s002/table/variance/any/unbounded", f"{S002}, row Variance, column 'any numeric vector'",
            f"the (sample) variance of any numeric vector under add/remove: {table}",
            _symmetric("variance"), "unbounded"),
        StatementClaim(
            "s004/unbounded/height", f"{S004}, 2) Example: mean height",
            "since the height is not bounded, the sensitivity Delta f is infinite (one record, "
            "f returns the height; add/remove as the seed defines Delta f)", _heights, "unbounded"),
        StatementClaim(
            "s004/relation/typical", f"{S004}, 1) Definition (Delta f over ||x - y||_1 = 1) and "
            "3) Estimating the sensitivity (E|h - h'|)",
            "the typical sensitivity E[Delta f] = E|h - h'| ~ 11.99 cm is the expected Delta f "
            "the seed defines (over one record added or removed)", _typical_relations, "violated"),
        StatementClaim(
            "s004/relation/global", f"{S004}, 1) Definition and 2) Example (heights never above 3 m)",
            "on heights in [0, 300] cm the global Delta f is the same over add/remove (stated) and "
            "replacement (used)", _global_relations, "holds-tight"),
    ]
