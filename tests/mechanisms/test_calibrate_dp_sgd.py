"""DP-SGD calibration from the certified accountant: every answer checked here by accounting
again, at the answer and just beyond it (the test does not read the result's own enclosures)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from exactdp.errors import InvalidArgument
from exactdp.mechanisms import account
from exactdp.mechanisms.accounting.calibrate import calibrate_dp_sgd


def _eps(sigma, steps, rate="0.1", delta="1e-5"):
    return account("gaussian", steps, delta=delta, width=Fraction(1, 10**5),
                   params={"sigma": sigma, "sampling": "poisson", "rate": rate})


@pytest.mark.parametrize("target, steps", [("1", 10), ("2", 30)])
def test_sigma_is_certified_and_within_one_percent_of_the_smallest(target, steps):
    r = calibrate_dp_sgd(target, "1e-5", "0.1", steps=steps)
    assert r.solved_for == "sigma" and r.steps == steps and r.certified
    assert len(str(r.sigma.numerator)) <= 6  # a short decimal
    assert _eps(r.sigma, steps).epsilon_upper <= Fraction(target)
    assert _eps(r.sigma * Fraction(99, 100), steps).epsilon_lower > Fraction(target)


def test_steps_are_the_most_within_the_target():
    r = calibrate_dp_sgd("1", "1e-5", "0.1", sigma="2")
    assert r.solved_for == "steps" and r.certified
    assert _eps(2, r.steps).epsilon_upper <= 1 < _eps(2, r.steps + 1).epsilon_lower
    assert r.steps == 16


@pytest.mark.parametrize("kwargs, message", [
    (dict(rate="0", steps=10), r"rate=0 is not a sampling rate in \(0, 1\]"),
    (dict(rate="1.5", steps=10), r"rate=3/2 is not a sampling rate"),
    (dict(rate="0.1"), r"give steps= \(to solve for sigma\) or sigma="),
    (dict(rate="0.1", steps=10, sigma=2), r"give steps= \(to solve for sigma\) or sigma="),
    (dict(rate="0.1", steps=0), r"steps=0 is outside 1\.\.1,000,000"),
    (dict(rate="0.1", steps=2.5), r"steps=2\.5 is not a whole number"),
    (dict(rate="0.1", sigma="-1"), r"sigma"),
])
def test_bad_input_is_named(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        calibrate_dp_sgd("1", "1e-5", **kwargs)


def test_a_target_no_sigma_reaches_is_refused():
    with pytest.raises(InvalidArgument, match=r"no sigma up to 10000 gives epsilon 1/10000"):
        calibrate_dp_sgd("0.0001", "1e-5", "1", steps=10)


def test_the_command_prints_and_exits_0():
    base = [sys.executable, "-m", "exactdp", "calibrate", "dp-sgd", "--epsilon", "1", "--delta", "1e-5",
            "--rate", "0.1"]
    done = subprocess.run(base + ["--steps", "10", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["solved_for"] == "sigma" and out["certified"] is True
    assert Fraction(out["sigma"]) == calibrate_dp_sgd("1", "1e-5", "0.1", steps=10).sigma  # as the API says
    bad = subprocess.run(base + ["--steps", "10", "--sigma", "2"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "one of them" in bad.stderr
