"""Composition: exact sums, and advanced composition enclosed and rounded up."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InexactInput, InvalidArgument
from exactdp.mechanisms.accounting.composition import (
    advanced_composition,
    compose_sequential,
    compose_zcdp,
)
from exactdp.numeric.intervals import interval_to_fractions
from exactdp.numeric.rounding import float_at_least

MP = mpmath.mp.clone()
MP.dps = 50


def ref_advanced_epsilon(k: int, eps: Fraction, dp: Fraction):
    """50-digit reference, written independently (expm1 instead of exp - 1)."""
    e = MP.mpf(eps.numerator) / eps.denominator
    return MP.sqrt(2 * k * MP.log(MP.mpf(dp.denominator) / dp.numerator)) * e + k * e * MP.expm1(e)


def as_fraction(x) -> Fraction:
    man, exp = MP.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def test_sequential_is_exact():
    assert compose_sequential(["0.1", "0.9"]) == (1, 0)  # floats: 0.1 + 0.2 + ... drift; here exact
    assert compose_sequential([("0.1", "1e-6")] * 10) == (1, Fraction(1, 100000))
    assert compose_sequential([("1/3", 0), ("1/3", "1/7"), "1/3"]) == (1, Fraction(1, 7))
    assert compose_sequential([]) == (0, 0)
    # ten float-free tenths give exactly 1, where sum([0.1] * 10) == 0.9999999999999999
    assert sum([0.1] * 10) != 1.0 and compose_sequential(["0.1"] * 10)[0] == 1


def test_zcdp_adds_exactly():
    assert compose_zcdp(["0.1", "0.2"]) == Fraction(3, 10)  # 0.1 + 0.2 != 0.3 in floats
    assert compose_zcdp([]) == 0


def test_advanced_composition_test_vector():
    # anchors §6: k = 100, eps = 0.1, delta' = 1e-6 -> eps = 6.30823095051 (basic: 10)
    r = advanced_composition("0.1", "1e-8", 100, "1e-6")
    assert round(r.epsilon_float, 11) == 6.30823095051
    assert r.delta == Fraction(100, 10**8) + Fraction(1, 10**6) == Fraction(2, 10**6)
    lo, hi = interval_to_fractions(r.epsilon_interval)
    ref = as_fraction(ref_advanced_epsilon(100, Fraction(1, 10), Fraction(1, 10**6)))
    assert lo <= ref <= hi and hi - lo < Fraction(1, 10**15)
    assert ref <= Fraction(r.epsilon_float) < ref + Fraction(1, 2**49)  # rounded up, by less than an ulp
    assert r.epsilon_at_most("6.30823095052") and not r.epsilon_at_most("6.30823095051")
    assert r.fits(7, "2e-6") and not r.fits(7, "1.9e-6") and not r.fits(6, 1)
    assert compose_sequential([("0.1", "1e-8")] * 100)[0] == 10


def test_advanced_expression_is_exact_and_agrees():
    r = advanced_composition("1/2", 0, 10, "1/1000")
    expr = r.epsilon_expr
    k, e = 10, sympy.Rational(1, 2)
    assert sympy.simplify(expr - (sympy.sqrt(2 * k * sympy.log(1000)) * e + k * e * (sympy.exp(e) - 1))) == 0
    assert float_at_least(expr) == r.epsilon_float  # an independent route: SymPy -> interval -> float
    d = json.loads(json.dumps(r.to_dict()))
    assert d["epsilon"]["float_at_least"] == r.epsilon_float and d["delta"]["exact"] == "1/1000"
    assert sympy.sympify(d["epsilon"]["exact"]) == expr


def test_advanced_beats_basic_only_for_many_small_steps():
    small = advanced_composition("0.01", 0, 10000, "1e-6")
    assert small.epsilon_float < 7 < compose_sequential(["0.01"] * 10000)[0]  # 100 by basic composition
    few = advanced_composition("1", 0, 3, "1e-6")
    assert few.epsilon_float > 3  # basic composition is better here, and both are valid


@settings(max_examples=1000, deadline=None)
@given(k=st.integers(1, 10**4),
       eps=st.builds(Fraction, st.integers(0, 5000), st.integers(1000, 10**6)),
       dp_exp=st.integers(1, 30), dp_mant=st.integers(1, 9))
def test_advanced_safe_float_never_below_the_reference(k, eps, dp_exp, dp_mant):
    dp = Fraction(dp_mant, 10**dp_exp)
    r = advanced_composition(eps, 0, k, dp)
    ref = as_fraction(ref_advanced_epsilon(k, eps, dp))
    lo, hi = interval_to_fractions(r.epsilon_interval)
    slack = ref / 10**45
    assert lo - slack <= ref <= hi + slack
    assert Fraction(r.epsilon_float) >= ref - slack
    assert Fraction(r.epsilon_float) <= ref * (1 + Fraction(1, 2**51)) + slack  # and tight


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.builds(Fraction, st.integers(0, 10**6), st.integers(1, 10**6)),
                          st.builds(Fraction, st.integers(0, 10**3), st.integers(10**3, 10**9))),
                max_size=10))
def test_sequential_equals_the_exact_sums(spends):
    eps, delta = compose_sequential(spends)
    assert eps == sum((e for e, _ in spends), Fraction(0))
    assert delta == sum((d for _, d in spends), Fraction(0))


BAD = [
    (lambda: compose_sequential([0.1]), InexactInput, "spends[0] epsilon=0.1 is a float"),
    (lambda: compose_sequential([("0.1", "1e-6", 3)]), InvalidArgument, "is not an (epsilon, delta) pair"),
    (lambda: compose_sequential(["-1"]), InvalidArgument, "spends[0] epsilon='-1' is negative"),
    (lambda: compose_sequential([("1", "2")]), InvalidArgument, "spends[0] delta='2' is above 1"),
    (lambda: compose_zcdp(["1", "-1/2"]), InvalidArgument, "rhos[1]='-1/2' is negative"),
    (lambda: advanced_composition("0.1", 0, 0, "1e-6"), InvalidArgument, "k=0 is not a positive int"),
    (lambda: advanced_composition("0.1", 0, 2.0, "1e-6"), InvalidArgument, "k=2.0 is not a positive int"),
    (lambda: advanced_composition("0.1", 0, 10, 0), InvalidArgument, "delta_prime=0 is not in (0, 1)"),
    (lambda: advanced_composition("0.1", 0, 10, 1), InvalidArgument, "delta_prime=1 is not in (0, 1)"),
    (lambda: advanced_composition("0.1", 0, 10, 1e-6), InexactInput, "delta_prime=1e-06 is a float"),
    (lambda: advanced_composition(0.1, 0, 10, "1e-6"), InexactInput, "epsilon=0.1 is a float"),
    (lambda: advanced_composition(800, 0, 10, "1e-6"), InvalidArgument, "beyond the largest float"),
    (lambda: advanced_composition("0.1", "1.2", 10, "1e-6"), InvalidArgument, "delta='1.2' is above 1"),
    # exact values shown short, never as a Fraction(...) repr
    (lambda: compose_sequential([(1, Fraction(3, 2))]), InvalidArgument, "spends[0] delta=3/2 is above 1"),
    (lambda: compose_zcdp([-Fraction(10**400)]), InvalidArgument, "(402 characters) is negative"),
    (lambda: advanced_composition("0.1", 0, 10, Fraction(0)), InvalidArgument, "delta_prime=0 is not in (0, 1)"),
    (lambda: advanced_composition(Fraction(800), 0, 10, "1e-6"), InvalidArgument, "epsilon=800 composed 10 times"),
]


@pytest.mark.parametrize("call, exc, fragment", BAD)
def test_bad_arguments(call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment in str(info.value)
    assert "Fraction(" not in str(info.value)


def test_totals_may_exceed_one_each_delta_may_not():
    # a total delta above 1 is a (vacuous) guarantee that fits no budget, not bad input
    assert compose_sequential([("0.1", "0.6"), ("0.1", "0.6")]) == (Fraction(1, 5), Fraction(6, 5))
    r = advanced_composition("0.1", "0.2", 10, "1e-6")
    assert r.delta == Fraction(2000001, 1000000) and r.delta_each == Fraction(1, 5)
    assert not r.fits(100, 1)
    assert r.epsilon_float == advanced_composition("0.1", 0, 10, "1e-6").epsilon_float
