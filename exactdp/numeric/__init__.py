"""Numeric layer: exact conversion (and, later, directed rounding and intervals)."""

from exactdp.numeric.exact import from_float, to_exact, format_exact

__all__ = ["from_float", "to_exact", "format_exact"]
