"""Mechanism models with exact output distributions (see :mod:`exactdp.mechanisms.mechanism`).

* ``randomized-response``: report the true value (one of ``k_values`` values ``0..k-1``)
  with probability ``p``, else each other value with probability ``(1-p)/(k-1)``; given
  ``p`` or ``epsilon`` (then ``p = e^epsilon / (e^epsilon + k - 1)``). Its pure epsilon is
  ``log(p (k-1) / (1-p))`` exactly.

>>> rr = make_mechanism("randomized-response", p="3/4")
>>> rr.epsilon(0, 1).value
log(3)
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import positive, whole
from exactdp.mechanisms.distribution import Distribution
from exactdp.mechanisms.mechanism import Mechanism, make_mechanism, one_number
from exactdp.numeric.exact import show_exact, to_exact

__all__ = ["RandomizedResponse", "make_mechanism"]

MAX_K_VALUES = 10_000
"""Most values a randomized response may have (its distribution lists every output, each
compared exactly; as the discrete Laplace's ``MAX_RANGE``)."""


class RandomizedResponse(Mechanism):
    """k-ary randomized response on an input in ``0..k_values-1``."""

    name = "randomized-response"

    def __init__(self, *, p=None, epsilon=None, k_values=2):
        k = whole(k_values, "k_values", 2)
        refuse_above(k, MAX_K_VALUES, what=f"outputs (k_values={show_exact(k)})", option=None,
                     hint="use a smaller k_values")
        if (p is None) == (epsilon is None):
            raise InvalidArgument("randomized-response takes p=... or epsilon=..., exactly one")
        if p is not None:
            prob = to_exact(p, "p")
            if not Fraction(1, k) <= prob < 1:
                raise InvalidArgument(
                    f"p={show_exact(prob)} is outside [1/k, 1) for k_values={k}; p is the "
                    f"probability of reporting the true value"
                )
            self.p = prob
        else:
            eps = positive(epsilon, "epsilon")
            e = sympy.exp(sympy.Rational(eps.numerator, eps.denominator))
            self.p = e / (e + k - 1)  # irrational: an exact SymPy real
            self._other = 1 / (e + k - 1)
        self.k = k
        super().__init__(**({"p": self.p} if p is not None else {"epsilon": to_exact(epsilon, "epsilon")}),
                         k_values=k)

    def check_value(self, value):
        v = one_number(value, self)
        if v.denominator != 1 or not 0 <= v < self.k:
            raise InvalidArgument(
                f"value={show_exact(v)} is not an input of randomized response over 0..{self.k - 1}"
            )
        return int(v)

    def distribution(self, value) -> Distribution:
        v = self.check_value(value)
        if isinstance(self.p, Fraction):
            other = (1 - self.p) / (self.k - 1)
            return Distribution({o: (self.p if o == v else other) for o in range(self.k)})
        probs = {o: (self.p if o == v else self._other) for o in range(self.k)}
        return Distribution(probs, _normalised=True)
