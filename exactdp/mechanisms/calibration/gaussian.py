"""The Gaussian mechanism: classic and analytic calibration of σ, and the δ a σ achieves.

**Classic** (Dwork & Roth 2014, Thm A.1): ``σ = Δ·sqrt(2 ln(1.25/δ))/ε`` gives
(ε, δ)-DP for ``0 < ε < 1``. The exact σ is a SymPy expression; the float is rounded up.

**Analytic** (Balle & Wang 2018, Thm 8): Gaussian noise of standard deviation σ on a
query of L2 sensitivity Δ is (ε, δ)-DP **iff**

    δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε · Φ(−Δ/(2σ) − εσ/Δ)  ≤  δ,

and δ(σ) decreases in σ, from 1 (σ → 0) to 0 (σ → ∞): every δ in (0, 1) has its σ*,
and σ* → 0 as δ → 1. :func:`delta_of_sigma` encloses δ(σ) with intervals (the
normal CDF Φ from :mod:`exactdp.numeric.intervals`); :func:`check_sigma` decides the
condition (or raises :class:`~exactdp.errors.Undecided`), comparing the enclosure's
ends with δ exactly but without building them as Fractions (δ(10⁴) is near
2**-18,000,000 at ε = 1/2), and for δ > 1/2 deciding the equivalent
1 − δ(σ) = Φ(εσ/Δ − Δ/(2σ)) + e^ε·Φ(−Δ/(2σ) − εσ/Δ) ≥ 1 − δ, a sum with nothing to
cancel; :func:`analytic_sigma`
returns the **smallest float whose δ is certified ≤ the target** (its predecessor is
certified above the target; if that cannot be decided the result says so in
``extra["smallest"]``) and an enclosure ``[lo, hi]`` of the exact σ*.

A σ handed on as a float a library stores is taken at its exact binary value
(``from_float``) by :func:`delta_of_sigma` and :func:`check_sigma`.

>>> r = classic_sigma("0.5", "1e-5")
>>> r.exact, r.safe_float
(2*sqrt(2)*sqrt(log(125000)), 9.68961052521078)
>>> check_sigma(7.031826675582492, "0.5", "1e-5")   # float(σ*): private enough
True
>>> check_sigma("7.03182667558249", "0.5", "1e-5")   # σ* shown to 15 digits, rounded down
False
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import sympy

from exactdp.errors import InvalidArgument, Undecided
from exactdp.mechanisms.calibration._calibration import Calibration
from exactdp.mechanisms._params import open_probability as probability
from exactdp.mechanisms._params import positive, shown, stored_positive
from exactdp.numeric.intervals import (
    _exp_of_negative,
    _hi,
    _lo,
    _to_fraction,
    enclose,
    erfcx,
    exact_interval,
    normal_cdf,
)
from exactdp.numeric.exact import show_exact
from exactdp.numeric.rounding import float_at_least

__all__ = ["classic_sigma", "analytic_sigma", "delta_of_sigma", "check_sigma", "epsilon_of_sigma"]

_MAX_PREC = 1696
"""Working precision (bits) at which a δ(σ) comparison is given up as Undecided."""


def classic_sigma(epsilon, delta, sensitivity=1) -> Calibration:
    """The classic Gaussian σ = Δ·sqrt(2 ln(1.25/δ))/ε, exact (SymPy), float rounded up.

    Valid for ``0 < epsilon < 1`` only; for larger ε use :func:`analytic_sigma`, which
    is exact for every ε (and smaller for every ε).
    """
    eps = positive(epsilon, "epsilon")
    if eps >= 1:
        raise InvalidArgument(
            f"epsilon={shown(epsilon)} is >= 1, where the classic Gaussian bound is not valid; "
            f"use analytic_sigma (the analytic Gaussian of Balle & Wang 2018; on the command line "
            f"'exactdp calibrate gaussian-analytic'), valid for every epsilon"
        )
    dlt = probability(delta, "delta")
    sens = positive(sensitivity, "sensitivity")
    r = sympy.Rational
    sigma = r(sens.numerator, sens.denominator) * sympy.sqrt(
        2 * sympy.log(r(5, 4) / r(dlt.numerator, dlt.denominator))
    ) / r(eps.numerator, eps.denominator)
    return Calibration(
        mechanism="gaussian-classic",
        quantity="sigma",
        inputs={"epsilon": eps, "delta": dlt, "sensitivity": sens},
        exact=sigma,
        safe_float=float_at_least(sigma),
        notes="sigma = sensitivity*sqrt(2*log(1.25/delta))/epsilon (valid for epsilon < 1); "
              "safe_float is the smallest float >= sigma",
    )


def _gap_and_sum(sigma: Fraction, eps: Fraction, sens: Fraction) -> tuple[Fraction, Fraction]:
    """``x = b − a`` and ``s = a + b`` (a = Δ/(2σ), b = εσ/Δ), exact.

    Exact, so ``x`` keeps its relative accuracy however large a and b are (both are about
    sqrt(ε/2) near σ*: 10**1500 at ε = 1e3000, where a − b in intervals would need 5,000
    bits just to see x ≈ 4)."""
    a = sens / (2 * sigma)
    b = eps * sigma / sens
    return b - a, a + b


def _scaled_tail(iv, x, s):
    """An enclosure of ``e^ε·Φ(−s)`` as ``e^(−x²/2)·erfcx(s/√2)/2`` (x, s intervals of the
    exact values of :func:`_gap_and_sum`).

    Exact identity: s² − x² = 4ab = 2ε, so e^ε·e^(−s²/2) = e^(−x²/2), and
    Φ(−s) = erfc(s/√2)/2 = e^(−s²/2)·erfcx(s/√2)/2. No e^ε is computed (mpmath's exp of
    1e3000 does not finish), and both factors keep their relative accuracy."""
    return _exp_of_negative(-(x * x) / 2) * erfcx(s / iv.sqrt(2)) / 2


def _delta_fn(sigma: Fraction, eps: Fraction, sens: Fraction):
    """``fn(iv)`` enclosing δ(σ) = Φ(a − b) − e^ε·Φ(−a − b) of the analytic characterization,
    computed as Φ(−x) − e^(−x²/2)·erfcx(s/√2)/2 (:func:`_scaled_tail`)."""
    gap, total = _gap_and_sum(sigma, eps, sens)

    def fn(iv):
        x, s = exact_interval(gap), exact_interval(total)
        return normal_cdf(-x) - _scaled_tail(iv, x, s)

    return fn


def _complement_fn(sigma: Fraction, eps: Fraction, sens: Fraction):
    """``fn(iv)`` enclosing 1 − δ(σ) = Φ(b − a) + e^ε·Φ(−a − b) (as Φ(x) + Φ(−x) = 1).

    A sum of two positive terms: no cancellation, so 1 − δ(σ) keeps its relative accuracy
    when δ(σ) is within 1e-19 (or 1e-1000) of 1, where δ(σ) itself would need that many
    bits just to differ from 1."""
    gap, total = _gap_and_sum(sigma, eps, sens)

    def fn(iv):
        x, s = exact_interval(gap), exact_interval(total)
        return normal_cdf(x) + _scaled_tail(iv, x, s)

    return fn


def _compare(value: mpmath.mpf, bound: Fraction) -> int | None:
    """The sign of ``value - bound``, exactly, for a finite ``mpf`` and a Fraction (``None``
    for an infinite or NaN ``value``).

    No Fraction of ``value`` is built: δ(10⁴) at ε = 1/2 is about 2**-18,000,000, and its
    exact Fraction would have 18 million bits. The binary exponents decide unless they are
    within one of each other; only then are the integers compared (of about the size of
    ``bound``)."""
    if not mpmath.isfinite(value):
        return None
    sign, man, exp, bc = value._mpf_
    if man == 0:
        return (bound < 0) - (bound > 0)
    if sign:
        if bound >= 0:
            return -1
        return -_compare(_neg_mpf(value), -bound)
    if bound <= 0:
        return 1
    p, q = bound.numerator, bound.denominator
    top = exp + bc  # 2**(top-1) <= value < 2**top
    k = p.bit_length() - q.bit_length()  # 2**(k-1) < bound < 2**(k+1)
    if top <= k - 1:
        return -1
    if top - 1 >= k + 1:
        return 1
    left, right = man * q, p  # value/bound = man*q*2**exp / p
    if exp >= 0:
        left <<= exp
    else:
        right <<= -exp
    return (left > right) - (left < right)


def _neg_mpf(t: mpmath.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(mpmath.libmp.mpf_neg(t._mpf_))


def _decide_private(sigma: Fraction, eps: Fraction, sens: Fraction, dlt: Fraction, *,
                    start_prec: int = 64, max_prec: int) -> bool | None:
    """True: δ(σ) ≤ δ certified; False: δ(σ) > δ certified; None: undecided at ``max_prec``.

    For δ ≤ 1/2, δ(σ) is enclosed directly and its endpoints compared with δ
    (:func:`_compare`: exact, and fine for δ(σ) far below the smallest float). For
    δ > 1/2 the equivalent 1 − δ(σ) ≥ 1 − δ is decided instead (:func:`_complement_fn`),
    exactly as well (1 − δ is an exact Fraction)."""
    direct = dlt <= Fraction(1, 2)
    fn = _delta_fn(sigma, eps, sens) if direct else _complement_fn(sigma, eps, sens)
    bound = dlt if direct else 1 - dlt
    prec = start_prec
    while True:
        enc = enclose(fn, prec=prec)
        lo, hi = _compare(_lo(enc), bound), _compare(_hi(enc), bound)
        if direct:
            if hi is not None and hi <= 0:
                return True
            if lo is not None and lo > 0:
                return False
        else:
            if lo is not None and lo >= 0:
                return True
            if hi is not None and hi < 0:
                return False
        if prec >= max_prec:
            return None
        prec = min(2 * prec, max_prec)


def _inputs(sigma, epsilon, sensitivity) -> tuple[Fraction, Fraction, Fraction]:
    s, eps, sens = (
        stored_positive(sigma, "sigma"),
        positive(epsilon, "epsilon"),
        positive(sensitivity, "sensitivity"),
    )
    _check_sizes(sigma=(sigma, s), epsilon=(epsilon, eps), sensitivity=(sensitivity, sens))
    return s, eps, sens


MAX_INPUT_BITS = 40_000
"""Largest numerator or denominator (in bits; about 12,000 digits) of σ, ε, δ or Δ taken:
every number a command line reads (at most 4,000 digits and a power of ten up to 4,000)
fits, and the work on such numbers stays in seconds."""


def _check_sizes(**values) -> None:
    """Refuse, before any work, an input whose numerator or denominator exceeds
    :data:`MAX_INPUT_BITS` (``values``: name -> (as given, exact))."""
    for name, (given, exact) in values.items():
        bits = max(exact.numerator.bit_length(), exact.denominator.bit_length())
        if bits > MAX_INPUT_BITS:
            raise InvalidArgument(
                f"{name}={shown(given)} has a numerator or denominator of {bits:,} bits, more than "
                f"{MAX_INPUT_BITS:,} (about 12,000 digits); round it to a shorter number (the safe "
                f"way for the guarantee you need) and try again"
            )


_TINY = Fraction(1, 2**1074)  # the smallest positive float64


def _clamped_fractions(enc) -> tuple[Fraction, Fraction]:
    """Exact ends of a δ enclosure, with ends below the smallest float replaced by 0 (lower)
    and 2**-1074 (upper): still an enclosure, and no Fraction of a million bits (δ can be
    as small as exp(-10**17))."""
    a, b = _lo(enc), _hi(enc)
    lo = _to_fraction(a) if a >= _MP_TINY else Fraction(0)
    hi = _to_fraction(b) if b >= _MP_TINY else _TINY
    return lo, hi


_MP_TINY = mpmath.mpf(2) ** -1074


def delta_of_sigma(sigma, epsilon, sensitivity=1) -> Calibration:
    """The exact δ of Gaussian noise σ at ε (Balle & Wang's characterization), enclosed.

    ``exact`` is an enclosure ``(lo, hi)`` narrow enough that both ends round up to the
    same float (or, failing that at the maximum precision, as narrow as it got; a δ
    below the smallest float is enclosed as ``(0, 2**-1074)``);
    ``safe_float`` is the smallest float ``>= hi``. A float ``sigma`` is taken at its
    exact binary value.

    >>> r = delta_of_sigma(7.031826675582492, "0.5")
    >>> r.safe_float
    9.999999999999992e-06
    """
    s, eps, sens = _inputs(sigma, epsilon, sensitivity)
    fn = _delta_fn(s, eps, sens)
    prec = 64
    while True:
        lo, hi = _clamped_fractions(enclose(fn, prec=prec))
        safe = float_at_least(hi)
        if (lo > 0 and float_at_least(lo) == safe) or hi == _TINY or prec >= _MAX_PREC:
            break
        prec *= 2
    return Calibration(
        mechanism="gaussian-analytic",
        quantity="delta",
        inputs={"sigma": s, "epsilon": eps, "sensitivity": sens},
        exact=(lo, hi),
        safe_float=safe,
        notes="delta(sigma) = Phi(D/(2s) - e*s/D) - exp(e)*Phi(-D/(2s) - e*s/D), enclosed with "
              "intervals; safe_float >= every point of the enclosure",
        extra={"precision_bits": prec},
    )


def check_sigma(sigma, epsilon, delta, sensitivity=1) -> bool:
    """Whether Gaussian noise ``sigma`` is (ε, δ)-DP for sensitivity Δ, decided exactly.

    ``True`` only when δ(σ) ≤ δ is certified by intervals, ``False`` when δ(σ) > δ is;
    raises :class:`~exactdp.errors.Undecided` if neither can be shown (δ(σ) equal to δ
    to more than 1,600 bits). A float ``sigma`` is taken at its exact binary value.

    >>> check_sigma(1e308, "0.5", "1e-5"), check_sigma(0.05, "0.5", "0.9999999999999999999")
    (True, False)
    """
    s, eps, sens = _inputs(sigma, epsilon, sensitivity)
    dlt = probability(delta, "delta")
    _check_sizes(delta=(delta, dlt))
    verdict = _decide_private(s, eps, sens, dlt, max_prec=_MAX_PREC)
    if verdict is None:
        raise Undecided(
            f"delta(sigma) for sigma={shown(sigma)}, epsilon={shown(epsilon)}, sensitivity="
            f"{shown(sensitivity)} could not be told apart from delta={shown(delta)} at "
            f"{_MAX_PREC} bits of working precision (sigma is the analytic sigma, or within a "
            f"few parts in 2**{_MAX_PREC // 2} of it); use a slightly larger sigma"
        )
    return verdict


def _certified(sigma: Fraction, eps: Fraction, sens: Fraction, dlt: Fraction, max_prec: int,
               start_prec: int = 64) -> bool | None:
    """True: δ(σ) ≤ δ certified; False: δ(σ) > δ certified; None: undecided."""
    return _decide_private(sigma, eps, sens, dlt, start_prec=start_prec, max_prec=max_prec)


def _mp_of(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


_ROOT_BITS = 256
"""Bits of σ* the bisection aims at (the enclosure below wants about 90)."""


def _cancelled_bits(sigma: mpmath.mpf, eps: Fraction, dlt: Fraction, sens: Fraction) -> int:
    """Bits lost to cancellation in δ(σ) − δ at ``sigma``, plus a guard for Φ's condition.

    δ(σ) = Φ(x) − e^ε·Φ(−a−b) with x = a − b is a difference of two numbers of size up to
    M = Φ(x); near the root it is δ, so about log2(M/δ) bits cancel (about 1,000 for
    ε = δ = 1e-300: M ≈ 0.4). Deep in the tail Φ's relative condition is about x², hence
    the guard 2·log2(2 + |x|). Both parts are monotone in σ (x decreases with σ), so over
    a bracket the larger of the two ends' values bounds them. For δ > 1/2 the bisection
    works with 1 − δ(σ) = Φ(−x) + e^ε·Φ(−a−b), a sum of positive terms (nothing cancels
    inside it), so only the guard counts, for the larger |x|."""
    try:
        return _cancelled_bits_at(sigma, eps, dlt, sens)
    except OverflowError:  # mpmath's ncdf far out in the tail: precision is capped anyway
        return 2 * _MAX_PREC


def _cancelled_bits_at(sigma: mpmath.mpf, eps: Fraction, dlt: Fraction, sens: Fraction) -> int:
    gap, _ = _gap_and_sum(_to_fraction(sigma), eps, sens)
    if dlt <= Fraction(1, 2) and gap * gap > 4 * (_log2_of_inverse(dlt) + 64):
        # |x| so large that Phi(x) is below delta by far (x < 0) or within 2**-64 of 1 (x > 0):
        # the cancellation is known without mpmath's ncdf, whose exp of -x**2/2 can take a
        # minute under the gmpy2 backend (|x| near 1e1500 at epsilon = 1e3000)
        with mpmath.workprec(64):
            guard = int(mpmath.ceil(2 * mpmath.log(2 + abs(_mp_of(gap)), 2)))
        return guard + (0 if gap > 0 else _log2_of_inverse(dlt))
    with mpmath.workprec(64):
        d = _mp_of(sens)
        a = d / (2 * sigma)
        x = -_mp_of(gap)  # a - b, from its exact value (a and b can be 1e1500)
        if dlt > Fraction(1, 2):
            return int(mpmath.ceil(2 * mpmath.log(2 + abs(x) + 2 * a, 2)))
        m = mpmath.ncdf(x)  # relative accuracy kept in the lower tail
        cancel = mpmath.log(m, 2) - mpmath.log(_mp_of(dlt), 2)
        guard = 2 * mpmath.log(2 + abs(x), 2)
        return max(0, int(mpmath.ceil(cancel))) + int(mpmath.ceil(guard))


def _log2_of_inverse(p: Fraction) -> int:
    """An integer at least log2(1/p) for 0 < p < 1 (from bit lengths)."""
    return p.denominator.bit_length() - p.numerator.bit_length() + 1


def _erfcx_mp(u: mpmath.mpf) -> mpmath.mpf:
    """e^(u²)·erfc(u) for u > 0 in mpmath (an approximation, for the bisection only): directly
    for u below 2**16 (mpmath's erfc keeps its relative accuracy), else 1/(√π·K(u)) from
    Laplace's continued fraction, whose level n adds about log2(2u²/n) bits (a few hundred
    levels at most; no e^(u²) of a u of 1e1500)."""
    prec = mpmath.mp.prec
    if u < 2**16:
        with mpmath.workprec(prec + 16):
            return mpmath.exp(u * u) * mpmath.erfc(u)
    log2_two_u2 = 1 + 2 * float(mpmath.log(u, 2))
    depth, bits = 8, 0.0
    while bits < prec + 16:
        depth += 1
        bits += log2_two_u2 - math.log2(depth)
    k = u
    for j in range(depth, 0, -1):
        k = u + mpmath.mpf(j) / 2 / k
    return 1 / (mpmath.sqrt(mpmath.pi) * k)


def _approximate_root(eps: Fraction, dlt: Fraction, sens: Fraction) -> Fraction:
    """σ* to about ``_ROOT_BITS - 20`` bits by bisection in mpmath (not a bound: checked after).

    Each sign of δ(σ) − δ is computed at a precision covering the bits that cancel at that σ
    (:func:`_cancelled_bits`) plus the bits of σ resolved so far plus 32: a fixed 256 bits
    lost δ ≈ 1e-77 to cancellation and bisected to the wrong root. For δ > 1/2 the sign
    is that of (1 − δ) − (1 − δ(σ)), with 1 − δ(σ) summed without cancellation: δ(σ)
    itself rounds to 1 at any precision below log2(1/(1 − δ)) bits. The bracket is found
    by growing the step exponentially (σ* can be 1e299)."""
    complement = dlt > Fraction(1, 2)
    # |x| beyond this: Φ(−|x|) and e^(−x²/2) are below every δ and 1 − δ by far, so the sign
    # is known without them (mpmath's exp of −1e5000 does not finish)
    far = 2 * (max(_log2_of_inverse(dlt), _log2_of_inverse(1 - dlt)) + 4 * _MAX_PREC + 64)

    def excess(sigma, bits, extra=None):
        try:
            return _excess(sigma, bits, extra)
        except OverflowError:
            # mpmath's ncdf fails far out in the tail (|x| near 1e150 and beyond, e.g. at
            # ε = 1e300); the interval enclosure does not. Only a sign is needed here.
            verdict = _decide_private(_to_fraction(sigma), eps, sens, dlt, max_prec=_MAX_PREC)
            return mpmath.mpf(-1 if verdict is not False else 1)

    def _excess(sigma, bits, extra=None):
        if extra is None:
            extra = _cancelled_bits(sigma, eps, dlt, sens)
        gap, total = _gap_and_sum(_to_fraction(sigma), eps, sens)
        if gap * gap > far:  # δ(σ) is 0 (x > 0) or 1 (x < 0) to far below δ and 1 − δ
            return mpmath.mpf(-1 if gap > 0 else 1)
        with mpmath.workprec(min(bits + 32 + extra, 2 * _MAX_PREC)):
            x, s = _mp_of(gap), _mp_of(total)
            # e^ε·Φ(−s) = e^(−x²/2)·erfcx(s/√2)/2, as in _scaled_tail: no e^ε
            tail = mpmath.exp(-x * x / 2) * _erfcx_mp(s / mpmath.sqrt(2)) / 2
            if complement:
                return _mp_of(1 - dlt) - mpmath.ncdf(x) - tail
            return mpmath.ncdf(-x) - tail - _mp_of(dlt)

    full = _ROOT_BITS + 8
    with mpmath.workprec(full):
        # a bracket lo < σ* <= hi with hi = 2·lo: powers of two 2**k·Δ, k found by doubling |k|
        # then bisecting on k (about 2·log2|log2(σ*/Δ)| evaluations, not |log2(σ*/Δ)|)
        d = _mp_of(sens)
        up = excess(d, full) > 0  # δ(Δ) > δ: σ* > Δ
        k_in, k_out, step = 0, None, 1  # σ = 2**k_in·Δ is on the starting side
        while k_out is None:
            k = k_in + (step if up else -step)
            if (excess(d * mpmath.ldexp(1, k), full) > 0) == up:
                k_in, step = k, 2 * step
            else:
                k_out = k
        while abs(k_out - k_in) > 1:
            k = (k_in + k_out) // 2
            if (excess(d * mpmath.ldexp(1, k), full) > 0) == up:
                k_in = k
            else:
                k_out = k
        lo, hi = d * mpmath.ldexp(1, min(k_in, k_out)), d * mpmath.ldexp(1, max(k_in, k_out))
        extra = max(_cancelled_bits(lo, eps, dlt, sens), _cancelled_bits(hi, eps, dlt, sens))
        for i in range(full):
            mid = (lo + hi) / 2
            if excess(mid, min(i + 16, full), extra) > 0:
                lo = mid
            else:
                hi = mid
        return _to_fraction(hi)


def analytic_sigma(epsilon, delta, sensitivity=1) -> Calibration:
    """The analytic-Gaussian σ (Balle & Wang 2018) for (ε, δ)-DP, certified.

    ``safe_float`` is the smallest float σ whose δ(σ) ≤ δ is certified by interval
    arithmetic; ``extra["smallest"]`` is ``True`` when the float just below it is
    certified to have δ > target (so no smaller float is private enough), ``False`` if
    that neighbour could not be decided (then ``safe_float`` is at most one float
    above the smallest). ``exact`` encloses the exact σ*: usually to about 2**-90
    relative, else between the two floats.

    >>> r = analytic_sigma("0.5", "1e-5")
    >>> r.safe_float, r.extra["smallest"]
    (7.031826675582492, True)
    >>> r.approx_text(21)
    '[7.03182667558249144271, 7.03182667558249144272]'
    """
    eps = positive(epsilon, "epsilon")
    dlt = probability(delta, "delta")
    sens = positive(sensitivity, "sensitivity")
    _check_sizes(epsilon=(epsilon, eps), delta=(delta, dlt), sensitivity=(sensitivity, sens))
    approx = _approximate_root(eps, dlt, sens)
    if approx > Fraction(1.7976931348623157e308):
        raise InvalidArgument(
            f"epsilon={shown(epsilon)}, delta={shown(delta)}, sensitivity={shown(sensitivity)} need "
            f"sigma beyond the largest float; rescale the query"
        )

    # smallest certified float: from near σ* walk up until certified, then down while certified
    f = float_at_least(approx)
    for _ in range(64):
        if _certified(Fraction(f), eps, sens, dlt, _MAX_PREC) is True:
            break
        f = math.nextafter(f, math.inf)
    else:
        raise Undecided(
            f"none of the 64 floats from {float_at_least(approx)!r} up (near the analytic "
            f"sigma) could be certified private for epsilon={shown(epsilon)}, delta={shown(delta)}, "
            f"sensitivity={shown(sensitivity)} at {_MAX_PREC} bits of working precision; "
            f"pick a larger sigma and confirm it with check_sigma"
        )
    smallest = False
    for _ in range(64):
        below = math.nextafter(f, 0.0)
        if below == 0.0:  # f is the smallest positive float: no smaller sigma is a sigma
            smallest = True
            break
        verdict = _certified(Fraction(below), eps, sens, dlt, _MAX_PREC)
        if verdict is True:
            f = below
            continue
        smallest = verdict is False
        break

    # enclosure of σ*: a narrow bracket around the approximation, else the float bracket
    margin = approx / 2**90
    lo, hi = approx - margin, approx + margin
    if (_certified(lo, eps, sens, dlt, 424, start_prec=212) is False
            and _certified(hi, eps, sens, dlt, 424, start_prec=212) is True):
        exact = (lo, hi)
    elif smallest:
        exact = (Fraction(math.nextafter(f, 0.0)), Fraction(f))  # (0, 2**-1074) at the bottom
    else:
        exact = (Fraction(0), Fraction(f))  # only what is certain
    return Calibration(
        mechanism="gaussian-analytic",
        quantity="sigma",
        inputs={"epsilon": eps, "delta": dlt, "sensitivity": sens},
        exact=exact,
        safe_float=f,
        notes="smallest float whose delta(sigma) <= delta is certified by interval arithmetic "
              "(Balle & Wang 2018, Thm 8); exact encloses sigma*, where delta(sigma*) = delta",
        extra={"smallest": smallest},
    )


_EPSILON_STEPS = 80
"""Bisection steps of :func:`epsilon_of_sigma` (each halves the enclosure)."""

_FLOAT_MAX = Fraction(1.7976931348623157e308)


def _paper_epsilon(sigma: Fraction, dlt: Fraction, sens: Fraction) -> Fraction:
    """An ε at which δ(σ, ε) ≤ δ is certain on paper, exact.

    δ(σ) ≤ Φ(a − b) ≤ e^(−(b−a)²/2)/2 for b ≥ a (Chernoff), which is ≤ δ once b − a ≥ t
    with t² ≥ 2·ln(1/(2δ)); the integer t = isqrt(2L) + 1 with L ≥ log2(1/δ) (from bit
    lengths) is such a t, since 2·ln(1/(2δ)) < 2·L. And b − a ≥ t iff ε ≥ (t + Δ/(2σ))·Δ/σ."""
    t = math.isqrt(2 * max(_log2_of_inverse(dlt), 0)) + 1
    return (t + sens / (2 * sigma)) * sens / sigma


def _beyond_floats(sigma, sensitivity, delta, lo: Fraction) -> InvalidArgument:
    return InvalidArgument(
        f"sigma={shown(sigma)} (sensitivity={shown(sensitivity)}, delta={shown(delta)}) is certified "
        f"not private at epsilon={show_exact(lo, keep=24)}, and the smallest epsilon that is "
        f"private lies above the largest float (about 1.8e308); use a larger sigma"
    )


def _split(lo: Fraction, hi: Fraction) -> Fraction:
    """A point strictly inside (lo, hi): a power of two near the geometric mean while hi is
    many times lo (so that a bracket [1e3000, 1e6000] narrows in a dozen steps), else the
    midpoint."""
    if lo > 0 and hi > 4 * lo:
        k = (lo.numerator.bit_length() - lo.denominator.bit_length()
             + hi.numerator.bit_length() - hi.denominator.bit_length()) // 2
        mid = Fraction(2) ** k
        if lo < mid < hi:
            return mid
    return (lo + hi) / 2


def epsilon_of_sigma(sigma, delta, sensitivity=1) -> Calibration:
    """The smallest ε for which Gaussian noise ``sigma`` is (ε, δ)-DP (the inverse of
    :func:`analytic_sigma` in ε), certified.

    δ(σ, ε) decreases in ε, so ε* is bracketed by an ε certified not private and one
    certified private, then bisected; ``exact`` is that enclosure and ``safe_float`` the
    float at or above its upper end (an ε is never understated). 0 when σ is private at
    ε = 0. A float ``sigma`` is taken at its exact binary value.

    >>> r = epsilon_of_sigma(analytic_sigma("0.5", "1e-5").safe_float, "1e-5")
    >>> r.safe_float <= 0.5 + 1e-9, r.approx_text(6)
    (True, '[0.499999, 0.500000]')
    """
    s, _, sens = _inputs(sigma, 1, sensitivity)
    dlt = probability(delta, "delta")
    _check_sizes(delta=(delta, dlt))
    if _certified(s, Fraction(0), sens, dlt, _MAX_PREC) is True:
        return Calibration("gaussian", "epsilon", {"sigma": s, "delta": dlt, "sensitivity": sens},
                           Fraction(0), 0.0, notes="private at epsilon = 0")
    lo, hi = Fraction(0), Fraction(1)
    paper = _paper_epsilon(s, dlt, sens)
    while True:  # δ(σ, ε) -> 0 as ε grows: find a private ε, at most the one proved on paper
        hi = min(hi, paper)
        verdict = _certified(s, hi, sens, dlt, _MAX_PREC)
        if verdict is True:
            break
        if verdict is False:
            lo = hi
        if hi == paper:  # pragma: no cover - the paper bound is private with room to spare
            raise Undecided(f"epsilon={show_exact(paper, keep=24)}, private on paper for sigma={shown(sigma)}, "
                            f"could not be certified by intervals; pass a larger sigma")
        hi = hi * 4 if hi < 2**16 else hi * hi  # squaring: ε* can be 1e6000 (sigma = 1e-3000)
    if lo > _FLOAT_MAX:
        raise _beyond_floats(sigma, sensitivity, delta, lo)
    for _ in range(_EPSILON_STEPS + 64):  # at most about 14 geometric steps, then halving
        mid = _split(lo, hi)
        verdict = _certified(s, mid, sens, dlt, _MAX_PREC)
        if verdict is None:
            break  # δ(σ, mid) equals δ to the working precision: the enclosure is as tight as it gets
        if verdict:
            hi = mid
        else:
            lo = mid
        if hi - lo <= hi * Fraction(1, 2**60):
            break
    if hi > _FLOAT_MAX:
        raise _beyond_floats(sigma, sensitivity, delta, lo)
    return Calibration(
        "gaussian", "epsilon", {"sigma": s, "delta": dlt, "sensitivity": sens}, (lo, hi),
        float_at_least(hi),
        notes="epsilon* lies in the enclosure: the lower end is certified not private, the upper end private",
    )
