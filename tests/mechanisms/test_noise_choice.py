"""Seed 001: Laplace or Gaussian after MaxGroupsPerID and MaxRowsPerGroupPerID."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.calibration.noise_choice import compare_noise, laplace_better_below


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 1000),
       st.fractions(min_value=Fraction(1, 1000), max_value=100))
def test_through_zcdp_the_gaussian_is_smaller_by_exactly_2g(g, r, eps):
    c = compare_noise(g, r, eps)
    assert c.laplace_variance == 2 * (g * r / eps) ** 2
    assert c.gaussian_variance_zcdp == r * r * g / eps**2
    assert c.ratio_zcdp == 2 * g


def test_at_the_same_epsilon_delta_laplace_wins_for_few_groups_only():
    assert laplace_better_below(1, "1e-5") == 7
    assert compare_noise(6, 2, 1, "1e-5").laplace_smaller_approx is True
    assert compare_noise(7, 2, 1, "1e-5").laplace_smaller_approx is False
    lo, hi = compare_noise(7, 1, 1, "1e-5").gaussian_variance_approx
    assert lo <= hi < 98  # sigma_1 ~ 3.73: 7 * sigma_1^2 ~ 97.2 < Laplace's 98


@pytest.mark.parametrize("call, error", [
    (lambda: compare_noise(0, 1, 1), InvalidArgument),
    (lambda: compare_noise(1, "1/2", 1), InvalidArgument),
    (lambda: compare_noise(1, 1, 0), InvalidArgument),
    (lambda: compare_noise(1, 1, 0.5), InexactInput),
    (lambda: laplace_better_below(1, 2), InvalidArgument),
])
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()
