"""``exactdp calibrate`` through ``exactdp.cli.main``."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from exactdp.cli import main


def _json(capsys, *argv):
    assert main(["calibrate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_laplace_json(capsys):
    out = _json(capsys, "laplace", "--epsilon", "0.3", "--sensitivity", "1")
    assert out == {"mechanism": "laplace", "scale": "3.3333333333333335", "exact": "10/3",
                   "epsilon": "0.3", "sensitivity": "1"}
    assert Fraction(float(out["scale"])) >= Fraction(out["exact"])


def test_laplace_text(capsys):
    assert main(["calibrate", "laplace", "--epsilon", "3"]) == 0
    text = capsys.readouterr().out
    assert "exact      1/3 = [0.333333333333333333333, 0.333333333333333333334]" in text
    assert "safe float 0.33333333333333337  (smallest float >= the exact value)" in text


def test_gaussian_classic(capsys):
    out = _json(capsys, "gaussian", "--epsilon", "0.5", "--delta", "1e-5")
    assert out["scale"] == "9.68961052521078"
    assert out["exact"] == "2*sqrt(2)*sqrt(log(125000))"
    assert (out["epsilon"], out["delta"], out["sensitivity"]) == ("0.5", "1e-5", "1")


def test_gaussian_analytic(capsys):
    out = _json(capsys, "gaussian-analytic", "--epsilon", "0.5", "--delta", "1e-5", "--sensitivity", "1")
    assert out["scale"] == "7.031826675582492" and out["smallest"] is True
    lo, hi = (Fraction(t) for t in out["exact"])
    assert lo <= Fraction("7.03182667558249144272") and Fraction("7.03182667558249144271") <= hi
    assert main(["calibrate", "gaussian-analytic", "--epsilon", "0.5", "--delta", "1e-5"]) == 0
    text = capsys.readouterr().out
    assert "in [7.03182667558249144271, 7.03182667558249144272] (enclosure)" in text
    assert "7.031826675582492  (smallest float whose delta is certified <= 1e-5)" in text


def test_zcdp_to_approx(capsys):
    out = _json(capsys, "zcdp-to-approx", "--rho", "0.5", "--delta", "1e-6")
    assert out["epsilon"] == "5.221534444530169" and out["method"] == "cks"
    assert Fraction(out["alpha"]) > 1 and (out["rho"], out["delta"]) == ("0.5", "1e-6")
    out = _json(capsys, "zcdp-to-approx", "--rho", "0.5", "--delta", "1e-6", "--method", "bun-steinke")
    assert out["epsilon"] == "5.756521769756932" and "alpha" not in out
    assert out["exact"] == "1/2 + sqrt(2)*sqrt(log(1000000))"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["laplace", "--epsilon", "-1"], "epsilon='-1' is not positive"),
        (["laplace", "--epsilon", "0.1", "--delta", "1e-5"], "--delta='1e-5' does not apply to laplace"),
        (["laplace"], "laplace needs --epsilon"),
        (["gaussian", "--epsilon", "0.5"], "gaussian needs --delta"),
        (["gaussian", "--epsilon", "2", "--delta", "1e-5"], "gaussian-analytic"),
        (["gaussian-analytic", "--epsilon", "0.5", "--delta", "2"], "delta='2' is not strictly between"),
        (["gaussian-analytic", "--epsilon", "x", "--delta", "1e-5"], "epsilon='x' is not an exact number"),
        (["zcdp-to-approx", "--rho", "0.5"], "zcdp-to-approx needs --delta"),
        (["zcdp-to-approx", "--rho", "0.5", "--delta", "1e-6", "--epsilon", "1"], "--epsilon='1' does not apply"),
        (["laplace", "--epsilon", "1", "--method", "cks"], "--method='cks' does not apply to laplace"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    assert main(["calibrate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("exactdp: error: ")


def test_gaussian_analytic_delta_near_one(capsys):
    """δ = 1 − 1e-19 used to end in "this should not happen: please report it" (exit 2):
    σ* → 0 as δ → 1, and at 1 − 1e-19 it is 0.0548..., certified smallest."""
    out = _json(capsys, "gaussian-analytic", "--epsilon", "0.5", "--delta", "0.9999999999999999999")
    assert out["scale"] == "0.05484828674036297" and out["smallest"] is True
    lo, hi = (Fraction(x) for x in out["exact"])
    assert lo <= Fraction(0.05484828674036297) and lo < hi
    assert hi - lo < Fraction(1, 10**20)
