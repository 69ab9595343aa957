"""Private selection over finite candidates ``0..m-1``: the query value is the tuple of
utilities ``(u(x, 0), ..., u(x, m-1))`` (``input_kind = "vector"``).

* ``exponential`` (McSherry & Talwar 2007): ``P(o) ∝ exp(c·u_o)`` with ``c = ε/(2Δ)``
  (``form="2delta"``, ε-DP for any utility of sensitivity Δ) or ``c = ε/Δ``
  (``form="monotone"``, ε-DP when the utilities of neighbours all move the same way;
  up to 2ε otherwise). Probabilities are kept as ``exp(c(u_o - M)) / Σ_j exp(c(u_j - M))``
  with ``M = max u``: subtracting any constant from every score gives the same
  :class:`Distribution`, exactly.
* ``report-noisy-max`` with ``noise="gumbel"``: ``argmax_o u_o + Gumbel(2Δ/ε)``, identical in
  distribution to the exponential mechanism's 2Δ form (the Gumbel-max trick), so it is one.
* ``report-noisy-max`` with ``noise="exponential"`` and ``permute-and-flip`` (McKenna &
  Sheldon 2020): permute-and-flip visits the candidates in a uniformly random order and
  stops at ``o`` with probability ``p_o = exp(c(u_o - M))``, ``c = ε/(2Δ)``; report-noisy-max
  with one-sided exponential noise of scale ``2Δ/ε`` has the same output distribution
  (Ding, Zhang, Kifer et al., "The Permute-and-Flip Mechanism is Identical to
  Report-Noisy-Max with Exponential Noise", arXiv:2105.07260; re-checked in the tests by
  exact integration for 2 and 3 candidates). Exactly:

      P(o) = p_o · Σ_{k=0}^{m-1} k!(m-1-k)!/m! · e_k({1 - p_s : s ≠ o}),

  ``e_k`` the elementary symmetric polynomials (the set of candidates visited before ``o``
  is a uniformly random subset given its size ``k``): ``O(m²)`` products of exponential
  polynomials, budgeted by ``max_candidates``.

All probabilities are ratios of exponential polynomials with rational exponents
(:mod:`exactdp.mechanisms.models._exppoly`), so epsilon and ``delta(ε)`` at a rational ε are
decided exactly, ties included.

>>> em = make_mechanism("exponential", epsilon=1, sensitivity=1)
>>> em.distribution((0, 0)).p(0)
Fraction(1, 2)
>>> em.epsilon((0, 0), (1, -1)).value
log(1/2 + E/2)
>>> pf = make_mechanism("permute-and-flip", epsilon=2, sensitivity=1)
>>> pf.distribution((0, -1)).p(1)
exp(-1)/2
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.models._exppoly import ExpPoly, ExpPolyMechanism, log_ratio
from exactdp.mechanisms._params import positive, shown
from exactdp.mechanisms.distribution import Divergence
from exactdp.mechanisms.mechanism import make_mechanism  # noqa: F401 (doctests)
from exactdp.numeric.exact import to_exact

__all__ = ["DEFAULT_MAX_CANDIDATES", "ExponentialMechanism", "PermuteAndFlip"]

DEFAULT_MAX_CANDIDATES = 200
"""Most candidates a selection model takes (each comparison multiplies sums of ``m``
exponentials; permute-and-flip's formula builds ``m²`` of them)."""


def _utilities(value, max_candidates: int) -> tuple[Fraction, ...]:
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()] if value.strip() else []
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        raise InvalidArgument(
            f"value={shown(value)} is one number; the query value of a selection mechanism is "
            f"the tuple of utilities (u(x, 0), ..., u(x, m-1)) of its candidates")
    try:
        items = list(value)
    except TypeError:
        raise InvalidArgument(f"value={value!r} is not a sequence of utilities") from None
    if not items:
        raise InvalidArgument("the candidate list is empty; give at least one utility, e.g. (0, 1)")
    refuse_above(len(items), max_candidates, what="candidates", option="max_candidates",
                 hint="select among fewer candidates")
    return tuple(to_exact(u, f"utility of candidate {i}") for i, u in enumerate(items))


def _form(form: str) -> str:
    if form not in ("2delta", "monotone"):
        raise InvalidArgument(f"form={form!r} is not known; use '2delta' (exp(eps*u/(2*Delta))) "
                              f"or 'monotone' (exp(eps*u/Delta), for monotone utilities)")
    return form


