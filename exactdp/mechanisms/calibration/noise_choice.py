"""Laplace or Gaussian noise after ``MaxGroupsPerID(g)`` and ``MaxRowsPerGroupPerID(r)``
(seed 001): which has the smaller variance depends on how the two budgets are compared.

A user contributes to at most ``g`` groups with at most ``r`` rows each, so the count
vector moves by ``g*r`` in L1 (Laplace) and ``r*sqrt(g)`` in L2 (Gaussian). Per group:

* Laplace, ``epsilon``-DP: scale ``b = g r / epsilon``, variance ``2 g^2 r^2 / epsilon^2``.
* Gaussian compared through zCDP (Tumult's ``rhoZCDP``; ``epsilon``-DP implies
  ``epsilon^2/2``-zCDP, so the budget ``rho = epsilon^2/2``): ``sigma^2 = r^2 g /
  (2 rho)``, variance ``r^2 g / epsilon^2``. Laplace/Gaussian variance ratio ``2 g``:
  **the Gaussian is smaller for every** ``g >= 1``.
* Gaussian compared at the same ``(epsilon, delta)``: ``sigma = sigma_1 r sqrt(g)`` with
  ``sigma_1`` the analytic sigma for sensitivity 1, variance ``sigma_1^2 r^2 g``; ratio
  ``2 g / (epsilon^2 sigma_1^2)``: Laplace is smaller while ``g < epsilon^2 sigma_1^2 / 2``
  (``g <= 6`` at ``epsilon = 1``, ``delta = 1e-5``), the Gaussian from there on.

The seed says "for low sensitivity values and comparable privacy budgets, Laplace noise
tends to have a smaller variance": true in the second comparison (small ``g``), false in
the first, which is the comparison Tumult's ``rhoZCDP`` default makes.

>>> c = compare_noise(groups=3, rows=2, epsilon=1)
>>> c.laplace_variance, c.gaussian_variance_zcdp, c.ratio_zcdp
(Fraction(72, 1), Fraction(12, 1), Fraction(6, 1))
>>> laplace_better_below(epsilon=1, delta="1e-5")
7
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from exactdp.errors import InvalidArgument
from exactdp.mechanisms._params import open_probability, positive, whole
from exactdp.mechanisms.calibration.gaussian import analytic_sigma
from exactdp.numeric.exact import show_exact

__all__ = ["NoiseComparison", "compare_noise", "laplace_better_below"]


@dataclass(frozen=True)
class NoiseComparison:
    """Exact per-group noise variances of the two mechanisms, both ways of comparing."""

    groups: int
    rows: int
    epsilon: Fraction
    laplace_variance: Fraction
    gaussian_variance_zcdp: Fraction  # rho = epsilon^2 / 2
    ratio_zcdp: Fraction  # Laplace / Gaussian = 2 g
    delta: Fraction | None = None
    gaussian_variance_approx: tuple[Fraction, Fraction] | None = None  # enclosure at (epsilon, delta)
    laplace_smaller_approx: bool | None = None  # at (epsilon, delta), decided from the enclosure

    def summary(self) -> str:
        text = (f"g={self.groups}, r={self.rows}, epsilon={show_exact(self.epsilon)}: Laplace variance "
                f"{show_exact(self.laplace_variance)}; Gaussian at rho=epsilon^2/2: "
                f"{show_exact(self.gaussian_variance_zcdp)} (Laplace/Gaussian = "
                f"{show_exact(self.ratio_zcdp)})")
        if self.delta is not None:
            side = "Laplace" if self.laplace_smaller_approx else "Gaussian"
            text += f"; at the same (epsilon, delta={show_exact(self.delta)}): {side} is smaller"
        return text


def compare_noise(groups, rows, epsilon, delta=None) -> NoiseComparison:
    """Both comparisons for ``MaxGroupsPerID(groups)`` and ``MaxRowsPerGroupPerID(rows)``."""
    g, r = whole(groups, "groups", 1), whole(rows, "rows", 1)
    eps = positive(epsilon, "epsilon")
    lap = 2 * Fraction(g * r) ** 2 / eps**2
    gz = Fraction(r * r * g) / eps**2
    out = dict(groups=g, rows=r, epsilon=eps, laplace_variance=lap, gaussian_variance_zcdp=gz,
               ratio_zcdp=lap / gz)
    if delta is not None:
        dlt = open_probability(delta, "delta")
        lo, hi = analytic_sigma(eps, dlt).exact
        var = (lo * lo * r * r * g, hi * hi * r * r * g)
        if lap < var[0]:
            smaller = True
        elif lap > var[1]:
            smaller = False
        else:  # pragma: no cover - the enclosure is about 2**-90 wide
            smaller = None
        out.update(delta=dlt, gaussian_variance_approx=var, laplace_smaller_approx=smaller)
    return NoiseComparison(**out)


def laplace_better_below(epsilon, delta) -> int:
    """The smallest ``g`` from which the Gaussian (at the same ``(epsilon, delta)``) has the
    smaller variance: Laplace wins exactly for ``g < epsilon^2 sigma_1^2 / 2``."""
    eps = positive(epsilon, "epsilon")
    dlt = open_probability(delta, "delta")
    lo, hi = analytic_sigma(eps, dlt).exact
    t_lo, t_hi = eps * eps * lo * lo / 2, eps * eps * hi * hi / 2
    if math.floor(t_lo) != math.floor(t_hi) or t_lo == math.floor(t_lo):  # pragma: no cover
        raise InvalidArgument("the crossover lies on a whole number within the enclosure; cannot decide")
    return math.floor(t_hi) + 1
