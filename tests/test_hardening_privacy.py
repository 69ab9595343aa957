"""Regression tests of the hardening of the privacy surfaces (``exactdp privacy``,
``exactdp account`` and the Python API behind them): each reproduction once hung, crashed
with a traceback or reported a vacuous check as a number.

Reproductions that hung run in a child interpreter with a time limit (``outcomes_in_child``),
so a regression fails instead of stalling the suite.
"""

from __future__ import annotations

import json

import pytest

from exactdp.checkers.privacy import check_mechanism
from exactdp.checkers.results import Verdict
from exactdp.cli import main
from exactdp.errors import TooLarge
from exactdp.mechanisms.mechanism import make_mechanism
from exactdp.spaces.datasets import Multisets
from exactdp.spaces.universe import IntegerRange

CLI = "import io, contextlib; from exactdp.cli import main"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _quiet(argv, code):
    """A call for ``outcomes_in_child``: ``main(argv)`` with its output swallowed, exiting ``code``."""
    return (f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    code = main({argv!r})\n"
            f"assert code == {code}, code")


# -- a space with no neighbouring pair is VACUOUS, with or without a claim ----------------

SIZE_3 = ("--query", "count", "--universe", "0..3", "--sizes", "3..3")


@pytest.mark.parametrize("claim", [(), ("--epsilon", "1"), ("--rho", "1"), ("--epsilon", "1", "--delta", "0.1")])
def test_no_neighbouring_pair_is_vacuous_and_exits_1(capsys, claim):
    # was: exit 0 with "epsilon = ?" (no claim) or "rho = ?" (a rho claim)
    code, out, err = run(capsys, "privacy", "--mechanism", "gaussian", "--param", "sigma=1",
                         *SIZE_3, *claim)
    assert code == 1, err
    first = out.splitlines()[0]
    assert "VACUOUS" in first and "no neighbouring pair" in first
    assert "--neighbors substitute" in first  # says what to change
    assert "?" not in first


def test_no_neighbouring_pair_json_says_vacuous(capsys):
    code, out, _ = run(capsys, "privacy", "--mechanism", "randomized-response", "--param", "p=3/4",
                       *SIZE_3, "--json")
    assert code == 1
    obj = json.loads(out)
    assert (obj["verdict"], obj["epsilon"], obj["value_pairs"]) == ("vacuous", None, 0)


def test_no_neighbouring_pair_in_the_api():
    m = make_mechanism("gaussian", sigma=1)
    space = Multisets(IntegerRange(0, 3), size=3)
    for claim in ({}, {"rho": 1}):
        r = check_mechanism(m, "count", space, **claim)
        assert r.verdict is Verdict.VACUOUS and not r.ok


# -- randomized response with a huge k_values is refused at once ---------------------------

def _refusal(argv, fragment):
    """A call for ``outcomes_in_child``: ``main(argv)`` exits 2 with one line on stderr
    containing ``fragment`` and nothing on stdout."""
    return (f"out, err = io.StringIO(), io.StringIO()\n"
            f"with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
            f"    code = main({argv!r})\n"
            f"assert code == 2 and out.getvalue() == '', (code, out.getvalue())\n"
            f"assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()\n"
            f"assert {fragment!r} in err.getvalue(), err.getvalue()")


def test_huge_k_values_refused(outcomes_in_child):
    # was: killed after ~47 s building a distribution of 10^12 outputs
    argv = ["privacy", "--mechanism", "randomized-response", "--param", "p=3/4",
            "--param", "k_values=1000000000000", "--values", "0,1"]
    fragment = "1,000,000,000,000 outputs (k_values=1000000000000), more than 10,000; use a smaller k_values"
    assert outcomes_in_child(CLI, [_refusal(argv, fragment)], 30) == ["returned"]


def test_huge_k_values_refused_in_the_api():
    with pytest.raises(TooLarge, match="use a smaller k_values"):
        make_mechanism("randomized-response", epsilon=1, k_values=10**400)
    assert make_mechanism("randomized-response", p="3/4", k_values=10_000).k == 10_000


# -- account: numbers beyond float64 never crash the report ------------------------------

