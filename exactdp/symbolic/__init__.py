"""Symbolic layer: stability maps as SymPy expressions, derived by composing stable steps.

>>> from exactdp.symbolic import make_clamp, make_sum
>>> (make_clamp() >> make_sum()).map()
d_in*Max(Abs(L), Abs(U))
>>> make_sum(L=2, U=10).map(1)
Fraction(10, 1)
"""

from exactdp.symbolic.catalogue import Entry, EntryCheck, Truth, catalogue, check_entry
from exactdp.symbolic.constructors import (
    make_change_to_symmetric, make_clamp, make_clipped_sum, make_count, make_gaussian,
    make_histogram, make_laplace, make_mean, make_quantile_score, make_sum,
    make_symmetric_to_change, make_variance, make_vector_sum,
)
from exactdp.symbolic.maps import Domain, Measurement, Transformation
from exactdp.numeric.formula import parse_expression, substitute
from exactdp.symbolic.verify import GridResult, assert_verified, verify

__all__ = [
    "Entry", "EntryCheck", "Truth", "catalogue", "check_entry", "make_change_to_symmetric",
    "make_clamp", "make_clipped_sum", "make_count", "make_gaussian", "make_histogram",
    "make_laplace", "make_mean", "make_quantile_score", "make_sum", "make_symmetric_to_change",
    "make_variance", "make_vector_sum", "Domain", "Measurement", "Transformation",
    "parse_expression", "substitute", "GridResult", "assert_verified", "verify",
]
