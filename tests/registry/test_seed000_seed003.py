"""The built-in sensitivity claims of ``exactdp verify``: seed 000's rules and seed 003's
tables (:mod:`exactdp.registry.seed000`, :mod:`exactdp.registry.seed003`)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp import Verdict
from exactdp.numeric.decide import to_sympy
from exactdp.checkers.builtin import FLOAT_CLOSE
from exactdp.registry import seed000, seed003
from exactdp.registry.seed003 import seed003_tables

CLAIMS = {c.id: c for c in seed000.claims() + seed003.claims(all_k=True)}
TABLE_IDS = {c.id for c in seed003.claims(all_k=True)}  # seed 003's printed tables

# Seed 000, with the exact value derived by hand for each check.
SEED000 = {
    "s000/count/add-remove/sizes=0..4": (Verdict.HOLDS_TIGHT, 1),
    "s000/count/substitute": (Verdict.HOLDS, 0),  # the size is fixed: a count cannot move
    "s003/limitations/histogram-substitute": (Verdict.HOLDS_TIGHT, 2),  # seed 003's statement
    "s000/clipped-sum/add-remove/L=0": (Verdict.HOLDS_TIGHT, 10),
    "s000/clipped-sum/add-remove/L>0": (Verdict.VIOLATED, 10),  # adding a 10: +U, not U - L = 8
    "s000/clipped-sum/add-remove/L<0<U": (Verdict.HOLDS, 10),  # U - L = 12 is loose
    "s000/clipped-sum/add-remove/U<0": (Verdict.VIOLATED, 3),  # adding a -3: |L| = 3 > U - L = 2
    "s000/clipped-sum/substitute/L>0": (Verdict.HOLDS_TIGHT, 8),
    "s000/clipped-sum/substitute/L<0<U": (Verdict.HOLDS_TIGHT, 12),
    "s000/clipped-sum/add-remove-correct/L>0": (Verdict.HOLDS_TIGHT, 20),
    "s000/clipped-sum/add-remove-correct/L<0<U": (Verdict.HOLDS_TIGHT, 20),
    "s000/clipped-sum/change-counted-once": (Verdict.VIOLATED, 20),
    "s000/clipped-sum/change-as-two-moves": (Verdict.HOLDS_TIGHT, 8),
}


def test_every_seed000_claim_is_listed():
    assert sorted(c.id for c in seed000.claims()) == sorted(SEED000)


@pytest.mark.parametrize("claim_id", sorted(SEED000))
def test_seed000(claim_id):
    claim = CLAIMS[claim_id]
    verdict, exact = SEED000[claim_id]
    result = claim.check()
    assert result.verdict is verdict
    assert result.sensitivity.value == exact
    assert claim.meets_expectation(result)
    w = result.witness
    assert w is not None and w.distance == exact


def test_seed003_covers_every_printed_value():
    rows = seed003_tables()["tables"]
    assert len(rows) == 320  # large scenarios (a) and (b): 280; the small (a_s): 40
    assert len(TABLE_IDS) == 320
    assert len(seed000.claims()) == 13 and len(seed003.claims()) == sum(1 for r in rows if r["k"] in (1, 2))


@pytest.mark.parametrize("claim_id", sorted(TABLE_IDS))
def test_seed003_agrees_with_the_exact_value_up_to_float_rounding(claim_id):
    claim = CLAIMS[claim_id]
    assert claim.expect == FLOAT_CLOSE
    result = claim.check()
    assert claim.meets_expectation(result), result.summary()


# Seed 003 cells re-derived by hand (value, one witness side), in the notebook's conventions.
HAND = [
    # pool [1,2,3]*4, n = 4, one record removed: [1,3,3,3] -> [3,3,3] moves the mean 5/2 -> 3
    ("s003/b/driving_proficiency/unbounded/k=1/mean", Fraction(1, 2), "0.5", Verdict.HOLDS_TIGHT),
    # one record changed: [1,3,3,3] -> [3,3,3,3]: std sqrt(3)/2 -> 0; the float print is below
    ("s003/b/driving_proficiency/bounded/k=1/std", sympy.sqrt(3) / 2, "0.8660254037844386", Verdict.VIOLATED),
    # bounded count: sizes are equal, the count never moves (the notebook prints 0)
    ("s003/a/school_year/bounded/k=2/count", Fraction(0), "0", Verdict.HOLDS_TIGHT),
    # unbounded count moves by exactly k
    ("s003/a/absence_days/unbounded/k=3/count", Fraction(3), "3", Verdict.HOLDS_TIGHT),
    # removing the 20 from [1,2,3,4,5,20] moves the mean 35/6 -> 3 = 17/6; printed 2.833333333333333 < 17/6
    ("s003/a/absence_days/unbounded/k=1/mean", Fraction(17, 6), "2.833333333333333", Verdict.VIOLATED),
]


@pytest.mark.parametrize("claim_id, exact, printed, verdict", HAND)
def test_seed003_hand_checked_cells(claim_id, exact, printed, verdict):
    claim = CLAIMS[claim_id]
    assert claim.claim == printed
    result = claim.check()
    assert sympy.simplify(to_sympy(result.sensitivity.value) - sympy.sympify(exact)) == 0
    assert result.verdict is verdict
