"""exactdp.numeric.exact: the one door for user numbers, and the explicit float door."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

import exactdp
from exactdp import ExactDPError, InexactInput, InvalidArgument
from exactdp.numeric.exact import format_exact, from_float, to_exact

FAST = settings(max_examples=150, deadline=None, database=None)


# -- to_exact: accepted values ----------------------------------------------------------

@pytest.mark.parametrize(
    "value, expected",
    [
        (0, Fraction(0)),
        (3, Fraction(3)),
        (-7, Fraction(-7)),
        (10**40, Fraction(10**40)),
        (Fraction(7, 2), Fraction(7, 2)),
        (Fraction(-1, 3), Fraction(-1, 3)),
        (Decimal("0.1"), Fraction(1, 10)),
        (Decimal("-1.25e-3"), Fraction(-1, 800)),
        (Decimal("5"), Fraction(5)),
        ("0.1", Fraction(1, 10)),
        ("0.25", Fraction(1, 4)),
        ("5/2", Fraction(5, 2)),
        ("-5/2", Fraction(-5, 2)),
        ("10/4", Fraction(5, 2)),
        ("0/5", Fraction(0)),
        ("5 / 2", Fraction(5, 2)),
        ("-3", Fraction(-3)),
        ("+4", Fraction(4)),
        ("1e-5", Fraction(1, 100000)),
        ("1E3", Fraction(1000)),
        ("2.5e-1", Fraction(1, 4)),
        (".5", Fraction(1, 2)),
        ("5.", Fraction(5)),
        (" 2 ", Fraction(2)),
        ("\t2\n", Fraction(2)),
        ("0.1000000000000000055511151231257827", Fraction(1000000000000000055511151231257827, 10**34)),
        (sympy.Rational(3, 4), Fraction(3, 4)),
        (sympy.Integer(-5), Fraction(-5)),
    ],
)
def test_to_exact_accepts_exact_values(value, expected):
    result = to_exact(value)
    assert type(result) is Fraction
    assert result == expected


def test_to_exact_returns_a_fraction_unchanged():
    f = Fraction(22, 7)
    assert to_exact(f) is f


# -- to_exact: refusals (one table) -----------------------------------------------------

@pytest.mark.parametrize(
    "value, error",
    [
        (0.1, InexactInput),
        (2.0, InexactInput),
        (float("nan"), InexactInput),
        (float("inf"), InexactInput),
        (True, InvalidArgument),
        (False, InvalidArgument),
        ("abc", InvalidArgument),
        ("", InvalidArgument),
        ("   ", InvalidArgument),
        ("1/0", InvalidArgument),
        ("0/0", InvalidArgument),
        ("1/2/3", InvalidArgument),
        ("1.5/2", InvalidArgument),
        ("- 3", InvalidArgument),
        ("1 e5", InvalidArgument),
        ("1_000", InvalidArgument),
        ("0x10", InvalidArgument),
        ("inf", InvalidArgument),
        ("nan", InvalidArgument),
        ("sqrt(2)", InvalidArgument),
        (Decimal("NaN"), InvalidArgument),
        (Decimal("Infinity"), InvalidArgument),
        (None, InexactInput),
        (1j, InexactInput),
        (complex(1, 0), InexactInput),
        ([1], InexactInput),
        (sympy.Float(0.5), InexactInput),
        (sympy.sqrt(2), InexactInput),
    ],
)
def test_to_exact_refuses(value, error):
    with pytest.raises(error):
        to_exact(value)


def test_refusals_are_exactdp_errors_and_builtin_errors():
    assert issubclass(InexactInput, ExactDPError) and issubclass(InexactInput, TypeError)
    assert issubclass(InvalidArgument, ExactDPError) and issubclass(InvalidArgument, ValueError)


def test_float_refusal_names_the_value_and_suggests_the_string_and_from_float():
    with pytest.raises(InexactInput) as info:
        to_exact(0.1, "lower")
    message = str(info.value)
    assert message.startswith("lower=0.1 is a float")
    assert "'0.1'" in message  # the exact string to pass instead
    assert "from_float(0.1)" in message


def test_string_refusal_names_the_value_and_the_accepted_forms():
    with pytest.raises(InvalidArgument) as info:
        to_exact("abc", "upper")
    message = str(info.value)
    assert message.startswith("upper='abc'")
    assert "'5/2'" in message


def test_zero_denominator_message():
    with pytest.raises(InvalidArgument, match="divides by zero"):
        to_exact("1/0")


@pytest.mark.parametrize("text", ["5\t/\t2", "5/\n2"])
def test_whitespace_around_slash_is_accepted_or_refused_cleanly(text):
    try:
        result = to_exact(text)
    except InvalidArgument:
        return
    assert result == Fraction(5, 2)


@FAST
@given(st.fractions(max_denominator=10**6))
def test_to_exact_reads_its_own_formatting_back(f):
    assert to_exact(format_exact(f)) == f


@FAST
@given(st.integers(-10**6, 10**6), st.integers(-30, 30))
def test_to_exact_decimal_string_is_the_written_digits(mantissa, exponent):
    text = f"{mantissa}e{exponent}"
    assert to_exact(text) == mantissa * Fraction(10) ** exponent
    assert to_exact(Decimal(text)) == mantissa * Fraction(10) ** exponent


# -- a huge decimal exponent must not hang ----------------------------------------------

SETUP = "from exactdp.numeric.exact import to_exact"


def test_child_helper_reports_outcomes(outcomes_in_child):
    # the fixture behind the next test, checked on calls that do not hang
    assert outcomes_in_child(SETUP, ["to_exact('1e5')", "to_exact('abc')"], 10) == [
        "returned", "InvalidArgument"]


def test_huge_decimal_exponent_is_refused_quickly(outcomes_in_child):
    assert outcomes_in_child(SETUP, ["to_exact('1e999999999')"], 1.0) == ["InvalidArgument"]


# -- from_float ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "value, expected",
    [
        (0.1, Fraction(3602879701896397, 36028797018963968)),
        (0.5, Fraction(1, 2)),
        (-2.0, Fraction(-2)),
        (0.0, Fraction(0)),
        (1e-5, Fraction(5902958103587057, 590295810358705651712)),
        (3, Fraction(3)),
    ],
)
def test_from_float_is_the_exact_binary_value(value, expected):
    assert from_float(value) == expected
    assert type(from_float(value)) is Fraction


def test_from_float_is_exported_at_top_level():
    assert exactdp.from_float is from_float
    assert exactdp.to_exact is to_exact


@FAST
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_from_float_round_trips_every_finite_float(x):
    f = from_float(x)
    assert float(f) == x
    assert f == Fraction(*x.as_integer_ratio())
    # the denominator is a power of two: a binary fraction, nothing rounded
    assert f.denominator & (f.denominator - 1) == 0


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), float("-inf"), True, "0.1", Decimal("0.1"), Fraction(1, 10), None],
)
def test_from_float_refuses(value):
    with pytest.raises(InvalidArgument):
        from_float(value)


# -- format_exact -------------------------------------------------------------------------

@pytest.mark.parametrize(
    "value, expected",
    [
        (Fraction(7, 2), "7/2"),
        (Fraction(-7, 2), "-7/2"),
        (Fraction(6, 3), "2"),
        (Fraction(0), "0"),
        (5, "5"),
        (-5, "-5"),
        (Fraction(1, 10**20), "1/100000000000000000000"),
    ],
)
def test_format_exact(value, expected):
    assert format_exact(value) == expected


@FAST
@given(st.fractions())
def test_format_exact_is_read_back_by_sympy_and_fraction(f):
    text = format_exact(f)
    assert Fraction(text) == f
    assert sympy.Rational(text) == sympy.Rational(f.numerator, f.denominator)
    assert "." not in text and "e" not in text
    assert math.gcd(f.numerator, f.denominator) == 1


# Found in review (2026-11-22): huge inputs reached Python's 4,300-digit int limit
# (ValueError tracebacks) or hung (a Decimal with a huge exponent).

def test_huge_inputs_are_refused_with_a_short_message():
    from decimal import Decimal

    with pytest.raises(InvalidArgument, match="5,000 characters, more than 4,000"):
        to_exact("1" * 5000, "epsilon")
    with pytest.raises(InvalidArgument, match="decimal exponent beyond"):
        to_exact(Decimal("1e-99999999"), "epsilon")


def test_show_exact_shortens_long_numbers():
    from exactdp.numeric.exact import show_exact

    assert show_exact(Fraction(10) ** 400).endswith("(401 characters)")
    assert show_exact(Fraction(10) ** 6000) == "a number near 2**19931"  # 10**6000 ~ 2**19931.57
    assert show_exact(Fraction(7, 3)) == "7/3"
