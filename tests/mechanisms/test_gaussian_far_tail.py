"""The analytic Gaussian's bisection far in the tail does not call mpmath's ncdf there.

With gmpy2 installed, mpmath's exp of -x**2/2 at |x| near 1e1500 (epsilon = 1e3000) took a
minute (``calibrate gaussian-analytic --epsilon 1e3000`` went from 0.65 s to 62 s); the
cancellation estimate is known there without it.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from exactdp.mechanisms.calibration import gaussian


def test_far_tail_cancellation_is_known_without_ncdf(monkeypatch):
    def no_ncdf(*args, **kwargs):
        raise AssertionError("ncdf called far in the tail")

    eps, dlt, sens = Fraction(10) ** 3000, Fraction(1, 10**5), Fraction(1)
    sigma = mpmath.mpf("1e-1500")  # x = a - b about -5e1499 here
    gap, _ = gaussian._gap_and_sum(gaussian._to_fraction(sigma), eps, sens)
    assert gap > 0 and gap * gap > 10**2999
    with mpmath.workprec(256):
        guard = int(mpmath.ceil(2 * mpmath.log(2 + mpmath.mpf(gap.numerator) / gap.denominator, 2)))
    monkeypatch.setattr(mpmath, "ncdf", no_ncdf)
    bits = gaussian._cancelled_bits_at(sigma, eps, dlt, sens)
    assert bits == guard == 9964  # the guard 2 log2(2 + |x|) rounded up; nothing cancels below delta
    r = gaussian.analytic_sigma("1e3000", "1e-5")
    assert r.safe_float == 5e-324
