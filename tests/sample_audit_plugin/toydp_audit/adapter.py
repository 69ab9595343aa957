"""How the suite calls toydp: every call goes through :func:`call_library` (an exception of
the library becomes an ``error`` result naming the call, never a verdict), and every float
toydp returns is read at its exact binary value (:class:`fractions.Fraction` of the float).

toydp is imported here, inside the functions, so that importing the suite (``exactdp audit
--list``) costs nothing and needs no toydp.
"""

from __future__ import annotations

from fractions import Fraction

from exactdp.audits.runner import call_library


def _toydp():
    import toydp

    return toydp


def count(values) -> Fraction:
    """toydp's count, exactly."""
    return Fraction(call_library(f"toydp.count({list(values)!r})", _toydp().count, list(values)))


def count_claim() -> Fraction:
    """The sensitivity toydp claims for its count."""
    return Fraction(_toydp().COUNT_SENSITIVITY)


def bounded_sum(values, lower: float, upper: float) -> Fraction:
    """toydp's bounded sum of ``values``, at the exact value of the float it returns."""
    values = list(values)
    return Fraction(call_library(f"toydp.bounded_sum({values!r}, {lower!r}, {upper!r})",
                                 _toydp().bounded_sum, values, lower, upper))


def sum_claim(lower: float, upper: float) -> Fraction:
    """The sensitivity toydp claims for its bounded sum, at its exact binary value."""
    return Fraction(call_library(f"toydp.sum_sensitivity({lower!r}, {upper!r})",
                                 _toydp().sum_sensitivity, lower, upper))


def laplace_scale(sensitivity: float, epsilon: float) -> Fraction:
    """The Laplace scale toydp uses, at its exact binary value."""
    return Fraction(call_library(f"toydp.laplace_scale({sensitivity!r}, {epsilon!r})",
                                 _toydp().laplace_scale, sensitivity, epsilon))
