"""Catalogue entries of seed 000 (Near & Abuah, *Programming Differential Privacy*, chapter
*Sensitivity*).

The seed measures distance by the symmetric difference (add/remove, ``d_in`` records) and
states every sensitivity at ``d(x, x') <= 1``; the grids bind ``d_in = 1`` wherever the
published formula has no ``d_in``. Its formulas:

* counting queries have sensitivity 1;
* with bounds, "the sensitivity of a summation query is equal to the difference between
  them", and on clipped data "upper - lower" (``U - L``): violated when ``L > 0`` or
  ``U < 0`` (adding one record moves the sum by ``max(|L|, |U|)``), loose when
  ``L < 0 < U``, exact under substitution;
* a modified row is at symmetric distance 2;
* an average answered as a noisy sum over a noisy count costs ``epsilon + epsilon`` by
  sequential composition;
* the clip-bound sweep, 100 queries at ``epsilon_i = 0.01``, costs ``epsilon = 1``;
* ``f(x) = x``, ``x + x`` and ``5 x`` have sensitivities 1, 2 and 5.

The two composition entries compute the *exact* privacy loss of the released Laplace
vector: for independent Laplace noise of scales ``b_i`` on queries ``f_i``, the largest
log-ratio of output densities over neighbours is ``max sum_i |f_i(x) - f_i(x')| / b_i``,
i.e. the L1 sensitivity of the vector ``(f_i / b_i)``, which the engine enumerates.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

import sympy

from exactdp.checkers.sensitivity import sensitivity
from exactdp.errors import ClaimViolated, InvalidArgument
from exactdp.queries import clipped, count, sum_, user_query
from exactdp.spaces import ChangeDistance, ExactSet, IntegerRange, Multisets, SymmetricDistance
from exactdp.symbolic.entry import Entry, Truth
from exactdp.symbolic.constructors import make_change_to_symmetric, make_clamp, make_count, make_sum
from exactdp.symbolic.entries_seed002 import (
    additive_vector, count_vector, engine_truth, meanings, scalar_times_count,
)
from exactdp.symbolic.symbols import L, U, d_in, epsilon

__all__ = ["entries", "average_epsilon", "sweep_epsilon", "linear_function"]

SEED = "seed 000 (Near & Abuah, Sensitivity)"
CONSTRUCTORS = "exactdp.symbolic.constructors"
ADD_REMOVE = "add-remove"
# L = 0 (the seed's ages), L > 0, L < 0 < U, U < 0: the violations come after a tight case
BOUNDS = ((0, 125), (0, 3), (2, 5), (-2, 3), (-4, -1))
SWEEP = 100  # the seed's range(100) of upper clip bounds, 0..99


def _bounds(**extra) -> list[dict[str, Any]]:
    return [dict(L=lo, U=hi, **extra) for lo, hi in BOUNDS]


def _mid(p) -> int:
    return (p["L"] + p["U"]) // 2


# -- formulas derived here (the proofs pin these sources) --------------------------------

def average_epsilon():
    """Exact epsilon of (noisy clipped sum, noisy count), one record added or removed,
    when the sum's Laplace scale uses the seed's sensitivity ``U - L`` and the count's
    uses 1, each at ``epsilon``: the calculus' sensitivities over those scales."""
    sum_sens = (make_clamp() >> make_sum()).map(1)
    count_sens = make_count().map(1)
    return sum_sens * epsilon / (U - L) + count_sens * epsilon


def sweep_epsilon():
    """Exact epsilon of the seed's sweep: for upper bound ``i`` in ``0..99`` the sum of
    ages clipped to ``[0, i]`` with Laplace noise of scale ``i / epsilon`` (no noise at
    ``i = 0``, where the sum is always 0)."""
    total = sympy.Integer(0)
    for i in range(1, SWEEP):
        sens = (make_clamp(0, i) >> make_sum(0, i)).map(1)
        total += sens * epsilon / i
    return total


def linear_function(c: int):
    """``f(x) = c x`` on integers under the absolute distance: ``|c| d_in``.

    >>> linear_function(-5)
    5*d_in
    """
    if isinstance(c, bool) or not isinstance(c, int):
        raise InvalidArgument(f"c={c!r} is not an int; pass the integer factor c of f(x) = c*x")
    return abs(c) * d_in


# -- truths --------------------------------------------------------------------------------

