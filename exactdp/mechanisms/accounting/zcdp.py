"""Zero-concentrated DP: ρ of the Gaussian mechanism and of pure ε-DP, and ρ → (ε, δ).

- :func:`rho_of_sigma`: Gaussian noise σ on L2 sensitivity Δ is ``ρ = Δ²/(2σ²)``-zCDP
  (Bun & Steinke 2016); exact when σ is rational (a float σ is taken at its exact
  binary value, ``from_float``).
- :func:`rho_of_epsilon`: ε-DP implies ``ρ = ε²/2``-zCDP (Bun & Steinke 2016).
- :func:`epsilon_of_rho`: ρ-zCDP implies (ε, δ)-DP with

  * ``method="bun-steinke"``: ``ε = ρ + 2·sqrt(ρ·ln(1/δ))`` (exact SymPy value);
  * ``method="cks"`` (default, Canonne, Kamath & Steinke 2020, Prop. via Rényi DP of
    order α): for **every** α > 1, (ε(α), δ)-DP with
    ``ε(α) = αρ + (ln(1/δ) + (α−1)·ln(1−1/α) − ln α)/(α−1)``. A good α is found in
    mpmath floats (any α is valid, so that search needs no care); the bound **at that α**
    is then enclosed with intervals, computed from the exact α − 1 (α can be 1 + 4e-151),
    and rounded up. Should that ever exceed the Bun-Steinke float, the Bun-Steinke result
    is returned instead and its notes say so. ``extra["alpha"]`` is that α (exact);
    ``exact`` encloses ``max(0, ε(α))`` at that α, which is within float noise of, but
    not claimed to be, the infimum over α.

All safe floats are rounded up (never below the exact value).

>>> rho_of_sigma(2).exact
Fraction(1, 8)
>>> epsilon_of_rho("0.5", "1e-6").safe_float
5.221534444530169
>>> epsilon_of_rho("0.5", "1e-6", method="bun-steinke").safe_float
5.756521769756932
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import mpmath
import sympy

from exactdp.errors import InvalidArgument
from exactdp.mechanisms.calibration._calibration import Calibration
from exactdp.mechanisms._params import open_probability as probability
from exactdp.mechanisms._params import positive, stored_positive
from exactdp.numeric.intervals import (
    _hi,
    _to_fraction,
    enclose,
    exact_interval,
    float_at_least_of,
    interval_to_fractions,
    log1p,
)
from exactdp.numeric.rounding import float_at_least

__all__ = ["rho_of_sigma", "rho_of_epsilon", "epsilon_of_rho", "cks_epsilon_at", "METHODS"]

METHODS = ("cks", "bun-steinke")


def rho_of_sigma(sigma, sensitivity=1) -> Calibration:
    """``ρ = Δ²/(2σ²)`` of Gaussian noise σ on L2 sensitivity Δ, exact; float rounded up.

    A float ``sigma`` is taken at its exact binary value (it is the σ the noise has).

    >>> rho_of_sigma("1/2", sensitivity=1).exact
    Fraction(2, 1)
    """
    s = stored_positive(sigma, "sigma")
    sens = positive(sensitivity, "sensitivity")
    rho = sens * sens / (2 * s * s)
    return Calibration(
        mechanism="gaussian-zcdp",
        quantity="rho",
        inputs={"sigma": s, "sensitivity": sens},
        exact=rho,
        safe_float=float_at_least(rho),
        notes="rho = sensitivity**2/(2*sigma**2) (Bun & Steinke 2016)",
    )


def rho_of_epsilon(epsilon) -> Calibration:
    """``ρ = ε²/2``: ε-DP implies ρ-zCDP (Bun & Steinke 2016). Exact; float rounded up.

    >>> rho_of_epsilon("0.1").exact
    Fraction(1, 200)
    """
    eps = positive(epsilon, "epsilon")
    rho = eps * eps / 2
    return Calibration(
        mechanism="pure-to-zcdp",
        quantity="rho",
        inputs={"epsilon": eps},
        exact=rho,
        safe_float=float_at_least(rho),
        notes="rho = epsilon**2/2 (Bun & Steinke 2016)",
    )


def _log_one_minus_inverse(t, iv):
    """Enclosure of ``ln(1 - 1/α)`` for α = 1 + t (``t`` an interval enclosing an exact t > 0).

    Written as ``ln t - log1p(t)`` for t < 1 (α near 1, where ``1/α`` rounds to 1 and the
    log1p form loses everything) and ``log1p(-1/(1 + t))`` for t >= 1 (where the difference
    of logarithms cancels)."""
    if _hi(t) < 1:
        return iv.log(t) - log1p(t)
    return log1p(-1 / (1 + t))


def _cks_fn(rho: Fraction, dlt: Fraction, alpha: Fraction):
    """``fn(iv)`` enclosing ε(α) = αρ + (ln(1/δ) + (α−1)·ln(1−1/α) − ln α)/(α−1).

    Computed from t = α − 1 (exact), never from α: near α = 1 (large ρ, where the best
    α − 1 is about sqrt(ln(1/δ)/ρ)) the float or interval α rounds to 1."""
    t_exact = alpha - 1

    def fn(iv):
        t, r, d = exact_interval(t_exact), exact_interval(rho), exact_interval(dlt)
        return r + t * r + (-iv.log(d) + t * _log_one_minus_inverse(t, iv) - log1p(t)) / t

    return fn


def _cks_excess_float(rho, log_inv_delta, t):
    """ε(1 + t) − ρ in mpmath floats (no cancellation against ρ, which can be 1e300)."""
    if t < 1:
        l1 = mpmath.log(t) - mpmath.log1p(t)
    else:
        l1 = mpmath.log1p(-1 / (1 + t))
    return t * rho + (log_inv_delta + t * l1 - mpmath.log1p(t)) / t


def _best_alpha(rho: Fraction, dlt: Fraction) -> Fraction:
    """A near-optimal α > 1 for the CKS bound. Any α is valid; only the bound's size depends
    on this choice.

    The search works with t = α − 1 throughout and returns ``1 + t`` with ``t`` an exact
    dyadic rational > 0, so α > 1 however close to 1 the optimum is (about 1 + 3.7e-151 at
    ρ = 1e300, δ = 1e-6). Candidates: a golden-section search on u = log t, and, for large
    ρ, the minimiser t = 2L/(1 + sqrt(1 + 4ρL)) of ρt + L/t + ln t (L = ln(1/δ)), which is
    what ε(1 + t) − ρ is for small t up to O(t). The better one (in ε(1 + t) − ρ, computed
    without cancelling against ρ) is kept. The precision grows with ρ: ε − ρ ≈ 2·sqrt(ρL)
    must be resolved to O(1) (the CKS gain over Bun-Steinke is about |ln t|), and t to
    half of that."""
    prec = 64 + max(0, rho.numerator.bit_length() - rho.denominator.bit_length())
    with mpmath.workprec(prec):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        lid = -mpmath.log(mpmath.mpf(dlt.numerator) / dlt.denominator)

        def f(u):  # u = log(α - 1)
            return _cks_excess_float(r, lid, mpmath.exp(u))

        # ε(α) ≈ αρ + ln(1/δ)/(α−1): minimum near α ≈ 1 + sqrt(ln(1/δ)/ρ)
        centre = mpmath.log(mpmath.sqrt(lid / r))
        lo, hi = centre - 12, centre + 12
        g = (mpmath.sqrt(5) - 1) / 2
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        f1, f2 = f(x1), f(x2)
        for _ in range(90):
            if f1 < f2:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - g * (hi - lo)
                f1 = f(x1)
            else:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + g * (hi - lo)
                f2 = f(x2)
        t = mpmath.exp((lo + hi) / 2)
        t_large_rho = 2 * lid / (1 + mpmath.sqrt(1 + 4 * r * lid))
        if _cks_excess_float(r, lid, t_large_rho) < _cks_excess_float(r, lid, t):
            t = t_large_rho
    with mpmath.workprec(max(53, prec - 11)):
        t = +t  # a shorter exact rational, > 0 (mpf has no underflow)
    return 1 + _to_fraction(t)


def cks_epsilon_at(rho, delta, alpha) -> Calibration:
    """The CKS20 bound ε(α) for ρ-zCDP at δ, at the given order ``alpha > 1``, enclosed.

    Valid for every α > 1 (Canonne, Kamath & Steinke 2020). ``alpha`` is exact (a float
    is taken at its exact binary value).

    >>> cks_epsilon_at("0.5", "1e-6", 7).safe_float
    5.324116054990903
    """
    r = positive(rho, "rho")
    dlt = probability(delta, "delta")
    a = stored_positive(alpha, "alpha")
    if a <= 1:
        raise InvalidArgument(f"alpha={alpha!r} is not > 1; the Renyi order must exceed 1")
    return _cks_result(r, dlt, a)


def _cks_result(r: Fraction, dlt: Fraction, a: Fraction) -> Calibration:
    fn = _cks_fn(r, dlt, a)
    safe = float_at_least_of(fn)
    # ε(α) − ρ is about 2·sqrt(ρ·ln(1/δ)): for a large ρ, half of ρ's bits go to ρ itself
    # before the enclosure says anything about the CKS term
    prec = 128 + max(0, r.numerator.bit_length() - r.denominator.bit_length()) // 2
    lo, hi = interval_to_fractions(enclose(fn, prec=prec))
    # For large δ the bound can be negative; (ε, δ)-DP with ε < 0 implies (0, δ)-DP, and a
    # negative ε means nothing to a user: report max(0, bound), as Steinke's cdp_eps does.
    # A tiny rho gives one too (rho = 1e-20, delta = 1e-6: about -1e-6 at alpha = 1e6): then 0 is
    # exact, not an underestimate; Pinsker agrees whenever sqrt(rho/2) <= delta (total variation).
    negative = hi < 0
    lo, hi, safe = max(lo, Fraction(0)), max(hi, Fraction(0)), max(safe, 0.0)
    notes = ("Canonne-Kamath-Steinke 2020 bound at the order alpha shown (valid for every alpha > 1); "
             "exact encloses the bound at that alpha, not the infimum over alpha")
    extra = {"method": "cks", "alpha": a}
    if negative:
        notes += ("; the bound at that alpha is negative, and (epsilon, delta)-DP with epsilon < 0 "
                  "implies (0, delta)-DP: epsilon = 0 holds exactly")
        extra["negative_at_alpha"] = True
    return Calibration(
        mechanism="zcdp-to-approx",
        quantity="epsilon",
        inputs={"rho": r, "delta": dlt},
        exact=(lo, hi),
        safe_float=safe,
        notes=notes,
        extra=extra,
    )


def _bun_steinke_result(r: Fraction, dlt: Fraction) -> Calibration:
    R = sympy.Rational
    rr, dd = R(r.numerator, r.denominator), R(dlt.numerator, dlt.denominator)
    eps = rr + 2 * sympy.sqrt(rr * sympy.log(1 / dd))
    return Calibration(
        mechanism="zcdp-to-approx",
        quantity="epsilon",
        inputs={"rho": r, "delta": dlt},
        exact=eps,
        safe_float=float_at_least(eps),
        notes="epsilon = rho + 2*sqrt(rho*log(1/delta)) (Bun & Steinke 2016)",
        extra={"method": "bun-steinke"},
    )


def epsilon_of_rho(rho, delta, method: str = "cks") -> Calibration:
    """ε such that ρ-zCDP implies (ε, δ)-DP; the safe float is rounded up.

    ``method`` is ``"cks"`` (tighter; Canonne, Kamath & Steinke 2020, at a near-optimal
    α reported in ``extra["alpha"]``) or ``"bun-steinke"`` (ε = ρ + 2·sqrt(ρ·ln(1/δ))).
    """
    r = positive(rho, "rho")
    dlt = probability(delta, "delta")
    if method not in METHODS:
        raise InvalidArgument(f"method={method!r} is not one of {METHODS}; use 'cks' (tighter) or 'bun-steinke'")
    if method == "bun-steinke":
        return _bun_steinke_result(r, dlt)
    cks = _cks_result(r, dlt, _best_alpha(r, dlt))
    # The CKS bound at its best α is below Bun-Steinke (which is αρ + ln(1/δ)/(α−1) at its
    # best α, and CKS subtracts a positive term from that); should the α found or the
    # rounding ever make it worse, the Bun-Steinke bound (also valid) is reported instead.
    bs = _bun_steinke_result(r, dlt)
    if cks.safe_float <= bs.safe_float:
        return cks
    return replace(
        bs,
        notes=bs.notes + f"; reported instead of the Canonne-Kamath-Steinke bound, which at the order "
                         f"alpha found ({float(cks.extra['alpha'])!r}) rounds up to {cks.safe_float!r}, "
                         f"above this",
        extra={"method": "bun-steinke", "requested": "cks", "cks_alpha": cks.extra["alpha"]},
    )
