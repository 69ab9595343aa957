"""Numeric layer: exact conversion, directed rounding, interval enclosures, float formats
and bit-exact float summation models with sound sensitivity bounds.

>>> from exactdp.numeric import float_at_least, float_at_most
>>> float_at_least("0.1"), float_at_most("0.1")
(0.1, 0.09999999999999999)
"""

from exactdp._lazy import exports_of, lazy_exports

_EXPORTS = exports_of({
    "exactdp.numeric.exact": (
        "format_exact", "from_float", "to_exact", "float_reading", "current_float_reading"),
    "exactdp.numeric.floatformat": ("FLOAT32", "FLOAT64", "FloatFormat", "FloatOverflow", "format_named"),
    "exactdp.numeric.floatsum": ("MODELS", "float_sum", "float_sum_float"),
    "exactdp.numeric.floatsum_bounds": ("exact_sum_sensitivity", "opendp_relaxation", "sensitivity_bound"),
    "exactdp.numeric.fixedwidth": ("IntFormat", "b_ary_tree", "int_sum", "saturate", "wrap"),
    "exactdp.numeric.intervals": ("decide", "enclose", "interval_to_fractions", "normal_cdf", "refine_until"),
    "exactdp.numeric.rounding": (
        "ceiling_context", "decimal_at_least", "decimal_at_most", "exact_decimal_context",
        "float_at_least", "float_at_most", "floor_context"),
})
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
