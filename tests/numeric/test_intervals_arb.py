"""The Arb-backed enclosures (erf, erfc, erfcx, normal_cdf, log1p, lgamma) never miss the truth,
and what is calibrated from them is never below the exact value (issue 17, part 2)."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import iv

from exactdp.errors import InvalidArgument
from exactdp.numeric import intervals
from exactdp.numeric.intervals import (
    enclose, erf, erfc, erfcx, exact_interval, interval_to_fractions, lgamma, log1p, normal_cdf,
)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _erfcx_mp(t):
    return mpmath.hyperu(0.5, 0.5, t * t) / mpmath.sqrt(mpmath.pi) if t > 10 else mpmath.exp(t * t) * mpmath.erfc(t)


REFERENCES = {
    "erf": (erf, mpmath.erf),
    "erfc": (erfc, mpmath.erfc),
    "erfcx": (erfcx, _erfcx_mp),
    "normal_cdf": (normal_cdf, mpmath.ncdf),
    "log1p": (log1p, mpmath.log1p),
    "lgamma": (lgamma, mpmath.loggamma),
}


def _bounds(enc) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The exact endpoints as mpf (erfc far out is far below any Fraction we would build)."""
    return intervals._lo(enc), intervals._hi(enc)


def _assert_contains(name: str, x: Fraction, prec: int, rel_width: int | None = 24):
    """The enclosure of ``name`` at ``x`` (the interval exact_interval gives) contains mpmath's
    value computed 128 bits further (its own error is far below the enclosure's width)."""
    ours, ref_fn = REFERENCES[name]
    enc = enclose(lambda iv_: ours(exact_interval(x)), prec=prec)
    lo, hi = _bounds(enc)
    with mpmath.workprec(prec + 128):
        ref = ref_fn(_mp(x))
        slack = abs(ref) * mpmath.ldexp(1, -(prec + 100))
        assert lo <= ref + slack and ref - slack <= hi, (name, x, prec, lo, hi, ref)
        if rel_width is not None and ref:
            assert hi - lo <= abs(ref) * mpmath.ldexp(1, -(prec - rel_width)), (name, x, prec, (hi - lo) / ref)


def _dyadic(lo: int, hi: int, min_shift: int = 0):
    return st.builds(lambda n, k: Fraction(n, 2**k), st.integers(lo, hi), st.integers(min_shift, 24))


ARGUMENTS = {
    "erf": _dyadic(-(2**29), 2**29),           # |x| up to 32
    "erfc": _dyadic(-(2**28), 2**34),          # -16 .. 1024
    "erfcx": _dyadic(0, 2**40),
    "normal_cdf": _dyadic(-(2**30), 2**17, min_shift=10),  # -2**20 .. 2**7
    "log1p": _dyadic(-(2**23) + 1, 2**40).filter(lambda t: t > -1),
    "lgamma": _dyadic(1, 2**40),
}


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.data())
def test_every_enclosure_contains_the_reference(data):
    """2000 points (400 draws of 5), every function, 53 to 106 bits: each contains mpmath's value."""
    name = data.draw(st.sampled_from(sorted(REFERENCES)))
    prec = data.draw(st.sampled_from([53, 64, 106]))
    for x in data.draw(st.lists(ARGUMENTS[name], min_size=5, max_size=5)):
        # normal_cdf(x) = erfc(-x/√2)/2: the rounded -x/√2 costs about 2·log2|x| bits (condition 2x²)
        loss = 2 * max(0, abs(x.numerator).bit_length() - x.denominator.bit_length() + 1) if name == "normal_cdf" else 0
        _assert_contains(name, x, prec, rel_width=24 + loss)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(["erf", "erfc", "erfcx", "log1p", "lgamma"]), st.integers(1, 10**9), st.integers(1, 10**9),
       st.integers(0, 30))
def test_interval_arguments_contain_the_endpoints_values(name, m, n, k):
    """Over an argument interval [a, b] (narrow or wide) the enclosure holds f(a) and f(b)."""
    a, b = sorted((Fraction(m, 2**k), Fraction(n, 2**k)))
    if name == "log1p":
        a, b = a - 1 + Fraction(1, 2**40), b
    ours, ref_fn = REFERENCES[name]
    lo, hi = _bounds(enclose(lambda iv_: ours(iv.mpf([_mp(a), _mp(b)])), prec=64))
    with mpmath.workprec(400):
        for t in (a, b, (a + b) / 2):
            ref = ref_fn(_mp(t))
            slack = abs(ref) * mpmath.ldexp(1, -380)
            assert lo <= ref + slack and ref - slack <= hi, (name, a, b, t)


