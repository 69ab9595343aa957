"""Seed 004's own numbers (Sherpa.ai, *The Laplace mechanism*): its population of heights,
its closed form of ``E|h - h'|``, its three typical sensitivities, its domain, what its
sampler printed, and its typical sensitivity under the relation it states and the one it
uses (:func:`seed004_typical_relations`, proof: ``proofs/s004-relation-mismatch.md``).

The general tools these numbers feed (:class:`~exactdp.mechanisms.calibration.typical.GaussianMixture`,
``expected_sensitivity``, ``true_epsilon``, the sensitivity sampler's guarantee and output
distribution) are in :mod:`exactdp.mechanisms.calibration.typical`, and the side-by-side
result of two relations in :mod:`exactdp.checkers.relation_mismatch`. The seed's claims
that use them are in the registry's sources (:mod:`exactdp.registry.privacy`,
``seed_corrections``, ``seed_semantics``, ``seed_remaining``); this module lists no claim
itself.

**The population.** :func:`height_mixture` is the seed's ``1/2 N(178, 7^2) + 1/2 N(162,
6.5^2)`` (``6.5`` is ``13/2``):

>>> heights = height_mixture()
>>> heights.mean, heights.variance
(Fraction(170, 1), Fraction(877, 8))

**E[Delta f] = E|h - h'|**, exact, checked against the seed's closed form
(:func:`check_seed_closed_form`, which simplifies their difference to 0 with the
parameters as symbols):

>>> from exactdp.numeric.rounding import decimal_at_least, decimal_at_most
>>> e = expected_sensitivity(heights)
>>> decimal_at_most(e, 12), decimal_at_least(e, 12)
(Decimal('11.9939205883'), Decimal('11.9939205884'))

**The true epsilon** on the seed's domain ``[0, 300]`` cm: ``300 epsilon/Delta_typ``:

>>> from exactdp.mechanisms.calibration.typical import sampler_output, true_epsilon
>>> r = true_epsilon(e, "1", SEED_DOMAIN)
>>> r.verdict, decimal_at_most(r.factor, 6), decimal_at_least(r.factor, 6)
('violated', Decimal('25.0126'), Decimal('25.0127'))

**What the sampler printed** (47.38 with shfl's ``m = k = 1325``):

>>> lo, hi = sampler_output(1325, 1325, mixture=heights).cdf(SEED004_PRINTED_SENSITIVITY)
>>> decimal_at_most(lo, 4), decimal_at_least(hi, 4)
(Decimal('0.7128'), Decimal('0.7129'))
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp.checkers.relation_mismatch import RelationMismatchResult, RelationValue, _judge
from exactdp.errors import InvalidArgument
from exactdp.mechanisms.calibration.typical import (
    GaussianMixture,
    _abs_normal_at,
    _mixture,
    expected_abs_normal,
    expected_sensitivity,
)
from exactdp.numeric.decide import to_sympy
from exactdp.numeric.exact import to_exact

__all__ = [
    "SEED_DOMAIN",
    "SEED004_PRINTED_MEAN",
    "SEED004_PRINTED_SENSITIVITY",
    "SEED_SAMPLED_SENSITIVITY",
    "check_seed_closed_form",
    "height_mixture",
    "seed004_typical_relations",
    "seed_closed_form",
    "typical_sensitivities",
]

SEED_DOMAIN = (Fraction(0), Fraction(300))
"""The seed's bound on heights in cm: "humans ... are never more than 3m tall"."""

SEED004_PRINTED_SENSITIVITY = "47.38"
"""The seed's "Sensitivity from sampling" (``round(sensitivity, 2)``)."""

SEED004_PRINTED_MEAN = "11.89"
"""The seed's "Mean sensitivity from sampling" (``round(mean, 2)``)."""

SEED_SAMPLED_SENSITIVITY = Fraction(SEED004_PRINTED_SENSITIVITY)
"""The sensitivity the seed's sampler printed (``round(sensitivity, 2)``, gamma = 0.05)."""


def height_mixture(mu_m=178, sigma_m=7, mu_f=162, sigma_f="6.5") -> GaussianMixture:
    """The seed's heights in cm: ``1/2 N(mu_M, sigma_M^2) + 1/2 N(mu_F, sigma_F^2)``."""
    return GaussianMixture.of([("1/2", mu_m, sigma_m), ("1/2", mu_f, sigma_f)])


