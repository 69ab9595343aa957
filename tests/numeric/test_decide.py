"""exactdp.numeric.decide: exact signs, or Undecided, never a guess."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st
from sympy import Add, Rational, Symbol, sqrt

from exactdp import Undecided
from exactdp.numeric.decide import compare, sign, to_fraction_if_rational, to_sympy

x = Symbol("x", real=True)


def unevaluated(*terms):
    """A sum SymPy keeps as written, so the sign is decided by decide, not by SymPy."""
    return Add(*terms, evaluate=False)


@pytest.mark.parametrize(
    "value, expected",
    [
        (Fraction(1, 3), 1),
        (Fraction(-1, 3), -1),
        (Fraction(0), 0),
        (0, 0),
        (-5, -1),
        (10**50, 1),
        (Rational(-7, 2), -1),
        (sympy.Integer(0), 0),
        (sqrt(2) - Rational(141421356, 100000000), 1),
        (sqrt(2) - Rational(141421357, 100000000), -1),
        (sqrt(2) + sqrt(3) - Rational(3146, 1000), 1),  # 3.14626...
        (sqrt(3) - sqrt(2) - Rational(1, 3), -1),  # 0.3178...
        (sympy.pi - Rational(355, 113), -1),
        (sympy.E - Rational(2718281828, 10**9), 1),
        # 30 digits are not enough here (e^(pi sqrt 163) = 262537412640768743.99999999999925...)
        (sympy.exp(sympy.pi * sqrt(163)) - 262537412640768744, -1),
        (sympy.log(3) - sympy.log(2) - Rational(405465, 10**6), 1),  # log(3/2) = 0.4054651...
    ],
)
def test_sign(value, expected):
    assert sign(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        unevaluated(sqrt(8), -2 * sqrt(2)),
        sqrt(2) + sqrt(3) - sqrt(5 + 2 * sqrt(6)),
        unevaluated((1 + sqrt(2)) ** 2, -(3 + 2 * sqrt(2))),
        sqrt(5 + 2 * sqrt(6)) - sqrt(3) - sqrt(2),
        unevaluated(sqrt(Rational(2, 3)), -sqrt(6) / 3),
        unevaluated(sympy.cbrt(16), -2 * sympy.cbrt(2)),
    ],
)
def test_algebraic_zero_is_decided_exactly(value):
    assert not value.is_Rational  # SymPy did not already simplify it to 0
    assert sign(value) == 0


def test_sqrt8_minus_2sqrt2_is_zero_even_when_sympy_simplifies_first():
    assert sign(sqrt(8) - 2 * sqrt(2)) == 0


@pytest.mark.parametrize(
    "value",
    [
        x,
        x - 1,
        sqrt(x) - 1,
        Symbol("epsilon", positive=True),
        sympy.I,  # not real
        sqrt(2) * sympy.I,
        sympy.zoo,
        # a transcendental zero: no minimal polynomial, evalf cannot separate it from 0
        unevaluated(sympy.log(6), -sympy.log(2), -sympy.log(3)),
        sympy.exp(1) ** 2 - sympy.exp(2) + sympy.log(6) - sympy.log(2) - sympy.log(3),
    ],
)
def test_undecidable_or_symbolic_input_raises_undecided(value):
    with pytest.raises(Undecided):
        sign(value)


def test_undecided_names_the_free_symbols():
    with pytest.raises(Undecided, match=r"free symbols \['x'\]"):
        sign(x + 1)


def test_max_digits_bounds_the_effort():
    close = sympy.exp(sympy.pi * sqrt(163)) - 262537412640768744  # about -7.5e-13
    with pytest.raises(Undecided, match="at 20 digits"):
        sign(close, max_digits=20)
    assert sign(close, max_digits=60) == -1


def test_undecided_is_not_a_value_error():
    # a broad `except ValueError` must not turn "could not decide" into "holds"
    assert not issubclass(Undecided, ValueError)


def test_nan_is_undecided():
    with pytest.raises(Undecided):
        sign(sympy.nan)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (Fraction(1, 2), Fraction(1, 3), 1),
        (Fraction(1, 3), Fraction(1, 2), -1),
        (Fraction(2, 4), Fraction(1, 2), 0),
        (1, Fraction(1, 2), 1),
        (Fraction(1, 2), Rational(1, 2), 0),
        (sqrt(2), Fraction(3, 2), -1),
        (sqrt(2), Fraction(7, 5), 1),
        (Fraction(3, 2), sqrt(2), 1),
        (sqrt(2) + sqrt(3), sqrt(5 + 2 * sqrt(6)), 0),
        (2 * sqrt(2), sqrt(8), 0),
        (sqrt(6) / 3, Rational(816, 1000), 1),  # std([0, 1, 2]) = 0.81649...
        (sympy.pi, Fraction(22, 7), -1),
    ],
)
def test_compare(a, b, expected):
    assert compare(a, b) == expected
    assert compare(b, a) == -expected


def test_compare_with_a_symbol_is_undecided():
    with pytest.raises(Undecided):
        compare(x, 1)


@settings(max_examples=150, deadline=None, database=None)
@given(st.fractions(), st.fractions())
def test_compare_agrees_with_fraction_ordering(a, b):
    expected = (a > b) - (a < b)
    assert compare(a, b) == expected
    assert compare(Rational(a.numerator, a.denominator), b) == expected
    assert sign(a - b) == expected


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(1, 50), st.integers(1, 50), st.fractions(min_value=0, max_value=20, max_denominator=50))
def test_sum_of_square_roots_against_a_rational(p, q, r):
    # sqrt(p) + sqrt(q) vs r: square twice to decide with integers only
    expected_sign = _sign_sqrt_sum_minus(p, q, r)
    value = sqrt(p) + sqrt(q) - Rational(r.numerator, r.denominator)
    assert sign(value) == expected_sign


def _sign_sqrt_sum_minus(p: int, q: int, r: Fraction) -> int:
    """Sign of sqrt(p) + sqrt(q) - r using exact integer reasoning only."""
    # sqrt(p) + sqrt(q) > r  <=>  p + q + 2 sqrt(pq) > r^2  <=>  2 sqrt(pq) > r^2 - p - q
    t = r * r - p - q
    if t < 0:
        return 1
    # both sides non-negative: compare 4pq with t^2
    lhs, rhs = 4 * p * q, t * t
    return (lhs > rhs) - (lhs < rhs)


@pytest.mark.parametrize(
    "value, expected",
    [
        (Fraction(1, 2), Rational(1, 2)),
        (3, sympy.Integer(3)),
        (sqrt(2), sqrt(2)),
    ],
)
def test_to_sympy(value, expected):
    assert to_sympy(value) == expected


@pytest.mark.parametrize("value", [0.5, True, "1", None, [1]])
def test_to_sympy_refuses_non_exact_values(value):
    with pytest.raises(TypeError):
        to_sympy(value)


@pytest.mark.parametrize(
    "value, expected",
    [
        (Rational(1, 2), Fraction(1, 2)),
        (sympy.Integer(-4), Fraction(-4)),
        (3, Fraction(3)),
        (Fraction(5, 7), Fraction(5, 7)),
        (sqrt(4), Fraction(2)),
        (sqrt(2), sqrt(2)),
    ],
)
def test_to_fraction_if_rational(value, expected):
    result = to_fraction_if_rational(value)
    assert result == expected
    assert type(result) is type(expected)


# -- numerics first; the exact zero test only when they cannot separate, and within budget ------------------------

from exactdp.numeric.decide import MAX_ZERO_TEST_DEGREE, zero_test_cost  # noqa: E402


def nested_sqrt(depth: int):
    """sqrt(2 + sqrt(2 + ... sqrt(2))), ``depth`` square roots: degree 2**depth."""
    value = sqrt(2)
    for _ in range(depth - 1):
        value = sqrt(2 + value)
    return value


HIGH_DEGREE = {
    # was: SymPy's minimal polynomial of degree 4096, before any numeric look (hung)
    "root-4096": "sign(2**Rational(1, 4096) - 1)",
    "root-4096-vs-9": "compare(2**Rational(1, 4096), 9)",
    "nested-12": "sign(nested_sqrt(12) - 2)",
    "nested-12-vs-1": "compare(nested_sqrt(12), 1)",
}


@pytest.mark.parametrize("key", list(HIGH_DEGREE))
def test_high_degree_values_are_signed_numerically_without_a_minimal_polynomial(outcomes_in_child, key):
    setup = ("from sympy import Rational, sqrt; from exactdp.numeric.decide import sign, compare; "
             "exec('def nested_sqrt(d):\\n v = sqrt(2)\\n for _ in range(d - 1): v = sqrt(2 + v)\\n return v')")
    assert outcomes_in_child(setup, [HIGH_DEGREE[key]], 10.0) == ["returned"]


def test_high_degree_signs():
    assert sign(2 ** Rational(1, 4096) - 1) == 1
    assert compare(2 ** Rational(1, 4096), 9) == -1
    assert sign(nested_sqrt(12) - 2) == -1  # 2*cos(pi/2**13) < 2
    assert compare(nested_sqrt(12), Rational(19999998, 10**7)) == 1  # 2 - 1.47e-7
    assert compare(nested_sqrt(12), Rational(19999999, 10**7)) == -1


def test_a_tie_over_the_degree_budget_is_undecided_never_a_guess():
    deep = nested_sqrt(7)  # degree bound 2**7 = 128 > 64
    tie = unevaluated(deep, -sqrt(2 + nested_sqrt(6)))  # the same number, written twice
    assert zero_test_cost(tie)[0] > MAX_ZERO_TEST_DEGREE
    with pytest.raises(Undecided, match=r"it may be zero, and its exact zero test \(a minimal polynomial "
                                        r"of degree up to 16,384, numbers of 2 bits\) is over budget"):
        sign(tie)


def test_a_nonzero_value_closer_than_max_digits_is_undecided_or_decided_with_more_digits():
    close = Rational(int(sympy.sqrt(2).evalf(520) * 10**500), 10**500)  # sqrt(2) - close ~ 1e-500
    with pytest.raises(Undecided, match="at 400 digits; it may be zero, and its exact zero test"):
        sign(sqrt(2) - close)  # 500-digit numbers: over the degree x bits budget
    assert sign(sqrt(2) - close, max_digits=1000) == 1
    small = Rational(int(sympy.sqrt(2).evalf(420) * 10**410), 10**410)
    assert zero_test_cost(sqrt(2) - small)[1] > 1000
    assert sign(sqrt(2) - small, max_digits=2000) == 1


def test_a_tiny_nonzero_within_budget_is_known_nonzero():
    # (1 + t) - sqrt((1 + t)**2) is 0; add e = 2**-900 under the root and it is about -e/2
    tiny = Rational(1, 2**300)
    value = unevaluated(1 + tiny, -sqrt(1 + 2 * tiny + tiny**2 + Rational(1, 2**900)))
    assert zero_test_cost(value) == (2, 901)
    with pytest.raises(Undecided, match="at 60 digits: it is not zero .its minimal polynomial says so. but closer"):
        sign(value, max_digits=60)
    assert sign(value) == -1  # 2**-901 is about 1e-272: 400 digits see it


@pytest.mark.parametrize(
    "value, expected",
    [
        (sqrt(2) + sqrt(3) - sqrt(5 + 2 * sqrt(6)), (16, 3)),  # each radical at each occurrence
        (2 ** Rational(1, 4096) - 1, (4096, 2)),
        (sqrt(2) - Rational(1, 1000), (2, 10)),
        (sympy.cbrt(3) * sqrt(5) - 1, (6, 3)),
        (sympy.pi - 3, None),
        (sympy.log(2), None),
    ],
)
def test_zero_test_cost(value, expected):
    assert zero_test_cost(value) == expected