@pytest.mark.parametrize("name, x", [
    ("erfc", "1e10"),  # Arb at the working precision alone returns [0, 1e-(1e20)]: x² needs 2 log2(x) more bits
    ("erfc", str(2**500 + 2**460)),  # a point at 53 bits; x² about 2**1000: Arb works 1000 bits further
    ("erfc", "-1000"),
    ("erfcx", "1e1500"),  # U(1/2, 1/2, x²)/√π: no e^(x²)
    ("erfcx", "1e20"),
    ("erfcx", "0"),
    ("erf", "1e-300"),
    ("normal_cdf", "-1000"),
    ("lgamma", "1e100"),
    ("log1p", "1e-30"),
], ids=lambda v: v if len(v) < 12 else v[:8] + "...")
@pytest.mark.parametrize("prec", [53, 3392])
def test_far_tails_and_huge_precision_keep_relative_accuracy(name, x, prec):
    _assert_contains(name, Fraction(x), prec)


def test_erfc_beyond_2_to_the_1200_is_the_sound_floor():
    lo, hi = interval_to_fractions(enclose(lambda iv_: erfc(iv_.mpf(2) ** 1300), prec=53))
    assert (lo, hi) == (0, Fraction(1, 2**4194304))  # [0, 2**-(2**2400)], rounded outward to the exact range


def test_arb_precision_is_restored_and_independent_of_the_callers():
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = 20  # a caller's own Arb precision neither leaks in nor is changed
        lo, hi = interval_to_fractions(enclose(lambda iv_: erf(iv_.mpf(1)), prec=200))
        assert flint.ctx.prec == 20
        assert hi - lo < Fraction(1, 2**200)
        with pytest.raises(InvalidArgument, match="x > -1"):
            enclose(lambda iv_: log1p(iv_.mpf(-2)), prec=80)
        assert flint.ctx.prec == 20
    finally:
        flint.ctx.prec = saved


# --- downstream: a calibrated sigma is never below the exact one ---------------------

def _analytic_delta_mp(sigma: Fraction, eps: Fraction) -> mpmath.mpf:
    """δ(σ) of the analytic Gaussian (Balle & Wang, Thm 8), sensitivity 1, from mpmath's ncdf."""
    s, e = _mp(sigma), _mp(eps)
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


@settings(max_examples=4, deadline=None, derandomize=True)
@given(st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3), Fraction(10)]),
       st.integers(2, 40))
def test_analytic_sigma_is_never_below_the_exact_sigma(eps, k):
    from exactdp.mechanisms.calibration.gaussian import analytic_sigma

    dlt = Fraction(1, 2**k)
    r = analytic_sigma(eps, dlt)
    lo, hi = r.exact
    with mpmath.workdps(100):
        # the safe float keeps delta(sigma) <= delta; the float below it does not; σ* is in [lo, hi]
        assert _analytic_delta_mp(Fraction(r.safe_float), eps) <= _mp(dlt)
        assert _analytic_delta_mp(lo, eps) >= _mp(dlt) >= _analytic_delta_mp(hi, eps)
    assert Fraction(r.safe_float) >= lo


def test_interval_arguments_are_not_one_arb_ball():
    # regression: Arb's erfc over the one-ulp ball -(-89749)/√2 at 53 bits came back as
    # [0, 2e-1749095622], relative width 1700; from the two endpoints it is 2e-6
    lo, hi = _bounds(enclose(lambda iv_: normal_cdf(iv_.mpf(-89749)), prec=53))
    with mpmath.workprec(200):
        ref = mpmath.ncdf(-89749)
        assert lo <= ref <= hi and (hi - lo) / ref < mpmath.mpf(2) ** -15


def test_ball_ends_are_read_at_the_balls_precision():
    # regression: arb.lower()/upper() round to the current flint.ctx.prec; read after the
    # precision was restored, a 3392-bit enclosure of erf(1/3) had 53-bit ends
    lo, hi = interval_to_fractions(enclose(lambda iv_: erf(exact_interval(Fraction(1, 3))), prec=3392))
    assert 0 < hi - lo < lo / 2**3380
