"""Seed 000's central warning as privacy claims (kind ``"privacy"``): clipping bounds
chosen by looking at the data are not differentially private.

Each claim checks, exactly over every neighbouring pair of a small space, the epsilon-DP
claim of a clipped sum whose bounds are read off the data and whose Laplace scale is
calibrated to them (:mod:`exactdp.checkers.data_dependent`). Proof:
``proofs/s000-data-dependent-clipping.md``.
"""

from __future__ import annotations

from exactdp.spaces import IntegerRange, Multisets
from exactdp.checkers.data_dependent import DataDependentSum, check_data_dependent
from exactdp.checkers.privacy_claims import PrivacyClaim

__all__ = ["claims"]

SOURCE = ("seed 000 (Near & Abuah, Sensitivity), Clipping: 'If we pick our clipping bounds by "
          "looking at the data, then the bounds themselves might reveal something about the data'")


def _run(rule: str):
    def run():
        return check_data_dependent(DataDependentSum(rule, epsilon=1),
                                    Multisets(IntegerRange(0, 4), sizes=(1, 3)), "add-remove", 1,
                                    epsilon=1)

    return run


def claims(all_k: bool = False) -> list:
    return [
        PrivacyClaim(
            "s000/data-dependent-bounds/min-max", SOURCE,
            "a sum clipped to bounds read off the data, [min(x), max(x)], with Laplace noise of "
            "scale (U - L)/epsilon is epsilon-DP, epsilon = 1 (the seed says it is not)",
            _run("min-max"), "violated"),
        PrivacyClaim(
            "s000/data-dependent-bounds/max", SOURCE + " (the histogram: 'an upper bound of 90 "
            "would suffice')",
            "a sum clipped to [0, max(x)] (the upper bound read off the data) with Laplace noise "
            "of scale U/epsilon is epsilon-DP, epsilon = 1 (the seed says it is not)",
            _run("max"), "violated"),
    ]
