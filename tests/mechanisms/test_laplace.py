"""Laplace calibration: exact scale and epsilon; the float is never below the exact value."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.calibration.laplace import laplace_epsilon, laplace_scale

positive_fractions = st.builds(Fraction, st.integers(1, 10**12), st.integers(1, 10**9))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(positive_fractions, positive_fractions), min_size=20, max_size=20))
def test_scale_is_exact_and_rounded_up(cases):  # 1,200 (epsilon, sensitivity) pairs
    for eps, sens in cases:
        r = laplace_scale(eps, sensitivity=sens)
        assert r.exact == sens / eps
        assert Fraction(r.safe_float) >= r.exact
        assert Fraction(math.nextafter(r.safe_float, 0)) < r.exact  # the smallest such float
        # the epsilon the rounded-up scale really spends never exceeds the target
        spent = laplace_epsilon(r.safe_float, sensitivity=sens)
        assert spent.exact <= eps
        assert Fraction(spent.safe_float) >= spent.exact


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(min_value=1e-300, max_value=1e300), min_size=10, max_size=10))
def test_epsilon_of_float_scale_uses_its_exact_value(scales):
    for b in scales:
        r = laplace_epsilon(b)
        assert r.exact == 1 / Fraction(b)
        assert Fraction(r.safe_float) >= r.exact > Fraction(math.nextafter(r.safe_float, 0))


def test_known_values():
    r = laplace_scale("0.1", sensitivity=3)
    assert (r.exact, r.safe_float) == (Fraction(30), 30.0)
    r = laplace_scale("0.3")
    assert r.exact == Fraction(10, 3) and r.safe_float == 3.3333333333333335
    assert float(Fraction(10, 3)) == 3.3333333333333335  # nearest happens to be above here
    r = laplace_scale("3")
    assert r.exact == Fraction(1, 3) and r.safe_float == 0.33333333333333337  # nearest would be below
    assert laplace_epsilon(0.1).exact == Fraction(36028797018963968, 3602879701896397)
    assert laplace_epsilon(0.1).safe_float == 10.0  # 1/0.1000000000000000055... rounded up
    assert laplace_epsilon("10/3", sensitivity=2).exact == Fraction(3, 5)


def test_result_dict_and_latex():
    r = laplace_scale("1e-5", sensitivity="1/2")
    d = r.to_dict()
    assert d == {
        "mechanism": "laplace", "quantity": "scale", "safe_float": "50000.0", "direction": "up",
        "exact": "50000", "inputs": {"epsilon": "1/100000", "sensitivity": "1/2"},
        "notes": "b = sensitivity/epsilon; safe_float is the smallest float >= b",
    }
    json.dumps(d)
    assert r._repr_latex_() == (
        r"$\text{laplace}:\ b = 50000;\ \text{safe float}\ 50000.0 \geq b\quad "
        r"(\varepsilon = \frac{1}{100000},\ \Delta = \frac{1}{2})$"
    )
    assert "laplace: scale = 50000 (exact 50000); safe float 50000.0" in str(r)


@pytest.mark.parametrize(
    "fn, args, error, text",
    [
        (laplace_scale, (0.5,), InexactInput, "epsilon=0.5 is a float"),
        (laplace_scale, ("0",), InvalidArgument, "epsilon='0' is not positive"),
        (laplace_scale, ("-1",), InvalidArgument, "not positive"),
        (laplace_scale, ("1", "0"), InvalidArgument, "sensitivity='0' is not positive"),
        (laplace_scale, ("1", 2.0), InexactInput, "sensitivity=2.0 is a float"),
        (laplace_scale, ("abc",), InvalidArgument, "not an exact number"),
        (laplace_epsilon, (0.0,), InvalidArgument, "scale=0.0 is not positive"),
        (laplace_epsilon, (float("inf"),), InvalidArgument, "not finite"),
        (laplace_epsilon, (-2,), InvalidArgument, "scale=-2 is not positive"),
    ],
)
def test_invalid_arguments(fn, args, error, text):
    with pytest.raises(error, match=text):
        fn(*args)