def _average_truth(p: Mapping[str, Any]) -> Truth:
    lo, hi, eps = Fraction(p["L"]), Fraction(p["U"]), Fraction(p["epsilon"])

    def row(v):
        return (eps * min(max(v, lo), hi) / (hi - lo), eps)

    query = additive_vector("(clipped sum/b_sum, count/b_count)", row, 2, "L1")
    universe = ExactSet(sorted({lo - 1, lo, (lo + hi) / 2, hi, hi + 1}))
    return Truth.from_result(sensitivity(query, Multisets(universe, sizes=(0, 2)),
                                         SymmetricDistance(), 1, progress=False))


AGES = ExactSet([0, 1, 50, 98, 99, 125])


def _sweep_truth(p: Mapping[str, Any]) -> Truth:
    eps = Fraction(p["epsilon"])
    space = Multisets(AGES, sizes=(0, 2))
    # i = 0: scale 0, the exact value is released; that costs nothing only if it is constant
    fixed = sensitivity(clipped(sum_, 0, 0), space, SymmetricDistance(), 1, progress=False)
    if fixed.value != 0:  # pragma: no cover - ages are >= 0
        raise ClaimViolated(f"the noise-free query of the sweep is not constant: {fixed}", fixed)

    def row(v):
        return tuple(eps * min(max(v, 0), i) / i for i in range(1, SWEEP))

    query = additive_vector("(sum clipped to [0, i] / (i/epsilon), i = 1..99)", row, SWEEP - 1, "L1")
    return Truth.from_result(sensitivity(query, space, SymmetricDistance(), 1, progress=False))


# -- entries ---------------------------------------------------------------------------------

