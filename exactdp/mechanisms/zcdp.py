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
    floats (any α is valid, so that search needs no care); the bound **at that α** is
    then enclosed with intervals and rounded up. ``extra["alpha"]`` is that α (exact);
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

from fractions import Fraction

import mpmath
import sympy

from exactdp.errors import InvalidArgument
from exactdp.mechanisms._calibration import Calibration, positive, probability, stored_positive
from exactdp.numeric.intervals import enclose, exact_interval, float_at_least_of, interval_to_fractions, log1p
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


def _cks_fn(rho: Fraction, dlt: Fraction, alpha: Fraction):
    """``fn(iv)`` enclosing ε(α) = αρ + (ln(1/δ) + (α−1)·log1p(−1/α) − ln α)/(α−1)."""

    def fn(iv):
        a, r, d = exact_interval(alpha), exact_interval(rho), exact_interval(dlt)
        am1 = exact_interval(alpha - 1)
        return a * r + (-iv.log(d) + am1 * log1p(-1 / a) - iv.log(a)) / am1

    return fn


def _cks_float(rho: float, log_inv_delta: float, alpha: float) -> float:
    return alpha * rho + (log_inv_delta + (alpha - 1) * mpmath.log1p(-1 / alpha) - mpmath.log(alpha)) / (alpha - 1)


def _best_alpha(rho: Fraction, dlt: Fraction) -> Fraction:
    """A near-optimal α > 1 for the CKS bound, by golden-section search on log(α - 1) in mpmath
    floats. Any α is valid; only the bound's size depends on this choice."""
    with mpmath.workprec(64):
        r = mpmath.mpf(rho.numerator) / rho.denominator
        lid = -mpmath.log(mpmath.mpf(dlt.numerator) / dlt.denominator)

        def f(u):  # u = log(α - 1)
            return _cks_float(r, lid, 1 + mpmath.exp(u))

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
        alpha = 1 + mpmath.exp((lo + hi) / 2)
        # an exact rational α: the float's exact value
        return Fraction(float(alpha))


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
    lo, hi = interval_to_fractions(enclose(fn, prec=128))
    # For large δ the bound can be negative; (ε, δ)-DP with ε < 0 implies (0, δ)-DP, and a
    # negative ε means nothing to a user: report max(0, bound), as Steinke's cdp_eps does.
    lo, hi, safe = max(lo, Fraction(0)), max(hi, Fraction(0)), max(safe, 0.0)
    return Calibration(
        mechanism="zcdp-to-approx",
        quantity="epsilon",
        inputs={"rho": r, "delta": dlt},
        exact=(lo, hi),
        safe_float=safe,
        notes="Canonne-Kamath-Steinke 2020 bound at the order alpha shown (valid for every alpha > 1); "
              "exact encloses the bound at that alpha, not the infimum over alpha",
        extra={"method": "cks", "alpha": a},
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
    return _cks_result(r, dlt, _best_alpha(r, dlt))
