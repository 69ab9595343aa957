"""Issue 30: ``exactdp account`` at its extremes (huge and tiny sigma, tiny deltas, huge epsilons,
fine widths, missed widths) refuses in one line or answers, certified, and says what stopped it."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.accounting.accountant import account
from exactdp.mechanisms.accounting.curve import PrivacyCurve

POISSON = ["--param", "sampling=poisson", "--param", "rate=0.01"]


def run(capsys, *argv):
    code = main(["account", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    assert err.startswith("exactdp: error:") and err.count("\n") == 1, err
    return err


# --- 1. huge sigma: an exact answer at once, and --max-slots bounds the work --------------------


@pytest.mark.parametrize("sigma", ["3e5", "1e300"])
def test_huge_sigma_subsampled_gaussian_is_exactly_zero(capsys, sigma):
    code, out, _ = run(capsys, "--mechanism", "gaussian", "--param", f"sigma={sigma}", *POISSON,
                       "--k", "10", "--delta", "1e-6", "--json")
    assert code == 0
    got = json.loads(out)
    assert got["epsilon_lower"] == got["epsilon_upper"] == "0" and got["width_met"]
    # independent check of the shortcut's premise: delta(0) <= k q mu / sqrt(2 pi) <= delta
    mu = 1 / Fraction(sigma)  # Fraction("1e300") is exact
    assert 10 * Fraction(1, 100) * mu * Fraction(2, 5) <= Fraction(1, 10**6)


def test_huge_sigma_below_the_shortcut_stops_and_exits_1(capsys):
    # delta = 1e-9 is below the total-variation bound: the grid cannot resolve a loss of 1e-7
    code, out, err = run(capsys, "--mechanism", "gaussian", "--param", "sigma=3e5", *POISSON,
                         "--k", "10", "--delta", "1e-9", "--json")
    assert code == 1
    got = json.loads(out)
    assert not got["width_met"] and "grid" in got["stopped"]
    assert Fraction(got["epsilon_lower"]) == 0 and 0 < Fraction(got["epsilon_upper"]) < Fraction(1, 10**5)
    assert "NOT within --width" in err and "stopped:" in err


def test_max_slots_bounds_the_subsampled_work(capsys):
    code, _, err = run(capsys, "--mechanism", "gaussian", "--param", "sigma=1", *POISSON,
                       "--k", "10", "--delta", "1e-6", "--max-slots", "1000")
    assert code == 2
    # the work counted before any grid: points times precision, profile points included
    assert "raise max_slots" in one_line_error(err) and "over max_slots=1,000" in err


# --- 2. tiny sigma: refused in one line, no traceback ----------------------------------------------


@pytest.mark.parametrize("mechanism,param", [("gaussian", "sigma=1e-160"), ("gaussian", "sigma=1e-1000"),
                                             ("discrete-gaussian", "sigma=1e-160")])
def test_tiny_sigma_subsampled_is_refused_in_one_line(capsys, mechanism, param):
    code, _, err = run(capsys, "--mechanism", mechanism, "--param", param, *POISSON, "--k", "10",
                       "--delta", "1e-6")
    assert code == 2
    assert "lattice points" in one_line_error(err) and "--max-slots" in err and "larger sigma" in err


def test_tiny_sigma_plain_gaussian_is_answered():
    r = account("gaussian", 1, delta="1e-6", params={"sigma": "1e-160"})
    # epsilon(delta) of the Gaussian is about mu**2/2 = 5e319 (mu = 1e160)
    assert r.width_met and r.epsilon_lower <= Fraction(10**320, 2) * (1 + Fraction(1, 10**6))
    assert r.epsilon_upper >= Fraction(10**320, 2) * (1 - Fraction(1, 10**6))


# --- 3. the subsampled discrete Gaussian: answered, with a lower end above 0 ---------------------


def test_subsampled_discrete_gaussian_k1_has_a_nontrivial_enclosure():
    r = account("discrete-gaussian", 1, delta="1e-6", params={"sigma": 1, "sampling": "poisson", "rate": "0.01"})
    assert r.width_met and 0 < r.epsilon_lower <= r.epsilon_upper
    # the discrete Gaussian's loss at a large sigma is close to the Gaussian's: same order as it
    g = account("gaussian", 1, delta="1e-6", params={"sigma": 1, "sampling": "poisson", "rate": "0.01"})
    assert Fraction(1, 4) < r.epsilon_upper / g.epsilon_upper < 4


def test_subsampled_discrete_gaussian_tiny_delta_lower_end_is_not_zero():
    r = account("discrete-gaussian", 2, epsilon="0.1", params={"sigma": 5, "sampling": "poisson", "rate": "0.01"})
    assert 0 < r.delta_lower <= r.delta_upper < Fraction(1, 10**30)
    assert r.delta_upper - r.delta_lower <= r.delta_upper / 10  # within 10%, not [0, upper]


def test_subsampled_discrete_gaussian_point_matches_the_full_sum():
    """The suffix-sum evaluation of H(a) encloses the same value as the class-by-class sum."""
    import flint

    from exactdp.mechanisms.accounting.profiles import PoissonDiscreteGaussian
    from exactdp.mechanisms.accounting.subsampling import _Profile

    model = PoissonDiscreteGaussian(Fraction(1, 10), Fraction(4), 1)
    for direction in ("remove", "add"):
        prof = _Profile(model, direction, Fraction(1, 64), 128)
        cls, tail = model.classes(flint.arb, 128)
        for n in (-20, -3, 0, 1, 5, 17, 40):
            a, hv, qt = model.point(prof, n)
            total, slope = flint.arb(0), flint.arb(0)
            for p1, p0 in cls:
                mix = prof.q * p1 + prof.keep * p0
                pc, qc = (mix, p0) if direction == "remove" else (p0, mix)
                d = pc - a * qc
                if d > 0:
                    total, slope = total + d, slope + qc
            assert hv.overlaps(total) and qt.overlaps(slope)


# --- 4. budgets estimated before work --------------------------------------------------------------


def test_tiny_delta_is_refused_before_work(capsys):
    code, _, err = run(capsys, "--mechanism", "gaussian", "--param", "sigma=1", *POISSON, "--k", "10",
                       "--delta", "1e-300", "--max-slots", "400000")  # at the default (4 GB) it is answered
    assert code == 2
    assert "1,024 bits" in one_line_error(err) and "raise max_slots" in err and "larger delta" in err


def test_huge_epsilon_answers_and_names_what_stopped_it(capsys):
    code, out, err = run(capsys, "--mechanism", "gaussian", "--param", "sigma=1", *POISSON, "--k", "10",
                         "--epsilon", "1000", "--max-slots", "50000", "--json")
    assert code == 1
    got = json.loads(out)
    # delta(1000) is about e^-500000: the lower end stays 0, the upper end certified and tiny
    assert Fraction(got["delta_lower"]) == 0 and 0 < Fraction(got["delta_upper"]) < Fraction(1, 10**20)
    assert "max_slots" in got["stopped"] and "stopped:" in err


def test_laplace_fine_width_stops_within_budget(capsys):
    code, out, err = run(capsys, "--mechanism", "laplace", "--param", "scale=1", "--k", "10",
                         "--delta", "1e-6", "--width", "1e-5", "--max-slots", "20000", "--json")
    assert code == 1
    got = json.loads(out)
    assert "max_slots=20,000" in got["stopped"]
    # the Laplace mechanism is 1-DP: epsilon(delta) <= 10 for k = 10
    assert Fraction(got["epsilon_lower"]) <= 10 and Fraction(got["epsilon_lower"]) > 9


# --- 5. a finer width is never looser --------------------------------------------------------------


def test_finer_width_is_never_looser():
    params = {"sigma": 1, "sampling": "poisson", "rate": "0.01"}
    coarse = account("gaussian", 10, delta="1e-6", params=params, max_slots=40_000)
    fine = account("gaussian", 10, delta="1e-6", params=params, width="1e-9", max_slots=40_000)
    assert coarse.width_met and not fine.width_met and fine.stopped
    assert fine.epsilon_upper - fine.epsilon_lower <= coarse.epsilon_upper - coarse.epsilon_lower
    # both certified: they overlap
    assert fine.epsilon_lower <= coarse.epsilon_upper and coarse.epsilon_lower <= fine.epsilon_upper


# --- 6. a missed width exits 1 and names what stopped it ------------------------------------------


def test_missed_width_exits_1(capsys):
    code, out, err = run(capsys, "--mechanism", "gaussian", "--param", "sigma=1", *POISSON, "--k", "1000",
                         "--delta", "1e-6", "--max-slots", "30000", "--json")
    assert code == 1
    got = json.loads(out)
    assert not got["width_met"] and "max_slots=30,000" in got["stopped"]
    assert err.startswith("exactdp account: NOT within --width=0.001") and "--max-slots" in err


def test_check_that_holds_decides_despite_a_missed_width(capsys):
    code, _, err = run(capsys, "--mechanism", "gaussian", "--param", "sigma=1", *POISSON, "--k", "1000",
                       "--delta", "1e-6", "--max-slots", "60000", "--check", "1000")
    assert code == 0 and err == ""


# --- 7. messages and validation ----------------------------------------------------------------------


def test_rdp_message_fits_the_input(capsys):
    code, _, err = run(capsys, "--mechanism", "laplace", "--param", "scale=1", "--rdp", "2")
    assert code == 2 and "drop sampling" not in one_line_error(err) and "without --rdp" in err
    code, _, err = run(capsys, "--mechanism", "laplace", "--param", "scale=1", *POISSON, "--rdp", "2")
    assert code == 2 and "sampling='poisson'" in one_line_error(err) and "drop sampling" in err


@pytest.mark.parametrize("mechanism", ["randomized-response", "exponential"])
def test_huge_epsilon_parameter_is_refused_plainly(capsys, mechanism):
    code, _, err = run(capsys, "--mechanism", mechanism, "--param", "epsilon=1e300", "--delta", "1e-6")
    assert code == 2
    one_line_error(err)
    assert "epsilon='1e300' is too large" in err and "at most 2,900,000" in err
    assert "Fraction" not in err and "mpf" not in err


@pytest.mark.parametrize("option,value", [("--max-k", "-5"), ("--max-k", "0"), ("--max-slots", "0"),
                                          ("--max-order", "-1")])
def test_nonpositive_budgets_are_refused(capsys, option, value):
    code, _, err = run(capsys, "--mechanism", "discrete-laplace", "--param", "scale=1", "--delta", "1e-6",
                       option, value)
    assert code == 2
    assert f"{option}={value} is not a positive whole number" in one_line_error(err)


BAD_CURVES = [
    (dict(mechanisms="nope"), "mechanism='nope'"),
    (dict(mechanisms=[]), "mechanisms=[]"),
    (dict(mechanisms="discrete-laplace", params={"scale": -1}), "scale=-1"),
    (dict(mechanisms="discrete-laplace", params=3), "params=3"),
    (dict(mechanisms="discrete-laplace", k=0, params={"scale": 1}), "k=0"),
    (dict(mechanisms="discrete-laplace", k="x", params={"scale": 1}), "k='x'"),
    (dict(mechanisms="discrete-laplace", params={"scale": 1}, width="2"), "width='2'"),
    (dict(mechanisms="discrete-laplace", params={"scale": 1}, max_k=-5), "max_k=-5"),
    (dict(mechanisms="discrete-laplace", params={"scale": 1}, max_slots=0), "max_slots=0"),
    (dict(mechanisms=[("discrete-laplace", {"scale": 1})], params={"scale": 1}), "params=..."),
]


@pytest.mark.parametrize("kwargs,named", BAD_CURVES)
def test_privacy_curve_validates_at_construction(kwargs, named):
    with pytest.raises(InvalidArgument, match=named.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        PrivacyCurve(**kwargs)


def test_privacy_curve_valid_still_answers():
    curve = PrivacyCurve("discrete-laplace", 1, params={"scale": 10})
    r = curve.epsilon(delta=0)
    assert r.epsilon_lower == r.epsilon_upper == Fraction(1, 10)
    assert not math.isinf(r.epsilon_upper)