def entries() -> list[Entry]:
    """Every seed-000 entry, in a stable order."""
    eps_meaning = meanings("epsilon", "L", "U", "d_in",
                           epsilon="the privacy-loss parameter of each query")
    greater_than_two = user_query(lambda xs: sum(1 for x in xs if x > 2), name="count(x > 2)")
    counts = {"count": count, "count(x > 2)": greater_than_two}
    return [
        Entry("s000/count/add-remove", f"{SEED}, Counting Queries ('always have a sensitivity "
              "of 1')", "count (with or without a property)", ADD_REMOVE, sympy.Integer(1),
              make_count().map(), meanings("d_in"),
              [dict(d_in=1, query=name) for name in counts],
              engine_truth(lambda p: (counts[p["query"]], Multisets(IntegerRange(0, 4), sizes=(0, 3)),
                                      SymmetricDistance())),
              (f"{CONSTRUCTORS}.make_count",),
              note="Rows counted with or without a property (here x > 2)."),
        Entry("s000/sum/bounded-values", f"{SEED}, Summation Queries ('equal to the difference "
              "between them')", "sum of values in [L, U]", ADD_REMOVE, U - L, make_sum().map(),
              meanings("d_in", "L", "U", L="the lower bound of every value",
                       U="the upper bound of every value"),
              _bounds(d_in=1),
              engine_truth(lambda p: (sum_, Multisets(ExactSet(sorted({p["L"], _mid(p), p["U"]})),
                                                      sizes=(0, 2)), SymmetricDistance())),
              (f"{CONSTRUCTORS}.make_sum",),
              note="Violated for L > 0 (adding the record U moves the sum by U > U - L) and for "
                   "U < 0; tight for L = 0; loose for L < 0 < U."),
        Entry("s000/clipped-sum/add-remove", f"{SEED}, Clipping ('upper - lower'; clip(0, 125) "
              "has sensitivity 125)", "sum of values clipped to [L, U]", ADD_REMOVE, U - L,
              (make_clamp() >> make_sum()).map(), meanings("d_in", "L", "U"), _bounds(d_in=1),
              engine_truth(lambda p: (clipped(sum_, p["L"], p["U"]),
                                      Multisets(ExactSet(sorted({p["L"] - 1, p["L"], _mid(p), p["U"],
                                                                 p["U"] + 1})), sizes=(0, 2)),
                                      SymmetricDistance())),
              (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_sum"),
              note="The correct add/remove map is d_in*max(|L|, |U|); U - L is right only for "
                   "L = 0 (the seed's ages) and under substitution."),
        Entry("s000/clipped-sum/substitute", f"{SEED}, Clipping, read under bounded DP (one "
              "record modified, size known)", "sum of values clipped to [L, U]", "substitute",
              U - L, (make_clamp(neighbors="substitute") >> make_sum(neighbors="substitute")).map(),
              meanings("d_in", "L", "U", d_in="records changed"),
              [dict(p, N=n) for p in _bounds(d_in=1) for n in (1, 3)],
              engine_truth(lambda p: (clipped(sum_, p["L"], p["U"]),
                                      Multisets(ExactSet(sorted({p["L"] - 1, p["L"], _mid(p), p["U"],
                                                                 p["U"] + 1})), size=p["N"]),
                                      ChangeDistance())),
              (f"{CONSTRUCTORS}.make_clamp", f"{CONSTRUCTORS}.make_sum"),
              note="Under substitution a record moves from L to U: U - L is exact for every sign "
                   "of the bounds (N, the public size, is a parameter of the space only)."),
        Entry("s000/distance/change-is-two", f"{SEED}, Distance ('modifying one row ... "
              "d(x, x') = 2')", "identity, one changed record -> symmetric distance", "substitute",
              sympy.Integer(2), make_change_to_symmetric().map(),
              meanings("d_in", d_in="records changed"),
              [dict(d_in=1, N=n) for n in (1, 2, 3)],
              engine_truth(lambda p: (count_vector(), Multisets(IntegerRange(0, 2), size=p["N"]),
                                      ChangeDistance())),
              (f"{CONSTRUCTORS}.make_change_to_symmetric",),
              note="The output distance is the L1 distance of count vectors, which is the "
                   "symmetric distance."),
        Entry("s000/average/sequential-composition", f"{SEED}, Average Queries (sum / count, "
              "'total privacy cost ... by sequential composition')",
              "noisy clipped sum and noisy count (Laplace), exact epsilon", ADD_REMOVE,
              2 * epsilon, average_epsilon(), eps_meaning,
              [dict(L=lo, U=hi, epsilon=e, d_in=1) for lo, hi in ((0, 125), (0, 10), (2, 10), (-2, 10), (-10, -2))
               for e in (Fraction(1, 2), 1)],
              _average_truth,
              ("exactdp.symbolic.entries_seed000.average_epsilon", f"{CONSTRUCTORS}.make_clamp",
               f"{CONSTRUCTORS}.make_sum", f"{CONSTRUCTORS}.make_count"),
              note="The sum's noise is scaled to the seed's clipped-sum sensitivity U - L, the "
                   "count's to 1. Composition adds 2 epsilon only when U - L is the sum's true "
                   "sensitivity (L = 0); for L > 0 or U < 0 the pair costs more than 2 epsilon."),
        Entry("s000/clip-sweep/sequential-composition", f"{SEED}, Clipping ('The total privacy "
              "cost for building this plot is epsilon = 1 by sequential composition, since we do "
              "100 queries each with epsilon_i = 0.01')",
              "sum of ages clipped to [0, i], i = 0..99, Laplace scale i/epsilon, exact epsilon",
              ADD_REMOVE, SWEEP * epsilon, sweep_epsilon(),
              meanings("epsilon", "d_in", epsilon="the privacy-loss parameter of each query"),
              [dict(epsilon=Fraction(1, 100), d_in=1), dict(epsilon=Fraction(1, 10), d_in=1)],
              _sweep_truth,
              ("exactdp.symbolic.entries_seed000.sweep_epsilon", f"{CONSTRUCTORS}.make_clamp",
               f"{CONSTRUCTORS}.make_sum"),
              note="100 * epsilon holds with slack: the query with upper bound 0 is released "
                   "without noise (scale 0) and is always 0, so it costs nothing; the exact "
                   "total is 99 * epsilon = 0.99 at epsilon = 0.01 (any age >= 99 attains it)."),
    ] + [
        Entry(f"s000/function/{tag}", f"{SEED}, Calculating Sensitivity ('f(x) = {shown}')",
              f"f(x) = {shown}, absolute distance", "absolute", sympy.Integer(c),
              linear_function(c), meanings("d_in", d_in="the absolute distance between the inputs"),
              [dict(d_in=1)],
              engine_truth(lambda p, c=c, shown=shown: (scalar_times_count(c, shown),
                                                        Multisets(ExactSet([1]), sizes=(0, 5)),
                                                        SymmetricDistance())),
              ("exactdp.symbolic.entries_seed000.linear_function",),
              note="The seed states the value at distance 1; an integer x is written as x copies "
                   "of one record, so the absolute distance is the symmetric distance.")
        for tag, shown, c in (("identity", "x", 1), ("x-plus-x", "x + x", 2), ("five-x", "5*x", 5))
    ]
