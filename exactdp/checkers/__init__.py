"""Checkers: exact sensitivity by enumeration, verdicts and witnesses, and the search for
float witnesses (neighbouring datasets whose float sum moves more than a claim)."""

from exactdp._lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, __file__)  # the names: __init__.pyi
