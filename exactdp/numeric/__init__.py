"""Numeric layer: exact conversion, directed rounding, interval enclosures, float formats
and bit-exact float summation models with sound sensitivity bounds.

>>> from exactdp.numeric import float_at_least, float_at_most
>>> float_at_least("0.1"), float_at_most("0.1")
(0.1, 0.09999999999999999)
"""

from exactdp.numeric.exact import format_exact, from_float, to_exact
from exactdp.numeric.floatformat import (
    FLOAT32, FLOAT64, FloatFormat, FloatOverflow, format_named,
)
from exactdp.numeric.floatsum import MODELS, float_sum, float_sum_float
from exactdp.numeric.floatsum_bounds import (
    exact_sum_sensitivity, opendp_relaxation, sensitivity_bound,
)
from exactdp.numeric.intervals import (
    decide, enclose, interval_to_fractions, normal_cdf, refine_until,
)
from exactdp.numeric.rounding import (
    ceiling_context, decimal_at_least, decimal_at_most, exact_decimal_context,
    float_at_least, float_at_most, floor_context,
)

__all__ = [
    "format_exact", "from_float", "to_exact", "FLOAT32", "FLOAT64", "FloatFormat",
    "FloatOverflow", "format_named", "MODELS", "float_sum", "float_sum_float",
    "exact_sum_sensitivity", "opendp_relaxation", "sensitivity_bound", "decide", "enclose",
    "interval_to_fractions", "normal_cdf", "refine_until", "ceiling_context",
    "decimal_at_least", "decimal_at_most", "exact_decimal_context", "float_at_least",
    "float_at_most", "floor_context",
]
