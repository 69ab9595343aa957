"""Symbolic layer: safe parsing of claims into SymPy expressions (more to come)."""

from exactdp.symbolic.parse import parse_expression

__all__ = ["parse_expression"]
