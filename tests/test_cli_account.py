"""``exactdp account`` (``exactdp.cli.account``) through ``exactdp.cli.main``."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

import pytest

from exactdp import cli
from exactdp.cli.account import register


@pytest.fixture
def run():
    def call(*argv):
        return cli.main(["account", *argv])

    return call


def test_discrete_laplace_json(run, capsys):
    assert run("--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "1000",
               "--delta", "1e-6", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mechanism"] == "discrete-laplace" and out["k"] == 1000
    assert out["params"] == {"scale": "10", "sensitivity": "1"} and out["delta"] == "0.000001"
    lo, hi = Fraction(out["epsilon_lower"]), Fraction(out["epsilon_upper"])
    # the 60-digit reference: 19.34467144799304367251909...
    assert lo <= Fraction("19.344671447993043672519") <= hi and (hi - lo) / hi <= Fraction(1, 10**9)


def test_delta_of_epsilon_text(run, capsys):
    assert run("--mechanism", "gaussian", "--param", "sigma=2", "--k", "50", "--epsilon", "1") == 0
    text = capsys.readouterr().out
    assert "gaussian(sigma=2, sensitivity=1), composed k=50 times, at epsilon=1" in text
    assert "delta in [0.87643791334194721" in text


def test_check_exit_codes(run, capsys):
    base = ["--mechanism", "randomized-response", "--param", "p=3/4", "--k", "10", "--delta", "1e-6"]
    assert run(*base, "--check", "10.9") == 1
    assert "VIOLATED" in capsys.readouterr().out
    assert run(*base, "--check", "11") == 0
    assert "HOLDS" in capsys.readouterr().out
    assert run(*base, "--check", "10.986105127", "--json") == 1
    assert json.loads(capsys.readouterr().out)["check"]["verdict"] == "undecided"


def test_list_of_mechanisms(run, capsys):
    assert run("--mechanism", "discrete-laplace", "--param", "scale=10", "--mechanism", "discrete-gaussian",
               "--param", "sigma=3", "--k", "20", "--delta", "1e-5", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mechanism"] == ["discrete-laplace", "discrete-gaussian"]
    assert out["params"][1] == {"sigma": "3", "sensitivity": "1"}
    assert Fraction(out["epsilon_lower"]) < Fraction(out["epsilon_upper"])


def test_help_has_examples():
    parser = argparse.ArgumentParser(prog="exactdp")
    register(parser.add_subparsers())
    with pytest.raises(SystemExit):
        parser.parse_args(["account", "--help"])


@pytest.mark.parametrize("argv,text", [
    (["--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "0", "--delta", "1e-6"], "k=0"),
    (["--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "10**9", "--delta", "1e-6"], "--k="),
    (["--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "100000000", "--delta", "1e-6"],
     "max_k"),
    (["--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "5"], "exactly one"),
    (["--mechanism", "discrete-laplace", "--param", "scale=nan", "--k", "5", "--delta", "1e-6"], "scale"),
    (["--mechanism", "staircase", "--param", "scale=1", "--k", "5", "--delta", "1e-6"], "not one the"),
    (["--k", "5", "--delta", "1e-6"], "give --mechanism"),
    (["--mechanism", "discrete-laplace", "--param", "scale", "--k", "5", "--delta", "1e-6"], "KEY=VALUE"),
    (["--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "5", "--delta", "1e-6",
      "--check", "x"], "check"),
    (["--mechanism", "discrete-laplace", "--param", "scale=10", "--k", "1000000", "--delta", "1e-6",
      "--max-slots", "1000"], "max_slots"),
])
def test_bad_input_exits_2(run, capsys, argv, text):
    assert run(*argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp: error:") and text in err and err.count("\n") == 1


def test_extreme_deltas_are_enclosed_not_refused(run, capsys):
    # A discrete Gaussian with sigma = 1/1000 loses about 1/(2 sigma^2) = 500,000 per release; its
    # delta lattice points lie near exp(-500,000 k): these once ended in "too large to hold as
    # an exact Fraction" (the interval endpoints are now rounded outward, still certified).
    assert run("--mechanism", "discrete-gaussian", "--param", "sigma=0.001", "--k", "1000",
               "--delta", "1e-6", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    lo, hi = Fraction(out["epsilon_lower"]), Fraction(out["epsilon_upper"])
    assert lo <= 500_000_000 <= hi and hi - lo <= Fraction(1, 10**9) * hi
    # delta at epsilon = 10**400 for the Gaussian: below 2**-4194304, shown in a few seconds
    # (writing that bound as a decimal once took 38 s). Its lower end is 0: the width is missed, so
    # the run exits 1 naming what stopped it (issue 30), the enclosure still printed.
    assert run("--mechanism", "gaussian", "--param", "sigma=1", "--k", "10", "--epsilon", "1e400",
               "--json") == 1
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["delta_lower"]) == 0
    assert 0 < Fraction(out["delta_upper"]) <= Fraction(2, 1 << 4194304)
