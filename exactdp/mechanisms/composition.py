"""Composition of privacy guarantees: exact where the theorem is rational, enclosed and
rounded up where it is not.

- :func:`compose_sequential`: basic composition, ``(sum of epsilons, sum of deltas)``,
  exact rationals.
- :func:`compose_zcdp`: zCDP composes by adding ``rho`` (Bun & Steinke 2016), exact.
- :func:`advanced_composition`: the k-fold theorem of Dwork, Rothblum and Vadhan (FOCS
  2010; Dwork & Roth 2014, Thm 3.20): ``k`` mechanisms, each ``(epsilon, delta)``-DP,
  compose to ``(sqrt(2k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1), k delta +
  delta')``-DP for every ``delta' > 0``. The total epsilon is irrational; it is returned
  as an exact SymPy expression, an interval enclosure and a float never below it.

>>> compose_sequential([("0.1", "1e-6"), ("0.9", 0)])
(Fraction(1, 1), Fraction(1, 1000000))
>>> compose_zcdp(["1/8", "3/8"])
Fraction(1, 2)
>>> advanced_composition("0.1", 0, 100, "1e-6").epsilon_float
6.308230950513408
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import nonnegative, probability, shown
from exactdp.numeric.exact import format_exact, to_exact
from exactdp.numeric.intervals import (
    decide,
    enclose,
    exact_interval,
    float_at_least_of,
    interval_to_fractions,
)
from exactdp.numeric.rounding import float_at_least

_PREC = 64
_FLOAT_MAX = Fraction((2**53 - 1) * 2**971)
"""Working precision (bits) of the enclosure stored in a result; comparisons and safe
floats refine it as far as they need."""

__all__ = ["AdvancedComposition", "advanced_composition", "compose_sequential", "compose_zcdp"]


def compose_sequential(spends: Iterable) -> tuple[Fraction, Fraction]:
    """Basic sequential composition: the exact ``(sum of epsilon, sum of delta)``.

    Each item is an ``epsilon`` (pure DP) or a pair ``(epsilon, delta)``, in any exact
    form (ints, Fractions, Decimals, strings such as ``"1e-6"``); floats are refused.
    Each ``delta`` is a probability in ``[0, 1]``; the total may exceed 1 (a vacuous
    guarantee, which fits no budget).

    >>> compose_sequential(["0.1", "0.9"])
    (Fraction(1, 1), Fraction(0, 1))
    """
    eps_total, delta_total = Fraction(0), Fraction(0)
    for i, item in enumerate(spends):
        if isinstance(item, (tuple, list)):
            if len(item) != 2:
                raise InvalidArgument(
                    f"spends[{i}]={shown(item)} is not an (epsilon, delta) pair; give a pair or a bare epsilon"
                )
            eps, delta = item
        else:
            eps, delta = item, 0
        eps_total += nonnegative(eps, f"spends[{i}] epsilon")
        delta_total += probability(delta, f"spends[{i}] delta")
    return eps_total, delta_total


def compose_zcdp(rhos: Iterable) -> Fraction:
    """zCDP composition: the exact sum of the ``rho`` values (Bun & Steinke 2016, Lemma 2.3).

    >>> compose_zcdp([Fraction(1, 2), "0.25"])
    Fraction(3, 4)
    """
    return sum((nonnegative(rho, f"rhos[{i}]") for i, rho in enumerate(rhos)), Fraction(0))


# --- advanced composition ------------------------------------------------------


@dataclass(frozen=True)
class AdvancedComposition:
    """The k-fold advanced-composition guarantee ``(epsilon, delta)``.

    ``delta = k*delta_each + delta_prime`` is exact. ``epsilon`` is irrational:
    ``epsilon_expr`` is its exact SymPy expression, ``epsilon_interval`` an
    ``mpmath.iv`` enclosure and ``epsilon_float`` the smallest float ``>=`` it.
    """

    k: int
    epsilon_each: Fraction
    delta_each: Fraction
    delta_prime: Fraction
    delta: Fraction
    epsilon_interval: object
    epsilon_float: float

    @property
    def enclosure(self):
        """``fn(iv)`` enclosing the total epsilon, for the functions of
        :mod:`exactdp.numeric.intervals` (``decide``, ``float_at_most_of``, ...)."""
        return _advanced_epsilon_enclosure(self.k, self.epsilon_each, self.delta_prime)

    @property
    def epsilon_expr(self):
        """The exact total epsilon as a SymPy expression."""
        return _advanced_epsilon_sympy(self.k, self.epsilon_each, self.delta_prime)

    def epsilon_at_most(self, bound) -> bool:
        """Whether the exact total epsilon is ``<= bound`` (an exact number).

        Decided by enclosures refined until they settle; raises
        :class:`~exactdp.errors.Undecided` if they never do.
        """
        return decide(self.enclosure, "<=", to_exact(bound, "bound"))

    def fits(self, epsilon, delta) -> bool:
        """Whether the composed guarantee fits in the budget ``(epsilon, delta)``."""
        return self.delta <= probability(delta, "delta") and self.epsilon_at_most(epsilon)

    def to_dict(self) -> dict:
        lo, hi = interval_to_fractions(self.epsilon_interval)
        return {
            "method": "advanced",
            "k": self.k,
            "epsilon_each": format_exact(self.epsilon_each),
            "delta_each": format_exact(self.delta_each),
            "delta_prime": format_exact(self.delta_prime),
            "epsilon": {"exact": str(self.epsilon_expr), "interval": [format_exact(lo), format_exact(hi)],
                        "float_at_least": self.epsilon_float},
            "delta": {"exact": format_exact(self.delta), "float_at_least": float_at_least(self.delta)},
        }


def advanced_composition(epsilon, delta, k: int, delta_prime) -> AdvancedComposition:
    """Advanced composition (Dwork, Rothblum, Vadhan 2010) of ``k`` mechanisms, each
    ``(epsilon, delta)``-DP, for the slack ``delta_prime`` in ``(0, 1)``.

    The result is ``(sqrt(2k ln(1/delta_prime))*epsilon + k*epsilon*(e^epsilon - 1),
    k*delta + delta_prime)``; epsilon is enclosed and rounded up (``epsilon_float``).
    For mechanisms with different parameters, compose their maxima (each is then
    ``(max epsilon, max delta)``-DP). Basic composition (:func:`compose_sequential`) is
    smaller when ``k`` is small; both are valid.

    ``delta`` must be a probability, but the total ``k*delta + delta_prime`` may exceed 1,
    as a sum of :func:`compose_sequential` may: the guarantee is then vacuous, and
    :meth:`AdvancedComposition.fits` is ``False`` for every budget (an overspend, not an
    error).

    >>> r = advanced_composition("0.1", "1e-7", 100, "1e-6")
    >>> r.delta
    Fraction(11, 1000000)
    >>> r.epsilon_at_most("6.30823095052"), r.epsilon_at_most("6.30823095051")
    (True, False)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={shown(k)} is not a positive int; pass how many mechanisms are composed")
    eps = nonnegative(epsilon, "epsilon")
    dlt = probability(delta, "delta")
    dp = to_exact(delta_prime, "delta_prime")
    if not 0 < dp < 1:
        raise InvalidArgument(
            f"delta_prime={shown(delta_prime)} is not in (0, 1); advanced composition needs a slack "
            f"0 < delta_prime < 1, such as '1e-6'"
        )
    fn = _advanced_epsilon_enclosure(k, eps, dp)
    interval = enclose(fn, prec=_PREC)
    if interval_to_fractions(interval)[1] > _FLOAT_MAX:
        raise InvalidArgument(
            f"epsilon={shown(epsilon)} composed {k} times gives an epsilon beyond the largest float "
            f"(e^epsilon is too large): no meaningful guarantee; basic composition gives "
            f"{shown(k * eps)}"
        )
    return AdvancedComposition(k, eps, dlt, dp, k * dlt + dp, interval, float_at_least_of(fn))


def _advanced_epsilon_sympy(k: int, eps: Fraction, dp: Fraction):
    import sympy

    e = sympy.Rational(eps.numerator, eps.denominator)
    inv = sympy.Rational(dp.denominator, dp.numerator)
    return sympy.sqrt(2 * k * sympy.log(inv)) * e + k * e * (sympy.exp(e) - 1)


def _advanced_epsilon_enclosure(k: int, eps: Fraction, dp: Fraction):
    """``fn(iv)`` for :mod:`exactdp.numeric.intervals`: encloses the total epsilon."""

    def fn(iv):
        e = exact_interval(eps)
        return iv.sqrt(2 * k * iv.log(exact_interval(1 / dp))) * e + k * e * (iv.exp(e) - 1)

    return fn