class _Selection(ExpPolyMechanism):
    input_kind = "vector"

    def __init__(self, *, epsilon, sensitivity=1, max_candidates=DEFAULT_MAX_CANDIDATES):
        self.eps = positive(epsilon, "epsilon")
        self.sensitivity = positive(sensitivity, "sensitivity")
        if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or max_candidates < 1:
            max_candidates = int(to_exact(max_candidates, "max_candidates"))
        self.max_candidates = max_candidates
        super().__init__(epsilon=self.eps, sensitivity=self.sensitivity)

    def check_value(self, value):
        return _utilities(value, self.max_candidates)



class ExponentialMechanism(_Selection):
    """The exponential mechanism over candidates ``0..m-1`` (see the module docstring)."""

    name = "exponential"

    def __init__(self, *, epsilon, sensitivity=1, form="2delta", max_candidates=DEFAULT_MAX_CANDIDATES):
        self.form = _form(form)
        super().__init__(epsilon=epsilon, sensitivity=sensitivity, max_candidates=max_candidates)
        self.params["form"] = form
        self.c = self.eps / (2 * self.sensitivity) if form == "2delta" else self.eps / self.sensitivity

    def _weights(self, u, top: Fraction) -> list[ExpPoly]:
        return [ExpPoly.monomial(self.c * (x - top)) for x in u]

    def fractions(self, value) -> dict:
        u = self.check_value(value)
        w = self._weights(u, max(u))
        z = sum(w[1:], w[0])
        return {o: (w[o], z) for o in range(len(u))}

    def epsilon(self, a, b) -> Divergence:
        """Exact: ``P(o)/Q(o) = exp(c(u_o - u'_o)) · Z'/Z``, so each direction peaks at the
        largest score change, and one exact comparison picks the direction."""
        ua, ub = self.check_pair(a, b)
        top = max(max(ua), max(ub))
        za, zb = (sum(self._weights(u, top)[1:], self._weights(u, top)[0]) for u in (ua, ub))
        d = [x - y for x, y in zip(ua, ub)]
        up, down = max(d), max(-x for x in d)
        # direction a->b: exp(c*up) zb/za; b->a: exp(c*down) za/zb; compare their squares' ratio
        if (zb * zb).shifted(self.c * up).__sub__((za * za).shifted(self.c * down)).sign() >= 0:
            shift, num, den, o = self.c * up, zb, za, d.index(up)
        else:
            shift, num, den, o = self.c * down, za, zb, d.index(-down)
        value = log_ratio(num.shifted(shift), den)
        if isinstance(value, sympy.Basic) and value.is_Rational:
            value = Fraction(int(value.p), int(value.q))
        return Divergence(value, o)


class PermuteAndFlip(_Selection):
    """Permute-and-flip, equivalently report-noisy-max with exponential noise (module
    docstring)."""

    name = "permute-and-flip"

    def fractions(self, value) -> dict:
        u = self.check_value(value)
        m, top = len(u), max(u)
        c = self.eps / (2 * self.sensitivity)
        p = [ExpPoly.monomial(c * (x - top)) for x in u]
        one = ExpPoly.constant(1)
        out = {}
        weights = [Fraction(math.factorial(k) * math.factorial(m - 1 - k), math.factorial(m))
                   for k in range(m)]
        for o in range(m):
            e = [one] + [ExpPoly() for _ in range(m - 1)]  # e_k of the others, k = 0..m-1
            for s in range(m):
                if s == o:
                    continue
                f = one - p[s]
                for k in range(m - 1, 0, -1):
                    e[k] = e[k] + e[k - 1] * f
            total = ExpPoly()
            for k in range(m):
                total = total + e[k].scaled(weights[k])
            out[o] = (p[o] * total, one)
        return out


class _NoisyMaxExponential(PermuteAndFlip):
    name = "report-noisy-max"


class _NoisyMaxGumbel(ExponentialMechanism):
    name = "report-noisy-max"



def report_noisy_max(*, noise, epsilon, sensitivity=1, max_candidates=DEFAULT_MAX_CANDIDATES):
    if noise == "gumbel":
        m = _NoisyMaxGumbel(epsilon=epsilon, sensitivity=sensitivity, max_candidates=max_candidates)
    elif noise == "exponential":
        m = _NoisyMaxExponential(epsilon=epsilon, sensitivity=sensitivity, max_candidates=max_candidates)
    else:
        raise InvalidArgument(f"noise={noise!r} is not known; use 'gumbel' or 'exponential' "
                              f"(Laplace noise is not modelled)")
    m.params = {"noise": noise, **m.params}
    return m
