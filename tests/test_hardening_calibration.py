"""Regression tests of the calibration / accountant hardening trial: each reproduction once
hung, answered a vacuous bound quietly, or took no size budget.

Reproductions that hung run in a child interpreter with a time limit (``outcomes_in_child``),
so a regression fails instead of stalling the suite.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.calibration import gaussian

GAUSSIAN = "from exactdp.mechanisms.calibration import gaussian"


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


# -- 1. zcdp-to-approx at rho = 1e-20 printed "safe float 0.0" without saying why ------------
#
# 0.0 is right: the CKS bound at the alpha found (about 1e6) is about -1e-6, and (eps, delta)-DP
# with eps < 0 implies (0, delta)-DP. Independently, rho-zCDP bounds KL by rho, so the total
# variation is at most sqrt(rho/2) = 7.1e-11 <= delta (Pinsker): (0, 1e-6)-DP holds outright.
# The Bun-Steinke 7.4e-10 is a looser upper bound, not the truth.


def _cks_reference(rho: Fraction, delta: Fraction, alpha: Fraction):
    """An mpmath interval of the CKS bound at alpha = 1 + t, written independently of
    exactdp (log(t/(1 + t)) and log(1 + t) at a precision past t's bits and rho's)."""
    t = alpha - 1
    bits = max(t.numerator.bit_length(), t.denominator.bit_length(),
               rho.numerator.bit_length(), rho.denominator.bit_length(),
               delta.denominator.bit_length())
    iv = mpmath.iv
    saved = iv.prec
    iv.prec = 2 * bits + 256
    try:
        tt = iv.mpf(t.numerator) / t.denominator
        r = iv.mpf(rho.numerator) / rho.denominator
        d = iv.mpf(delta.numerator) / delta.denominator
        one = iv.mpf(1)
        value = (one + tt) * r + (-iv.log(d) + tt * iv.log(tt / (one + tt)) - iv.log(one + tt)) / tt
        return value
    finally:
        iv.prec = saved


def _ends(value) -> tuple[Fraction, Fraction]:
    from exactdp.numeric.intervals import interval_to_fractions

    return interval_to_fractions(value)


def _check_cks(rho: Fraction, delta: Fraction) -> None:
    from exactdp.mechanisms.accounting.zcdp import epsilon_of_rho

    r = epsilon_of_rho(rho, delta)
    if r.extra["method"] != "cks":  # the documented fallback: Bun-Steinke, checked elsewhere
        return
    ref_lo, ref_hi = _ends(_cks_reference(rho, delta, r.extra["alpha"]))
    lo, hi = r.exact
    safe = Fraction(r.safe_float)
    if ref_hi <= 0:  # negative at alpha: 0 exactly
        assert lo == hi == 0 and r.safe_float == 0.0 and r.extra.get("negative_at_alpha")
        return
    assert ref_lo > 0, (rho, delta)  # never within 2**-(2*bits + 256) of 0 here
    assert lo <= ref_lo and ref_hi <= hi, (rho, delta, lo, hi)  # the enclosure contains it
    assert safe >= ref_hi >= ref_lo, (rho, delta)  # never below the exact value


_LOG10_RHO = st.one_of(st.floats(-300, -15), st.floats(15, 300), st.floats(-15, 15))


@settings(max_examples=2500, deadline=None)
@given(_LOG10_RHO, st.integers(1, 99), st.floats(-300, -0.01), st.integers(1, 9))
def test_1_cks_safe_float_never_below_an_independent_reference(log10_rho, rho_digits, log10_delta, delta_digit):
    exponent = int(math.floor(log10_rho))
    rho = Fraction(rho_digits, 10) * (Fraction(10) ** exponent)
    delta = Fraction(delta_digit, 10) * (Fraction(10) ** int(math.floor(log10_delta)))
    _check_cks(rho, delta)


@pytest.mark.parametrize("rho", ["1e-20", "1e-100", "1e-300", "1e-3000"])
def test_1_tiny_rho_answers_zero_and_says_why(cli_run, rho):
    from exactdp.mechanisms.accounting.zcdp import epsilon_of_rho

    r = epsilon_of_rho(rho, "1e-6")
    assert r.safe_float == 0.0 and r.exact == (0, 0) and r.extra["negative_at_alpha"] is True
    ref_lo, ref_hi = _ends(_cks_reference(Fraction(rho), Fraction(1, 10**6), r.extra["alpha"]))
    assert ref_hi < 0  # the CKS bound at that alpha, computed independently, is negative
    assert Fraction(rho) / 2 <= Fraction(1, 10**6) ** 2  # Pinsker: TV <= sqrt(rho/2) <= delta
    code, out, err = cli_run("calibrate", "zcdp-to-approx", "--rho", rho, "--delta", "1e-6")
    assert code == 0 and "safe float 0.0" in out
    assert "negative, and (epsilon, delta)-DP with epsilon < 0 implies (0, delta)-DP" in out


# -- 2. the analytic Gaussian at epsilon = 1e3000 hung in iv.exp(epsilon) -----------------


def test_2_huge_epsilon_gaussian_calls_return_in_a_child(outcomes_in_child, quiet_main):
    # each of these hung (mpmath's exp of 1e3000, in C: no signal stops it), so every value
    # is checked in the child
    setup = GAUSSIAN + "; import mpmath; from fractions import Fraction"
    calls = [
        # sigma* = 1/(sqrt(2 eps + x**2) - x), x about 4.3: 1/sqrt(2 eps) to 1e-1499 relative, far
        # below every float; the smallest positive float is the smallest sigma there is
        "r = gaussian.analytic_sigma('1e3000', '1e-5')\n"
        "assert r.safe_float == 5e-324 and r.extra['smallest'] is True\n"
        "lo, hi = r.exact\n"
        "with mpmath.workprec(12000):\n"
        "    ref = 1 / mpmath.sqrt(2 * mpmath.mpf(10) ** 3000)\n"
        "    mp = lambda x: mpmath.mpf(x.numerator) / x.denominator\n"
        "    assert mp(lo) <= ref <= mp(hi) <= ref * (1 + mpmath.mpf(2) ** -80)",
        "assert gaussian.check_sigma(5e-324, '1e3000', '1e-5') is True",
        # 0.7e-1500 < sigma*: a - b is about 1.4e1498, delta(sigma) about 1
        "assert gaussian.check_sigma('0.7e-1500', '1e3000', '1e-5') is False",
        "assert gaussian.check_sigma('0.7072e-1500', '1e3000', '1e-5') is True",
        "r = gaussian.delta_of_sigma('1', '1e3000')\n"
        "assert r.exact == (0, Fraction(1, 2**1074)) and r.safe_float == 5e-324",
        "assert gaussian.analytic_sigma('9999e3996', '0.999999').safe_float == 5e-324",
        "assert gaussian.analytic_sigma('1e1000', '1e-5', '1e-3000').safe_float == 5e-324",
        "assert gaussian.analytic_sigma('1e600', '1e-5').safe_float == 7.071067811865476e-301",
    ]
    assert outcomes_in_child(setup, calls, 120) == ["returned"] * len(calls)
    cli = [quiet_main(["calibrate", "gaussian-analytic", "--epsilon", "1e3000", "--delta", "1e-5"], 0),
           quiet_main(["calibrate", "gaussian-analytic", "--epsilon", "1e3000", "--delta", "1e-5",
                   "--sensitivity", "1e-3000"], 0)]
    assert outcomes_in_child(quiet_main.setup, cli, 60) == ["returned"] * len(cli)


def test_2_epsilon_of_sigma_beyond_the_floats_is_refused_in_one_line(hang_guard):
    # sigma = 1e-3000 is private only from about epsilon = 5e5999 on: it said
    # "no epsilon up to 4**64 is certified private" (Undecided)
    with hang_guard(60), pytest.raises(InvalidArgument,
                                       match=r"sigma='1e-3000'.*largest float.*use a larger sigma") as e:
        gaussian.epsilon_of_sigma("1e-3000", "1e-5")
    assert "\n" not in str(e.value)
    # sigma = 1e-154: epsilon* is about 5e307, a float; found by squaring the bracket
    with hang_guard(60):
        r = gaussian.epsilon_of_sigma("1e-154", "1e-5")
    lo, hi = r.exact
    assert lo < Fraction(5 * 10**307) < hi and Fraction(r.safe_float) >= hi


def test_2_inputs_beyond_the_size_budget_are_refused(outcomes_in_child):
    # epsilon = 10**13000 (a Fraction through the API, past what a command line reads) hung
    setup = GAUSSIAN + "; from fractions import Fraction; huge = Fraction(10**13000)"
    calls = ["gaussian.analytic_sigma(huge, '1e-5')",
             "gaussian.check_sigma(1.0, '1', 1 / huge)",
             "gaussian.delta_of_sigma(1.0, huge)",
             "gaussian.epsilon_of_sigma(1.0, '1e-5', huge)"]
    assert outcomes_in_child(setup, calls, 60) == ["InvalidArgument"] * len(calls)
    with pytest.raises(InvalidArgument, match=r"epsilon=.*has a numerator or denominator of 43,186 bits, "
                                              r"more than 40,000.*round it"):
        gaussian.analytic_sigma(Fraction(10**13000), "1e-5")


def test_2_the_smallest_positive_float_is_called_the_smallest(cli_run):
    # sigma* = 3.7e-3000: 5e-324 is certified, and no positive float is below it (it said "at
    # most one float above the smallest": its predecessor 0.0 was left undecided)
    code, out, err = cli_run("calibrate", "gaussian-analytic", "--epsilon", "1", "--delta", "1e-5",
                     "--sensitivity", "1e-3000")
    assert code == 0, err
    assert "safe float 5e-324  (smallest float whose delta is certified <= 1e-5)" in out


# -- 3. account: the Gaussian delta(epsilon) at epsilon = 1e4000 took 40 s (iv.exp(epsilon)) --


def test_3_gaussian_delta_at_a_huge_epsilon_is_enclosed_at_once(outcomes_in_child):
    setup = "from exactdp.mechanisms.accounting.accountant import account; from fractions import Fraction"
    calls = [
        # delta(eps) <= Phi(-(eps/mu - mu/2)): about exp(-1e8000/100), far below 2**-(2**22)
        "r = account('gaussian', 50, epsilon='1e4000', params={'sigma': 1})\n"
        "assert r.delta_lower == 0 and 0 < r.delta_upper <= Fraction(1, 2**(2**22))",
        "r = account('gaussian', 50, epsilon='1e4000', params={'sigma': '1e-300'})\n"
        "assert r.delta_lower == 0 and 0 < r.delta_upper <= Fraction(1, 2**(2**22))",
    ]
    assert outcomes_in_child(setup, calls, 20) == ["returned"] * len(calls)


def test_3_lattice_delta_at_or_above_the_largest_loss_is_exactly_zero():
    from exactdp.mechanisms.accounting.accountant import account

    # the composed loss never exceeds k * sensitivity/scale = 10: delta(10) = 0 exactly (it was
    # [0, 6e-306], the slack of the lattice)
    for eps in ("10", "1e4000"):
        r = account("discrete-laplace", 100, epsilon=eps, params={"scale": 10})
        assert r.delta_lower == r.delta_upper == 0 and r.width_met
    r = account("randomized-response", 100, epsilon=110, params={"p": "3/4"})  # 100 log 3 < 110
    assert r.delta_upper == 0


# -- 4. account answered epsilon in [0, inf] at exit 0 ------------------------------------


def test_4_discrete_laplace_at_delta_1e_minus_400_is_bracketed_by_its_largest_loss():
    from exactdp.mechanisms.accounting.accountant import account

    # delta(eps) = 0 from eps = k/scale = 100 on, and P[L = 100] = (1/(1 + e^-0.1))**1000 is
    # about 1e-280: epsilon(1e-400) is just below 100
    r = account("discrete-laplace", 1000, delta="1e-400", params={"scale": 10})
    assert r.epsilon_upper == 100 and r.width_met
    assert Fraction(99999999, 10**6) < r.epsilon_lower < 100


def test_4_gaussian_with_a_tiny_mu_gets_a_certified_upper_end():
    from exactdp.mechanisms.accounting.accountant import account

    r = account("gaussian", 50, delta="1e-4000", params={"sigma": "1e4000"})
    assert r.epsilon_lower == 0 and not isinstance(r.epsilon_upper, float)
    b = r.epsilon_upper
    assert 0 < b < Fraction(1, 10**3996)
    # independently: delta(b) <= Phi(-x) <= phi(x)/x (Mills), x = b/mu - mu/2, mu**2 = 50e-8000
    with mpmath.workprec(200):
        mu = mpmath.sqrt(50 * mpmath.mpf(10) ** -8000)
        x = _mp(b) / mu - mu / 2
        log_mills = -x * x / 2 - mpmath.log(x * mpmath.sqrt(2 * mpmath.pi))
        assert log_mills < -4000 * mpmath.log(10) - mpmath.mpf(2) ** -100


def test_4_nothing_certified_is_loud_and_exits_1(cli_run):
    code, out, err = cli_run("account", "--mechanism", "discrete-gaussian", "--param", "sigma=1",
                     "--k", "2", "--delta", "1e-400")
    assert code == 1
    assert "epsilon in [0, inf]" in out and "NOTHING CERTIFIED" in out
    assert err.count("\n") == 1 and "NOTHING CERTIFIED" in err and "use a larger delta" in err
    code, out, err = cli_run("account", "--mechanism", "discrete-gaussian", "--param", "sigma=1",
                     "--k", "2", "--delta", "1e-400", "--json")
    assert code == 1 and '"certified": "nothing"' in out
    # an answer that is bracketed still exits 0
    code, out, err = cli_run("account", "--mechanism", "discrete-laplace", "--param", "scale=10",
                     "--k", "1000", "--delta", "1e-400")
    assert code == 0 and "epsilon in [99.99999990" in out and err == ""


def test_4_help_epilog_documents_exit_1():
    from exactdp.cli.account import _DESCRIPTION, _EPILOG

    assert "NOTHING" in _DESCRIPTION and "exit 1 without a --check" in _EPILOG


# -- 5. decimal_at_least(1/3, digits=10**9) was accepted (a billion-digit division) --------


@pytest.mark.parametrize("name", ["decimal_at_least", "decimal_at_most"])
def test_5_decimal_digits_above_the_budget_are_refused(outcomes_in_child, name):
    from exactdp.numeric import rounding

    # in a child: before the cap this divided to a billion digits
    setup = "from fractions import Fraction; from exactdp.numeric import rounding"
    call = f"rounding.{name}(Fraction(1, 3), digits=10**9)"
    assert outcomes_in_child(setup, [call], 30) == ["InvalidArgument"]
    fn = getattr(rounding, name)
    with pytest.raises(InvalidArgument, match=r"digits=1000000000 is more than 100,000 significant digits "
                                              r".the most shown.; ask for fewer digits") as e:
        fn(Fraction(1, 3), digits=10**9)
    assert "\n" not in str(e.value)
    with pytest.raises(InvalidArgument, match="digits=100001 is more than 100,000"):
        fn(Fraction(1, 3), 100_001)
    text = str(fn(Fraction(1, 3), rounding.MAX_DECIMAL_DIGITS))
    assert text.startswith("0.3333") and len(text) == 100_002
    assert text.endswith("4" if name == "decimal_at_least" else "3")


def test_a_delta_below_the_lattice_resolution_is_answered_before_computing():
    # discrete Gaussian sigma=10, k=1000, delta=1e-400 computed for 70 s (55 s at 1024 bits)
    # before NOTHING CERTIFIED: every upper end of delta(eps) carries at least 2**-bits of
    # slack and the discrete Gaussian has no largest loss, so the answer is known at once
    from exactdp.mechanisms.accounting.accountant import account

    r = account("discrete-gaussian", 1000, delta="1e-400", params={"sigma": 10})
    assert (r.epsilon_lower, r.epsilon_upper, r.slots) == (0, math.inf, 0)
    assert "NOTHING CERTIFIED" in r.notes and "known before computing" in r.notes
    tiny = Fraction(1, 2**65)
    early = account("discrete-gaussian", 2, delta=tiny, params={"sigma": 1}, max_bits=64)
    assert (early.epsilon_lower, early.epsilon_upper) == (0, math.inf)
    computed = account("discrete-gaussian", 2, delta=tiny, params={"sigma": 1}, max_bits=128)
    assert 13 < computed.epsilon_lower <= computed.epsilon_upper < 14  # raising max_bits answers it
