"""Exact query functions: count, sum, mean, median, quantiles, variance, std,
histograms, clipped variants and user-supplied functions."""

from exactdp.queries.base import UNDEFINED, Query
from exactdp.queries.builtin import (
    QUANTILE_METHODS, QUERY_NAMES, clipped, count, histogram, mean, median, parse_query,
    percentile, quantile, std, sum_, user_query, variance,
)

__all__ = [
    "UNDEFINED", "Query", "QUANTILE_METHODS", "QUERY_NAMES", "clipped", "count",
    "histogram", "mean", "median", "parse_query", "percentile", "quantile", "std",
    "sum_", "user_query", "variance",
]
