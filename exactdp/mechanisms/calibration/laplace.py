"""The Laplace mechanism: scale ``b = Δ/ε`` for ε-DP, exactly, and the ε a scale achieves.

Adding Laplace noise of scale ``b`` to a query of L1 sensitivity ``Δ`` is ``(Δ/b)``-DP
(Dwork, McSherry, Nissim & Smith 2006). Both directions are exact rationals here;
the float handed out is rounded **up** (a larger scale, a larger ε spent: never less
private than stated).

>>> r = laplace_scale("0.1", sensitivity=3)
>>> r.exact, r.safe_float
(Fraction(30, 1), 30.0)
>>> laplace_scale("0.3").safe_float   # 10/3 rounded up, not float(10/3)
3.3333333333333335
>>> laplace_epsilon(0.1).exact       # the float 0.1 a library stores is a hair above 1/10
Fraction(36028797018963968, 3602879701896397)
"""

from __future__ import annotations

from exactdp.mechanisms.calibration._calibration import Calibration
from exactdp.mechanisms._params import positive, stored_positive
from exactdp.numeric.rounding import float_at_least

__all__ = ["laplace_scale", "laplace_epsilon"]


def laplace_scale(epsilon, sensitivity=1) -> Calibration:
    """The Laplace scale ``b = Δ/ε`` for ε-DP, exact, with its float rounded up.

    ``epsilon`` and ``sensitivity`` are exact (anything ``to_exact`` takes: ``"0.1"`` is
    one tenth); a float is refused.

    >>> laplace_scale("1/2").exact
    Fraction(2, 1)
    """
    eps = positive(epsilon, "epsilon")
    delta_1 = positive(sensitivity, "sensitivity")
    b = delta_1 / eps
    return Calibration(
        mechanism="laplace",
        quantity="scale",
        inputs={"epsilon": eps, "sensitivity": delta_1},
        exact=b,
        safe_float=float_at_least(b),
        notes="b = sensitivity/epsilon; safe_float is the smallest float >= b",
    )


def laplace_epsilon(scale, sensitivity=1) -> Calibration:
    """The ε spent by Laplace noise of scale ``scale``: ``ε = Δ/b``, exact, float rounded up.

    ``scale`` is typically a float a library stores: a float is taken at its **exact
    binary value** (``from_float``), since that is the scale the noise really has. An
    exact number (``"10/3"``) is taken as written. ``sensitivity`` is exact.

    >>> laplace_epsilon("10/3").exact
    Fraction(3, 10)
    >>> laplace_epsilon(3.3333333333333335).safe_float >= 0.3
    True
    """
    b = stored_positive(scale, "scale")
    delta_1 = positive(sensitivity, "sensitivity")
    eps = delta_1 / b
    return Calibration(
        mechanism="laplace",
        quantity="epsilon",
        inputs={"scale": b, "sensitivity": delta_1},
        exact=eps,
        safe_float=float_at_least(eps),
        notes="epsilon = sensitivity/scale; a float scale is taken at its exact binary value",
    )
