"""Seed 000's sensitivity rules (kind ``"sensitivity"``; Near & Abuah, *Sensitivity*):
count has sensitivity 1; a clipped sum has sensitivity ``U - L``. The clipped-sum rule is
stated for add/remove neighbours, where it is wrong when ``L > 0`` (adding one record moves
the sum by ``U``) and loose when ``L < 0 < U``; under substitution it is exact. A change
counted as one add/remove instead of two is also wrong. The correct add/remove rule
``d_in * max(|L|, |U|)`` sits beside them. Seed 003's statement that a multi-dimensional
count moves by 2 when one record changes (``s003/limitations/histogram-substitute``) is
checked here too, on the same small space as seed 000's count.

Each claim is a :class:`~exactdp.checkers.builtin.BuiltinClaim` on one small space, with
what the exact check is expected to find (``expect``).
"""

from __future__ import annotations

from exactdp.checkers.builtin import BuiltinClaim
from exactdp.checkers.results import Verdict
from exactdp.queries import clipped, count, histogram, sum_
from exactdp.spaces import ChangeDistance, IntegerRange, Multisets, SymmetricDistance

__all__ = ["claims", "seed000_claims"]


def claims(all_k: bool = False) -> list[BuiltinClaim]:
    """The registry's entry point (``all_k`` does not apply)."""
    return seed000_claims()


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
        BuiltinClaim("s003/limitations/histogram-substitute",
                     "seed 003 notebook (Global Sensitivity From Scratch), Limitations",
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
