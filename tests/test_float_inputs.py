"""Float inputs read one way everywhere: hexadecimal floats exactly, ``floats='binary'`` /
``--floats binary`` as the float64 Python stores, a bare float refused with the fix."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import example, given, strategies as st

from exactdp._floats_option import read_number
from exactdp.cli import main
from exactdp.errors import InexactInput, InvalidArgument
from exactdp.numeric.exact import (
    MAX_BINARY_EXPONENT, current_float_reading, float_reading, from_float, to_exact,
)

TENTH = Fraction(3602879701896397, 36028797018963968)  # the float64 Python stores for 0.1


# -- hexadecimal floats ------------------------------------------------------------------------

@given(st.floats(allow_nan=False, allow_infinity=False))
@example(5e-324)
@example(-5e-324)
@example(1.7976931348623157e308)
@example(-0.0)
def test_hex_of_any_finite_float_is_its_exact_value(f):
    assert to_exact(f.hex()) == Fraction(f)
    assert to_exact(f.hex(), floats="binary") == Fraction(f)


@given(st.floats(allow_nan=False, allow_infinity=False))
@example(0.1)
@example(1e-05)
@example(1e16)
@example(2.2250738585072014e-308)
def test_binary_reading_of_repr_is_the_float(f):
    assert read_number(repr(f), "binary") == Fraction(f)
    assert read_number(repr(f), "binary") == from_float(float(repr(f)))


@given(st.integers(-10**30, 10**30), st.integers(1, 10**30))
def test_binary_reading_of_a_ratio_is_pythons_division(p, q):
    assert read_number(f"{p}/{q}", "binary") == Fraction(p / q)
    assert read_number(f"{p}/{q}", "decimal") == Fraction(p, q)


@pytest.mark.parametrize("text,value", [
    ("0x1.999999999999ap-4", TENTH),
    ("-0x1p-1074", -Fraction(1, 2**1074)),
    ("0x1.fffffffffffffp+1023", Fraction((2**53 - 1) * 2**971)),
    ("0X1P-3", Fraction(1, 8)),
    ("0x.8p0", Fraction(1, 2)),
    ("0x1.p1", Fraction(2)),
    ("+0x0p0", Fraction(0)),
    ("  0x1.8p+1 ", Fraction(3)),
    ("0x1.00000000000001p0", 1 + Fraction(1, 2**56)),  # more bits than a float64: still exact
])
def test_hex_literals_are_exact(text, value):
    assert to_exact(text) == value


def test_hex_beyond_float64_rounds_only_when_read_as_binary():
    assert to_exact("0x1.00000000000001p0", floats="binary") == 1  # float.fromhex rounds it too
    assert float.fromhex("0x1.00000000000001p0") == 1.0
    with pytest.raises(InvalidArgument, match="beyond the largest float64"):
        to_exact("0x1p1024", floats="binary")
    assert to_exact("0x1p1024") == 2**1024  # exact reading: any size within the budget


@pytest.mark.parametrize("text,message", [
    ("0x", "value='0x' is not a hexadecimal float; write one as float.hex prints it"),
    ("0x1p", "value='0x1p' is not a hexadecimal float"),
    ("0x1.gp1", "value='0x1.gp1' is not a hexadecimal float"),
    ("0x.p1", "value='0x.p1' is not a hexadecimal float"),
    ("0x1p+-1", "is not a hexadecimal float"),
    ("-0x-1p0", "is not a hexadecimal float"),
    ("0x10", "value='0x10' has no binary exponent; write a hexadecimal float as float.hex prints "
             "it, with p: '0x10p+0'"),
    ("0x1p99999999", f"has the binary exponent 99999999, beyond +-{MAX_BINARY_EXPONENT:,}"),
    ("0x1p-13289", "beyond +-13,288"),
    ("0x1p" + "9" * 3000, "beyond +-13,288"),
    ("0x" + "f" * 5000 + "p0", "has 5,004 characters, more than 4,000"),
])
def test_bad_hex_is_refused_naming_the_text(text, message):
    with pytest.raises(InvalidArgument) as e:
        to_exact(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_largest_hex_exponent_is_accepted():
    assert to_exact(f"0x1p-{MAX_BINARY_EXPONENT}") == Fraction(1, 2**MAX_BINARY_EXPONENT)


# -- the reading: decimal (default) or binary ---------------------------------------------------

def test_a_bare_float_is_refused_with_the_fix_or_read_exactly_when_asked():
    with pytest.raises(InexactInput) as e:
        to_exact(0.1, "epsilon")
    assert ("epsilon=0.1 is a float, which is not exact; pass the number you mean as a string "
            "('0.1'), an int or a Fraction, or use exactdp.from_float(0.1) (or floats='binary') "
            "for the float's exact binary value") == str(e.value)
    assert to_exact(0.1, floats="binary") == TENTH
    with pytest.raises(InvalidArgument, match="epsilon=nan is not finite"):
        to_exact(math.nan, "epsilon", floats="binary")


def test_binary_reading_keeps_integers_and_exact_types():
    assert to_exact("9007199254740993", floats="binary") == 2**53 + 1  # an int literal stays an int
    assert to_exact("9007199254740993.0", floats="binary") == 2**53  # a float literal is rounded
    assert to_exact("1e400", floats="decimal") == 10**400
    assert to_exact(Fraction(1, 10), floats="binary") == Fraction(1, 10)
    assert to_exact("1e-400", floats="binary") == 0  # Python stores 0.0


def test_float_reading_context_reaches_library_functions():
    from exactdp.mechanisms._params import positive

    assert current_float_reading() == "decimal"
    with float_reading("binary"):
        assert current_float_reading() == "binary"
        assert positive("0.1", "epsilon") == TENTH
        assert positive(0.1, "epsilon") == TENTH
        assert to_exact("0.1", floats="decimal") == Fraction(1, 10)  # an explicit keyword wins
    assert current_float_reading() == "decimal"
    with pytest.raises(InexactInput):
        positive(0.1, "epsilon")


@pytest.mark.parametrize("bad", ["Binary", "float", None, 1])
def test_bad_reading_is_refused(bad):
    with pytest.raises(InvalidArgument, match="is not 'decimal' or 'binary'"):
        to_exact("1", floats=bad) if bad is not None else float_reading(bad).__enter__()


# -- the CLI -----------------------------------------------------------------------------------

def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# these are of the sequential rule's exact epsilon sums (the optimal default gives the same verdicts)
def test_compose_binary_reading_reports_the_overspend_decimal_hides(capsys):
    code, out, err = _run(capsys, "compose", "--method", "sequential", "--floats", "binary", "--spend", "0.1x10", "--budget", "1")
    assert code == 1 and err == ""
    assert out.splitlines()[:8] == [
        "numbers read as float64 (--floats binary): each decimal is the float Python stores, "
        "at its exact binary value",
        "sequential composition of 10 (epsilon, delta) spends",
        "  rule:      optimal composition at epsilon = sum (delta = 1 - prod(1 - delta_i), exact)",
        "  total:     epsilon = 18014398509481985/18014398509481984 (<= 1.0000000000000002), delta = 0",
        "  budget:    epsilon = 1, delta = 0",
        "  remaining: epsilon = -1/18014398509481984 OVERSPENT, delta = 0",
        "  excess:    the spends exceed the budget: epsilon by 1/18014398509481984 (~5.55e-17)",
        "  read as decimals (--floats decimal): epsilon = 1, delta = 0, which fits",
    ]
    assert out.splitlines()[8].startswith("OVERSPENDS: spend #1 '--spend 0.1x10'")
    # ten float64 0.1's: exactly 1 + 2**-54
    assert 10 * TENTH == 1 + Fraction(1, 2**54) == Fraction(18014398509481985, 18014398509481984)

    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--spend", "0.1x10", "--budget", "1")
    assert code == 0 and out.rstrip().endswith("FITS") and "floats" not in out
    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--floats", "decimal", "--spend", "0.1x10", "--budget", "1")
    assert code == 0 and "total:     epsilon = 1, delta = 0" in out


def test_compose_binary_json(capsys):
    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--floats", "binary", "--spend", "0.1x10", "--budget", "1", "--json")
    d = json.loads(out)
    assert code == 1 and d["fits"] is False and d["floats"] == "binary"
    assert d["spends"] == [{"epsilon": "3602879701896397/36028797018963968", "delta": "0", "count": 10}]
    assert d["total"]["epsilon"]["exact"] == "18014398509481985/18014398509481984"
    assert d["excess"] == {"epsilon": "1/18014398509481984", "delta": "0"}
    assert d["decimal_reading"] == {"epsilon": "1", "delta": "0", "fits": True}
    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--spend", "0.1x10", "--budget", "1", "--json")
    d = json.loads(out)
    assert code == 0 and "floats" not in d and "excess" not in d and d["total"]["epsilon"]["exact"] == "1"


def test_compose_binary_reading_can_also_fit(capsys):
    # 0.1 + 0.2 as floats is 0.30000000000000004 > 0.3 as a float: still over
    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--floats", "binary", "--spend", "0.1", "--spend", "0.2",
                        "--budget", "0.3")
    assert code == 1
    excess = from_float(0.1) + from_float(0.2) - from_float(0.3)
    assert excess == Fraction(1, 2**55)
    assert f"epsilon by {excess.numerator}/{excess.denominator}" in out
    # 0.5 is exact in binary: the readings agree, no decimal line
    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--floats", "binary", "--spend", "0.5x2", "--budget", "1")
    assert code == 0 and "read as decimals" not in out and out.rstrip().endswith("FITS")


def test_hex_everywhere_on_the_cli(capsys):
    code, out, _ = _run(capsys, "compose", "--method", "sequential", "--spend", "0x1.999999999999ap-4x10", "--budget", "1")
    assert code == 1 and "epsilon by 1/18014398509481984" in out
    code, out, _ = _run(capsys, "calibrate", "laplace", "--epsilon", "0x1p-1", "--json")
    assert code == 0 and json.loads(out)["exact"] == "2"


def test_calibrate_binary(capsys):
    code, out, _ = _run(capsys, "calibrate", "laplace", "--epsilon", "0.1", "--floats", "binary", "--json")
    d = json.loads(out)
    assert code == 0 and d["floats"] == "binary" and d["exact"] == "36028797018963968/3602879701896397"
    code, out, _ = _run(capsys, "calibrate", "laplace", "--epsilon", "0.1", "--json")
    assert json.loads(out)["exact"] == "10" and "floats" not in json.loads(out)
    code, out, _ = _run(capsys, "calibrate", "laplace", "--epsilon", "0.1", "--floats", "binary")
    assert "numbers read as float64 (--floats binary)" in out


def test_privacy_and_account_binary(capsys):
    code, out, _ = _run(capsys, "privacy", "--mechanism", "randomized-response", "--param", "p=0.75",
                        "--values", "0,1", "--epsilon", "log(3)", "--floats", "binary", "--json")
    d = json.loads(out)
    assert code == 0 and d["floats"] == "binary"  # 0.75 is a float64: the same answer
    code, out, _ = _run(capsys, "account", "--mechanism", "randomized-response", "--param", "p=0.75",
                        "--k", "2", "--delta", "0.1", "--floats", "binary", "--json")
    assert code == 0 and json.loads(out)["floats"] == "binary"


def test_floatsum_bounds_binary(capsys):
    argv = ["floatsum", "--model", "sequential", "--bounds", "0,0.1", "--max-n", "10", "--budget", "20"]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and "--bounds U=1/10 is not a value of float64" in err
    code, out, err = _run(capsys, *argv, "--floats", "binary", "--json")
    d = json.loads(out)
    assert code in (0, 1) and d["floats"] == "binary" and d["bounds"] == ["0", "3602879701896397/36028797018963968"]


@pytest.mark.parametrize("command", ["compose", "calibrate", "privacy", "account", "floatsum"])
def test_every_number_command_has_the_option(command):
    r = subprocess.run([sys.executable, "-m", "exactdp", command, "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "--floats {decimal,binary}" in r.stdout
    r = subprocess.run([sys.executable, "-m", "exactdp", command, "--floats", "octal"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "argument --floats: invalid choice: 'octal'" in r.stderr


@pytest.mark.parametrize("argv,text", [
    (["compose", "--spend", "0x", "--budget", "1"], "--spend epsilon='0x' is not a hexadecimal float"),
    (["compose", "--spend", "0x1p", "--budget", "1"], "'0x1p' is not a hexadecimal float"),
    (["compose", "--spend", "0x1.gp1", "--budget", "1"], "'0x1.gp1' is not a hexadecimal float"),
    (["compose", "--spend", "0x1p99999999", "--budget", "1"], "beyond +-13,288"),
    (["compose", "--spend", "1e400", "--budget", "1", "--floats", "binary"], "beyond the largest float64"),
    (["calibrate", "laplace", "--epsilon", "0x1p99999999"], "beyond +-13,288"),
    (["calibrate", "laplace", "--epsilon", "0x1p-99999", "--floats", "binary"], "beyond +-13,288"),
    (["account", "--mechanism", "randomized-response", "--param", "p=0x1.gp1", "--delta", "1e-6"],
     "is not a hexadecimal float"),
    (["floatsum", "--model", "sequential", "--bounds", "0,0x1p99999999", "--max-n", "10"], "beyond +-13,288"),
    (["floatsum", "--model", "sequential", "--bounds", "0,0x", "--max-n", "10"], "--bounds U='0x'"),
])
def test_hostile_hex_is_one_line_exit_2(argv, text):
    r = subprocess.run([sys.executable, "-m", "exactdp", *argv], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert text in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
