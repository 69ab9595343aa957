"""Hostile input to the numeric commands (calibrate, compose, floatsum, catalog) and the
Gaussian checks: every answer ends with exit 0, 1 or 2, within seconds, with no traceback,
and a refusal is one line naming the value. Reproductions that used to hang run in a
subprocess with a time limit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from exactdp.cli import main


def _cli(*argv, timeout=60):
    return subprocess.run([sys.executable, "-m", "exactdp", *argv], capture_output=True,
                          text=True, timeout=timeout)


def test_check_sigma_huge_sigma_in_a_subprocess():
    """check_sigma(10000.0, '0.5', '1e-5') was Undecided (its enclosure's ends were refused
    as Fractions of more than 4 million bits); 1e308 as well."""
    code = ("from exactdp.mechanisms import check_sigma\n"
            "print([check_sigma(s, '0.5', '1e-5') for s in (3000.0, 5000.0, 10000.0, 1e6, 1e308)])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert r.stdout.strip() == "[True, True, True, True, True]"


def test_calibrate_delta_near_one_in_a_subprocess():
    r = _cli("calibrate", "gaussian-analytic", "--epsilon", "0.5", "--delta", "0.9999999999999999999",
             timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr and "please report" not in r.stderr
    assert "safe float 0.05484828674036297  (smallest float whose delta is certified" in r.stdout


@pytest.mark.parametrize("argv,expected", [
    (["calibrate", "gaussian-analytic", "--epsilon", "1e300", "--delta", "1e-5"], "7.071067811865476e-151"),
    (["calibrate", "gaussian-analytic", "--epsilon", "1e400", "--delta", "1e-5"], "7.071067811865476e-201"),
])
def test_calibrate_huge_epsilon_no_overflow_traceback(argv, expected):
    """mpmath's ncdf raised OverflowError far in the tail: a traceback, exit 1."""
    r = _cli(*argv, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert f"safe float {expected}" in r.stdout


BAD = [
    (["calibrate", "gaussian-analytic", "--epsilon", "nan", "--delta", "1e-5"], "epsilon='nan'"),
    (["calibrate", "gaussian-analytic", "--epsilon", "inf", "--delta", "1e-5"], "epsilon='inf'"),
    (["calibrate", "gaussian-analytic", "--epsilon", "", "--delta", "1e-5"], "epsilon=''"),
    (["calibrate", "gaussian-analytic", "--epsilon", "0.5", "--delta", "1"], "delta='1'"),
    (["calibrate", "gaussian-analytic", "--epsilon", "0.5", "--delta", "1e-5000"], "delta='1e-5000'"),
    (["calibrate", "gaussian-analytic", "--epsilon", "0.5", "--delta", "1e-5", "--sensitivity", "1e400"],
     "beyond the largest float"),
    (["calibrate", "gaussian", "--epsilon", "1e400", "--delta", "1e-5"], "epsilon='1e400' is >= 1"),
    (["calibrate", "zcdp-to-approx", "--rho", "nan", "--delta", "1e-6"], "rho='nan'"),
    (["compose", "--spend", "1e400", "--budget", "1"], "--spend epsilon='1e400' is beyond the largest float"),
    (["compose", "--spend", "0.1x10000000000000000000000000", "--budget", "1"], "use 1 to 1,000,000,000,000"),
    (["compose", "--spend", "", "--budget", "1"], "--spend=''"),
    (["compose", "--spend", "0.1", "--budget", "1,nan"], "--budget delta='nan'"),
    (["compose", "--spend", "0.1", "--method", "advanced", "--delta-prime", "1", "--budget", "1"],
     "--delta-prime='1' is not in (0, 1)"),
    (["floatsum", "--model", "sequential", "--bounds", "nan,1", "--max-n", "10"], "--bounds L='nan'"),
    (["floatsum", "--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--claim", "inf"],
     "--claim='inf'"),
    (["floatsum", "--model", "sequential", "--bounds", "0,1", "--max-n", "10",
      "--budget", str(10**30)], "about 10^30 search evaluations asked for by --budget"),
    (["catalog", "--only", "zzz"], "--only='zzz'"),
]


@pytest.mark.parametrize("argv,text", BAD, ids=[" ".join(a)[:60] for a, _ in BAD])
def test_hostile_input_is_one_line_exit_2(capsys, argv, text):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("exactdp: error: ") and captured.err.count("\n") == 1
    assert text in captured.err
    assert "Fraction(" not in captured.err and "please report" not in captured.err


@pytest.mark.parametrize("argv", [
    ["floatsum", "--model", "sequential", "--bounds", "0,1", "--max-n", "1e400"],
    ["floatsum", "--model", "sequential", "--bounds", "0,1", "--max-n", "10", "--budget", "1e400"],
])
def test_non_integer_counts_are_usage_errors(argv):
    r = _cli(*argv, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "invalid int value" in r.stderr


@pytest.mark.parametrize("command", ["floatsum", "calibrate", "compose", "catalog"])
def test_every_owned_command_has_description_and_runnable_examples(command, capsys):
    import importlib

    module = importlib.import_module(f"exactdp.cli.{command}")
    assert module._DESCRIPTION.strip() and "Exit status" in module._DESCRIPTION
    examples = [line.split()[2:] for line in module._EPILOG.splitlines()
                if line.strip().startswith(f"exactdp {command}")]
    assert 2 <= len(examples) <= 4  # calibrate: one per kind it calibrates but the classic Gaussian
    if command == "catalog":
        examples = [e for e in examples if "--only" in e]  # the full catalogue takes seconds
    for argv in examples:
        assert main([command, *argv]) in (0, 1), argv
        capsys.readouterr()
