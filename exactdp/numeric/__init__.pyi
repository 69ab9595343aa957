# The public names of exactdp.numeric, for type checkers and for the lazy loader: exactdp._lazy reads
# this file at import to learn which module defines each name (one table, read by both).

from exactdp.numeric.exact import (
    format_exact as format_exact,
    from_float as from_float,
    to_exact as to_exact,
    float_reading as float_reading,
    current_float_reading as current_float_reading,
)
from exactdp.numeric.floatformat import (
    FLOAT32 as FLOAT32,
    FLOAT64 as FLOAT64,
    FloatFormat as FloatFormat,
    FloatOverflow as FloatOverflow,
    format_named as format_named,
)
from exactdp.numeric.floatsum import (
    MODELS as MODELS,
    float_sum as float_sum,
    float_sum_float as float_sum_float,
)
from exactdp.numeric.floatsum_bounds import (
    exact_sum_sensitivity as exact_sum_sensitivity,
    opendp_relaxation as opendp_relaxation,
    sensitivity_bound as sensitivity_bound,
)
from exactdp.numeric.fixedwidth import (
    IntFormat as IntFormat,
    b_ary_tree as b_ary_tree,
    int_sum as int_sum,
    saturate as saturate,
    wrap as wrap,
)
from exactdp.numeric.intervals import (
    decide as decide,
    enclose as enclose,
    interval_to_fractions as interval_to_fractions,
    normal_cdf as normal_cdf,
    refine_until as refine_until,
)
from exactdp.numeric.rounding import (
    ceiling_context as ceiling_context,
    decimal_at_least as decimal_at_least,
    decimal_at_most as decimal_at_most,
    exact_decimal_context as exact_decimal_context,
    float_at_least as float_at_least,
    float_at_most as float_at_most,
    floor_context as floor_context,
)

__all__ = ['format_exact', 'from_float', 'to_exact', 'float_reading', 'current_float_reading', 'FLOAT32', 'FLOAT64', 'FloatFormat', 'FloatOverflow', 'format_named', 'MODELS', 'float_sum', 'float_sum_float', 'exact_sum_sensitivity', 'opendp_relaxation', 'sensitivity_bound', 'IntFormat', 'b_ary_tree', 'int_sum', 'saturate', 'wrap', 'decide', 'enclose', 'interval_to_fractions', 'normal_cdf', 'refine_until', 'ceiling_context', 'decimal_at_least', 'decimal_at_most', 'exact_decimal_context', 'float_at_least', 'float_at_most', 'floor_context']