def test_check_number_beyond_float64_is_judged(capsys):
    # was: OverflowError traceback while printing the check
    code, out, err = run(capsys, "account", "--mechanism", "randomized-response", "--param", "p=3/4",
                         "--k", "10", "--delta", "1e-6", "--check", "1e400")
    assert code == 0, err
    assert "check: HOLDS: epsilon = 1.00000000000E+400 is at or above" in out
    code, out, err = run(capsys, "account", "--mechanism", "randomized-response", "--param", "p=3/4",
                         "--k", "10", "--delta", "1e-6", "--check", "1e-400")
    assert code == 1, err
    assert "check: VIOLATED: epsilon = 1E-400 is below" in out  # not "0"


@pytest.mark.parametrize("argv", [
    ("--mechanism", "discrete-gaussian", "--param", "sigma=1e300"),
    ("--mechanism", "discrete-laplace", "--param", "scale=10", "--mechanism", "discrete-laplace",
     "--param", "scale=1e-300"),
])
def test_huge_lattices_are_refused_not_crashed(capsys, argv):
    # was: OverflowError traceback (a float variance in the lattice estimate)
    code, out, err = run(capsys, "account", *argv, "--k", "10", "--delta", "1e-6")
    assert code == 2 and out == ""
    assert err.startswith("exactdp: error: about 10^30") and "over max_slots=100,000" in err
    assert len(err.strip().splitlines()) == 1


def test_gaussian_with_a_tiny_sigma_is_enclosed_quickly(outcomes_in_child):
    # was: 47 s then the useless [0, inf] (sigma=1e-300); sigma=5e-324 (a float) hung
    setup = "from fractions import Fraction; from exactdp.mechanisms.accounting.accountant import account"
    calls = [
        "r = account('gaussian', 50, delta='1e-6', params={'sigma': '1e-300'}); "
        "assert r.width_met and r.epsilon_lower <= Fraction(25, 10) * 10**601 <= r.epsilon_upper * (1 + Fraction(1, 10**290))",
        "r = account('gaussian', 20, delta='1e-5', params={'sigma': Fraction(5e-324)}); "
        "assert r.width_met and 4 * 10**647 < r.epsilon_lower",
        "r = account('gaussian', 50, epsilon='1e601', params={'sigma': '1e-300'}); "
        "lo, hi = r.decimal_bounds(); assert r.delta_upper == 1 and lo.startswith('0.9999999999')",
    ]
    assert outcomes_in_child(setup, calls, 30) == ["returned"] * 3


def test_gaussian_beyond_the_working_precision_is_refused():
    from exactdp.mechanisms.accounting.accountant import account

    with pytest.raises(TooLarge, match=r"bits of working precision for mu\*\*2 = .*use a larger sigma"):
        account("gaussian", 50, delta="1e-6", params={"sigma": "1e-1000"})


def test_interval_endpoints_clamped_to_a_known_range():
    from fractions import Fraction

    from mpmath import iv

    from exactdp.numeric.intervals import interval_to_fractions

    huge = iv.mpf([-1, 2]) * iv.exp(iv.mpf(10) ** 9)
    assert interval_to_fractions(huge, within=(Fraction(0), Fraction(1))) == (0, 1)
    assert interval_to_fractions(iv.mpf([0.25, 0.5]), within=(Fraction(0), Fraction(1))) == (
        Fraction(1, 4), Fraction(1, 2))


def test_erfc_far_in_the_tail_is_enclosed_at_once(outcomes_in_child):
    # was: a hang in mpmath's exp(-t**2) for t near 2**13000 (account, gaussian sigma=1e4000)
    setup = ("from fractions import Fraction; from mpmath import iv; "
             "from exactdp.numeric.intervals import enclose, erfc, interval_to_fractions; "
             "from exactdp.mechanisms.accounting.accountant import account")
    calls = [
        "lo, hi = interval_to_fractions(enclose(lambda v: erfc(v.mpf(10) ** 4000), prec=3392)); "
        "assert lo == 0 and 0 < hi < Fraction(1, 10**1000)",
        "r = account('gaussian', 50, epsilon=1, params={'sigma': '1e4000'}); "
        "assert r.delta_lower == 0 and r.delta_upper < Fraction(1, 10**1000)",
    ]
    assert outcomes_in_child(setup, calls, 30) == ["returned"] * 2
