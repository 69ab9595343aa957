"""epsilon_of_sigma: the smallest epsilon a Gaussian sigma is (epsilon, delta)-DP for."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.calibration.gaussian import analytic_sigma, check_sigma, epsilon_of_sigma


def test_inverse_of_the_analytic_sigma():
    sigma = analytic_sigma("1/2", "1e-5").safe_float  # the smallest float private at 1/2
    lo, hi = epsilon_of_sigma(sigma, "1e-5").exact
    assert lo < hi <= Fraction(1, 2)  # the float is at or above sigma*: epsilon at most 1/2
    assert Fraction(1, 2) - lo < Fraction(1, 10**12)  # and only just


@settings(max_examples=15, deadline=None)
@given(st.fractions(min_value=Fraction(1, 4), max_value=50, max_denominator=1000),
       st.sampled_from(["1e-5", "1e-3", "1/10"]))
def test_the_enclosure_ends_are_certified_on_both_sides(sigma, delta):
    r = epsilon_of_sigma(sigma, delta)
    lo, hi = r.exact if isinstance(r.exact, tuple) else (r.exact, r.exact)
    assert check_sigma(sigma, hi, delta) if hi > 0 else True
    if lo > 0:
        assert check_sigma(sigma, lo, delta) is False
    assert r.safe_float >= hi  # an epsilon is never understated


def test_private_at_zero_and_bad_input():
    assert epsilon_of_sigma(1000, "1/2").exact == 0  # delta(1000, 0) is tiny
    with pytest.raises(InvalidArgument):
        epsilon_of_sigma(-1, "1e-5")
    with pytest.raises(InvalidArgument):
        epsilon_of_sigma(1, "2")
    with pytest.raises(InexactInput):
        epsilon_of_sigma(1, 1e-5)
