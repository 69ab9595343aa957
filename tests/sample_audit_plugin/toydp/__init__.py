"""toydp: a toy differential-privacy library, the audited code of exactdp's sample plug-in.

It makes three claims, as a real library's documentation would:

* :func:`count` has sensitivity :data:`COUNT_SENSITIVITY` (1) when one record is added or
  removed;
* :func:`bounded_sum` moves by at most :func:`sum_sensitivity` (``max(|lower|, |upper|)``)
  when one record is added or removed;
* Laplace noise of scale :func:`laplace_scale` (``sensitivity / epsilon``) gives
  epsilon-differential privacy.

The last two are the ones real libraries get wrong in float64: the sum is computed left to
right in floats (each addition rounds), and the scale is one rounded division.
"""

__version__ = "0.1.0"

COUNT_SENSITIVITY = 1


def count(values) -> int:
    """The number of records."""
    return len(values)


def clamp(x: float, lower: float, upper: float) -> float:
    """``x`` clamped into ``[lower, upper]``."""
    return min(max(x, lower), upper)


def bounded_sum(values, lower: float, upper: float) -> float:
    """The sum of the records clamped into ``[lower, upper]``, added left to right in float64."""
    total = 0.0
    for v in values:
        total += clamp(float(v), lower, upper)
    return total


def sum_sensitivity(lower: float, upper: float) -> float:
    """What toydp claims: adding or removing one record moves :func:`bounded_sum` by at
    most ``max(|lower|, |upper|)``."""
    return max(abs(lower), abs(upper))


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """The scale of the Laplace noise toydp adds for epsilon-DP: ``sensitivity / epsilon``."""
    return sensitivity / epsilon
