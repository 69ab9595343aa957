"""The sample project's claims, checked by exactdp's pytest plugin (``exactdp_claim``)."""

import pytest
from heights import HIGH, LOW, clipped_mean, clipped_total

from exactdp import ExactSet, Multisets
from exactdp.queries import user_query

MEAN = user_query(clipped_mean, name="clipped_mean", min_size=1)
TOTAL = user_query(clipped_total, name="clipped_total")
HEIGHTS = ExactSet([LOW, 150, 175, HIGH])                # a few heights in cm, L = 140, U = 200
SPACE = Multisets(HEIGHTS, size=3)                       # three people


def test_clipped_mean_substitute(exactdp_claim):
    # right: swapping one person's height moves the mean of N heights by at most (U - L)/N
    exactdp_claim("(U - L)/N", MEAN, SPACE, "substitute", id="mean-substitute")


def test_clipped_total_kept_as_regression(exactdp_claim):
    # the same wrong claim, kept as a regression: it must stay violated
    exactdp_claim("U - L", TOTAL, Multisets(HEIGHTS, sizes=(0, 2)),
                  id="total-regression", expect="violated")


@pytest.mark.exactdp_claim("U", TOTAL, Multisets(HEIGHTS, sizes=(0, 2)), id="total-marker")
def test_clipped_total_marker():
    assert clipped_total((150, 210)) == 350