def seed_closed_form(mu_m, mu_f, sigma_m, sigma_f) -> sympy.Expr:
    """The seed's formula for ``E[Delta f]`` with two equal weights, as written there:
    ``1/(2 sqrt pi) (sigma_M + sigma_F + sqrt(2(sigma_M^2+sigma_F^2)) (e^{-m^2} +
    sqrt(pi) m erf(m)))``, ``m = (mu_M - mu_F)/sqrt(2(sigma_M^2+sigma_F^2))``. Arguments may
    be SymPy symbols or exact numbers."""
    args = [sympy.sympify(a) if isinstance(a, sympy.Basic) else to_sympy(to_exact(a, n))
            for a, n in ((mu_m, "mu_m"), (mu_f, "mu_f"), (sigma_m, "sigma_m"), (sigma_f, "sigma_f"))]
    mu_m, mu_f, sigma_m, sigma_f = args
    root = sympy.sqrt(2 * (sigma_m**2 + sigma_f**2))
    m = (mu_m - mu_f) / root
    return (sigma_m + sigma_f + root * (sympy.exp(-m**2) + sympy.sqrt(sympy.pi) * m * sympy.erf(m))) / (
        2 * sympy.sqrt(sympy.pi))


def check_seed_closed_form() -> sympy.Expr:
    """Check, with the parameters as symbols, that the derived ``E|h - h'|`` of
    ``1/2 N(mu_M, sigma_M^2) + 1/2 N(mu_F, sigma_F^2)`` equals :func:`seed_closed_form`.

    Returns the simplified difference, which is ``0``; raises ``AssertionError`` otherwise.

    >>> check_seed_closed_form()
    0
    """
    mu_m, mu_f = sympy.symbols("mu_M mu_F", real=True)
    sigma_m, sigma_f = sympy.symbols("sigma_M sigma_F", positive=True)
    half = sympy.Rational(1, 2)
    comps = [(half, mu_m, sigma_m), (half, mu_f, sigma_f)]
    derived = sympy.Integer(0)
    for wi, mi, si in comps:
        for wj, mj, sj in comps:
            derived += wi * wj * _abs_normal_at(mi - mj, si**2 + sj**2)
    difference = sympy.simplify(derived - seed_closed_form(mu_m, mu_f, sigma_m, sigma_f))
    if difference != 0:  # pragma: no cover - a SymPy regression
        raise AssertionError(f"derived - seed closed form simplifies to {difference}, not 0")
    return difference


def typical_sensitivities(mixture: GaussianMixture | None = None) -> dict[str, sympy.Expr]:
    """The seed's three typical sensitivities, exact: ``E[Delta f]``, ``E[Delta f] + sigma``
    and ``E[Delta f] + 2 sigma`` (``sigma`` the mixture's standard deviation; default: the
    seed's heights).

    >>> sorted(typical_sensitivities())
    ['E[Delta f]', 'E[Delta f] + 2 sigma', 'E[Delta f] + sigma']
    """
    mixture = height_mixture() if mixture is None else _mixture(mixture)
    e = expected_sensitivity(mixture)
    return {"E[Delta f]": e, "E[Delta f] + sigma": e + mixture.sigma,
            "E[Delta f] + 2 sigma": e + 2 * mixture.sigma}


# --- the relation stated and the relation used ------------------------------------------


def _expected_abs(mixture) -> sympy.Expr:
    """``E|h|`` for ``h`` from the mixture, exact: ``sum_i w_i E|N(mu_i, sigma_i^2)|``."""
    mu, s, e = expected_abs_normal()
    total = sympy.Integer(0)
    for w, m, sg in zip(mixture.weights, mixture.means, mixture.sigmas):
        total += to_sympy(w) * e.subs({mu: to_sympy(m), s: to_sympy(sg)}, simultaneous=True)
    return total


def seed004_typical_relations(mixture=None) -> RelationMismatchResult:
    """Seed 004's typical sensitivity under the relation it states (add/remove: ``E|h|``)
    and the one it uses (replacement: ``E|h - h'|``), exact, for the seed's heights (or
    ``mixture``, a :class:`~exactdp.mechanisms.calibration.typical.GaussianMixture`)."""
    if mixture is None:
        mixture = height_mixture()
    elif not isinstance(mixture, GaussianMixture):
        raise InvalidArgument(f"mixture={mixture!r} is not a GaussianMixture; build one with "
                              f"GaussianMixture.of([(weight, mean, sigma), ...])")
    stated = RelationValue(
        "add-remove", "stated", _expected_abs(mixture),
        "E|f(x) - f(y)| with x = (h), y = () (one record removed), h drawn from the heights: E|h|",
        "every pair ((h), ()) counts |h|")
    used = RelationValue(
        "substitute", "used", expected_sensitivity(mixture),
        "E|f(x) - f(y)| with x = (h), y = (h'), both drawn: E|h - h'|",
        "the seed's closed form, 11.99 cm at its parameters")
    return RelationMismatchResult(
        "seed 004's typical sensitivity E[Delta f] of the height query (one record, f = its sum)",
        stated, used, _judge(used.value, stated.value),
        f"h, h' independent from {mixture}; Delta f defined over ||x - y||_1 = 1 (add/remove), "
        f"E|h - h'| is over ||x - y||_1 = 2 (one record replaced)")
